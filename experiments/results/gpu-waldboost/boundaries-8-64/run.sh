#!/usr/bin/env bash
# Session 20: CudaOptions::lbp_boundaries default 8, 64 (was 16, 64): gpu_test, then the faces
# benchmark and the people hybrid against HEAD's binary (.bundle/ab/head.tar.xz, the session's
# first), one round each.
source experiments/gpu/device_env.sh  # out, B, D, row, t0, run_gpu_test, ab_faces, ab_people
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
ab_faces 1
ab_people 1
