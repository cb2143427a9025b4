#!/usr/bin/env bash
# PennFudanPed scored the way OpenCV's default people detector usually is, every detector alike:
# stride 8, scale step 1.05, every pyramid level padded by 16 px (detectMultiScale's padding;
# cascade --pad-level 16), no image border, images under 400 px tall enlarged 2× first, windows
# turned into person boxes by one rule (cascade eval's: the window's centre, 0.75 of its height,
# 0.38 of that wide), greedy matching at IoU >= 0.5, log-average miss rate over 1e-2 … 1 FPPI.
# Our models fuse by NMS at IoU 0.5; OpenCV groups its own windows (groupThreshold 2), and its
# raw windows are also fused by our NMS, to separate classifier from grouping.
# Each of our models also prints the scan's windows and mean weak learners per window (issue 13's
# "≤ 8 learners per window" is counted over these windows). The printed lines are kept in
# summary.txt beside the curves.
#   bash experiments/evaluate_opencv_protocol.sh [BUILD_DIR]      (results: experiments/results/opencv-protocol/)
set -euo pipefail
build=${1:-build}
cascade=$build/tools/cascade
peer=$build/experiments/opencv_hog_peer
out=experiments/results/opencv-protocol
mkdir -p "$out"
exec > >(tee "$out/summary.txt")
lists=$(mktemp -d)
trap 'rm -rf "$lists"' EXIT
protocol=(--stride 8 --scale-step 1.05 --pad 0 --pad-level 16 --upscale-below 400)
"$cascade" -q eval --model experiments/models/inria-hog-cascade.h5 --write-lists "$lists"
for m in inria-hog-cascade inria-hog-cascade-all inria-hog-colour inria-hog-nested inria-hog-nested-all inria-hybrid inria-dalal-triggs; do
  "$cascade" -q eval --model experiments/models/$m.h5 --label "$m" --fppi "$out/$m.csv" --fuse nms "${protocol[@]}"
done
"$peer" detect --json "$lists/opencv.json" --stride 8 --scale-step 1.05 --pad-level 16 --upscale-below 400 "$lists/pennfudan.txt"
"$cascade" -q eval --detections "$lists/opencv.json" --fppi "$out/opencv-hog.csv" --label "opencv-hog (its grouping)"
"$peer" detect --json "$lists/opencv-raw.json" --stride 8 --scale-step 1.05 --pad-level 16 --upscale-below 400 --group 0 \
    "$lists/pennfudan.txt"
"$cascade" -q eval --detections "$lists/opencv-raw.json" --fuse-detections --fuse nms --fppi "$out/opencv-hog-nms.csv" \
    --label "opencv-hog raw windows, our NMS"
echo "curves in $out"
