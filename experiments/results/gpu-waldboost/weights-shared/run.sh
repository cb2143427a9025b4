#!/usr/bin/env bash
# Session 16, run 5: the HoG plane sums' SVM weights read into shared memory with the pixels (new) against
# HEAD (base): the people hybrid alternating base/new three times, the faces hybrid once each; gpu_test of new.
source experiments/gpu/device_env.sh  # out, B, D, row, run_gpu_test
t0=$(date +%s)
pe() { timeout 90 .bundle/s16-$1-cascade -q bench detect --model experiments/models/inria-hybrid.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 \
  --no-cpu --frame $D/bench-frame.ppm --out "$out/pe-$1-$2.md" > /dev/null 2>&1
  echo "pe $1 $2 rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/pe-$1-$2.md"; grep -A6 "per step" "$out/pe-$1-$2.md" | grep "^| 1280"; }
fh() { timeout 120 .bundle/s16-$1-cascade -q bench detect --model experiments/models/faces-hybrid.h5 --sizes 1920x1080 --scale-steps 1.1 --strides 2 \
  --no-cpu --frame $D/face-frame.ppm --out "$out/fh-$1.md" > /dev/null 2>&1; echo "fh $1 rc=$?"; grep -E "$row" "$out/fh-$1.md"; }
for r in 1 2 3; do pe base $r; pe new $r; done
fh base; fh new
GPU_TEST=.bundle/s16-new-gpu_test run_gpu_test 220; echo "  at $(( $(date +%s) - t0 )) s"
