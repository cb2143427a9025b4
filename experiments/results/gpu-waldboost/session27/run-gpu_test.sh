# gpu_test with the alpha-0.15 face sequence shipped (and the window-fit message change), then its face benchmark.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 480
echo "gpu_test done at $(( $(date +%s) - t0 )) s"
cp $out/gpu_test.log $out/shipped-a015-gpu_test.log
bench_faces $B/cascade experiments/models/faces-lbp.h5 shipped-a015
