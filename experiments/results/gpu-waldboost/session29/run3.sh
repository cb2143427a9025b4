# Session 29, third call: the face benchmark (16-bit gray integrals) of the shipped sequence and the
# two α 0.175 sequences (faces-lbp.md, "α 0.15"; .bundle/ab/, trained by
# experiments/results/faces/alpha/run.sh), alternating, two rounds; then each α 0.175 sequence in
# place of the shipped one under the shipped-model GPU test.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do
  for m in shipped:experiments/models/faces-lbp.h5 a0.175:.bundle/ab/faces-lbp-a0.175.h5 a0.175-s2:.bundle/ab/faces-lbp-a0.175-s2.h5; do
    bench_faces $B/cascade ${m#*:} fast-${m%%:*}-$r
  done
done
cp experiments/models/faces-lbp.h5 /tmp/shipped.h5
for m in a0.175 a0.175-s2; do
  cp .bundle/ab/faces-lbp-$m.h5 experiments/models/faces-lbp.h5
  run_gpu_test 120 --gtest_filter='GpuDetector.Shipped*'
  cp $out/gpu_test.log $out/shipped-$m-gpu_test.log
done
cp /tmp/shipped.h5 experiments/models/faces-lbp.h5
echo "all done at $(( $(date +%s) - t0 )) s"
