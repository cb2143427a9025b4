#!/usr/bin/env bash
# Session 18: lbp_part_kernel reads a window's integral-image points through one pointer
# (window_points) instead of gray + origin folded into every corner's address.
#   run.sh bench     gpu_test with it; the faces (1920×1080, 2048 weak classifiers, strides 1 and 2)
#                    with it and with HEAD's binary (.bundle/ab/cascade-base), alternating, two
#                    rounds; the face sequence retrained with waldboost.rejection_rounds 8
#                    (.bundle/ab/rr8.h5) with it
#   run.sh sanitize  memcheck and racecheck of the WaldBoost tests
source experiments/gpu/device_env.sh  # out, B, D, row, t0, run_gpu_test, bench_faces, sanitize_waldboost
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ "${1:-bench}" = sanitize ]; then sanitize_waldboost; exit 0; fi
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
for r in 1 2; do
  bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-wp-$r
  bench_faces .bundle/ab/cascade-base experiments/models/faces-lbp.h5 fa-base-$r
done
[ -f .bundle/ab/rr8.h5 ] && bench_faces $B/cascade .bundle/ab/rr8.h5 fa-rr8-wp
