#!/usr/bin/env bash
# Session 18, run 3: the face sequence retrained with rejection thresholds set on unseen faces
# (configs/faces-lbp.yaml: waldboost.calibration_every 5, alpha 0.1; 1024 tables) against the one
# it replaces (.bundle/ab/faces-lbp-old.h5, 186 tables): gpu_test (the shipped-model comparisons
# read experiments/models/faces-lbp.h5, now the new one; the mining test trains with the new
# trainer), then faces 1920×1080, 2048 weak classifiers (both padded), strides 1 and 2,
# alternating, two rounds.
source experiments/gpu/device_env.sh  # out, B, D, row, t0, run_gpu_test, bench_faces
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
for r in 1 2; do
  bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-new-$r
  bench_faces $B/cascade .bundle/ab/faces-lbp-old.h5 fa-old-$r
done
