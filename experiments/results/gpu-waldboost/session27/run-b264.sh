# Boundaries 2, 64 by default: gpu_test, the face benchmark (shipped and the new candidates, two rounds) and the people hybrid.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 480
echo "gpu_test done at $(( $(date +%s) - t0 )) s"
cp $out/gpu_test.log $out/b264-gpu_test.log
for r in 1 2; do
  bench_faces $B/cascade experiments/models/faces-lbp.h5 b264-shipped-$r
  for m in a0.15-rr8 a0.175 a0.15-rr8-s2 a0.175-s2; do
    [ -f .bundle/ab/faces-lbp-$m.h5 ] && bench_faces $B/cascade .bundle/ab/faces-lbp-$m.h5 b264-$m-$r
  done
done
bench_people $B/cascade experiments/models/inria-hybrid.h5 b264-hybrid
