# Sourced on the GPU machine from the repository root (bash), after benchmarks/gpu/bundle.sh made
# .bundle/gpu.tar.xz (or lean.tar.xz) here and the device tool carried it: unpacks it to /tmp/b (every time, so a
# warm machine never runs an earlier bundle) and sets what the bundled binaries and tests need.
# Defines: out (${OUT:-out}, created), B (the binaries), D (the bundle's data), row (a regex for the
# rows of `cascade bench detect`'s "CUDA design choices" table), t0 (when it was sourced), and
# run_gpu_test, bench_faces, bench_people, ab_faces, ab_people, sanitize_waldboost, and for the
# CPU's thread scaling faces_cpu, people_cpu, pinned_faces, pinned_people, bench_frames,
# detect_memory and efficiency.
set -uo pipefail
out=${OUT:-out}
bundle=.bundle/gpu.tar.xz
[ -f "$bundle" ] || bundle=.bundle/lean.tar.xz  # carried instead (bundle.sh)
mkdir -p "$out" /tmp/b && tar xJf "$bundle" -C /tmp/b
export LD_LIBRARY_PATH=/tmp/b/gpu/lib CASCADEKIT_DATA=/tmp/b/data CASCADEKIT_SOURCE_DIR=$PWD CASCADEKIT_SCRATCH=/tmp/scratch
B=/tmp/b/gpu/bin
D=/tmp/b/data
row='^\| [0-9x]+ \| ×[0-9.]+ \| [0-9] \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$'

# run_gpu_test TIMEOUT_S [GTEST ARGS...]: the gpu tests ($GPU_TEST, default the bundle's) into
# $out/gpu_test.log, then their summary: exit status, pass/fail lines, window-by-window comparisons
# and those with differences, failures.
run_gpu_test() {
  local limit=$1; shift
  timeout "$limit" "${GPU_TEST:-$B/gpu_test}" "$@" > "$out/gpu_test.log" 2>&1; echo "gpu_test rc=$?"
  grep -E "^\[  (PASSED|FAILED)|mining:" "$out/gpu_test.log"
  echo "comparisons: $(grep -c 'differences near' "$out/gpu_test.log"), with differences: $(grep 'differences near' "$out/gpu_test.log" | grep -vc ' 0 differences')"
  grep -E "Failure" -A3 "$out/gpu_test.log" | head -20
}

t0=$(date +%s)

# bench_faces CASCADE MODEL NAME: issue 12's face benchmark (1920×1080, 8 levels per octave over 4
# octaves, 2048 weak classifiers, strides 1 and 2, GPU only, the bundle's face frame) into
# $out/NAME.md; prints its status, the design rows and the stride-1 survivors after each launch.
bench_faces() {
  timeout 100 "$1" -q bench detect --model "$2" --sizes 1920x1080 --scale-steps 1.0905077 --max-scale 16 \
    --strides 1,2 --lbp-weak 2048 --no-cpu --frame "$D/face-frame.ppm" --out "$out/$3.md" > /dev/null 2>&1
  echo "$3 rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$3.md"
  grep -A14 'Survivors after each launch' "$out/$3.md" | grep '^| 1920x1080 | ×1.09051 | 1 |'
}

# bench_people CASCADE MODEL NAME: issue 12's people benchmark (1280×960, ×1.05, stride 8, GPU
# only, the bundle's PennFudan frame) into $out/NAME.md; prints its status, the design rows and
# the per-step row.
bench_people() {
  timeout 100 "$1" -q bench detect --model "$2" --sizes 1280x960 --scale-steps 1.05 --strides 8 --no-cpu \
    --frame "$D/bench-frame.ppm" --out "$out/$3.md" > /dev/null 2>&1
  echo "$3 rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "$row" "$out/$3.md"
  grep -A8 'CUDA time per step' "$out/$3.md" | grep '^| 1280x960 |'
}

# ab BENCH PREFIX MODEL ROUNDS [SECTION]: HEAD's binary (.bundle/ab/head.tar.xz, unpacked to
# /tmp/h) against this bundle's, alternating, ROUNDS rounds of BENCH (bench_faces or
# bench_people) with MODEL into $out/PREFIX-new-R.md and $out/PREFIX-head-R.md; SECTION: also
# print the last two rows of that table of the new binary's run. ab_faces ROUNDS [SECTION] and
# ab_people ROUNDS [SECTION]: the shipped face model (fa-*) and the shipped hybrid (pe-*).
ab() {
  mkdir -p /tmp/h && tar xJf .bundle/ab/head.tar.xz -C /tmp/h
  for r in $(seq 1 "$4"); do
    "$1" $B/cascade "$3" "$2-new-$r"
    [ -n "${5:-}" ] && grep -A6 "$5" "$out/$2-new-$r.md" | tail -2
    "$1" /tmp/h/gpu/bin/cascade "$3" "$2-head-$r"
  done
}
ab_faces() { ab bench_faces fa models/faces-lbp.h5 "$@"; }
ab_people() { ab bench_people pe models/inria-hybrid.h5 "$@"; }

# sanitize_waldboost: compute-sanitizer memcheck of the random-WaldBoost and shipped-model GPU
# tests, racecheck of the random-WaldBoost one, into $out/memcheck.log and $out/racecheck.log.
sanitize_waldboost() {
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu_test" \
      --gtest_filter='GpuDetector.RandomWaldBoost*:GpuDetector.ShippedModels*' > "$out/memcheck.log" 2>&1
  echo "memcheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)" "$out/memcheck.log"
  timeout 350 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/gpu_test" \
      --gtest_filter='GpuDetector.RandomWaldBoost*' > "$out/racecheck.log" 2>&1
  echo "racecheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "RACECHECK SUMMARY|^\[  (PASSED|FAILED)" "$out/racecheck.log"
}

# The CPU face scan of issue 11's scaling figures (1920×1080, ×1.1, stride 2, the bundle's face
# frame): arguments for `cascade -q bench detect`.
faces_cpu=(-q bench detect --backend cpu --model models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.1
  --strides 2 --frame "$D/face-frame.ppm")

# pinned_faces CASCADE FILE [peer]: one one-thread face detector a CPU, each pinned to its CPU
# (taskset) and all running at once, medians of 9 frames; then, with "peer", OpenCV's LBP cascade
# likewise (medians of 5). Writes "cpu I ours MS [peer MS]" lines to FILE: the summed rate of what
# the host's CPUs give together, the reference of `efficiency`.
pinned_faces() {
  local n i; n=$(nproc); mkdir -p /tmp/conc
  for i in $(seq 0 $((n - 1))); do
    taskset -c $i "$1" "${faces_cpu[@]}" --cpu-repeats 9 --out /tmp/conc/ours-$i.md > /dev/null 2>&1 &
  done; wait
  if [ "${3:-}" = peer ]; then
    for i in $(seq 0 $((n - 1))); do
      taskset -c $i "$1" "${faces_cpu[@]}" --no-cpu --cpu-repeats 5 --peer "$B/opencv_face_peer" \
        --peer-args="--cascade $D/opencv/lbpcascade_frontalface.xml" --out /tmp/conc/peer-$i.md > /dev/null 2>&1 &
    done; wait
  fi
  for i in $(seq 0 $((n - 1))); do
    echo "cpu $i ours $(grep '^| 1920x1080' /tmp/conc/ours-$i.md | tail -1 | awk -F'|' '{gsub(/ /,"",$8); print $8}')" \
      $([ "${3:-}" = peer ] && echo "peer $(grep '^| 1920x1080' /tmp/conc/peer-$i.md | tail -1 | awk -F'|' '{gsub(/ /,"",$14); print $14}')")
  done > "$2"
}

# The CPU people scan of issue 11's figures (1280×960, ×1.05, stride 8, the bundle's PennFudan
# frame): arguments for `cascade -q bench detect`, with --model.
people_cpu=(-q bench detect --backend cpu --sizes 1280x960 --scale-steps 1.05 --strides 8 --frame "$D/bench-frame.ppm")

# pinned_people MODEL FILE: as pinned_faces, the people scan with MODEL, ours only (medians of 5).
pinned_people() {
  local i; mkdir -p /tmp/conc
  for i in $(seq 0 $(( $(nproc) - 1 ))); do
    taskset -c $i $B/cascade "${people_cpu[@]}" --model "$1" --cpu-repeats 5 --out /tmp/conc/pp-$i.md > /dev/null 2>&1 &
  done; wait
  for i in $(seq 0 $(( $(nproc) - 1 ))); do
    echo "cpu $i ours $(grep '^| 1280x960' /tmp/conc/pp-$i.md | tail -1 | awk -F'|' '{gsub(/ /,"",$8); print $8}')"
  done > "$2"
}

# bench_frames: the bundle's face and people frames resized (nearest) to the benchmark sizes, as
# /tmp/face-1920.ppm (1920×1080) and /tmp/people-1280.ppm (1280×960).
bench_frames() {
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
}

# detect_memory CASCADE FILE: the peak memory (max RSS) of `cascade detect` on one frame, all
# threads, for the face model at 1920×1080 and the people models at 1280×960 (bench_frames),
# appended to FILE.
detect_memory() {
  bench_frames
  local m f
  for m in faces-lbp inria-hog-cascade inria-hybrid; do
    f=/tmp/face-1920.ppm; [ $m != faces-lbp ] && f=/tmp/people-1280.ppm
    python3 -c "import resource,subprocess,sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); print('$m cascade detect, max RSS MiB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)" \
      "$1" -q detect --backend cpu --model models/$m.h5 $f --json /tmp/det.json 2>&1 | tail -1 | tee -a "$2"
  done
}

# efficiency PINNED FILE...: the summed rate of pinned_faces' PINNED against each 16-thread row
# of `cascade bench detect --cpu-threads` in the FILEs: bench Markdown files (named by their file
# name; their scaling table's header names the columns), or rows of it (a label may stand before
# a row's first "|"; columns by position: ours, then OpenCV's). For one detector on one frame,
# the bench's "one level at a time" and "many frames" columns where it has them, and OpenCV's
# column where PINNED has peer times: efficiency = (1 / the summed rate) / that time.
efficiency() {
  python3 - "$@" <<'PY'
import os, sys
t = [l.split() for l in open(sys.argv[1])]
heads = {'ours ms': 'one frame', 'one level at a time, ms': 'one level at a time',
         'many frames, ms a frame': 'many frames', 'peer ms': 'OpenCV'}
for name, col, keep in (('ours', 3, lambda k: k != 'OpenCV'), ('OpenCV LBP', 5, lambda k: k == 'OpenCV')):
    if any(len(x) <= col for x in t):
        continue
    v = [float(x[col]) for x in t]
    ideal = 1 / sum(1 / x for x in v)
    print(f"{name}: {len(v)} pinned one-thread runs at once {min(v):.1f}-{max(v):.1f} ms a frame "
          f"(median {sorted(v)[len(v) // 2]:.1f}); summed rate {1000 / ideal:.1f} frames/s = {ideal:.1f} ms a frame")
    for path in sys.argv[2:]:
        cols = None  # column index -> what, from the scaling table's header
        for line in open(path):
            f = line.split('|')
            if line.startswith('| size | step | stride | threads |'):
                cols = {i: heads[c.strip()] for i, c in enumerate(f) if c.strip() in heads}
                continue
            if len(f) < 6 or f[4].strip() != '16' or not f[1].strip()[:1].isdigit():
                continue
            label = os.path.basename(path) if cols is not None or not f[0].strip() else f[0].strip()
            for i, what in sorted((cols or {5: 'one frame', 8: 'OpenCV'}).items()):
                if keep(what) and i < len(f) and f[i].strip() not in ('', '–'):
                    a = float(f[i])
                    print(f"  {label}, {what}, 16 threads: {a:.1f} ms; efficiency {100 * ideal / a:.0f} %")
PY
}
