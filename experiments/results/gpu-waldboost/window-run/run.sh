#!/usr/bin/env bash
# Session 16, run 6: the WaldBoost warp and block kernels' window state as one WindowRun (review item),
# the block kernel's look-ups through lookup_round<1>, a gpu_test helper. gpu_test, racecheck of the
# block-per-window test, faces (stride 1, 2) new then HEAD's binary.
source experiments/gpu/device_env.sh  # out, B, D, row, run_gpu_test
t0=$(date +%s)
run_gpu_test 220; echo "  at $(( $(date +%s) - t0 )) s"
timeout 150 compute-sanitizer --tool racecheck $B/gpu_test --gtest_filter='GpuDetector.BlockPerWindow*' > "$out/racecheck.log" 2>&1; echo "racecheck rc=$? $(( $(date +%s) - t0 )) s"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" "$out/racecheck.log"
fa() { timeout 100 $1 -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/$2.md" > /dev/null 2>&1
  echo "$2 rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$2.md"; grep -A9 "WaldBoost block parts" "$out/$2.md" | grep "^| 1920"; }
fa $B/cascade fa-new
fa .bundle/s16-base-cascade fa-head
