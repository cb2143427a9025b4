#!/usr/bin/env bash
# Session 21: pyramid levels in flight (CpuOptions::levels_in_flight) on the GPU machine's 16 CPUs.
# gpu_test first (the CPU detector's new level pipeline against the GPU, window by window); then,
# on the same host, 16 pinned one-thread detectors at once as the reference (pinned_faces, and the
# same for the people models), and interleaved 1,16-thread rounds of `cascade bench detect
# --cpu-threads` with 2, 4 (the default) and 8 levels in flight; each table also times the same
# detector one level at a time and many frames a frame a thread (BulkDetector). Then one full
# 1,2,4,8,16 table for faces. Few files under $OUT.
source experiments/gpu/device_env.sh  # out, B, D, t0, run_gpu_test, faces_cpu, pinned_faces, efficiency
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
people_cpu=(-q bench detect --backend cpu --sizes 1280x960 --scale-steps 1.05 --strides 8 --frame "$D/bench-frame.ppm")
pinned_people() {  # MODEL FILE: as pinned_faces, the people scan, ours only
  local i; mkdir -p /tmp/conc
  for i in $(seq 0 $(( $(nproc) - 1 ))); do
    taskset -c $i $B/cascade "${people_cpu[@]}" --model "$1" --cpu-repeats 5 --out /tmp/conc/pp-$i.md > /dev/null 2>&1 &
  done; wait
  for i in $(seq 0 $(( $(nproc) - 1 ))); do
    echo "cpu $i ours $(grep '^| 1280x960' /tmp/conc/pp-$i.md | tail -1 | awk -F'|' '{gsub(/ /,"",$8); print $8}')"
  done > "$2"
}
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
# Peak memory of one frame by `cascade detect` on 16 threads (max RSS), the default levels in
# flight: the bench's frames resized (nearest) to the bench sizes, as PPM.
python3 - "$D" <<'PY'
import sys
def read(path):
    data = open(path, 'rb').read()
    parts = data.split(maxsplit=4)
    return int(parts[1]), int(parts[2]), parts[4]
for src, dst, W, H in (('face-frame.ppm', '/tmp/face-1920.ppm', 1920, 1080), ('bench-frame.ppm', '/tmp/people-1280.ppm', 1280, 960)):
    w, h, px = read(sys.argv[1] + '/' + src)
    cols = [3 * (x * w // W) for x in range(W)]
    rows = []
    for y in range(H):
        r = px[3 * w * (y * h // H):3 * w * (y * h // H + 1)]
        rows.append(bytes(b for c in cols for b in r[c:c + 3]))
    open(dst, 'wb').write(b'P6\n%d %d\n255\n' % (W, H) + b''.join(rows))
PY
for m in faces-lbp inria-hog-cascade inria-hybrid; do
  f=/tmp/face-1920.ppm; [ $m != faces-lbp ] && f=/tmp/people-1280.ppm
  python3 -c "import resource,subprocess,sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); print('$m cascade detect, max RSS MiB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)" \
    $B/cascade -q detect --backend cpu --model experiments/models/$m.h5 $f --json /tmp/det.json 2>&1 | tail -1 | tee -a "$out/efficiency.txt"
done
echo "done at $(( $(date +%s) - t0 )) s"
