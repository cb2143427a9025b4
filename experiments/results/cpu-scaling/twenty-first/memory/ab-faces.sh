#!/usr/bin/env bash
# Session 21: faces only, the memory budget (this binary) against the area budget
# (.bundle/ab/head.tar.xz, commit c71f123), four alternating interleaved 1,16-thread rounds on one
# host after 16 pinned one-thread runs at once; efficiency of each 16-thread row against them.
source experiments/gpu/device_env.sh  # out, B, D, t0, faces_cpu, pinned_faces, efficiency
mkdir -p /tmp/h /tmp/sc && tar xJf .bundle/ab/head.tar.xz -C /tmp/h
pinned_faces $B/cascade /tmp/pin-faces.txt
for r in 1 2 3 4; do
  for bin in memory area; do
    b=$B/cascade; [ $bin = area ] && b=/tmp/h/gpu/bin/cascade
    timeout 200 $b "${faces_cpu[@]}" --cpu-repeats 9 --cpu-threads 1,16 --out /tmp/sc/faces-$bin-$r.md > /dev/null 2>&1
  done
done
efficiency /tmp/pin-faces.txt /tmp/sc/faces-*.md | grep -v "one level\|many" | tee "$out/ab-faces.txt"
echo "done at $(( $(date +%s) - t0 )) s"
