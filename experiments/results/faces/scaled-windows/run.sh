#!/bin/bash
# Scaled windows on octaves (--scale-windows) and LBP stages on octaves (--approximate-lbp) for the
# shipped face sequence, this machine, CPU: CMU+MIT accuracy (the faces protocol: stride 1, ×1.1,
# from 0.8, NMS 0.3) and one-thread speed at 1920×1080, ×1.1, stride 2 (the speed target's scan)
# on the CMU+MIT group photo, with OpenCV's LBP cascade, ROUNDS rounds (default 2). MODES: the
# scans (default "resampled scaled"; "octaves" is --approximate-lbp), OUT: where the files go
# (default this folder).
# Usage: [MODES="resampled octaves"] [OUT=DIR] bash experiments/results/faces/scaled-windows/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-experiments/results/faces/scaled-windows}
modes=${MODES:-resampled scaled}
flags() { case $1 in scaled) echo --scale-windows ;; octaves) echo --approximate-lbp ;; esac; }
export CASCADEKIT_DATA=${CASCADEKIT_DATA:-../shared/data}
m=experiments/models/faces-lbp.h5
for mode in $modes; do
  f=$(flags $mode)
  build/tools/cascade -q eval --model $m --faces $out/faces-lbp-$mode.csv --stride 1 --scale-step 1.1 --min-scale 0.8 \
      --fuse nms --nms-iou 0.3 --backend cpu $f > $out/faces-lbp-$mode.txt 2>&1
  echo "$mode: $(grep -o 'face points rule: .*' $out/faces-lbp-$mode.txt | head -1)"
done
for r in $(seq 1 "${ROUNDS:-2}"); do
  line="round $r:"
  for mode in $modes; do
    read -r -a f <<< "$(flags $mode)"
    peer=(); [ $mode = resampled ] && peer=(--peer build/experiments/opencv_face_peer
        --peer-args="--cascade /usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml" --peer-name "OpenCV LBP frontalface")
    build/tools/cascade -q bench detect --backend cpu --model $m --sizes 1920x1080 --scale-steps 1.1 --strides 2 \
        --cpu-repeats 5 --cpu-threads 1 --frame "$CASCADEKIT_DATA/Faces/cmu-mit/test/music-groups-double.png" \
        "${f[@]}" "${peer[@]}" --out $out/bench-$mode-$r.md > /dev/null 2>&1
    # The table "Every configuration": windows, then CPU 1 thread ms; OpenCV's 1 thread ms.
    row=$(grep '^| 1920x1080 | ×1.1 | 2 |' $out/bench-$mode-$r.md | tail -1)
    line+=" $mode $(echo "$row" | cut -d'|' -f8 | tr -d ' ') ms ($(echo "$row" | cut -d'|' -f5 | tr -d ' ') windows)"
  done
  line+=" OpenCV LBP $(grep '^| 1920x1080 | ×1.1 | 2 |' $out/bench-resampled-$r.md | tail -1 | cut -d'|' -f14 | tr -d ' ') ms"
  echo "$line"
done
