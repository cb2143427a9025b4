#!/usr/bin/env bash
# Session 21: the memory budget (level_memory_in_flight 256 MiB, this binary) against the area
# budget (level_area_in_flight 2, .bundle/ab/head.tar.xz: the binary of commit c71f123) on one
# host, alternating: interleaved 1,16-thread rounds of `cascade bench detect --cpu-threads`, two
# for faces and one for each people model, 16-thread rows.
source experiments/gpu/device_env.sh  # out, B, D, t0, faces_cpu, people_cpu
mkdir -p /tmp/h /tmp/sc && tar xJf .bundle/ab/head.tar.xz -C /tmp/h
for r in 1 2; do
  for bin in memory area; do
    b=$B/cascade; [ $bin = area ] && b=/tmp/h/gpu/bin/cascade
    timeout 200 $b "${faces_cpu[@]}" --cpu-repeats 9 --cpu-threads 1,16 --out /tmp/sc/faces-$bin-$r.md > /dev/null 2>&1
    echo "faces $bin $r: $(grep -E '^\| 1920x1080 \| ×1.1 \| 2 \| 16 \|' /tmp/sc/faces-$bin-$r.md)"
  done
done | tee "$out/ab.txt"
for m in inria-hog-cascade inria-hybrid; do
  for bin in memory area; do
    b=$B/cascade; [ $bin = area ] && b=/tmp/h/gpu/bin/cascade
    timeout 200 $b "${people_cpu[@]}" --model experiments/models/$m.h5 --cpu-repeats 7 --cpu-threads 1,16 --out /tmp/sc/$m-$bin.md > /dev/null 2>&1
    echo "$m $bin: $(grep -E '^\| 1280x960 \| ×1.05 \| 8 \| 16 \|' /tmp/sc/$m-$bin.md)"
  done
done | tee -a "$out/ab.txt"
echo "done at $(( $(date +%s) - t0 )) s"
