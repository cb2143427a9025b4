#!/usr/bin/env bash
# CMU+MIT frontal faces (the dev part in $CASCADEKIT_DATA: 65 images, 326 faces) for every shipped
# face model and OpenCV's frontal-face cascades (Debian's opencv-data), scored alike by the
# face-points rule (a box finds a face when it holds the face's eyes, nose and mouth and is not
# far larger than it: fair to every box convention), printed as this folder's table (Markdown).
# Ours: stride 1, scale step 1.1, windows from 0.8 of the 24-pixel window, NMS at IoU 0.3.
# OpenCV's: scale step 1.1, groups of at least 2 windows (minNeighbors 1), scored by their
# stage sums ("weights") or their window counts ("neighbours"), whichever is better.
#   bash experiments/faces-accuracy/run.sh [BUILD_DIR] > experiments/faces-accuracy/table.md
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cascade=$build/tools/cascade
peer=$build/benchmarks/opencv_face_peer
data=${CASCADEKIT_DATA:-../shared/data}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ls "$data"/Faces/cmu-mit/test/*.png "$data"/Faces/cmu-mit/test-low/*.png > "$work/cmu.txt"
# The face-points line: detection rates at 10 and 50 false positives, and its log-average miss rate.
row() { grep "face points rule" | sed -n 's/.* \([0-9.]*\)@10 .* \([0-9.]*\)@50 .*log-average miss rate \([0-9.]*\).*/\1 | \2 | \3/p' | head -1; }
learners() { sed -n 's/.* \([0-9.]*\) weak classifiers per window.*/\1/p' | head -1; }

echo "| detector | detection rate at 10 false positives | at 50 | log-average miss rate | weak classifiers a window |"
echo "| --- | ---: | ---: | ---: | ---: |"
for m in faces-lbp faces-lbp-fast faces-hybrid; do
  r=$("$cascade" -q eval --backend cpu --model models/$m.h5 --faces "$work/x.csv" --stride 1 --scale-step 1.1 \
      --min-scale 0.8 --fuse nms --nms-iou 0.3 2>&1)
  echo "| \`$m.h5\` | $(row <<<"$r") | $(learners <<<"$r") |"
done
for c in haarcascades/haarcascade_frontalface_default haarcascades/haarcascade_frontalface_alt \
         haarcascades/haarcascade_frontalface_alt2 lbpcascades/lbpcascade_frontalface \
         lbpcascades/lbpcascade_frontalface_improved; do
  n=$(basename $c)
  best="" by=""
  for s in weights neighbours; do
    "$peer" detect --cascade /usr/share/opencv4/$c.xml --json "$work/$s.json" --scale-step 1.1 --min-neighbors 1 --score $s \
        "$work/cmu.txt" >/dev/null
    r=$("$cascade" -q eval --detections "$work/$s.json" --faces "$work/x.csv" 2>&1 | row)
    if [ -z "$best" ] || [ "$(cut -d'|' -f2 <<<"$r" | tr -d ' ')" \> "$(cut -d'|' -f2 <<<"$best" | tr -d ' ')" ]; then best=$r by=$s; fi
  done
  echo "| OpenCV 4.6 \`$n\`, scored by $by | $best | |"
done
