#!/usr/bin/env bash
# Session 21: frames in flight (detect_batch's slots) again, with this session's kernels: the
# people hybrid (1280x960, x1.05, stride 8) and faces (1920x1080, 8 levels per octave over 4
# octaves, 2048 weak, strides 1 and 2) batched with 4, 8 and 16 slots (batches of 4 x slots),
# two rounds of people, one of faces with 4 and 16; the batched ms per frame of each (the design
# table's default row).
source experiments/gpu/device_env.sh  # out, B, D, t0
for r in 1 2; do
  for s in 4 8 16; do
    timeout 100 $B/cascade -q bench detect --model experiments/models/inria-hybrid.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 \
      --no-cpu --frame "$D/bench-frame.ppm" --slots $s --batch $((4 * s)) --out /tmp/pe-$s-$r.md > /dev/null 2>&1
    echo "people slots $s round $r: $(grep -A3 'batched, block atomics' /tmp/pe-$s-$r.md | grep '^| 1280' | awk -F'|' '{print $5}')"
    [ $r = 2 ] || [ $s = 8 ] && continue
    timeout 100 $B/cascade -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 --max-scale 16 \
      --strides 1,2 --lbp-weak 2048 --no-cpu --frame "$D/face-frame.ppm" --slots $s --batch $((4 * s)) --out /tmp/fa-$s-$r.md > /dev/null 2>&1
    echo "faces slots $s round $r: $(grep -A4 'batched, block atomics' /tmp/fa-$s-$r.md | grep '^| 1920' | awk -F'|' '{printf "stride %s %s  ", $4, $5}')"
  done
done | tee "$out/slots.txt"
echo "done at $(( $(date +%s) - t0 )) s"
