#!/usr/bin/env bash
# Session 19: the warp-per-window parts copy the window's integral-image points to shared memory
# before their look-ups (CudaOptions::lbp_warp_staged).
#   run.sh bench     gpu_test; the pruned faces (1920×1080, 2048 weak classifiers, strides 1 and 2)
#                    with it and with HEAD's binary (.bundle/ab/cascade-base), alternating, two
#                    rounds; the people hybrid and inria-lbp with it (unstaged: 64×128 windows)
#   run.sh sanitize  memcheck and racecheck of the WaldBoost tests
# (The option was measured in a build not committed; with the tree as it is, this runs HEAD twice.)
source experiments/gpu/device_env.sh  # out, B, D, row, t0, run_gpu_test, bench_faces, sanitize_waldboost
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ "${1:-bench}" = sanitize ]; then sanitize_waldboost; exit 0; fi
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
for r in 1 2; do
  bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-staged-$r
  bench_faces .bundle/ab/cascade-base experiments/models/faces-lbp.h5 fa-base-$r
done
for m in inria-hybrid inria-lbp; do
  timeout 60 $B/cascade -q bench detect --model experiments/models/$m.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 \
    --no-cpu --frame $D/bench-frame.ppm --out "$out/pe-$m.md" > /dev/null 2>&1
  echo "pe-$m rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/pe-$m.md"
done
