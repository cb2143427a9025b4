#!/usr/bin/env bash
# Session 16, run 2: gray staging with AVX2. Staging micro-benchmarks, gpu_test, then faces (stride 1, 2)
# new / old / new / old and the people hybrid.
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out" /tmp/b && tar xJf .bundle/gpu.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/tmp/b/gpu/lib CASCADEKIT_DATA=/tmp/b/data CASCADEKIT_SOURCE_DIR=$PWD CASCADEKIT_SCRATCH=/tmp/scratch
B=/tmp/b/gpu/bin; D=/tmp/b/data
t0=$(date +%s)
./.bundle/graybench; ./.bundle/stagebench
timeout 220 $B/gpu_test > "$out/gpu_test.log" 2>&1; echo "gpu_test rc=$? $(( $(date +%s) - t0 )) s"
grep -E "^\[  (PASSED|FAILED)" "$out/gpu_test.log"
echo "comparisons: $(grep -c 'differences near' "$out/gpu_test.log"), with differences: $(grep 'differences near' "$out/gpu_test.log" | grep -vc ' 0 differences')"
grep -E "Failure" -A3 "$out/gpu_test.log" | head -20
row='^\| [0-9x]+ \| ×[0-9.]+ \| [0-9] \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$'
fa() { timeout 120 $1 -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/$2.md" > /dev/null 2>&1
  echo "$2 rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$2.md"; grep -A9 "frame in gray" "$out/$2.md" | grep "^| 1920"; grep -A6 "per step" "$out/$2.md" | grep "^| 1920"; }
fa $B/cascade fa-new-1
fa .bundle/s15-cascade fa-old-1
fa $B/cascade fa-new-2
timeout 60 $B/cascade -q bench detect --model experiments/models/inria-hybrid.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 \
  --no-cpu --frame $D/bench-frame.ppm --out "$out/pe.md" > /dev/null 2>&1
echo "people hybrid rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/pe.md"; grep -A9 "frame in gray" "$out/pe.md" | grep "^| 1280"
