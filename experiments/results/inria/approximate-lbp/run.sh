#!/bin/bash
# LBP stages on the octaves (DetectParams::approximate_lbp, --approximate-lbp), alone and with
# approximated HoG histograms (--approximate-hog), for the shipped people hybrid, and the
# approximated-HoG scan alone for both people models, this machine, CPU backend. Accuracy: PennFudan by our protocol (the eval's ×1.2 scan, and the same at ×1.05)
# and by OpenCV's (stride 8, ×1.05, level border 16, photos under 400 pixels enlarged 2×).
# Speed: one thread, 1280×960, ×1.05, stride 8, the synthetic frame and a PennFudan photo, the
# hybrid and the HoG cascade resampled, with approximated HoG histograms, and with both
# approximations (the same as the second for the HoG cascade, which has no LBP stage), ROUNDS
# rounds (default 3), with OpenCV's HOG detector in the synthetic rounds.
# Usage: bash experiments/results/inria/approximate-lbp/run.sh [accuracy] [speed]
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=experiments/results/inria/approximate-lbp
export CASCADEKIT_DATA=${CASCADEKIT_DATA:-../shared/data}
lamr() { grep -o 'log-average miss rate [0-9.]*' "$1" | head -1 | cut -d' ' -f4; }
if [[ " $* " == *" accuracy "* ]]; then
  # The approximated-HoG scan again too: its octaves' own levels now read the smoothed octave.
  for run in "inria-hybrid:hog:--approximate-hog" "inria-hybrid:lbp:--approximate-lbp" \
             "inria-hybrid:both:--approximate-lbp --approximate-hog" "inria-hog-cascade:hog:--approximate-hog"; do
    m=${run%%:*}; rest=${run#*:}; n=${rest%%:*}; read -r -a f <<< "${rest#*:}"
    build/tools/cascade -q eval --backend cpu --model experiments/models/$m.h5 "${f[@]}" \
        --fppi $out/$m-$n-ours.csv > $out/$m-$n-ours.txt 2>&1
    build/tools/cascade -q eval --backend cpu --model experiments/models/$m.h5 "${f[@]}" --scale-step 1.05 \
        --fppi $out/$m-$n-ours105.csv > $out/$m-$n-ours105.txt 2>&1
    build/tools/cascade -q eval --backend cpu --model experiments/models/$m.h5 "${f[@]}" --fuse nms --stride 8 \
        --scale-step 1.05 --pad 0 --pad-level 16 --upscale-below 400 \
        --fppi $out/$m-$n-ocv.csv > $out/$m-$n-ocv.txt 2>&1
    echo "$m $n (${rest#*:}): ours $(lamr $out/$m-$n-ours.txt), ours x1.05 $(lamr $out/$m-$n-ours105.txt), OpenCV's protocol $(lamr $out/$m-$n-ocv.txt)"
  done
fi
if [[ " $* " == *" speed "* ]]; then
  source experiments/results/inria/scan-rounds.sh
  speed_rounds $out resampled approximated:--approximate-hog "octaves:--approximate-lbp --approximate-hog"
fi
