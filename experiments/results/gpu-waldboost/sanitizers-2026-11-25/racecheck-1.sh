#!/usr/bin/env bash
# Session 17, run 2: compute-sanitizer racecheck on the final tree, every gpu_test but the mining
# test, then the mining test on 4 cores (racecheck loses track of launches from 16 host threads).
source experiments/gpu/device_env.sh
SECONDS=0
timeout 330 compute-sanitizer --tool racecheck --error-exitcode 9 $B/gpu_test --gtest_filter='-GpuMining.*' > "$out/racecheck.log" 2>&1
echo "racecheck rc=$? in ${SECONDS}s"; grep -E "^\[  (PASSED|FAILED)|RACECHECK SUMMARY" "$out/racecheck.log"
echo "comparisons: $(grep -c 'differences near' "$out/racecheck.log"), with differences: $(grep 'differences near' "$out/racecheck.log" | grep -vc ' 0 differences')"
SECONDS=0
timeout 240 taskset -c 0-3 compute-sanitizer --tool racecheck --error-exitcode 9 $B/gpu_test --gtest_filter='GpuMining.*' > "$out/racecheck-mining.log" 2>&1
echo "racecheck (mining, 4 cores) rc=$? in ${SECONDS}s"; grep -E "^\[  (PASSED|FAILED)|RACECHECK SUMMARY" "$out/racecheck-mining.log"
