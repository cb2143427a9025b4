#!/usr/bin/env bash
# Session 17, run 3: face sequences trained with waldboost.rejection_rounds against the shipped
# one, alternating, two rounds: faces 1920×1080, 2048 weak classifiers (padded), 8 levels per octave.
# The models: `cascade train --config experiments/results/faces/faces-lbp-{a02-rr8,rr32}.yaml --out .bundle/rj/{a2r8,r32}.h5`,
# carried with the bundle (.bundle/rj).
source experiments/gpu/device_env.sh
for r in 1 2; do
  for m in experiments/models/faces-lbp.h5 .bundle/rj/a2r8.h5 .bundle/rj/r32.h5; do
    n=$(basename $m .h5)
    SECONDS=0
    timeout 100 $B/cascade -q bench detect --model $m --sizes 1920x1080 --scale-steps 1.0905077 --max-scale 16 --strides 1,2 \
      --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/fa-$n-$r.md" > /dev/null 2>&1
    echo "$n round $r rc=$? ${SECONDS}s"; grep -E "$row" "$out/fa-$n-$r.md"
    grep -A12 'Survivors after each launch' "$out/fa-$n-$r.md" | grep '^| 1920x1080 | ×1.09051 | 1 |'
  done
done
