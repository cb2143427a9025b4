#!/usr/bin/env bash
# Session 21: Nsight Compute over every launch of one people-hybrid frame (1280x960, x1.05, stride
# 8, no upscaling or padding; `cascade detect` on the bench frame resized), Speed Of Light section:
# which launches hold the frame's GPU work (the batched time is throughput-bound: 16 frames in
# flight gained 4 % over 4).
source experiments/gpu/device_env.sh  # out, B, D, t0, bench_frames
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench_frames
timeout 300 ncu --clock-control none --section SpeedOfLight \
  $B/cascade -q detect --backend cuda --model experiments/models/inria-hybrid.h5 --stride 8 --scale-step 1.05 --min-scale 1 \
  --pad-level 0 --json /tmp/det.json /tmp/people-1280.ppm > $out/ncu-hybrid.txt 2>&1
echo "ncu rc=$? at $(( $(date +%s) - t0 )) s"
python3 - $out/ncu-hybrid.txt <<'PY' | tee $out/summary.txt
import re, sys, collections
name, tot, n = None, collections.OrderedDict(), collections.Counter()
for line in open(sys.argv[1]):
    if re.search(r'\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)', line):
        name = re.sub(r'^(void )?', '', line.strip()).split('(')[0].split('::')[-1]
    m = re.match(r'\s+Duration\s+(\S+)\s+([\d.,]+)', line)
    if m and name:
        v = float(m.group(2).replace(',', '')) * {'ns': 1e-3, 'us': 1, 'usecond': 1, 'ms': 1e3, 'msecond': 1e3, 'nsecond': 1e-3}.get(m.group(1), 1)
        tot[name] = tot.get(name, 0) + v; n[name] += 1
for k, v in sorted(tot.items(), key=lambda kv: -kv[1]):
    print(f"{v:9.1f} us  {n[k]:3d} launches  {k}")
print(f"{sum(tot.values()):9.1f} us in all")
PY
