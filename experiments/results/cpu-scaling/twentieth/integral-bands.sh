#!/usr/bin/env bash
# Session 20, on the GPU machine's host: the gray integral image in bands of about 4 a thread,
# each table entry written once (column sums, their running sums, then each band's rows), with
# the phase timing of phases.diff still in: phases at 1 and 16 threads (two runs), then the
# efficiency against 16 pinned one-thread detectors at once (as concurrent.sh).
source experiments/gpu/device_env.sh  # out, B, D, t0
bash experiments/results/cpu-scaling/twentieth/phases.sh
lbp=$D/opencv/lbpcascade_frontalface.xml
args=(-q bench detect --backend cpu --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.1
  --strides 2 --frame $D/face-frame.ppm)
mkdir -p /tmp/conc
for i in $(seq 0 15); do taskset -c $i $B/cascade "${args[@]}" --cpu-repeats 9 --out /tmp/conc/ours-$i.md > /dev/null 2>&1 & done; wait
for i in $(seq 0 15); do
  echo "cpu $i ours $(grep '^| 1920x1080' /tmp/conc/ours-$i.md | tail -1 | awk -F'|' '{gsub(/ /,"",$8); print $8}')"
done > "$out/concurrent.txt"
timeout 250 $B/cascade "${args[@]}" --cpu-repeats 9 --cpu-threads 1,16 --out "$out/scaling-1-16.md" > /dev/null 2>&1
grep -E '^\| 1920x1080 \| ×1.1 \| 2 \| [0-9]+ \| [0-9.]+ \| [0-9.]+×' "$out/scaling-1-16.md" | tee "$out/scaling-rows.txt"
python3 - "$out/concurrent.txt" "$out/scaling-rows.txt" <<'PY' | tee "$out/efficiency.txt"
import sys
v = [float(l.split()[3]) for l in open(sys.argv[1])]
r16 = [r.split('|') for r in open(sys.argv[2]) if r.split('|')[4].strip() == '16'][0]
ideal = 1 / sum(1 / x for x in v); a = float(r16[5])
print(f"ours: 16 pinned one-thread runs at once {min(v):.1f}-{max(v):.1f} ms (median {sorted(v)[8]:.1f}); summed rate "
      f"{ideal:.1f} ms a frame; one detector on 16 threads {a:.1f} ms; efficiency {100 * ideal / a:.0f} %")
PY
