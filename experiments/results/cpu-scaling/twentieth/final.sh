#!/usr/bin/env bash
# Session 20, the session's final tree on the GPU machine: gpu_test and memcheck (the GPU tests
# compare every level's gray integral image with the CPU's, now built in bands); then, on the same
# host, the CPU efficiency of this binary and of HEAD's (.bundle/ab/head.tar.xz, the session's
# first) against 16 pinned one-thread detectors at once (faces 1920x1080, x1.1, stride 2), two
# alternating rounds of interleaved 1,16-thread scaling each; then one round of the GPU face
# benchmark against HEAD's binary. Few files under $OUT (the device returns at most a handful).
source experiments/gpu/device_env.sh  # out, B, D, t0, run_gpu_test, bench_faces, faces_cpu, pinned_faces, efficiency
# (Rewritten after the run to use device_env.sh's pinned_faces and efficiency: the same
# measurements, a slightly different printout.)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu_test" \
    --gtest_filter='GpuDetector.RandomWaldBoost*:GpuDetector.ShippedModels*:GpuFeatures.*' > /tmp/memcheck.log 2>&1
echo "memcheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)" /tmp/memcheck.log | tee "$out/memcheck-summary.txt"
mkdir -p /tmp/h && tar xJf .bundle/ab/head.tar.xz -C /tmp/h
pinned_faces $B/cascade "$out/concurrent.txt"
for r in 1 2; do
  for bin in new head; do
    b=$B/cascade; [ $bin = head ] && b=/tmp/h/gpu/bin/cascade
    timeout 120 $b "${faces_cpu[@]}" --cpu-repeats 9 --cpu-threads 1,16 --out /tmp/conc/$bin-$r.md > /dev/null 2>&1
    echo "$bin $r $(grep -E '^\| 1920x1080 \| ×1.1 \| 2 \| 16 \|' /tmp/conc/$bin-$r.md)" | tee -a "$out/scaling-16.txt"
  done
done
efficiency "$out/concurrent.txt" "$out/scaling-16.txt" | tee "$out/efficiency.txt"
bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-new
bench_faces /tmp/h/gpu/bin/cascade experiments/models/faces-lbp.h5 fa-head
