#!/bin/bash
# CPU, this machine, one thread: the hybrid retrained on the 4-pixel block grid (shipped), the one
# before it on Zhu's pool (HYBRID_BEFORE, a copy of the earlier experiments/models/inria-hybrid.h5)
# and the gray HoG cascade, alternating, two rounds, the synthetic frame and a PennFudan photo.
# Usage: bash experiments/results/inria/hybrid-grid/bench.sh HYBRID_BEFORE
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=experiments/results/inria/hybrid-grid
photo=../shared/data/PennFudanPed/PNGImages/$(ls ../shared/data/PennFudanPed/PNGImages | sed -n 41p)
run() {  # NAME MODEL [FRAME]
  build/tools/cascade -q bench detect --backend cpu --model "$2" --sizes 1280x960 --scale-steps 1.05 --strides 8 \
      --cpu-repeats 5 --cpu-threads 1 ${3:+--frame "$3"} --out "$out/$1.md" > /dev/null 2>&1
  grep 'cascadekit CPU, 1 thread' "$out/$1.md" | cut -d'|' -f3
}
for r in 1 2; do
  for frame in synthetic photo; do
    f=; [ $frame = photo ] && f=$photo
    echo "round $r, $frame: grid hybrid $(run grid-hybrid-$frame-$r experiments/models/inria-hybrid.h5 $f)" \
         "zhu hybrid $(run zhu-hybrid-$frame-$r "$1" $f) HoG cascade $(run hog-cascade-$frame-$r experiments/models/inria-hog-cascade.h5 $f)"
  done
done
