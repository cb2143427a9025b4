#!/usr/bin/env bash
# Session 18: lbp_part_kernel reads a window's integral-image points through one pointer
# (window_points) instead of gray + origin folded into every corner's address.
#   run.sh bench     gpu_test with it; the faces (1920×1080, 2048 weak classifiers, strides 1 and 2)
#                    with it and with HEAD's binary (.bundle/ab/cascade-base), alternating, two
#                    rounds; the face sequence retrained with waldboost.rejection_rounds 8
#                    (.bundle/ab/rr8.h5) with it
#   run.sh sanitize  memcheck and racecheck of the WaldBoost tests
source experiments/gpu/device_env.sh  # out, B, D, row, run_gpu_test
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
if [ "${1:-bench}" = sanitize ]; then
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_test \
      --gtest_filter='GpuDetector.RandomWaldBoost*:GpuDetector.ShippedModels*' > "$out/memcheck.log" 2>&1
  echo "memcheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)" "$out/memcheck.log"
  timeout 350 compute-sanitizer --tool racecheck --error-exitcode 9 $B/gpu_test \
      --gtest_filter='GpuDetector.RandomWaldBoost*' > "$out/racecheck.log" 2>&1
  echo "racecheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "RACECHECK SUMMARY|^\[  (PASSED|FAILED)" "$out/racecheck.log"
  exit 0
fi
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
fa() { timeout 100 $1 -q bench detect --model $2 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/$3.md" > /dev/null 2>&1
  echo "$3 rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$3.md"; }
for r in 1 2; do
  fa $B/cascade experiments/models/faces-lbp.h5 fa-wp-$r
  fa .bundle/ab/cascade-base experiments/models/faces-lbp.h5 fa-base-$r
done
[ -f .bundle/ab/rr8.h5 ] && fa $B/cascade .bundle/ab/rr8.h5 fa-rr8-wp
