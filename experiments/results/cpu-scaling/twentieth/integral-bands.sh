#!/usr/bin/env bash
# Session 20, on the GPU machine's host: the gray integral image in bands of about 4 a thread,
# each table entry written once (column sums, their running sums, then each band's rows), with
# the phase timing of phases.diff still in: phases at 1 and 16 threads (two runs), then the
# efficiency against 16 pinned one-thread detectors at once (as concurrent.sh).
source experiments/gpu/device_env.sh  # out, B, D, t0, faces_cpu, pinned_faces, efficiency
# (Rewritten after the run to use device_env.sh's pinned_faces and efficiency: the same
# measurements, a slightly different printout.)
bash experiments/results/cpu-scaling/twentieth/phases.sh
pinned_faces $B/cascade "$out/concurrent.txt"
timeout 250 $B/cascade "${faces_cpu[@]}" --cpu-repeats 9 --cpu-threads 1,16 --out "$out/scaling-1-16.md" > /dev/null 2>&1
grep -E '^\| 1920x1080 \| ×1.1 \| 2 \| [0-9]+ \| [0-9.]+ \| [0-9.]+×' "$out/scaling-1-16.md" | tee "$out/scaling-rows.txt"
efficiency "$out/concurrent.txt" "$out/scaling-rows.txt" | tee "$out/efficiency.txt"
