#!/usr/bin/env bash
# Session 17, run 4: racecheck of the gpu tests run 2 did not reach (HoG random models, compaction,
# many accepted windows, rejections, bulk); then the mining test on 4 cores, given longer.
source experiments/gpu/device_env.sh
SECONDS=0
timeout 300 compute-sanitizer --tool racecheck --error-exitcode 9 $B/gpu_test \
  --gtest_filter='GpuDetector.Compaction*:GpuDetector.Many*:GpuDetector.Rejects*:GpuBulk.*:GpuDetector.RandomModels*' > "$out/racecheck-rest.log" 2>&1
echo "racecheck rc=$? in ${SECONDS}s"; grep -E "^\[  (PASSED|FAILED)|^\[       OK|RACECHECK SUMMARY" "$out/racecheck-rest.log"
SECONDS=0
timeout 270 taskset -c 0-7 compute-sanitizer --tool racecheck --error-exitcode 9 $B/gpu_test --gtest_filter='GpuMining.*' > "$out/racecheck-mining.log" 2>&1
echo "racecheck (mining, 8 cores) rc=$? in ${SECONDS}s"; grep -E "^\[  (PASSED|FAILED)|RACECHECK SUMMARY|failed to track" "$out/racecheck-mining.log"
