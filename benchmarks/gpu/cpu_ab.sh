#!/usr/bin/env bash
# On the GPU machine (its 16-core host CPU), after benchmarks/gpu/bundle.sh: two `cascade`
# binaries' CPU speed in alternating rounds, 1 and all threads, so that a change's effect stands
# out from the host's run-to-run noise. OLD is a CPU-only build of an earlier commit
# (-DCASCADEKIT_CUDA=OFF -DCASCADEKIT_TOOLS_CODECS=OFF; it uses the bundle's libraries), carried
# as an ignored file, e.g. .bundle/old-cascade.
#   bash benchmarks/gpu/cpu_ab.sh OLD [NEW]      (NEW: the bundle's cascade)
old=$1
source benchmarks/gpu/device_env.sh
new=${2:-$B/cascade}
for round in 1 2 3; do
  for bin in "$old" "$new"; do
    # inria-hybrid:octaves is the hybrid with --approximate-lbp --approximate-hog.
    for run in faces-lbp inria-hybrid inria-hybrid:octaves inria-hog-cascade; do
      m=${run%%:*}
      if [ $m = faces-lbp ]; then a="--sizes 1920x1080 --scale-steps 1.1 --strides 2 --frame $D/face-frame.ppm"
      else a="--sizes 1280x960 --scale-steps 1.05 --strides 8 --frame $D/bench-frame.ppm"; fi
      [ "$run" = inria-hybrid:octaves ] && a="$a --approximate-lbp --approximate-hog"
      r=$("$bin" -q bench detect --backend cpu --model models/$m.h5 $a --cpu-repeats 7 2>/dev/null |
          grep -E "^\| (1920x1080|1280x960) \| ×1\.[0-9]+ \| [0-9]+ \| [0-9]+ \|" | tail -1 | cut -d'|' -f8,9)
      echo "round $round $bin $run: 1 thread | all threads, ms: $r"
    done
  done
done
