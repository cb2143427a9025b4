#!/usr/bin/env bash
# Session 16, run 7: frames in flight (detect_batch slots 4 / 8 / 16) with the final tree, people hybrid and faces.
source experiments/gpu/device_env.sh  # out, B, D, row, run_gpu_test
t0=$(date +%s)
for r in 1 2; do for s in 4 8 16; do
  timeout 60 $B/cascade -q bench detect --model experiments/models/inria-hybrid.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 \
    --no-cpu --frame $D/bench-frame.ppm --slots $s --batch $((4 * s)) --out "$out/pe-s$s-r$r.md" > /dev/null 2>&1
  echo "people hybrid slots $s round $r rc=$? $(( $(date +%s) - t0 )) s: $(grep -E "$row" "$out/pe-s$s-r$r.md")"
done; done
for s in 4 16; do
  timeout 120 $B/cascade -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
    --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --slots $s --batch $((4 * s)) --out "$out/fa-s$s.md" > /dev/null 2>&1
  echo "faces slots $s rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/fa-s$s.md"
done
