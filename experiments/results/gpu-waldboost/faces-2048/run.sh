#!/usr/bin/env bash
# Session 19: the face sequence trained to 2048 tables (configs/faces-lbp.yaml, backward pruning)
# against the 1024-table one padded to 2048 (.bundle/ab/faces-lbp-1024.h5): gpu_test (the
# shipped-model comparisons read experiments/models/faces-lbp.h5, now the 2048-table one), then
# faces 1920×1080, 2048 weak classifiers, strides 1 and 2, alternating, two rounds.
source experiments/gpu/device_env.sh  # out, B, D, row, run_gpu_test
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
fa() { timeout 100 $B/cascade -q bench detect --model $1 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/$2.md" > /dev/null 2>&1
  echo "$2 rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$2.md"
  grep -A14 'Survivors after each launch' "$out/$2.md" | grep '^| 1920x1080 | ×1.09051 | 1 |'; }
for r in 1 2; do
  fa experiments/models/faces-lbp.h5 fa-2048-$r
  fa .bundle/ab/faces-lbp-1024.h5 fa-1024-$r
done
