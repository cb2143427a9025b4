#!/bin/bash
# Issue 13: gray all-data cascades with fewer learners per window (this machine).
# Usage: bash run.sh NAME...   (NAME.yaml in this folder; models go to /tmp/few-learners/NAME.h5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
cascade=${CASCADE:-$root/build/tools/cascade}
export CASCADEKIT_DATA=${CASCADEKIT_DATA:-$root/../shared/data}
mkdir -p /tmp/few-learners
for name in "$@"; do
  /usr/bin/time -v "$cascade" train --config "$here/$name.yaml" --out /tmp/few-learners/$name.h5 \
     > /dev/null 2> "$here/$name-time.log" || { echo "$name: training failed"; continue; }
  "$cascade" -q eval --backend cpu --model /tmp/few-learners/$name.h5 --config "$here/$name.yaml" \
     --fppi "$here/$name-ocv.csv" --fuse nms --stride 8 --scale-step 1.05 --pad 0 --pad-level 16 \
     --upscale-below 400 > "$here/$name-ocv.txt" 2>&1
  "$cascade" -q eval --backend cpu --model /tmp/few-learners/$name.h5 --config "$here/$name.yaml" \
     --fppi "$here/$name-fppi.csv" > "$here/$name-fppi.txt" 2>&1
done
