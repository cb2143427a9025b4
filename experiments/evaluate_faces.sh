#!/usr/bin/env bash
# Reproduces experiments/results/faces-lbp.md's figures: the shipped WaldBoost LBP and hybrid face detectors and
# OpenCV's frontal-face cascades (Debian's opencv-data) on the CMU+MIT frontal faces through the
# same evaluation (the face-points rule, fair to every box convention), the weak-classifier
# survival on held-out backgrounds, and the plots. Run from the repository root after building
# (bash .ci/test); the plots need python3-matplotlib. The speed table comes from
# `cascade bench detect` (the command is in the results file).
#   bash experiments/evaluate_faces.sh [BUILD_DIR]
# The models are trained by:
#   build/tools/cascade train --config configs/faces-lbp.yaml --out experiments/models/faces-lbp.h5
#   build/tools/cascade train --config configs/faces-lbp-fast.yaml --out experiments/models/faces-lbp-fast.h5
#   build/tools/cascade train --config configs/faces-hybrid.yaml --out experiments/models/faces-hybrid.h5
set -euo pipefail
build=${1:-build}
out=experiments/results/faces
mkdir -p "$out"
cascade=$build/tools/cascade
peer=$build/experiments/opencv_face_peer
data=${CASCADEKIT_DATA:-../shared/data}
cascades=/usr/share/opencv4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ls "$data"/Faces/cmu-mit/test/*.png "$data"/Faces/cmu-mit/test-low/*.png > "$work/cmu.txt"

# Ours: NMS at IoU 0.3 (a face's windows overlap less than a person's), windows from 0.8x the
# 24-pixel window (CMU+MIT's smallest faces), two scans.
for name in faces-lbp faces-lbp-fast faces-hybrid; do
  for scan in "2 1.1" "1 1.1"; do
    set -- $scan
    "$cascade" -q eval --model experiments/models/$name.h5 --faces $out/$name-s$1-x$2.csv --stride $1 --scale-step $2 \
        --min-scale 0.8 --fuse nms --nms-iou 0.3 --backend cpu --label "$name, stride $1, x$2"
  done
  # The speed table's scan: stride 2 from the 24-pixel window.
  "$cascade" -q eval --model experiments/models/$name.h5 --faces "$work/$name-s2-24.csv" --stride 2 --scale-step 1.1 \
      --fuse nms --nms-iou 0.3 --backend cpu --label "$name, stride 2, x1.1, from 24 px"
  "$cascade" -q eval --model experiments/models/$name.h5 --config configs/$name.yaml --survival $out/$name-survival.csv \
      --stride 2 --scale-step 1.2 --label "$name, stride 2, x1.2"
done
"$cascade" -q eval --model experiments/models/faces-lbp.h5 --config configs/faces-lbp.yaml --survival "$work/s.csv" \
    --stride 1 --scale-step 1.1 --label "faces-lbp, stride 1, x1.1"

# OpenCV's cascades: x1.1, groups of >= 2 windows, scored by their window count (the knob
# OpenCV's users turn) and by their last stage's sum.
for c in haarcascades/haarcascade_frontalface_default haarcascades/haarcascade_frontalface_alt \
         haarcascades/haarcascade_frontalface_alt2 lbpcascades/lbpcascade_frontalface \
         lbpcascades/lbpcascade_frontalface_improved; do
  n=$(basename $c)
  for s in neighbours weights; do
    "$peer" detect --cascade $cascades/$c.xml --json "$work/$n-$s.json" --scale-step 1.1 --min-neighbors 1 --score $s "$work/cmu.txt"
    "$cascade" -q eval --detections "$work/$n-$s.json" --faces $out/$n-$s.csv --label "$n, $s"
  done
done
/usr/bin/python3 experiments/plot_eval.py faces experiments/results/faces-lbp-roc.png 65 \
    "cascadekit WaldBoost LBP, stride 2, x1.1=$out/faces-lbp-s2-x1.1.csv" \
    "cascadekit WaldBoost LBP, stride 1, x1.1=$out/faces-lbp-s1-x1.1.csv" \
    "cascadekit WaldBoost LBP fast (faces-lbp-fast), stride 1, x1.1=$out/faces-lbp-fast-s1-x1.1.csv" \
    "cascadekit hybrid LBP+HoG, stride 1, x1.1=$out/faces-hybrid-s1-x1.1.csv" \
    "OpenCV Haar alt2=$out/haarcascade_frontalface_alt2-weights.csv" \
    "OpenCV Haar alt=$out/haarcascade_frontalface_alt-neighbours.csv" \
    "OpenCV Haar default=$out/haarcascade_frontalface_default-neighbours.csv" \
    "OpenCV LBP=$out/lbpcascade_frontalface-weights.csv"
/usr/bin/python3 experiments/plot_eval.py survival experiments/results/faces-lbp-survival.png \
    "held-out backgrounds, stride 2, x1.2=$out/faces-lbp-survival.csv"
