#!/usr/bin/env bash
# Session 20, on the GPU machine's host: what 16 threads can give on this host's 16 CPUs, which
# differ by up to 1.7x in one-thread speed (per-core-isolated.txt). 16 one-thread face detectors,
# each pinned to its own CPU (taskset) and all running at once, then 16 pinned OpenCV LBP
# cascades likewise (1920x1080, x1.1, stride 2): their summed frame rate is the best that 16
# threads can do here, together, on the same work. Against it: one detector on 16 threads, one
# frame at a time (the bench's interleaved scaling, 1 and 16 threads). Efficiency = (1 / the
# summed rate) / the 16-thread time. Then gpu_test and racecheck (the warp parts' sums in their
# own row) and one round of the face benchmark against HEAD's binary.
source experiments/gpu/device_env.sh  # out, B, D, t0, run_gpu_test, ab_faces
lbp=$D/opencv/lbpcascade_frontalface.xml
args=(-q bench detect --backend cpu --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.1
  --strides 2 --frame $D/face-frame.ppm)
mkdir -p /tmp/conc
for i in $(seq 0 15); do taskset -c $i $B/cascade "${args[@]}" --cpu-repeats 9 --out /tmp/conc/ours-$i.md > /dev/null 2>&1 & done; wait
for i in $(seq 0 15); do
  taskset -c $i $B/cascade "${args[@]}" --no-cpu --cpu-repeats 5 --peer $B/opencv_face_peer --peer-args="--cascade $lbp" \
    --out /tmp/conc/peer-$i.md > /dev/null 2>&1 &
done; wait
for i in $(seq 0 15); do
  echo "cpu $i ours $(grep '^| 1920x1080' /tmp/conc/ours-$i.md | tail -1 | awk -F'|' '{gsub(/ /,"",$8); print $8}')" \
    "peer $(grep '^| 1920x1080' /tmp/conc/peer-$i.md | tail -1 | awk -F'|' '{gsub(/ /,"",$14); print $14}')"
done | tee "$out/concurrent.txt"
echo "at $(( $(date +%s) - t0 )) s"
timeout 250 $B/cascade "${args[@]}" --cpu-repeats 9 --cpu-threads 1,16 --peer $B/opencv_face_peer --peer-args="--cascade $lbp" \
  --peer-name "OpenCV LBP" --out "$out/scaling-1-16.md" > /dev/null 2>&1
echo "scaling rc=$? at $(( $(date +%s) - t0 )) s"
grep -E '^\| 1920x1080 \| ×1.1 \| 2 \| [0-9]+ \| [0-9.]+ \| [0-9.]+×' "$out/scaling-1-16.md" | tee "$out/scaling-rows.txt"
python3 - "$out/concurrent.txt" "$out/scaling-rows.txt" <<'PY' | tee "$out/efficiency.txt"
import sys
t = [l.split() for l in open(sys.argv[1])]
rows = [r.split('|') for r in open(sys.argv[2])]
r16 = [r for r in rows if r[4].strip() == '16'][0]
for name, col, a in (('ours', 3, float(r16[5])), ('OpenCV LBP', 5, float(r16[8]))):
    v = [float(x[col]) for x in t]
    ideal = 1 / sum(1 / x for x in v)
    print(f"{name}: 16 pinned one-thread runs at once: {min(v):.1f}-{max(v):.1f} ms a frame (median {sorted(v)[8]:.1f}); "
          f"their summed rate {1000 / ideal:.1f} frames/s = {ideal:.1f} ms a frame; one detector on 16 threads {a:.1f} ms; "
          f"efficiency {100 * ideal / a:.0f} %")
PY
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
timeout 250 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/gpu_test" \
    --gtest_filter='GpuDetector.RandomWaldBoost*' > "$out/racecheck.log" 2>&1
echo "racecheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "RACECHECK SUMMARY|^\[  (PASSED|FAILED)" "$out/racecheck.log"
grep -B2 -A12 -m2 "Warning\|Error" "$out/racecheck.log" | head -40
ab_faces 1
