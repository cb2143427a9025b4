#!/usr/bin/env bash
# Session 21, the session's final tree on the GPU machine: gpu_test (the CPU's levels in flight,
# its banded gray integral images and the CUDA lbp_boundaries default 4, 64, window by window and
# level by level against the GPU).
source experiments/gpu/device_env.sh  # out, B, t0, run_gpu_test
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
