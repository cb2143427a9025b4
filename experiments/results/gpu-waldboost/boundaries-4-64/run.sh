#!/usr/bin/env bash
# Session 21: CudaOptions::lbp_boundaries default 4, 64 (was 8, 64): gpu_test with it (this also
# checks the twentieth session's last CPU changes, separable resampling and the integral image's
# column chunks, level by level against the GPU), one face and one people-hybrid benchmark
# (their boundary tables compare 4, 64 with 8, 64 in the same run); then, on the same host, the
# CPU's thread scaling with the bench's "many frames" column (BulkDetector, a whole frame a
# thread) for faces, the HoG cascade and the hybrid, each against 16 pinned one-thread runs at
# once, and the peak memory of a many-frames run at 16 threads. Few files under $OUT.
# (Rewritten after the run for device_env.sh's efficiency, which now reads the bench's Markdown
# files: the same measurements, rows labelled by file name instead of "faces 1", "faces 2".)
source experiments/gpu/device_env.sh  # out, B, D, t0, run_gpu_test, bench_faces, bench_people, faces_cpu, people_cpu, pinned_faces, pinned_people, efficiency
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-new
grep -A8 "compaction boundaries and late parts" $out/fa-new.md | grep "^| 1920" | awk -F'|' '{print "stride", $4, "4,64:", $5, " 8,64:", $19, " 16,64:", $18, " 4,48:", $24, " 3,64:", $25, " 6,64:", $26, " 2,64:", $21}'
bench_people $B/cascade experiments/models/inria-hybrid.h5 pe-new
grep -A8 "compaction boundaries and late parts" $out/pe-new.md | grep "^| 1280" | awk -F'|' '{print "people 4,64:", $5, " 8,64:", $19, " 16,64:", $18}'
# CPU: 16 pinned one-thread runs at once, then interleaved 1,16-thread rounds with many frames.
pinned_faces $B/cascade /tmp/pin-faces.txt
for r in 1 2; do
  timeout 200 $B/cascade "${faces_cpu[@]}" --cpu-repeats 9 --cpu-threads 1,16 --out /tmp/sc-fa-$r.md > /dev/null 2>&1
done
echo "== faces at $(( $(date +%s) - t0 )) s"; efficiency /tmp/pin-faces.txt /tmp/sc-fa-1.md /tmp/sc-fa-2.md | tee "$out/cpu-efficiency.txt"
for m in inria-hog-cascade inria-hybrid; do
  pinned_people experiments/models/$m.h5 /tmp/pin-$m.txt
  timeout 200 $B/cascade "${people_cpu[@]}" --model experiments/models/$m.h5 --cpu-repeats 7 --cpu-threads 1,16 --out /tmp/sc-$m.md > /dev/null 2>&1
  echo "== $m at $(( $(date +%s) - t0 )) s"; efficiency /tmp/pin-$m.txt /tmp/sc-$m.md | tee -a "$out/cpu-efficiency.txt"
done
cat /tmp/sc-fa-1.md /tmp/sc-inria-hog-cascade.md /tmp/sc-inria-hybrid.md | grep -A6 "many frames, ms" > "$out/cpu-scaling-tables.txt"
cat /tmp/pin-faces.txt /tmp/pin-inria-*.txt > "$out/pinned.txt"
# Peak memory of many frames on 16 threads, against one detector (max RSS of the whole bench run).
for m in faces-lbp inria-hog-cascade; do
  args=("${faces_cpu[@]}"); [ $m != faces-lbp ] && args=("${people_cpu[@]}" --model experiments/models/$m.h5)
  for t in 1 16; do
    python3 -c "import resource,subprocess,sys; subprocess.run(sys.argv[1:]); print('$m threads $t max RSS MiB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)" \
      $B/cascade "${args[@]}" --cpu-repeats 1 --cpu-threads $t --out /tmp/mem.md 2>&1 | tail -1 | tee -a "$out/cpu-efficiency.txt"
  done
done
echo "done at $(( $(date +%s) - t0 )) s"
