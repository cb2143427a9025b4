#!/usr/bin/env bash
# Session 21: what bounds the hybrid's gradient-plane launch and its HoG tail (Nsight Compute's compute workload,
# instruction statistics and speed-of-light sections on it, one frame as in run.sh).
source experiments/gpu/device_env.sh  # out, B, D, t0, bench_frames
bench_frames
timeout 300 ncu --clock-control none --kernel-name regex:"${KERNEL:-gradient_plane_kernel}" --section ComputeWorkloadAnalysis --section InstructionStats \
  --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
  $B/cascade -q detect --backend cuda --model experiments/models/inria-hybrid.h5 --stride 8 --scale-step 1.05 --min-scale 1 \
  --pad-level 0 --json /tmp/det.json /tmp/people-1280.ppm > $out/ncu-${KERNEL:-gradient_plane_kernel}.txt 2>&1
echo "ncu rc=$? at $(( $(date +%s) - t0 )) s"
grep -v "^==" $out/ncu-${KERNEL:-gradient_plane_kernel}.txt | grep -E "Duration|Pipe|pipe|Issue|Executed|Warp Cycles|Stall|IPC|Shared|Throughput|----" | head -60
