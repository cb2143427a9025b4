#!/usr/bin/env bash
# Session 16, run 2: gray staging with AVX2. Staging micro-benchmarks, gpu_test, then faces (stride 1, 2)
# new / old / new / old and the people hybrid.
source experiments/gpu/device_env.sh  # out, B, D, row, run_gpu_test
t0=$(date +%s)
./.bundle/graybench; ./.bundle/stagebench
run_gpu_test 220; echo "  at $(( $(date +%s) - t0 )) s"
fa() { timeout 120 $1 -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/$2.md" > /dev/null 2>&1
  echo "$2 rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$2.md"; grep -A9 "frame in gray" "$out/$2.md" | grep "^| 1920"; grep -A6 "per step" "$out/$2.md" | grep "^| 1920"; }
fa $B/cascade fa-new-1
fa .bundle/s15-cascade fa-old-1
fa $B/cascade fa-new-2
timeout 60 $B/cascade -q bench detect --model experiments/models/inria-hybrid.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 \
  --no-cpu --frame $D/bench-frame.ppm --out "$out/pe.md" > /dev/null 2>&1
echo "people hybrid rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/pe.md"; grep -A9 "frame in gray" "$out/pe.md" | grep "^| 1280"
