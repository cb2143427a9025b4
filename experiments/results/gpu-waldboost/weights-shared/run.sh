#!/usr/bin/env bash
# Session 16, run 5: the HoG plane sums' SVM weights read into shared memory with the pixels (new) against
# HEAD (base): the people hybrid alternating base/new three times, the faces hybrid once each; gpu_test of new.
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out" /tmp/b && tar xJf .bundle/gpu.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/tmp/b/gpu/lib CASCADEKIT_DATA=/tmp/b/data CASCADEKIT_SOURCE_DIR=$PWD CASCADEKIT_SCRATCH=/tmp/scratch
D=/tmp/b/data
t0=$(date +%s)
row='^\| [0-9x]+ \| ×[0-9.]+ \| [0-9] \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$'
pe() { timeout 90 .bundle/s16-$1-cascade -q bench detect --model experiments/models/inria-hybrid.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 \
  --no-cpu --frame $D/bench-frame.ppm --out "$out/pe-$1-$2.md" > /dev/null 2>&1
  echo "pe $1 $2 rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/pe-$1-$2.md"; grep -A6 "per step" "$out/pe-$1-$2.md" | grep "^| 1280"; }
fh() { timeout 120 .bundle/s16-$1-cascade -q bench detect --model experiments/models/faces-hybrid.h5 --sizes 1920x1080 --scale-steps 1.1 --strides 2 \
  --no-cpu --frame $D/face-frame.ppm --out "$out/fh-$1.md" > /dev/null 2>&1; echo "fh $1 rc=$?"; grep -E "$row" "$out/fh-$1.md"; }
for r in 1 2 3; do pe base $r; pe new $r; done
fh base; fh new
timeout 220 .bundle/s16-new-gpu_test > "$out/gpu_test.log" 2>&1; echo "gpu_test rc=$? $(( $(date +%s) - t0 )) s"
grep -E "^\[  (PASSED|FAILED)" "$out/gpu_test.log"
echo "comparisons: $(grep -c 'differences near' "$out/gpu_test.log"), with differences: $(grep 'differences near' "$out/gpu_test.log" | grep -vc ' 0 differences')"
grep -E "Failure" -A3 "$out/gpu_test.log" | head -20
