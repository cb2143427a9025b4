#!/usr/bin/env bash
# On the GPU machine, from the repository root, after benchmarks/gpu/bundle.sh made
# .bundle/gpu.tar.xz here (the device tool carries it): the gpu tests, the trainer and runtime tests, both
# compute-sanitizer tools, and the benchmark. Logs and the Markdown tables go to ${OUT:-out}.
source benchmarks/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# About 200 s on the H100 host; on H200 hosts 280 s and, on a slow one, 420 s (its CPU references),
# so 560. The device tool stops a command at 600 s: run the steps below in calls of their own.
run_gpu_test 560
timeout 60 $B/trainer_test > "$out/trainer_test.log" 2>&1; echo "trainer_test rc=$?"; tail -1 "$out/trainer_test.log"
# The runtime's CPU tests on this host's Intel CPU as well as on the development machine's AMD
# one, and with a GPU present; about 10 s.
timeout 120 $B/runtime_test > "$out/runtime_test.log" 2>&1; echo "runtime_test rc=$?"; grep -E "^\[  (PASSED|FAILED)" "$out/runtime_test.log"
timeout 220 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_test > "$out/memcheck.log" 2>&1; echo "memcheck rc=$?"
grep -E "PASSED|ERROR SUMMARY" "$out/memcheck.log"
# racecheck is slow: the tests that run every kernel on small and large frames.
timeout 250 compute-sanitizer --tool racecheck --error-exitcode 9 $B/gpu_test \
    --gtest_filter='GpuFeatures.*:GpuDetector.Compaction*:GpuDetector.Many*:GpuDetector.Rejects*:GpuDetector.Hybrid*:GpuDetector.RandomWaldBoost*' \
    > "$out/racecheck.log" 2>&1
echo "racecheck rc=$?"; grep -E "PASSED|RACECHECK SUMMARY" "$out/racecheck.log"
# The mining test launches from every host thread; racecheck loses track of launches from 16 at
# once ("failed to track a kernel launch"), so it runs on 4 cores here.
timeout 450 taskset -c 0-3 compute-sanitizer --tool racecheck --error-exitcode 9 $B/gpu_test \
    --gtest_filter='GpuMining.*' > "$out/racecheck-mining.log" 2>&1
echo "racecheck (mining, 4 cores) rc=$?"; grep -E "PASSED|RACECHECK SUMMARY" "$out/racecheck-mining.log"
timeout 300 $B/cascade bench detect --model models/inria-hog-cascade.h5 --frame /tmp/b/data/bench-frame.ppm \
    --peer $B/opencv_hog_peer --out "$out/gpu-bench.md" > "$out/bench.log" 2>&1; echo "bench rc=$?"
grep -A12 "Table 7-1" "$out/gpu-bench.md" | tail -6
