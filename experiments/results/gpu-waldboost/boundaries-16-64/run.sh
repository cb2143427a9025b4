#!/usr/bin/env bash
# Session 19: the default WaldBoost compaction boundaries 16, 64 (one launch from weak classifier
# 64 to the end, a warp per window) against HEAD's 16, 64, 256 (the part from 256 a block per
# window; .bundle/ab/cascade-base), with the pruned face sequence: gpu_test, then faces
# 1920×1080, 2048 weak classifiers, strides 1 and 2, alternating, three rounds.
source experiments/gpu/device_env.sh  # out, B, D, row, t0, run_gpu_test, bench_faces
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
for r in 1 2 3; do
  bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-new-$r
  bench_faces .bundle/ab/cascade-base experiments/models/faces-lbp.h5 fa-base-$r
done
