#!/usr/bin/env bash
# Session 20: the HoG plane sums after an LBP prefix with a warp's lanes spread over 8 places of
# the block (4 neighbouring pixels each) instead of 32 neighbours of one row, against HEAD's
# binary (.bundle/ab/head.tar.xz): gpu_test, then the people hybrid 1280×960, ×1.05, stride 8,
# alternating, three rounds.
source experiments/gpu/device_env.sh  # out, B, D, row, t0, run_gpu_test, ab_people
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
ab_people 3
