#!/usr/bin/env bash
# Session 20: the warp parts' additions as a chain of sums, then the comparisons by ballot
# (add_round), against HEAD's binary (.bundle/ab/head.tar.xz): gpu_test, then faces 1920×1080,
# 2048 tables, strides 1 and 2, alternating, two rounds; Nsight Compute on the last launch.
source experiments/gpu/device_env.sh  # out, B, D, row, t0, run_gpu_test, ab_faces
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
ab_faces 2
grep -A8 'WaldBoost warp parts' $out/fa-new-1.md | tail -4
for s in 1 2; do
  timeout 200 ncu --clock-control none --section SpeedOfLight --section InstructionStats --section ComputeWorkloadAnalysis \
    --kernel-name regex:lbp_part_warp_kernel --launch-skip 2 --launch-count 1 \
    $B/cascade -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
    --max-scale 16 --strides $s --lbp-weak 2048 --no-cpu --repeats 3 --frame $D/face-frame.ppm > $out/ncu-s$s.txt 2>&1
  echo "ncu stride $s rc=$?"; grep -E " Duration|Executed Instructions  |Issue Slots Busy|Executed Ipc A" $out/ncu-s$s.txt
done
