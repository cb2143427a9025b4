# Sourced on the GPU machine from the repository root (bash), after experiments/gpu/bundle.sh made
# .bundle/gpu.tar.xz here and the device tool carried it: unpacks it to /tmp/b (every time, so a
# warm machine never runs an earlier bundle) and sets what the bundled binaries and tests need.
# Defines: out (${OUT:-out}, created), B (the binaries), D (the bundle's data), row (a regex for the
# rows of `cascade bench detect`'s "CUDA design choices" table) and run_gpu_test.
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out" /tmp/b && tar xJf .bundle/gpu.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/tmp/b/gpu/lib CASCADEKIT_DATA=/tmp/b/data CASCADEKIT_SOURCE_DIR=$PWD CASCADEKIT_SCRATCH=/tmp/scratch
B=/tmp/b/gpu/bin
D=/tmp/b/data
row='^\| [0-9x]+ \| ×[0-9.]+ \| [0-9] \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$'

# run_gpu_test TIMEOUT_S [GTEST ARGS...]: the gpu tests ($GPU_TEST, default the bundle's) into
# $out/gpu_test.log, then their summary: exit status, pass/fail lines, window-by-window comparisons
# and those with differences, failures.
run_gpu_test() {
  local limit=$1; shift
  timeout "$limit" "${GPU_TEST:-$B/gpu_test}" "$@" > "$out/gpu_test.log" 2>&1; echo "gpu_test rc=$?"
  grep -E "^\[  (PASSED|FAILED)|mining:" "$out/gpu_test.log"
  echo "comparisons: $(grep -c 'differences near' "$out/gpu_test.log"), with differences: $(grep 'differences near' "$out/gpu_test.log" | grep -vc ' 0 differences')"
  grep -E "Failure" -A3 "$out/gpu_test.log" | head -20
}
