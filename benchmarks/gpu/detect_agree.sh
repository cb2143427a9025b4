#!/usr/bin/env bash
# On the GPU machine (after device_env.sh is sourced): `cascade detect` with --backend cpu and
# --backend cuda on the bundle's PennFudan photos, for each model given, must write the same JSON
# but for the backend's name and the timings. Prints one line a model; exits 1 on a difference.
#   source benchmarks/gpu/device_env.sh; bash benchmarks/gpu/detect_agree.sh models/inria-hog-cascade.h5 ...
set -uo pipefail
status=0
for model in "$@"; do
  name=$(basename "$model" .h5)
  for b in cpu cuda; do
    "$B/cascade" -q detect --backend $b --model "$model" --json "$out/agree-$name-$b.json" "$D"/PennFudanPed/PNGImages/*.ppm
  done
  strip() { grep -v '"milliseconds"\|"backend"' "$1"; }
  boxes=$(grep -c '"score"' "$out/agree-$name-cpu.json")
  if cmp -s <(strip "$out/agree-$name-cpu.json") <(strip "$out/agree-$name-cuda.json"); then
    echo "$name: CPU and CUDA JSON the same ($boxes boxes)"
  else
    echo "$name: CPU and CUDA JSON DIFFER"; status=1
  fi
done
exit $status
