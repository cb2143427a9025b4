#!/usr/bin/env bash
# The operating point stored in each shipped model (cascade calibrate), chosen again into a
# scratch copy and printed as this folder's table (Markdown); the shipped files are not touched.
# `--write` writes the points into models/ instead (how they were stored).
# People models: PennFudanPed as COCO (experiments/make_annotated_sets.py); the loosest
# threshold keeping at most 0.1 false positives per image on the 1st, 3rd, … image, checked on
# the others; stride 4, scale step 1.1, smallest window 0.75 of 128 px (people from 72 px tall),
# a border of 0.25 of the image height, NMS at IoU 0.5. Face models: CMU+MIT's frontal faces by
# the face-points rule, the same target, stride 2, scale step 1.1, smallest scale 0.8, NMS at 0.3.
#   bash experiments/operating-points/run.sh [BUILD_DIR] [--write] > experiments/operating-points/table.md
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cascade=$build/tools/cascade
data=${CASCADEKIT_DATA:-../shared/data}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work
[ "${2:-}" = "--write" ] && out=models
/usr/bin/python3 experiments/make_annotated_sets.py "$work/sets" "$data" >/dev/null
echo "| model | threshold | chosen on: FPPI, miss rate | checked on the other half: FPPI, miss rate | other half's log-average miss rate |"
echo "| --- | ---: | --- | --- | ---: |"
row() {  # MODEL, then calibrate's output on stdin
  awk -v m="$1" '
    /: threshold / { t = $3 }
    /chosen on/ { sub(/.*: FPPI /, ""); sub(/, miss rate /, ", "); c = $0 }
    /checked on/ { l = $0; sub(/.*log-average miss rate there /, "", l); sub(/\).*/, "", l)
                   sub(/.*: FPPI /, ""); sub(/, miss rate /, ", "); sub(/ \(.*/, ""); k = $0 }
    END { printf "| `%s.h5` | %s | %s | %s | %s |\n", m, t, c, k, l }'
}
for m in inria-hog-cascade inria-hog-cascade-all inria-hog-colour inria-hog-nested inria-hog-nested-all inria-hybrid \
         inria-dalal-triggs inria-lbp; do
  "$cascade" -q calibrate --model "models/$m.h5" --out "$out/$m.h5" \
      --annotations "$work/sets/pennfudan-coco.json" --images "$data/PennFudanPed" --class person \
      --fppi 0.1 --stride 4 --scale-step 1.1 --min-scale 0.75 --pad 0.25 --pad-level 0 --fuse nms --nms-iou 0.5 | row $m
done
for m in faces-hybrid faces-lbp faces-lbp-fast; do
  "$cascade" -q calibrate --model "models/$m.h5" --out "$out/$m.h5" --faces \
      --fppi 0.1 --stride 2 --scale-step 1.1 --min-scale 0.8 --pad 0 --pad-level 0 --fuse nms --nms-iou 0.3 | row $m
done
