# Session 29, second call: the face benchmark with the late-part designs table, for the shipped
# sequence ($MODELS: NAME:PATH ..., default the shipped one); compute-sanitizer on face
# detection with 16-bit gray integrals; the GPU tests the first call did not run.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for m in ${MODELS:-shipped:experiments/models/faces-lbp.h5}; do
  bench_faces $B/cascade ${m#*:} late-${m%%:*}
  grep -A8 "WaldBoost late parts" $out/late-${m%%:*}.md | grep "^| 1920"
  grep -A5 "Gray integral images: 16" $out/late-${m%%:*}.md | grep "^| 1920" | head -1
done
for s in 1 2; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/cascade -q detect --backend cuda --model experiments/models/faces-lbp.h5 \
    --stride $s --scale-step 1.0905077 --max-scale 16 $D/face-frame.ppm > $out/memcheck-s$s.log 2>&1
  echo "memcheck faces stride $s rc=$?"; grep -E "ERROR SUMMARY" $out/memcheck-s$s.log
done
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/cascade -q detect --backend cuda --model experiments/models/faces-lbp.h5 \
  --stride 1 --scale-step 1.0905077 --max-scale 16 $D/face-frame.ppm > $out/racecheck.log 2>&1
echo "racecheck faces rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY" $out/racecheck.log
echo "sanitizers done at $(( $(date +%s) - t0 )) s"
run_gpu_test 300 --gtest_filter='-GpuFeatures.*:GpuDetector.RandomWaldBoost*:GpuDetector.SixteenBit*:GpuDetector.BlockPerWindow*:GpuDetector.Shipped*'
cp $out/gpu_test.log $out/rest-gpu_test.log
echo "all done at $(( $(date +%s) - t0 )) s"
