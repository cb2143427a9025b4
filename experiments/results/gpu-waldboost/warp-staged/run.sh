#!/usr/bin/env bash
# Session 19: the warp-per-window parts copy the window's integral-image points to shared memory
# before their look-ups (CudaOptions::lbp_warp_staged).
#   run.sh bench     gpu_test; the pruned faces (1920×1080, 2048 weak classifiers, strides 1 and 2)
#                    with it and with HEAD's binary (.bundle/ab/cascade-base), alternating, two
#                    rounds; the people hybrid and inria-lbp with it (unstaged: 64×128 windows)
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
fa() { timeout 100 $1 -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/$2.md" > /dev/null 2>&1
  echo "$2 rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$2.md"
  grep -A14 'Survivors after each launch' "$out/$2.md" | grep '^| 1920x1080 | ×1.09051 | 1 |'
  grep -A5 'staged in shared memory or read' "$out/$2.md" | grep '^| 1920x1080'; }
for r in 1 2; do
  fa $B/cascade fa-staged-$r
  fa .bundle/ab/cascade-base fa-base-$r
done
for m in inria-hybrid inria-lbp; do
  timeout 60 $B/cascade -q bench detect --model experiments/models/$m.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 \
    --no-cpu --frame $D/bench-frame.ppm --out "$out/pe-$m.md" > /dev/null 2>&1
  echo "pe-$m rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/pe-$m.md"
done
