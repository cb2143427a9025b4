#!/usr/bin/env bash
# Session 20: the warp parts' window patch in shared memory after the first round
# (CudaOptions::lbp_warp_patch), with the chained additions, against HEAD's binary
# (.bundle/ab/head.tar.xz): gpu_test, then faces 1920×1080, 2048 tables, strides 1 and 2,
# alternating, two rounds; Nsight Compute on the last launch (stall reasons).
# The bundle is a build with warp-patch/patch-variant.diff applied (a temporary option, never committed).
source experiments/gpu/device_env.sh  # out, B, D, row, t0, run_gpu_test, ab_faces
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
ab_faces 2 'corners from a window patch'
timeout 200 ncu --clock-control none --section SpeedOfLight --section InstructionStats --section WarpStateStats \
  --section MemoryWorkloadAnalysis_Tables --print-details all \
  --kernel-name regex:lbp_part_warp_kernel --launch-skip 2 --launch-count 1 \
  $B/cascade -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1 --lbp-weak 2048 --no-cpu --repeats 3 --frame $D/face-frame.ppm > $out/ncu-s1.txt 2>&1
echo "ncu rc=$?"; grep -E " Duration|Executed Instructions  |Issue Slots Busy|Stall|stall" $out/ncu-s1.txt | head -40
