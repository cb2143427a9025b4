# Session 29, fifth call: after the tile kernels' level and place became one helper (tile_place),
# the GPU tests of every WaldBoost first launch (untiled and tiled), 16-bit points and shipped models.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300 --gtest_filter='GpuFeatures.GrayIntegral*:GpuDetector.RandomWaldBoost*:GpuDetector.SixteenBit*:GpuDetector.Shipped*:GpuDetector.Hybrid*'
cp $out/gpu_test.log $out/place-gpu_test.log
bench_faces $B/cascade experiments/models/faces-lbp.h5 place-fa
echo "all done at $(( $(date +%s) - t0 )) s"
