#!/bin/bash
# CPU, this machine, one thread: the binary before and after the HoG planes' levels were mapped
# through the gamma table once a level (integral_histogram.cpp: gamma_mapped, gradient_row),
# alternating, two rounds; the synthetic frame for every model, a PennFudan photo for two.
# Usage: bash experiments/results/inria/mapped-levels/bench.sh BEFORE_CASCADE AFTER_CASCADE
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=experiments/results/inria/mapped-levels
photo=../shared/data/PennFudanPed/PNGImages/$(ls ../shared/data/PennFudanPed/PNGImages | sed -n 41p)
models="experiments/models/inria-hog-cascade.h5 experiments/models/inria-hog-cascade-all.h5 experiments/models/inria-hog-colour.h5
        experiments/models/inria-hybrid.h5 .bundle/ab/filing-day.h5"
run() {  # BINARY NAME MODEL [FRAME]
  "$1" -q bench detect --backend cpu --model "$3" --sizes 1280x960 --scale-steps 1.05 --strides 8 --cpu-repeats 5 \
      --cpu-threads 1 ${4:+--frame "$4"} --out "$out/$2.md" > /dev/null 2>&1
  grep 'cascadekit CPU, 1 thread' "$out/$2.md" | cut -d'|' -f3
}
for r in 1 2; do
  for m in $models; do
    n=$(basename "$m" .h5)
    echo "$n round $r, synthetic: before $(run "$1" "$n-before-$r" "$m") after $(run "$2" "$n-after-$r" "$m")"
    case $n in inria-hog-cascade|inria-hog-colour)
      echo "$n round $r, photo: before $(run "$1" "$n-photo-before-$r" "$m" "$photo") after $(run "$2" "$n-photo-after-$r" "$m" "$photo")";;
    esac
  done
done
