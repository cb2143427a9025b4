#!/usr/bin/env bash
# Session 20, on the GPU machine's host: how fast each of the 16 CPUs is on one thread (the face
# detector and OpenCV's LBP cascade pinned to CPU i with taskset, 1920×1080, ×1.1, stride 2,
# medians of 5 frames), against the interleaved 16-thread time: an all-core ideal of
# 1 / Σ_i (1 / t_i), so that "near-linear" is judged against what these 16 CPUs can give together.
# Then racecheck of the random-WaldBoost GPU test (the chained sums in the warp parts).
source experiments/gpu/device_env.sh  # out, B, D, t0
cascade_args=(-q bench detect --backend cpu --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.1
  --strides 2 --frame $D/face-frame.ppm)
for i in $(seq 0 15); do
  timeout 60 taskset -c $i $B/cascade "${cascade_args[@]}" --cpu-repeats 5 --out "$out/core-$i.md" > /dev/null 2>&1
  ours=$(grep -A3 '^| size | step | stride | windows' "$out/core-$i.md" | grep '^| 1920x1080' | awk -F'|' '{gsub(/ /,"",$8); print $8}')
  peer=$(timeout 60 taskset -c $i $B/opencv_face_peer time --cascade $D/opencv/lbpcascade_frontalface.xml --threads 1 \
    --repeats 5 --scale-step 1.1 --stride 2 $D/face-frame.ppm | awk '/median_ms/ {print $2}')
  echo "cpu $i ours $ours peer $peer" | tee -a "$out/per-core.txt"
done
echo "at $(( $(date +%s) - t0 )) s"
timeout 250 $B/cascade "${cascade_args[@]}" --cpu-repeats 9 --cpu-threads 1,16 \
  --peer $B/opencv_face_peer --peer-args="--cascade $D/opencv/lbpcascade_frontalface.xml" --peer-name "OpenCV LBP" \
  --out "$out/scaling-1-16.md" > /dev/null 2>&1
echo "scaling rc=$? at $(( $(date +%s) - t0 )) s"
grep -E '^\| 1920x1080 \| ×1.1 \| 2 \| [0-9]+ \| [0-9.]+ \| [0-9.]+×' "$out/scaling-1-16.md" | tee "$out/scaling-rows.txt"
python3 - "$out/per-core.txt" "$out/scaling-rows.txt" <<'PY'
import sys
t = [l.split() for l in open(sys.argv[1])]
ours = [float(x[3]) for x in t]; peer = [float(x[5]) for x in t]
rows = [r.split('|') for r in open(sys.argv[2])]
r16 = [r for r in rows if r[4].strip() == '16'][0]
o16, p16 = float(r16[5]), float(r16[8])
for name, v, a in (('ours', ours, o16), ('OpenCV LBP', peer, p16)):
    ideal = 1 / sum(1 / x for x in v)
    print(f"{name}: one thread {min(v):.1f}-{max(v):.1f} ms over the 16 CPUs (median {sorted(v)[8]:.1f}); "
          f"ideal 16-core time {ideal:.1f} ms; measured {a:.1f} ms; efficiency {100 * ideal / a:.0f} %")
PY
timeout 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/gpu_test" \
    --gtest_filter='GpuDetector.RandomWaldBoost*' > "$out/racecheck.log" 2>&1
echo "racecheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "RACECHECK SUMMARY|^\[  (PASSED|FAILED)" "$out/racecheck.log"
