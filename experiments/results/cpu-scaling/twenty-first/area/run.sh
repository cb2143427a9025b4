#!/usr/bin/env bash
# Session 21, commit 306aaa7 (--cpu-level-area became --cpu-level-mib later in the session,
# ../memory/run.sh): levels in flight as level tasks under an area budget (CpuOptions::levels_in_flight 8,
# level_area_in_flight 2 by default) on the GPU machine's 16 CPUs. gpu_test first (the CPU
# detector against the GPU, window by window); then, on the same host, 16 pinned one-thread
# detectors at once as the reference (pinned_faces, and the same for the people models), and
# interleaved 1,16-thread rounds of `cascade bench detect --cpu-threads` with the defaults, with no
# area bound (--cpu-level-area 100) and with 4 levels; each table also times the same detector one
# level at a time and many frames a frame a thread (BulkDetector). Then one full 1,2,4,8,16 table
# for faces, and the peak memory of `cascade detect` on one frame. Few files under $OUT.
source experiments/gpu/device_env.sh  # out, B, D, t0, run_gpu_test, faces_cpu, people_cpu, pinned_faces, pinned_people, detect_memory, efficiency
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/sc
pinned_faces $B/cascade /tmp/pin-faces.txt
for r in 1 2; do
  for c in default "--cpu-level-area 100" "--cpu-levels 4"; do
    n=$(echo "$c" | tr -d ' -'); timeout 200 $B/cascade "${faces_cpu[@]}" --cpu-repeats 9 --cpu-threads 1,16 $([ "$c" = default ] || echo $c) \
      --out /tmp/sc/faces-$n-round$r.md > /dev/null 2>&1
  done
done
echo "== faces at $(( $(date +%s) - t0 )) s"; efficiency /tmp/pin-faces.txt /tmp/sc/faces-*.md | tee "$out/efficiency.txt"
for m in inria-hog-cascade inria-hybrid; do
  pinned_people experiments/models/$m.h5 /tmp/pin-$m.txt
  for c in default "--cpu-level-area 100"; do
    n=$(echo "$c" | tr -d ' -'); timeout 200 $B/cascade "${people_cpu[@]}" --model experiments/models/$m.h5 --cpu-repeats 7 --cpu-threads 1,16 \
      $([ "$c" = default ] || echo $c) --out /tmp/sc/$m-$n.md > /dev/null 2>&1
  done
  echo "== $m at $(( $(date +%s) - t0 )) s"; efficiency /tmp/pin-$m.txt /tmp/sc/$m-*.md | tee -a "$out/efficiency.txt"
done
timeout 200 $B/cascade "${faces_cpu[@]}" --cpu-repeats 7 --cpu-threads 1,2,4,8,16 --out /tmp/sc/faces-1-16.md > /dev/null 2>&1
for f in /tmp/sc/*.md; do echo "## $(basename $f)"; grep -A8 "one level at a time, ms" $f | grep '^|'; done > "$out/scaling-tables.md"
cat /tmp/pin-faces.txt /tmp/pin-inria-*.txt > "$out/pinned.txt"
detect_memory $B/cascade "$out/efficiency.txt"  # peak memory of `cascade detect` on one frame, 16 threads
echo "done at $(( $(date +%s) - t0 )) s"
