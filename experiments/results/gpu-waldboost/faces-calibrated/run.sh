#!/usr/bin/env bash
# Session 18, run 3: the face sequence retrained with rejection thresholds set on unseen faces
# (configs/faces-lbp.yaml: waldboost.calibration_every 5, alpha 0.1; 1024 tables) against the one
# it replaces (.bundle/ab/faces-lbp-old.h5, 186 tables): gpu_test (the shipped-model comparisons
# read experiments/models/faces-lbp.h5, now the new one; the mining test trains with the new
# trainer), then faces 1920×1080, 2048 weak classifiers (both padded), strides 1 and 2,
# alternating, two rounds.
source experiments/gpu/device_env.sh  # out, B, D, row, run_gpu_test
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
fa() { timeout 100 $B/cascade -q bench detect --model $1 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/$2.md" > /dev/null 2>&1
  echo "$2 rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$2.md"
  grep -A14 'Survivors after each launch' "$out/$2.md" | grep '^| 1920x1080 | ×1.09051 | 1 |'; }
for r in 1 2; do
  fa experiments/models/faces-lbp.h5 fa-new-$r
  fa .bundle/ab/faces-lbp-old.h5 fa-old-$r
done
