#!/usr/bin/env bash
# Chooses the operating point stored in each shipped model (cascade calibrate) and writes it into
# the model file in place; the stages are not touched. People models: PennFudanPed in COCO form
# (experiments/make_annotated_sets.py), threshold for 0.1 false positives per image on the 1st,
# 3rd, … image, checked on the others; scan stride 4, scale step 1.1, smallest window 0.75 of
# 128 px (people from 72 px tall), border 0.25 of the image height, NMS. Face models: CMU+MIT's
# frontal faces, the same target, stride 2, scale step 1.1, smallest scale 0.8, NMS at IoU 0.3.
#
# Usage: bash experiments/calibrate_models.sh [CASCADE]   (CASCADE default build/tools/cascade)
# Prints each model's threshold and its figures on the held-out half (copied into
# experiments/results/operating-points.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cascade=${1:-build/tools/cascade}
data=${CASCADEKIT_DATA:-../shared/data}
sets=$(mktemp -d)
trap 'rm -rf "$sets"' EXIT
/usr/bin/python3 experiments/make_annotated_sets.py "$sets" "$data" >/dev/null
for m in inria-hog-cascade inria-hog-cascade-all inria-hog-colour inria-hog-nested inria-hog-nested-all inria-hybrid inria-dalal-triggs inria-lbp; do
    "$cascade" -q calibrate --model "experiments/models/$m.h5" --out "experiments/models/$m.h5" \
        --annotations "$sets/pennfudan-coco.json" --images "$data/PennFudanPed" --class person \
        --fppi 0.1 --stride 4 --scale-step 1.1 --min-scale 0.75 --pad 0.25 --pad-level 0 --fuse nms --nms-iou 0.5
done
for m in faces-hybrid faces-lbp faces-lbp-fast; do
    "$cascade" -q calibrate --model "experiments/models/$m.h5" --out "experiments/models/$m.h5" --faces \
        --fppi 0.1 --stride 2 --scale-step 1.1 --min-scale 0.8 --pad 0 --pad-level 0 --fuse nms --nms-iou 0.3
done
