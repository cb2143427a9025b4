#!/usr/bin/env bash
# Session 20: Nsight Compute on the faces frame's last launch (weak classifiers 64-2048, a warp
# per window), stride 1 and 2, 1920×1080, the shipped 2048-table sequence.
source experiments/gpu/device_env.sh  # out, B, D, row, t0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for s in 1 2; do
  timeout 280 ncu --clock-control none --set full --kernel-name regex:lbp_part_warp_kernel --launch-skip 2 --launch-count 1 \
    $B/cascade -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
    --max-scale 16 --strides $s --lbp-weak 2048 --no-cpu --repeats 3 --frame $D/face-frame.ppm --out $out/bench-s$s.md \
    > $out/ncu-s$s.txt 2>&1
  echo "stride $s rc=$? at $(( $(date +%s) - t0 )) s"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Grid Size|Executed Ipc A|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|L2 Hit|L1/TEX Hit|Memory Throughput|Compute \(SM\)|Warp Cycles Per Issued|Avg. Active Threads" $out/ncu-s$s.txt | head -40
done
