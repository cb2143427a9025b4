#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan + libFuzzer; tests/fuzz/) and runs each for
# SECONDS. Exits non-zero when any harness finds a crash, hang (> 10 s on one input), leak or
# out-of-memory (> 2 GiB RSS); the inputs that did it are kept in build-fuzz/findings/.
#   bash experiments/fuzz.sh 60                 # CI: every harness 60 s
#   bash experiments/fuzz.sh 600 --record       # long run, table into experiments/results/fuzz.md
#   bash experiments/fuzz.sh 30 model_loader    # one harness
# The corpora grow in build-fuzz/corpus/<harness>/ across runs; seeds come from fuzz_seeds and
# configs/*.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: experiments/fuzz.sh SECONDS [--record] [HARNESS...]}
shift
record=0
harnesses=()
for a in "$@"; do
  if [ "$a" = "--record" ]; then record=1; else harnesses+=("$a"); fi
done
[ ${#harnesses[@]} -gt 0 ] || harnesses=(model_loader checkpoint pnm config model_values)

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCASCADEKIT_FUZZ=ON \
  -DCASCADEKIT_CUDA=OFF -DCASCADEKIT_BUILD_TOOLS=OFF -DCASCADEKIT_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz
build-fuzz/tests/fuzz/fuzz_seeds build-fuzz/seeds >/dev/null
mkdir -p build-fuzz/seeds/config build-fuzz/findings
cp configs/*.yaml build-fuzz/seeds/config/

status=0
rows=()
for h in "${harnesses[@]}"; do
  corpus=build-fuzz/corpus/$h
  mkdir -p "$corpus"
  log=build-fuzz/$h.log
  echo "=== fuzz_$h for ${seconds} s ==="
  rc=0
  # ASAN_OPTIONS from the caller (CI sets abort_on_error) would turn findings into aborts that
  # libFuzzer cannot report: the harnesses get their own.
  # A small quarantine keeps the fuzzer's RSS low: model inputs that verify are parsed in a forked
  # child, and fork() costs grow with the parent's resident memory.
  ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=16 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "build-fuzz/tests/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/findings/$h-" "$corpus" "build-fuzz/seeds/$h" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  units=$(find "$corpus" -type f | wc -l)
  findings=$(find build-fuzz/findings -name "$h-*" -type f | wc -l)
  if [ "$rc" != 0 ] || [ "$findings" != 0 ]; then
    status=1
    echo "fuzz_$h FOUND A PROBLEM (exit $rc); inputs in build-fuzz/findings/, log:"
    grep -E 'ERROR|SUMMARY|==[0-9]+==|deadly signal|Test unit written' "$log" | head -20
  fi
  echo "fuzz_$h: ${execs:-0} executions (${rate:-0}/s), coverage ${cov:-0} edges, corpus $units, findings $findings"
  rows+=("| \`fuzz_$h\` | $seconds | ${execs:-0} | ${rate:-0} | ${cov:-0} | $units | $findings |")
done

if [ "$record" = 1 ]; then
  out=experiments/results/fuzz.md
  {
    echo
    echo "## $(date -u +%Y-%m-%d) — \`bash experiments/fuzz.sh $seconds --record\`"
    echo
    echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')); $(clang --version | head -1)."
    echo
    echo "| harness | seconds | executions | per second | coverage (edges) | corpus | crashes, hangs, leaks, OOMs |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    printf '%s\n' "${rows[@]}"
  } >>"$out"
  echo "appended to $out"
fi
exit $status
