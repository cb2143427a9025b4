#!/usr/bin/env bash
# Session 20, on the GPU machine's host: feature storage that only grows (no serial zeroing of
# each frame's first level) and the gray integral image in bands, against HEAD's binary
# (.bundle/ab/head.tar.xz, the session's first): faces 1920x1080 x1.1 stride 2 and the HoG
# cascade 1280x960 x1.05 stride 8, 1 and 16 threads, alternating, two rounds; then the phases
# (phases.diff still in) and the efficiency against 16 pinned one-thread detectors at once.
source experiments/gpu/device_env.sh  # out, B, D, t0
mkdir -p /tmp/h && tar xJf .bundle/ab/head.tar.xz -C /tmp/h
fa=(--model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.1 --strides 2 --frame $D/face-frame.ppm)
pe=(--model experiments/models/inria-hog-cascade.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 --frame $D/bench-frame.ppm)
for r in 1 2; do
  for bin in new head; do
    b=$B/cascade; [ $bin = head ] && b=/tmp/h/gpu/bin/cascade
    for m in fa pe; do
      declare -n a=$m
      timeout 120 $b -q bench detect --backend cpu "${a[@]}" --cpu-repeats 9 --cpu-threads 1,16 --out "$out/$m-$bin-$r.md" > /dev/null 2>&1
      echo "$m $bin $r rc=$? $(grep -E '^\| [0-9]+x[0-9]+ \| ×[0-9.]+ \| [0-9] \| 16 \|' "$out/$m-$bin-$r.md")"
    done
  done
done
echo "at $(( $(date +%s) - t0 )) s"
bash experiments/results/cpu-scaling/twentieth/integral-bands.sh 2>&1 | tail -8
