#!/usr/bin/env bash
# Session 20, on the GPU machine's host, with a temporary build (phases.diff: CpuDetector::detect
# prints its phases' wall times when CASCADEKIT_PHASES is set): where a frame's time goes at 1 and
# 16 threads (faces, 1920x1080, x1.1, stride 2, interleaved rounds), two runs; medians per phase.
source experiments/gpu/device_env.sh  # out, B, D, t0
for r in 1 2; do
  CASCADEKIT_PHASES=1 timeout 200 $B/cascade -q bench detect --backend cpu --model experiments/models/faces-lbp.h5 \
    --sizes 1920x1080 --scale-steps 1.1 --strides 2 --frame $D/face-frame.ppm --cpu-repeats 9 --cpu-threads 1,16 \
    --out "$out/phases-$r.md" 2> "$out/phases-$r.txt" > /dev/null
  echo "run $r rc=$? at $(( $(date +%s) - t0 )) s"
  python3 - "$out/phases-$r.txt" <<'PY'
import sys, statistics
rows = {}
for l in open(sys.argv[1]):
    f = l.split()
    if not f or f[0] != 'phases': continue
    d = dict(zip(f[1::2], f[2::2]))
    rows.setdefault(d['threads'], []).append({k: float(v) for k, v in d.items() if k not in ('threads', 'levels')})
keys = ['reset', 'select', 'features', 'rows', 'merge', 'small', 'total']
print('threads frames ' + ' '.join(keys))
for t, v in sorted(rows.items(), key=lambda x: int(x[0])):
    print(t, len(v), ' '.join(f"{statistics.median(x[k] for x in v):.2f}" for k in keys))
PY
done
