# Boundaries 1, 64 by default: gpu_test.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 320
echo "gpu_test done at $(( $(date +%s) - t0 )) s"
cp $out/gpu_test.log $out/b164-gpu_test.log
