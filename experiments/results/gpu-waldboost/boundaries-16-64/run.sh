#!/usr/bin/env bash
# Session 19: the default WaldBoost compaction boundaries 16, 64 (one launch from weak classifier
# 64 to the end, a warp per window) against HEAD's 16, 64, 256 (the part from 256 a block per
# window; .bundle/ab/cascade-base), with the pruned face sequence: gpu_test, then faces
# 1920×1080, 2048 weak classifiers, strides 1 and 2, alternating, three rounds.
source experiments/gpu/device_env.sh  # out, B, D, row, run_gpu_test
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
fa() { timeout 100 $1 -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/$2.md" > /dev/null 2>&1
  echo "$2 rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$2.md"
  grep -A14 'Survivors after each launch' "$out/$2.md" | grep '^| 1920x1080 | ×1.09051 | 1 |'; }
for r in 1 2 3; do
  fa $B/cascade fa-new-$r
  fa .bundle/ab/cascade-base fa-base-$r
done
