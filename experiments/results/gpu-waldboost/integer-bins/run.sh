#!/usr/bin/env bash
# Session 21: nearest-bin gradient entries in integers on the GPU (nearest_entry: a float square
# root corrected in integers, bins from per-gx bounds) instead of gradient_entry's double
# arithmetic. gpu_test (every gradient pass against the CPU: gray and colour, nearest and split
# votes), memcheck of the feature and model tests; then the people benchmark (1280x960, x1.05,
# stride 8) of the hybrid and the HoG cascade against HEAD's binary (.bundle/ab/head.tar.xz, the
# commit before), two alternating rounds; and Nsight Compute on the new gradient-plane launch.
source experiments/gpu/device_env.sh  # out, B, D, t0, run_gpu_test, bench_people, bench_frames
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu_test" \
    --gtest_filter='GpuFeatures.*:GpuDetector.RandomModels*:GpuDetector.HybridModels*:GpuDetector.ShippedModels*' > /tmp/memcheck.log 2>&1
echo "memcheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)" /tmp/memcheck.log | tee "$out/memcheck-summary.txt"
mkdir -p /tmp/h && tar xJf .bundle/ab/head.tar.xz -C /tmp/h
for r in 1 2; do
  for m in inria-hybrid inria-hog-cascade; do
    bench_people $B/cascade experiments/models/$m.h5 $m-new-$r | head -2
    bench_people /tmp/h/gpu/bin/cascade experiments/models/$m.h5 $m-head-$r | head -2
  done
done 2>&1 | tee "$out/ab.txt"
bench_frames
timeout 200 ncu --clock-control none --kernel-name regex:gradient_plane_kernel --section SpeedOfLight --section InstructionStats \
  $B/cascade -q detect --backend cuda --model experiments/models/inria-hybrid.h5 --stride 8 --scale-step 1.05 --min-scale 1 \
  --pad-level 0 --json /tmp/det.json /tmp/people-1280.ppm > /tmp/ncu.txt 2>&1
grep -E "Duration|Executed Instructions  |Compute \(SM\)|FP64" /tmp/ncu.txt | tee "$out/ncu-gradient-plane.txt"
for bin in new head; do
  b=$B/cascade; [ $bin = head ] && b=/tmp/h/gpu/bin/cascade
  timeout 200 ncu --clock-control none --kernel-name regex:row_pass_kernel --section SpeedOfLight --section InstructionStats \
    $b -q detect --backend cuda --model experiments/models/inria-hog-cascade.h5 --stride 8 --scale-step 1.05 --min-scale 1 \
    --pad-level 0 --json /tmp/det.json /tmp/people-1280.ppm > /tmp/ncu2.txt 2>&1
  echo "row pass, $bin:"; grep -E "Duration|Executed Instructions  |Compute \(SM\)|FP64" /tmp/ncu2.txt
done | tee "$out/ncu-row-pass.txt"
echo "done at $(( $(date +%s) - t0 )) s"
