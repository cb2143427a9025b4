#!/bin/bash
# HoG histograms approximated from smoothed octaves (DetectParams::approximate_hog,
# --approximate-hog) against the resampled scan and scaled windows (--scale-windows), for the
# shipped people hybrid and HoG cascade, this machine, CPU backend.
# Accuracy: PennFudan by our protocol (the eval's ×1.2 scan, and the same at ×1.05) and by OpenCV's
# (stride 8, ×1.05, level border 16, photos under 400 pixels enlarged 2×), for the approximated scan
# (the resampled and scaled ones: experiments/results/inria/scaled-windows/run.sh accuracy).
# Speed: one thread, 1280×960, ×1.05, stride 8, the synthetic frame and a PennFudan photo, each
# model in the three scans in turn, ROUNDS rounds (default 3), with OpenCV's HOG detector in the
# synthetic rounds.
# Usage: bash experiments/results/inria/approximate-hog/run.sh [accuracy] [speed]
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=experiments/results/inria/approximate-hog
export CASCADEKIT_DATA=${CASCADEKIT_DATA:-../shared/data}
models="inria-hybrid inria-hog-cascade"
lamr() { grep -o 'log-average miss rate [0-9.]*' "$1" | head -1 | cut -d' ' -f4; }
if [[ " $* " == *" accuracy "* ]]; then
  for m in $models; do
    f=--approximate-hog
    build/tools/cascade -q eval --backend cpu --model experiments/models/$m.h5 $f \
        --fppi $out/$m-approximated-ours.csv > $out/$m-approximated-ours.txt 2>&1
    build/tools/cascade -q eval --backend cpu --model experiments/models/$m.h5 $f --scale-step 1.05 \
        --fppi $out/$m-approximated-ours105.csv > $out/$m-approximated-ours105.txt 2>&1
    build/tools/cascade -q eval --backend cpu --model experiments/models/$m.h5 $f --fuse nms --stride 8 \
        --scale-step 1.05 --pad 0 --pad-level 16 --upscale-below 400 \
        --fppi $out/$m-approximated-ocv.csv > $out/$m-approximated-ocv.txt 2>&1
    echo "$m approximated: ours $(lamr $out/$m-approximated-ours.txt), ours x1.05 $(lamr $out/$m-approximated-ours105.txt), OpenCV's protocol $(lamr $out/$m-approximated-ocv.txt)"
  done
fi
if [[ " $* " == *" speed "* ]]; then
  source experiments/results/inria/scan-rounds.sh
  speed_rounds $out resampled approximated:--approximate-hog scaled:--scale-windows
fi
