#!/usr/bin/env bash
# Session 20, the session's final tree on the GPU machine: gpu_test and memcheck (the GPU tests
# compare every level's gray integral image with the CPU's, now built in bands); then, on the same
# host, the CPU efficiency of this binary and of HEAD's (.bundle/ab/head.tar.xz, the session's
# first) against 16 pinned one-thread detectors at once (faces 1920x1080, x1.1, stride 2), two
# alternating rounds of interleaved 1,16-thread scaling each; then one round of the GPU face
# benchmark against HEAD's binary. Few files under $OUT (the device returns at most a handful).
source experiments/gpu/device_env.sh  # out, B, D, t0, run_gpu_test, bench_faces
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_gpu_test 300; echo "  at $(( $(date +%s) - t0 )) s"
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu_test" \
    --gtest_filter='GpuDetector.RandomWaldBoost*:GpuDetector.ShippedModels*:GpuFeatures.*' > /tmp/memcheck.log 2>&1
echo "memcheck rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)" /tmp/memcheck.log | tee "$out/memcheck-summary.txt"
mkdir -p /tmp/h /tmp/conc && tar xJf .bundle/ab/head.tar.xz -C /tmp/h
args=(-q bench detect --backend cpu --model experiments/models/faces-lbp.h5 --sizes 1920x1080 --scale-steps 1.1
  --strides 2 --frame $D/face-frame.ppm)
for i in $(seq 0 15); do taskset -c $i $B/cascade "${args[@]}" --cpu-repeats 9 --out /tmp/conc/ours-$i.md > /dev/null 2>&1 & done; wait
for i in $(seq 0 15); do
  echo "cpu $i ours $(grep '^| 1920x1080' /tmp/conc/ours-$i.md | tail -1 | awk -F'|' '{gsub(/ /,"",$8); print $8}')"
done > "$out/concurrent.txt"
for r in 1 2; do
  for bin in new head; do
    b=$B/cascade; [ $bin = head ] && b=/tmp/h/gpu/bin/cascade
    timeout 120 $b "${args[@]}" --cpu-repeats 9 --cpu-threads 1,16 --out /tmp/conc/$bin-$r.md > /dev/null 2>&1
    echo "$bin $r $(grep -E '^\| 1920x1080 \| ×1.1 \| 2 \| 16 \|' /tmp/conc/$bin-$r.md)" | tee -a "$out/scaling-16.txt"
  done
done
python3 - "$out/concurrent.txt" "$out/scaling-16.txt" <<'PY' | tee "$out/efficiency.txt"
import sys
v = [float(l.split()[3]) for l in open(sys.argv[1])]
ideal = 1 / sum(1 / x for x in v)
print(f"16 pinned one-thread runs of this binary at once: {min(v):.1f}-{max(v):.1f} ms (median {sorted(v)[8]:.1f}); summed rate {ideal:.1f} ms a frame")
for l in open(sys.argv[2]):
    f = l.split('|'); name = l.split()[0] + ' round ' + l.split()[1]; a = float(f[5])
    print(f"{name}: one detector on 16 threads {a:.1f} ms; efficiency {100 * ideal / a:.0f} %")
PY
bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-new
bench_faces /tmp/h/gpu/bin/cascade experiments/models/faces-lbp.h5 fa-head
