#!/usr/bin/env bash
# Session 17, run 1: the whole gpu_test under compute-sanitizer memcheck on the final tree (CUDA
# sources unchanged since 543456a; the bundle also carries the trainer's rejection_rounds).
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 560 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_test > "$out/memcheck.log" 2>&1; echo "memcheck rc=$? in ${SECONDS}s"
grep -E "^\[  (PASSED|FAILED)|ERROR SUMMARY|mining:" "$out/memcheck.log"
echo "comparisons: $(grep -c 'differences near' "$out/memcheck.log"), with differences: $(grep 'differences near' "$out/memcheck.log" | grep -vc ' 0 differences')"
grep -E "^\[       OK" "$out/memcheck.log" | tail -3
