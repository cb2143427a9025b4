# Session 28: the first launch with R windows a thread (lbp_rows_kernel): random-model tests, profile, A/B.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 200 --gtest_filter='GpuDetector.RandomWaldBoost*:GpuDetector.Refuses*:GpuDetector.*Options*'
cp $out/gpu_test.log $out/random-gpu_test.log
echo "tests done at $(( $(date +%s) - t0 )) s"
M=experiments/models/faces-lbp.h5
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_active \
  --launch-skip 0 --launch-count 8 \
  $B/cascade -q bench detect --model $M --sizes 1920x1080 --scale-steps 1.0905077 --max-scale 16 --strides 1 --lbp-weak 2048 --no-cpu --repeats 1 --frame $D/face-frame.ppm --out $out/b1.md > $out/ncu-all.txt 2>&1
echo "ncu rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "^  [a-z_ ].*\(|gpu__time|inst_executed|warps_active|issue_active|l1tex" $out/ncu-all.txt | sed 's/(SurvivorArgs.*) (/ (/' | head -60
ab_faces 2 "WaldBoost untiled first launch" 
echo "all done at $(( $(date +%s) - t0 )) s"
