#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .bundle/gpu.tar.xz or .bundle/lean.tar.xz
# (benchmarks/gpu/bundle.sh) and .bundle/mining.tar.xz (benchmarks/gpu/mining_bundle.sh) carried: trains
# benchmarks/gpu/mining-faces.yaml mining on the CPU (every core) and on the GPU (with each
# mining.in_flight of IN_FLIGHT, default "8"), and prints each mining pass's time, the totals, and
# whether every pass scanned the same images and windows and found the same false positives as on
# the CPU, and the same sequence came out (the model files differ only in the configuration text
# they hold). WEAK=N trains N weak classifiers instead of the configuration's 512 (deeper passes;
# the 800 negative images may run out). MINING_BIN=PATH runs that cascade binary instead of the
# bundle's (an earlier build, for an A/B), TAG=NAME marks its runs' files. NO_CPU=1 trains on the
# GPU only and compares with the untagged CPU run of the same round number, where one was made
# (an A/B's second binary). Logs and models go to ${OUT:-out}.
#   IN_FLIGHT="4 8 16" [WEAK=1024] [MINING_BIN=/tmp/h/gpu/bin/cascade TAG=head [NO_CPU=1]] bash benchmarks/gpu/mining_bench.sh [ROUNDS]
source benchmarks/gpu/device_env.sh
rounds=${1:-1}
mkdir -p /tmp/md && tar xJf .bundle/mining.tar.xz -C /tmp/md
export CASCADEKIT_DATA=/tmp/md/mining SOURCE_DATE_EPOCH=1700000000
echo "$(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
# train NAME BACKEND CONFIG: one training into $out/mining-NAME.h5 and its per-pass summary.
train() {
  set -- "$1${TAG:+-$TAG}" "$2" "$3"
  rm -f "$out/mining-$1.h5" "$out/mining-$1.h5.state"
  local s=$(date +%s%N)
  timeout 300 "${MINING_BIN:-$B/cascade}" train --config "$3" --backend "$2" --out "$out/mining-$1.h5" > "$out/mining-$1-$r.log" 2>&1
  echo "$1 round $r: rc=$? wall $(( ($(date +%s%N) - s) / 1000000 )) ms"
  # the mining passes' times: each pass's, and the sums of its detector's and the negatives' parts
  awk '/mining for stage .* done in/ { t = $0; sub(/.*done in /, "", t); d = t; c = t; sub(/ s.*/, "", t);
       sub(/.*detector /, "", d); sub(/ s.*/, "", d); sub(/.*negatives /, "", c); sub(/ s.*/, "", c);
       n++; sum += t; dsum += d; csum += c; line = line sprintf(" %s", t) }
       END { printf "  %s passes, %.3f s (detector %.3f s, negatives %.3f s):%s\n", n, sum, dsum, csum, line }' "$out/mining-$1-$r.log"
  grep -E "stage  1 done" "$out/mining-$1-$r.log" | sed 's/.*learners/  learners/'
  # what to compare between backends: every pass's counts and the finished stage
  grep -E "mining for stage .* done in|stage  1 done" "$out/mining-$1-$r.log" | sed -E 's/^\[[0-9:]+\] //; s/, done in .*//; s/mined in [^)]*//; s/peak memory.*//' \
    > "$out/mining-$1-$r.counts"
}
sed "s/weak_classifiers: 512/weak_classifiers: ${WEAK:-512}/" benchmarks/gpu/mining-faces.yaml > /tmp/mining.yaml
for r in $(seq 1 "$rounds"); do
  [ "${NO_CPU:-0}" = 1 ] || train cpu cpu /tmp/mining.yaml
  for f in ${IN_FLIGHT:-8}; do
    sed "s/backend: auto}/backend: auto, in_flight: $f}/" /tmp/mining.yaml > /tmp/mining-$f.yaml
    train cuda-$f cuda /tmp/mining-$f.yaml
    cpu_counts="$out/mining-cpu${TAG:+-$TAG}-$r.counts"
    [ "${NO_CPU:-0}" = 1 ] && cpu_counts="$out/mining-cpu-$r.counts"
    cmp -s "$cpu_counts" "$out/mining-cuda-$f${TAG:+-$TAG}-$r.counts" && echo "  the CPU's passes and sequence" || echo "  DIFFERENT FROM THE CPU's"
  done
done
