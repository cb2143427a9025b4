# Session 29, fourth call: the shipped-model GPU test with faces-lbp-fast.h5 in its list, and the
# face benchmark of both shipped face sequences once more (the committed files).
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 200 --gtest_filter='GpuDetector.Shipped*:GpuFeatures.GrayIntegral*'
cp $out/gpu_test.log $out/shipped-gpu_test.log
grep -c "faces-lbp-fast.h5" $out/shipped-gpu_test.log
for m in faces-lbp faces-lbp-fast; do
  bench_faces $B/cascade experiments/models/$m.h5 shipped-$m
done
echo "all done at $(( $(date +%s) - t0 )) s"
