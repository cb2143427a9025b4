# Session 29, seventh call, after the review: compute-sanitizer on face detection (16-bit points,
# both shipped face sequences) and on the people hybrid (32-bit points).
source experiments/gpu/device_env.sh
for m in faces-lbp faces-lbp-fast; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/cascade -q detect --backend cuda --model experiments/models/$m.h5 \
    --stride 1 --scale-step 1.0905077 --max-scale 16 $D/face-frame.ppm > $out/memcheck-$m.log 2>&1
  echo "memcheck $m rc=$?"; grep -E "ERROR SUMMARY" $out/memcheck-$m.log
done
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/cascade -q detect --backend cuda --model experiments/models/faces-lbp.h5 \
  --stride 1 --scale-step 1.0905077 --max-scale 16 $D/face-frame.ppm > $out/racecheck-review.log 2>&1
echo "racecheck faces rc=$?"; grep -E "RACECHECK SUMMARY" $out/racecheck-review.log
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/cascade -q detect --backend cuda --model experiments/models/inria-hybrid.h5 \
  $D/bench-frame.ppm > $out/memcheck-hybrid.log 2>&1
echo "memcheck hybrid rc=$?"; grep -E "ERROR SUMMARY" $out/memcheck-hybrid.log
echo "all done at $(( $(date +%s) - t0 )) s"
