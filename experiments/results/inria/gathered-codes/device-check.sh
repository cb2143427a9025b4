# Device check of the AVX-512 gathered LBP codes: CPU tests on the host's CPU, GPU against CPU, and one-thread timings.
source experiments/gpu/device_env.sh
lscpu | grep -E "Model name"; grep -o -w avx512f /proc/cpuinfo | head -1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 $B/runtime_test > $out/runtime_test.log 2>&1; echo "runtime_test rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $out/runtime_test.log | head
for f in .bundle/exp/*.xz; do xz -dkf $f; done; chmod +x .bundle/exp/runtime_test-mutant; timeout 200 .bundle/exp/runtime_test-mutant --gtest_filter='*WaldBoost*:*Waldboost*' > $out/mutant.log 2>&1; echo "mutant runtime_test rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $out/mutant.log | head
run_gpu_test 300 --gtest_filter='GpuDetector.RandomWaldBoost*:GpuDetector.Hybrid*:GpuDetector.ShippedModels*:GpuBulk.*:GpuMining.*'
for f in .bundle/exp/*.xz; do xz -dkf $f; done; X=.bundle/exp; chmod +x $X/drv-old $X/drv-new $X/runtime_test-mutant
H=experiments/models/inria-hybrid.h5; C=experiments/models/inria-hog-cascade.h5; F=experiments/models/faces-lbp.h5
for r in 1 2 3 4; do
  for v in old new; do
    echo "round $r $v prefix only: $(NO_GATHER=1 PREFIX_ONLY=1 $X/drv-$v $H 31 hog lbp)"
    echo "round $r $v hybrid both: $(NO_GATHER=1 $X/drv-$v $H 21 hog lbp)"
    echo "round $r $v hybrid d0.75 both: $(NO_GATHER=1 $X/drv-$v $X/h0.75.h5 21 hog lbp)"
    echo "round $r $v faces: $(NO_GATHER=1 STRIDE=2 STEP=1.1 W=1920 H=1080 $X/drv-$v $F 7)"
  done
  echo "round $r hog cascade resampled: $($X/drv-new $C 11)"
done
for r in 1 2 3; do
  $B/cascade -q bench detect --backend cpu --model $H --sizes 1280x960 --scale-steps 1.05 --strides 8 --cpu-repeats 9 \
    --cpu-threads 1 --approximate-lbp --approximate-hog --out $out/hybrid-$r.md > /dev/null 2>&1
  $B/cascade -q bench detect --backend cpu --model $C --sizes 1280x960 --scale-steps 1.05 --strides 8 --cpu-repeats 9 \
    --cpu-threads 1 --out $out/hog-$r.md > /dev/null 2>&1
  echo "bench $r: hybrid both $(grep -E '^\| cascadekit CPU, 1 thread' $out/hybrid-$r.md) hog cascade $(grep -E '^\| cascadekit CPU, 1 thread' $out/hog-$r.md)"
done
