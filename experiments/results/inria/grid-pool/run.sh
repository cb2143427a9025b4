#!/bin/bash
# Issue 13: cascades whose blocks lie on a 4-px grid (boosting.pool: zhu-grid4), held-out split (this machine).
# Usage: bash run.sh NAME...   (NAME.yaml in this folder; models go to /tmp/grid-pool/NAME.h5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
cascade=${CASCADE:-$root/build/tools/cascade}
export CASCADEKIT_DATA=${CASCADEKIT_DATA:-$root/../shared/data}
mkdir -p /tmp/grid-pool
for name in "$@"; do
  /usr/bin/time -v "$cascade" train --config "$here/$name.yaml" --out /tmp/grid-pool/$name.h5 \
     > /dev/null 2> "$here/$name-time.log" || { echo "$name: training failed"; continue; }
  "$cascade" -q eval --backend cpu --model /tmp/grid-pool/$name.h5 --config "$here/$name.yaml" \
     --fppw "$here/$name-fppw.csv" --rejection "$here/$name-rejection.csv" > "$here/$name-fppw.txt" 2>&1 \
     || echo "$name: no held-out windows (all-data config)"
  "$cascade" -q eval --backend cpu --model /tmp/grid-pool/$name.h5 --config "$here/$name.yaml" \
     --fppi "$here/$name-ocv.csv" --fuse nms --stride 8 --scale-step 1.05 --pad 0 --pad-level 16 \
     --upscale-below 400 > "$here/$name-ocv.txt" 2>&1
  "$cascade" -q eval --backend cpu --model /tmp/grid-pool/$name.h5 --config "$here/$name.yaml" \
     --fppi "$here/$name-fppi.csv" > "$here/$name-fppi.txt" 2>&1
done
