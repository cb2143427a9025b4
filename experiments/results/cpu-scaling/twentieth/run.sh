#!/usr/bin/env bash
# Session 20, on the GPU machine's host: the CPU backend's thread scaling with the bench's
# interleaved rounds (each round one frame at every thread count in turn; OpenCV's LBP cascade
# likewise), 1920×1080, ×1.1, stride 2, 1–16 threads, two runs; the host's topology; then memcheck
# of the WaldBoost and shipped-model GPU tests (the chained sums in the warp parts).
source experiments/gpu/device_env.sh  # out, B, D, t0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|MHz|NUMA node\(s\)"
for r in 1 2; do
  timeout 250 $B/cascade -q bench detect --backend cpu --model experiments/models/faces-lbp.h5 --sizes 1920x1080 \
    --scale-steps 1.1 --strides 2 --cpu-repeats 9 --cpu-threads 1,2,4,8,16 --frame $D/face-frame.ppm \
    --peer $B/opencv_face_peer --peer-args="--cascade $D/opencv/lbpcascade_frontalface.xml" --peer-name "OpenCV LBP" \
    --out "$out/scaling-$r.md" > /dev/null 2>&1
  echo "scaling-$r rc=$? at $(( $(date +%s) - t0 )) s"
  grep -E 'The host:|^\| 1920x1080 \| ×1.1 \| 2 \| [0-9]+ \| [0-9.]+ \| [0-9.]+×' "$out/scaling-$r.md" | sed 's/.*The host:/The host:/'
done
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_test \
    --gtest_filter='GpuDetector.RandomWaldBoost*:GpuDetector.ShippedModels*' > "$out/memcheck.log" 2>&1
echo "memcheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)" "$out/memcheck.log"
