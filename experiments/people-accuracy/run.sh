#!/usr/bin/env bash
# PennFudanPed (170 images, 423 people) scored for every shipped people model and OpenCV's default
# HOG people detector, two ways, and printed as this folder's table (Markdown, on stdout):
#   ours:    stride 8, scale step 1.2, a replicated border of 0.25 of the image height, NMS at
#            IoU 0.5 (cascade eval --fppi's defaults);
#   OpenCV's usual protocol: stride 8, scale step 1.05, every level padded by 16 px
#            (detectMultiScale's padding), images under 400 px enlarged 2× first, NMS.
# Window level: the held-out fifth of INRIA's training part (462 crops' centred windows, 897,915
# windows of the held-out negative images), the miss rate at 1e-4 false positives per window;
# the models trained on all of it (-all) have no held-out part.
# Boxes are matched at IoU >= 0.5 to the person box inside each window; the log-average miss
# rate spans 1e-2 … 1 false positives per image. OpenCV groups its own windows (groupThreshold 2).
#   bash experiments/people-accuracy/run.sh [BUILD_DIR] > experiments/people-accuracy/table.md
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cascade=$build/tools/cascade
peer=$build/benchmarks/opencv_hog_peer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
opencv_protocol=(--stride 8 --scale-step 1.05 --pad 0 --pad-level 16 --upscale-below 400 --fuse nms)
lamr() { sed -n 's/.*log-average miss rate \([0-9.]*\).*/\1/p' | head -1; }
learners() { sed -n 's/.* \([0-9.]*\) weak classifiers per window.*/\1/p' | head -1; }
fppw() { sed -n 's/.*miss rate \([0-9.]*\) at 1e-4.*/\1/p' | head -1; }

"$cascade" -q eval --model models/inria-hog-cascade.h5 --write-lists "$work" >/dev/null
echo "| detector | held-out miss rate at 1e-4 FPPW | PennFudan, ours: log-average miss rate | PennFudan, OpenCV's protocol: log-average miss rate | learners a window (OpenCV's protocol) |"
echo "| --- | ---: | ---: | ---: | ---: |"
for m in inria-hog-cascade inria-hog-cascade-all inria-hog-colour inria-hog-nested inria-hog-nested-all inria-hybrid \
         inria-lbp inria-dalal-triggs; do
  a=$("$cascade" -q eval --backend cpu --model models/$m.h5 --fppi "$work/a.csv" 2>&1)
  b=$("$cascade" -q eval --backend cpu --model models/$m.h5 --fppi "$work/b.csv" "${opencv_protocol[@]}" 2>&1)
  w="–"
  [[ $m == *-all ]] || w=$("$cascade" -q eval --backend cpu --model models/$m.h5 --fppw "$work/w.csv" 2>&1 | fppw)
  echo "| \`$m.h5\` | $w | $(lamr <<<"$a") | $(lamr <<<"$b") | $(learners <<<"$b") |"
done
# The hybrid's fastest scan (experiments/cpu-speed): every level's LBP stages and HoG histograms
# read from its octave.
fast=(--approximate-lbp --approximate-hog)
a=$("$cascade" -q eval --backend cpu --model models/inria-hybrid.h5 --fppi "$work/a.csv" "${fast[@]}" 2>&1)
b=$("$cascade" -q eval --backend cpu --model models/inria-hybrid.h5 --fppi "$work/b.csv" "${opencv_protocol[@]}" "${fast[@]}" 2>&1)
echo "| \`inria-hybrid.h5\`, approximated octaves | | $(lamr <<<"$a") | $(lamr <<<"$b") | $(learners <<<"$b") |"
"$peer" detect --json "$work/ours.json" --pad 0.25 --scale-step 1.2 --stride 8 "$work/pennfudan.txt" >/dev/null
"$peer" detect --json "$work/cv.json" --stride 8 --scale-step 1.05 --pad-level 16 --upscale-below 400 "$work/pennfudan.txt" >/dev/null
"$peer" window-scores --positives "$work/heldout-positives.txt" --negatives "$work/heldout-negatives.txt" \
    --out "$work/cv-windows.json" >/dev/null
w=$("$cascade" -q eval --window-scores "$work/cv-windows.json" --fppw "$work/w.csv" 2>&1 | fppw)
a=$("$cascade" -q eval --detections "$work/ours.json" --fppi "$work/a.csv" 2>&1)
b=$("$cascade" -q eval --detections "$work/cv.json" --fppi "$work/b.csv" 2>&1)
echo "| OpenCV 4.6 HOG people detector (its grouping; trained on these crops) | $w | $(lamr <<<"$a") | $(lamr <<<"$b") | |"
