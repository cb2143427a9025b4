#!/usr/bin/env bash
# Reproduces experiments/results/inria-hog-cascade.md's figures: evaluates the shipped cascade, the
# dense Dalal-Triggs baseline and OpenCV's default HOG people detector through the same protocols,
# and plots them. Run from the repository root after building (bash .ci/test).
#   bash experiments/evaluate_inria.sh [BUILD_DIR]
# Models are trained by:
#   build/tools/cascade train --config configs/inria-hog-cascade.yaml  --out experiments/models/inria-hog-cascade.h5
#   build/tools/cascade train --config configs/inria-dalal-triggs.yaml --out experiments/models/inria-dalal-triggs.h5
set -euo pipefail
build=${1:-build}
out=experiments/results/inria
mkdir -p "$out"
cascade=$build/tools/cascade
peer=$build/experiments/opencv_hog_peer
lists=$(mktemp -d)
trap 'rm -rf "$lists"' EXIT

"$cascade" -q eval --model experiments/models/inria-hog-cascade.h5 --write-lists "$lists"
for m in inria-hog-cascade inria-dalal-triggs; do
  [ -f experiments/models/$m.h5 ] || { echo "missing experiments/models/$m.h5" >&2; continue; }
  "$cascade" -q eval --model experiments/models/$m.h5 --label $m \
      --fppw $out/$m-fppw.csv --rejection $out/$m-rejection.csv --fppi $out/$m-fppi.csv
done
"$peer" window-scores --positives "$lists/heldout-positives.txt" --negatives "$lists/heldout-negatives.txt" \
    --out "$lists/opencv-window-scores.json"
"$cascade" -q eval --window-scores "$lists/opencv-window-scores.json" --fppw $out/opencv-hog-fppw.csv --label opencv-hog
"$peer" detect --json "$lists/opencv-pennfudan.json" --pad 0.25 --scale-step 1.2 --stride 8 "$lists/pennfudan.txt"
"$cascade" -q eval --detections "$lists/opencv-pennfudan.json" --fppi $out/opencv-hog-fppi.csv --label opencv-hog
# OpenCV's raw windows (no grouping) through our fusions, to separate classifier and fusion.
"$peer" detect --json "$lists/opencv-pennfudan-raw.json" --pad 0.25 --scale-step 1.2 --stride 8 --group 0 "$lists/pennfudan.txt"
for f in nms meanshift; do
  "$cascade" -q eval --detections "$lists/opencv-pennfudan-raw.json" --fuse-detections --fuse $f --fppi "$lists/x.csv" --label "opencv-hog raw windows, our $f"
done
"$cascade" -q eval --detections "$lists/opencv-pennfudan-raw.json" --fuse-detections --fuse meanshift --score-weights \
    --fppi "$lists/x.csv" --label "opencv-hog raw windows, our score-weighted meanshift"
for m in inria-hog-cascade inria-dalal-triggs; do
  for f in meanshift "meanshift --score-weights"; do
    "$cascade" -q eval --model experiments/models/$m.h5 --fuse $f --fppi "$lists/x.csv" --label "$m, $f"
  done
done

plot=experiments/plot_eval.py
curves() { for m in inria-hog-cascade inria-dalal-triggs opencv-hog; do [ -f $out/$m-$1.csv ] && echo "$m=$out/$m-$1.csv"; done; }
/usr/bin/python3 $plot fppw $out/fppw.png $(curves fppw)
/usr/bin/python3 $plot fppi $out/fppi.png $(curves fppi)
/usr/bin/python3 $plot rejection $out/rejection.png $out/inria-hog-cascade-rejection.csv
"$cascade" -q inspect experiments/models/inria-hog-cascade.h5 --draw $out/stages-1-3-5.png --stages 1,3,5 > /dev/null
echo "results in $out"
