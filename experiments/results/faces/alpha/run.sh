#!/bin/bash
# Issue 11/12: the face sequence with a larger alpha (faster first tables?), this machine.
# Usage: bash run.sh NAME...   (NAME.yaml here; models to /tmp/faces-alpha/NAME.h5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
cascade=${CASCADE:-$root/build/tools/cascade}
export CASCADEKIT_DATA=${CASCADEKIT_DATA:-$root/../shared/data}
mkdir -p /tmp/faces-alpha
cd "$root"
for name in "$@"; do
  m=/tmp/faces-alpha/$name.h5
  /usr/bin/time -v "$cascade" train --config "$here/$name.yaml" --out $m 2>&1 | grep -v "info stage  1 round" > "$here/$name-train.log"
  "$cascade" -q eval --model $m --faces "$here/$name-s1-x1.1.csv" --stride 1 --scale-step 1.1 --min-scale 0.8 --fuse nms \
      --nms-iou 0.3 --backend cpu --label "$name, stride 1, x1.1" > "$here/$name-eval.txt" 2>&1
  "$cascade" -q eval --model $m --faces "$here/$name-s2-24.csv" --stride 2 --scale-step 1.1 --fuse nms --nms-iou 0.3 \
      --backend cpu --label "$name, stride 2, x1.1, from 24 px" >> "$here/$name-eval.txt" 2>&1
  "$cascade" -q eval --model $m --config "$here/$name.yaml" --survival "$here/$name-survival.csv" --stride 2 --scale-step 1.2 \
      --label "$name, stride 2, x1.2" >> "$here/$name-eval.txt" 2>&1
done
