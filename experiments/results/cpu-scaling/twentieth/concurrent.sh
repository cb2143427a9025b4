#!/usr/bin/env bash
# Session 20, on the GPU machine's host: what 16 threads can give on this host's 16 CPUs, which
# differ by up to 1.7x in one-thread speed (per-core-isolated.txt). 16 one-thread face detectors,
# each pinned to its own CPU (taskset) and all running at once, then 16 pinned OpenCV LBP
# cascades likewise (1920x1080, x1.1, stride 2): their summed frame rate is the best that 16
# threads can do here, together, on the same work. Against it: one detector on 16 threads, one
# frame at a time (the bench's interleaved scaling, 1 and 16 threads). Efficiency = (1 / the
# summed rate) / the 16-thread time. Then gpu_test and racecheck (the warp parts' sums in their
# own row) and one round of the face benchmark against HEAD's binary.
source experiments/gpu/device_env.sh  # out, B, D, t0, run_gpu_test, ab_faces, pinned_faces, efficiency
# (Rewritten after the run to use device_env.sh's pinned_faces and efficiency: the same
# measurements, a slightly different printout.)
pinned_faces $B/cascade "$out/concurrent.txt" peer; cat "$out/concurrent.txt"
echo "at $(( $(date +%s) - t0 )) s"
timeout 250 $B/cascade "${faces_cpu[@]}" --cpu-repeats 9 --cpu-threads 1,16 --peer $B/opencv_face_peer \
  --peer-args="--cascade $D/opencv/lbpcascade_frontalface.xml" --peer-name "OpenCV LBP" --out "$out/scaling-1-16.md" > /dev/null 2>&1
echo "scaling rc=$? at $(( $(date +%s) - t0 )) s"
grep -E '^\| 1920x1080 \| ×1.1 \| 2 \| [0-9]+ \| [0-9.]+ \| [0-9.]+×' "$out/scaling-1-16.md" | tee "$out/scaling-rows.txt"
efficiency "$out/concurrent.txt" "$out/scaling-rows.txt" | tee "$out/efficiency.txt"
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
timeout 250 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/gpu_test" \
    --gtest_filter='GpuDetector.RandomWaldBoost*' > "$out/racecheck.log" 2>&1
echo "racecheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "RACECHECK SUMMARY|^\[  (PASSED|FAILED)" "$out/racecheck.log"
grep -B2 -A12 -m2 "Warning\|Error" "$out/racecheck.log" | head -40
ab_faces 1
