#!/usr/bin/env bash
# Session 16, run 8: after the review's mends (Engine::host_gray, one upload call, the warp kernel's
# aliases gone; device_env.sh): gpu_test, racecheck of the block-per-window test, faces once.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $B/gpu_test --gtest_filter='GpuDetector.BlockPerWindow*' > "$out/racecheck.log" 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" "$out/racecheck.log"
timeout 120 $B/cascade -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/fa.md" > /dev/null 2>&1
echo "faces rc=$?"; grep -E "$row" "$out/fa.md"; grep -A9 "frame in gray" "$out/fa.md" | grep "^| 1920"
