#!/usr/bin/env bash
# Session 16, run 3: HoG cell bins in copies (CudaOptions::hog_plane_copies). gpu_test, racecheck on the
# hybrid test, then the people hybrid twice and the faces hybrid once (tables: copies 8 / 1 / 4).
source experiments/gpu/device_env.sh  # out, B, D, row, run_gpu_test
t0=$(date +%s)
pe() { timeout 90 $B/cascade -q bench detect --model experiments/models/inria-hybrid.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 \
  --no-cpu --frame $D/bench-frame.ppm --out "$out/$1.md" > /dev/null 2>&1
  echo "$1 rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$1.md"; grep -A9 "cell bins in copies" "$out/$1.md" | grep "^| 1280"; grep -A6 "per step" "$out/$1.md" | grep "^| 1280"; }
pe pe-1
run_gpu_test 220; echo "  at $(( $(date +%s) - t0 )) s"
pe pe-2
timeout 120 $B/cascade -q bench detect --model experiments/models/faces-hybrid.h5 --sizes 1920x1080 --scale-steps 1.1 --strides 2 \
  --no-cpu --frame $D/face-frame.ppm --out "$out/fh.md" > /dev/null 2>&1
echo "faces hybrid rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/fh.md"; grep -A9 "cell bins in copies" "$out/fh.md" | grep "^| 1920"
timeout 150 compute-sanitizer --tool racecheck $B/gpu_test --gtest_filter='GpuDetector.Hybrid*' > "$out/racecheck.log" 2>&1; echo "racecheck rc=$? $(( $(date +%s) - t0 )) s"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" "$out/racecheck.log"
