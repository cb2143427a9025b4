#!/bin/bash
# faces-lbp.h5 against faces-lbp-fast.h5 on one CPU thread (issue 11's speed scan: 1920×1080, ×1.1,
# stride 2, the CMU+MIT group photo), OpenCV's LBP face cascade in the same runs; alternating, two
# rounds; tables beside this script. Run from the repository root after building.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=${CASCADEKIT_DATA:-../shared/data}
for r in 1 2; do
  for m in faces-lbp faces-lbp-fast; do
    build/tools/cascade -q bench detect --backend cpu --model experiments/models/$m.h5 --sizes 1920x1080 --scale-steps 1.1 \
      --strides 2 --cpu-repeats 5 --cpu-threads 1 --frame "$data/Faces/cmu-mit/test/music-groups-double.png" \
      --peer build/experiments/opencv_face_peer --peer-args="--cascade /usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml" \
      --out "$here/$m-$r.md"
    grep -E "^\| 1920x1080 \| ×1.1 \| 2 \|" "$here/$m-$r.md" | head -1 | sed "s/^/$m round $r: /"
  done
done
