# Session 28: the kept build (rows kernel, untiled first launch by default): every GPU test, memcheck and
# racecheck of face and hybrid detection, then the face and people benchmarks against the session's first binary.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 330
cp $out/gpu_test.log $out/rows-gpu_test.log
echo "gpu_test done at $(( $(date +%s) - t0 )) s"
for s in 1 2; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/cascade -q detect --backend cuda --model experiments/models/faces-lbp.h5 \
    --stride $s --scale-step 1.0905077 --max-scale 16 $D/face-frame.ppm > $out/memcheck-s$s.log 2>&1
  echo "memcheck faces stride $s rc=$?"; grep -E "ERROR SUMMARY" $out/memcheck-s$s.log
done
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/cascade -q detect --backend cuda --model experiments/models/faces-lbp.h5 \
  --stride 1 --scale-step 1.0905077 --max-scale 16 $D/face-frame.ppm > $out/racecheck.log 2>&1
echo "racecheck faces rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY" $out/racecheck.log
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/cascade -q detect --backend cuda --model experiments/models/inria-hybrid.h5 \
  $D/bench-frame.ppm > $out/memcheck-hybrid.log 2>&1
echo "memcheck hybrid rc=$?"; grep -E "ERROR SUMMARY" $out/memcheck-hybrid.log
echo "sanitizers done at $(( $(date +%s) - t0 )) s"
ab_faces 1 "untiled first launch: windows"
grep -A9 "first launch, tiled or not" $out/fa-new-1.md | grep "^| 1920" | cut -c1-200
ab_people 1
echo "all done at $(( $(date +%s) - t0 )) s"
