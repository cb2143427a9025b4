# Session 29, sixth call, after the review: the 16-bit code moved to features' lbp.hpp
# (lbp_code_of_corners_mod16) and tile_place moved; every GPU test.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 420
cp $out/gpu_test.log $out/review-gpu_test.log
echo "all done at $(( $(date +%s) - t0 )) s"
