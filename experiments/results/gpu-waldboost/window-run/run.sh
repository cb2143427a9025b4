#!/usr/bin/env bash
# Session 16, run 6: the WaldBoost warp and block kernels' window state as one WindowRun (review item),
# the block kernel's look-ups through lookup_round<1>, a gpu_test helper. gpu_test, racecheck of the
# block-per-window test, faces (stride 1, 2) new then HEAD's binary.
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out" /tmp/b && tar xJf .bundle/gpu.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/tmp/b/gpu/lib CASCADEKIT_DATA=/tmp/b/data CASCADEKIT_SOURCE_DIR=$PWD CASCADEKIT_SCRATCH=/tmp/scratch
B=/tmp/b/gpu/bin; D=/tmp/b/data
t0=$(date +%s)
timeout 220 $B/gpu_test > "$out/gpu_test.log" 2>&1; echo "gpu_test rc=$? $(( $(date +%s) - t0 )) s"
grep -E "^\[  (PASSED|FAILED)" "$out/gpu_test.log"
echo "comparisons: $(grep -c 'differences near' "$out/gpu_test.log"), with differences: $(grep 'differences near' "$out/gpu_test.log" | grep -vc ' 0 differences')"
grep -E "Failure" -A3 "$out/gpu_test.log" | head -20
timeout 150 compute-sanitizer --tool racecheck $B/gpu_test --gtest_filter='GpuDetector.BlockPerWindow*' > "$out/racecheck.log" 2>&1; echo "racecheck rc=$? $(( $(date +%s) - t0 )) s"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" "$out/racecheck.log"
row='^\| [0-9x]+ \| ×[0-9.]+ \| [0-9] \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$'
fa() { timeout 100 $1 -q bench detect --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.0905077 \
  --max-scale 16 --strides 1,2 --lbp-weak 2048 --no-cpu --frame $D/face-frame.ppm --out "$out/$2.md" > /dev/null 2>&1
  echo "$2 rc=$? $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$2.md"; grep -A9 "WaldBoost block parts" "$out/$2.md" | grep "^| 1920"; }
fa $B/cascade fa-new
fa .bundle/s16-base-cascade fa-head
