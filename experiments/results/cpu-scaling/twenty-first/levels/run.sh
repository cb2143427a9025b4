#!/usr/bin/env bash
# Session 21, commit c2e5bdb (levels in flight as a TBB pipeline of levels_in_flight tokens, default
# 4; replaced in the same session by level tasks under an area budget, ../area/run.sh): pyramid
# levels in flight on the GPU machine's 16 CPUs.
# gpu_test first (the CPU detector's new level pipeline against the GPU, window by window); then,
# on the same host, 16 pinned one-thread detectors at once as the reference (pinned_faces, and the
# same for the people models), and interleaved 1,16-thread rounds of `cascade bench detect
# --cpu-threads` with 2, 4 (the default) and 8 levels in flight; each table also times the same
# detector one level at a time and many frames a frame a thread (BulkDetector). Then one full
# 1,2,4,8,16 table for faces. Few files under $OUT.
source experiments/gpu/device_env.sh  # out, B, D, t0, run_gpu_test, faces_cpu, people_cpu, pinned_faces, pinned_people, detect_memory, efficiency
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/sc
pinned_faces $B/cascade /tmp/pin-faces.txt
for r in 1 2; do
  for lv in 4 8 2; do
    timeout 200 $B/cascade "${faces_cpu[@]}" --cpu-repeats 9 --cpu-threads 1,16 --cpu-levels $lv --out /tmp/sc/faces-levels$lv-round$r.md > /dev/null 2>&1
  done
done
echo "== faces at $(( $(date +%s) - t0 )) s"; efficiency /tmp/pin-faces.txt /tmp/sc/faces-*.md | tee "$out/efficiency.txt"
for m in inria-hog-cascade inria-hybrid; do
  pinned_people experiments/models/$m.h5 /tmp/pin-$m.txt
  for lv in 4 8; do
    timeout 200 $B/cascade "${people_cpu[@]}" --model experiments/models/$m.h5 --cpu-repeats 7 --cpu-threads 1,16 --cpu-levels $lv \
      --out /tmp/sc/$m-levels$lv.md > /dev/null 2>&1
  done
  echo "== $m at $(( $(date +%s) - t0 )) s"; efficiency /tmp/pin-$m.txt /tmp/sc/$m-*.md | tee -a "$out/efficiency.txt"
done
timeout 200 $B/cascade "${faces_cpu[@]}" --cpu-repeats 7 --cpu-threads 1,2,4,8,16 --out /tmp/sc/faces-1-16.md > /dev/null 2>&1
for f in /tmp/sc/*.md; do echo "## $(basename $f)"; grep -A8 "one level at a time, ms" $f | grep '^|'; done > "$out/scaling-tables.md"
cat /tmp/pin-faces.txt /tmp/pin-inria-*.txt > "$out/pinned.txt"
detect_memory $B/cascade "$out/efficiency.txt"  # peak memory of `cascade detect` on one frame, 16 threads
echo "done at $(( $(date +%s) - t0 )) s"
