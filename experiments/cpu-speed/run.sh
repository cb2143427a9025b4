#!/usr/bin/env bash
# One-thread and all-thread CPU speed of the shipped detectors against OpenCV doing the same job
# in the same run (`cascade bench detect`: medians of 5 frames after a warm-up; the benchmark's
# synthetic frame), printed as this folder's table (Markdown). People: 1280×960, ×1.05, stride 8,
# OpenCV 4.6's HOG people detector; faces: 1920×1080, ×1.1, stride 2, windows from 24 px,
# OpenCV 4.6's LBP frontal-face cascade. The hybrid runs with its fastest scan within its accuracy
# target (--approximate-lbp --approximate-hog).
#   bash experiments/cpu-speed/run.sh [BUILD_DIR] > experiments/cpu-speed/table.md
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cascade=$build/tools/cascade
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
people=(--sizes 1280x960 --scale-steps 1.05 --strides 8 --peer "$build/benchmarks/opencv_hog_peer" --peer-name "OpenCV HOG")
faces=(--sizes 1920x1080 --scale-steps 1.1 --strides 2 --peer "$build/benchmarks/opencv_face_peer" --peer-name "OpenCV LBP"
       "--peer-args=--cascade /usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml")
threads=$(nproc)
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $threads hardware threads."
echo
echo "| model | frame, scan | learners a window | ours, 1 thread ms | OpenCV, 1 thread ms | ours vs OpenCV, 1 thread | ours, $threads threads ms | OpenCV, $threads threads ms | ours vs OpenCV, $threads threads |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
bench() {  # MODEL LABEL ARGS...: the "Every configuration" row as this table's row
  local model=$1 label=$2
  shift 2
  "$cascade" -q bench detect --backend cpu --model models/$model.h5 --cpu-repeats 5 "$@" --out "$work/t.md" >/dev/null 2>&1
  awk -v model="$model" -v label="$label" -F'|' -f experiments/bench_rows.awk \
      -v cols="learners/window;CPU 1 thr ms;OpenCV 1 thr ms;CPU vs OpenCV, 1 thr;CPU $threads thr ms;OpenCV $threads thr ms;CPU vs OpenCV, $threads thr" \
      "$work/t.md"
}
bench inria-hog-cascade "" "${people[@]}"
bench inria-hog-nested "" "${people[@]}"
bench inria-hybrid " (approximated octaves)" "${people[@]}" --approximate-lbp --approximate-hog
bench faces-lbp "" "${faces[@]}"
bench faces-lbp-fast "" "${faces[@]}"
