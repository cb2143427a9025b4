#!/usr/bin/env bash
# CPU thread scaling of the shipped face and people detectors against OpenCV's, one table per
# model (`cascade bench detect --cpu-threads`): 1, 2, 4, … up to the machine's cores.
#   faces:  faces-lbp.h5 and faces-hybrid.h5, 1920x1080, x1.1, stride 2, against OpenCV's LBP cascade
#   people: inria-hybrid.h5 and inria-hog-cascade.h5, 1280x960, x1.05, stride 8, against OpenCV's HOG
# Run from the repository root after building: bash benchmarks/cpu_scaling.sh [BIN_DIR] [OUT_DIR]
# (BIN_DIR holds cascade, opencv_face_peer and opencv_hog_peer; default build/tools + build/benchmarks).
# On the GPU machine: after benchmarks/gpu/bundle.sh, BIN_DIR=/tmp/b/gpu/bin with the bundle's data.
set -uo pipefail
bin=${1:-}
out=${2:-out/cpu-scaling}
mkdir -p "$out"
data=${CASCADEKIT_DATA:-../shared/data}
if [ -z "$bin" ]; then cascade=build/tools/cascade; peers=build/benchmarks; else cascade=$bin/cascade; peers=$bin; fi
face_frame=$data/face-frame.ppm; [ -f "$face_frame" ] || face_frame=$data/Faces/cmu-mit/test/music-groups-double.png
people_frame=$data/bench-frame.ppm; [ -f "$people_frame" ] || people_frame=$data/PennFudanPed/PNGImages/FudanPed00001.png
cascades=${OPENCV_CASCADES:-/usr/share/opencv4/lbpcascades}; [ -f "$data/opencv/lbpcascade_frontalface.xml" ] && cascades=$data/opencv
threads=1; n=$(nproc); t=2; while [ $t -lt "$n" ]; do threads=$threads,$t; t=$((t * 2)); done; [ "$n" -gt 1 ] && threads=$threads,$n
for m in faces-lbp faces-hybrid; do
    "$cascade" -q bench detect --backend cpu --model models/$m.h5 --sizes 1920x1080 --scale-steps 1.1 --strides 2 \
        --cpu-repeats 7 --cpu-threads $threads --frame "$face_frame" --peer "$peers/opencv_face_peer" \
        --peer-args="--cascade $cascades/lbpcascade_frontalface.xml --min-size 24" --peer-name "OpenCV LBP frontalface" \
        --out "$out/$m.md" > "$out/$m.log" 2>&1
    echo "$m rc=$?"
done
for m in inria-hybrid inria-hog-cascade; do
    "$cascade" -q bench detect --backend cpu --model models/$m.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 \
        --cpu-repeats 7 --cpu-threads $threads --frame "$people_frame" --peer "$peers/opencv_hog_peer" \
        --out "$out/$m.md" > "$out/$m.log" 2>&1
    echo "$m rc=$?"
done
for m in faces-lbp faces-hybrid inria-hybrid inria-hog-cascade; do
    echo "== $m"; sed -n '/^## CPU scaling/,/^## Every/p' "$out/$m.md" | grep "^|" | tail -n +3
done
