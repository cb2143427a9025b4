#!/usr/bin/env bash
# Session 23: the shipped hybrid's launches on one frame (as hybrid-profile/run.sh), then what the
# HoG tail's warps wait on: Nsight Compute's stall reasons per issued instruction, and its
# source counters (the SASS lines with the most stall samples).
source experiments/gpu/device_env.sh  # out, B, D, t0, bench_frames
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench_frames
args=(-q detect --backend cuda --model experiments/models/inria-hybrid.h5 --stride 8 --scale-step 1.05 --min-scale 1
      --pad-level 0 --json /tmp/det.json /tmp/people-1280.ppm)
timeout 200 ncu --clock-control none --section SpeedOfLight $B/cascade "${args[@]}" > $out/ncu-hybrid.txt 2>&1
echo "ncu rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "^  [a-z_ ]*(void )?.*\(|Duration" $out/ncu-hybrid.txt | sed 's/(SurvivorArgs.*//' | paste - - | awk '{print $NF, $0}' | cut -c1-160
timeout 200 ncu --clock-control none --kernel-name regex:tail_plane_kernel --section WarpStateStats --section SourceCounters \
  --section InstructionStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
  $B/cascade "${args[@]}" > $out/ncu-tail.txt 2>&1
echo "ncu rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "stalled_.*ratio" $out/ncu-tail.txt | awk '$NF+0 > 0.2' | sort -k3 -g -r | head -14
grep -E "Warp Cycles Per Issued|Executed Instructions  " $out/ncu-tail.txt
