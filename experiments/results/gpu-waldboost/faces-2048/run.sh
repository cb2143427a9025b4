#!/usr/bin/env bash
# Session 19: the face sequence trained to 2048 tables (configs/faces-lbp.yaml, backward pruning)
# against the 1024-table one padded to 2048 (.bundle/ab/faces-lbp-1024.h5): gpu_test (the
# shipped-model comparisons read experiments/models/faces-lbp.h5, now the 2048-table one), then
# faces 1920×1080, 2048 weak classifiers, strides 1 and 2, alternating, two rounds.
source experiments/gpu/device_env.sh  # out, B, D, row, t0, run_gpu_test, bench_faces
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
for r in 1 2; do
  bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-2048-$r
  bench_faces $B/cascade .bundle/ab/faces-lbp-1024.h5 fa-1024-$r
done
