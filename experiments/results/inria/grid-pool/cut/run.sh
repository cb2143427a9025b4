#!/bin/bash
# Issue 13: held-out cascades cut short (`cascade convert --stages N`), evaluated as run.sh evaluates
# (window level on the held-out split, PennFudanPed by OpenCV's protocol). Needs the models that
# ../run.sh trained into /tmp/grid-pool (grid2-colour-clip1-nested12, -nested13, -nested14).
#   bash experiments/results/inria/grid-pool/cut/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../../.." && pwd)
cascade=${CASCADE:-$root/build/tools/cascade}
export CASCADEKIT_DATA=${CASCADEKIT_DATA:-$root/../shared/data}
config=$here/../grid2-colour-clip1-nested12.yaml  # the data section: the held-out split
for cut in nested12:17 nested12:16 nested12:15 nested13:18 nested13:17 nested14:16; do
  run=${cut%:*} stages=${cut#*:}
  name=n${run#nested}-cut$stages
  "$cascade" -q convert /tmp/grid-pool/grid2-colour-clip1-$run.h5 /tmp/grid-pool/$name.h5 --stages "$stages"
  "$cascade" -q eval --backend cpu --model /tmp/grid-pool/$name.h5 --config "$config" --fppw "$here/$name-fppw.csv" \
    > "$here/$name-fppw.txt" 2>&1
  "$cascade" -q eval --backend cpu --model /tmp/grid-pool/$name.h5 --config "$config" --fppi "$here/$name-ocv.csv" \
    --fuse nms --stride 8 --scale-step 1.05 --pad 0 --pad-level 16 --upscale-below 400 > "$here/$name-ocv.txt" 2>&1
done
