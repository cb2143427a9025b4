# Session 28: where the faces frame's first launch (one table over 12.2 M windows) spends its time.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
which ncu cuobjdump nsys
M=experiments/models/faces-lbp.h5
# every kernel of the first frames, serialised: duration and instructions
timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active \
  --launch-skip 0 --launch-count 40 \
  $B/cascade -q bench detect --model $M --sizes 1920x1080 --scale-steps 1.0905077 --max-scale 16 --strides 1 --lbp-weak 2048 --no-cpu --repeats 1 --frame $D/face-frame.ppm --out $out/b1.md > $out/ncu-all.txt 2>&1
echo "all rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "^  [a-z_].*\(|gpu__time|inst_executed|warps_active|issue_active" $out/ncu-all.txt | head -200
timeout 200 ncu --clock-control none --set full --kernel-name regex:lbp_part_kernel --launch-skip 0 --launch-count 1 \
  $B/cascade -q bench detect --model $M --sizes 1920x1080 --scale-steps 1.0905077 --max-scale 16 --strides 1 --lbp-weak 2048 --no-cpu --repeats 1 --frame $D/face-frame.ppm --out $out/b2.md > $out/ncu-first.txt 2>&1
echo "first rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Grid Size|Block Size|Executed Ipc A|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|L2 Hit|L1/TEX Hit|Memory Throughput|Compute \(SM\)|Warp Cycles Per Issued|Avg. Active Threads|Executed Instructions  |DRAM Throughput|Stall" $out/ncu-first.txt | head -60
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass $B/cascade 2>/dev/null | awk '/Function : .*lbp_part_kernel/{p=1} p{print} /Function : /&&!/lbp_part_kernel/{p=0}' > $out/sass-part.txt
  grep -c "" $out/sass-part.txt; grep "Function" $out/sass-part.txt | head
fi
