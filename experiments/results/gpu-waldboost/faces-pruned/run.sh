#!/usr/bin/env bash
# Session 19: the face sequence with backward pruning (configs/faces-lbp.yaml: waldboost.backward_pruning,
# pruning_quantile 0.01) against the eighteenth session's (.bundle/ab/faces-lbp-prev.h5), and the
# CPU detector whose last survivors of a chunk go on one window at a time: gpu_test (the
# shipped-model comparisons read experiments/models/faces-lbp.h5, now the pruned one), faces
# 1920×1080, 2048 weak classifiers (both padded), strides 1 and 2, alternating, two rounds; then
# the CPU backend and OpenCV's LBP cascade on the host's cores (1 and 16 threads), both sequences.
source experiments/gpu/device_env.sh  # out, B, D, row, t0, run_gpu_test, bench_faces
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
run_gpu_test 260; echo "  at $(( $(date +%s) - t0 )) s"
for r in 1 2; do
  bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-pruned-$r
  bench_faces $B/cascade .bundle/ab/faces-lbp-prev.h5 fa-prev-$r
done
cpu() { timeout 120 $B/cascade -q bench detect --backend cpu --model $1 --sizes 1920x1080 --scale-steps 1.1 \
  --strides 2 --cpu-repeats 7 --cpu-threads 1,16 --frame $D/face-frame.ppm --peer $B/opencv_face_peer \
  --peer-args="--cascade $D/opencv/lbpcascade_frontalface.xml" --peer-name "OpenCV LBP" --out "$out/$2.md" > /dev/null 2>&1
  echo "$2 rc=$? at $(( $(date +%s) - t0 )) s"; grep -E '^\| 1920x1080 \| ×1.1 \| 2 \| [0-9]+ \|' "$out/$2.md"; }
for r in 1 2; do
  cpu experiments/models/faces-lbp.h5 cpu-pruned-$r
  cpu .bundle/ab/faces-lbp-prev.h5 cpu-prev-$r
done
