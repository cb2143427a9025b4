# Session 29: gray integral images modulo 2^16 (CudaOptions::gray_integral_16). The face and people
# benchmarks (their table "Gray integral images: 16-bit or 32-bit points" compares both in one
# binary), the serialised kernels of one face frame, then the GPU tests that cover LBP stages.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do
  bench_faces $B/cascade experiments/models/faces-lbp.h5 g16-fa-$r
  grep -A6 "Gray integral images: 16-bit" $out/g16-fa-$r.md | tail -2
done
bench_people $B/cascade experiments/models/inria-hybrid.h5 g16-pe-1
grep -A6 "Gray integral images: 16-bit" $out/g16-pe-1.md | tail -1
M=experiments/models/faces-lbp.h5
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_active \
  --launch-skip 0 --launch-count 12 \
  $B/cascade -q bench detect --model $M --sizes 1920x1080 --scale-steps 1.0905077 --max-scale 16 --strides 1 --lbp-weak 2048 --no-cpu --repeats 1 --frame $D/face-frame.ppm --out $out/b1.md > $out/g16-ncu-kernels.txt 2>&1
echo "ncu rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "^  [a-z_].*\(|gpu__time|inst_executed|warps_active|issue_active|l1tex__throughput" $out/g16-ncu-kernels.txt | head -80
run_gpu_test 330 --gtest_filter='GpuFeatures.*:GpuDetector.RandomWaldBoost*:GpuDetector.SixteenBit*:GpuDetector.BlockPerWindow*:GpuDetector.Shipped*'
cp $out/gpu_test.log $out/g16-gpu_test.log
echo "all done at $(( $(date +%s) - t0 )) s"
