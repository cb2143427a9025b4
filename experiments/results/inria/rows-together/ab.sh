# Run on the GPU machine (bash experiments/results/inria/rows-together/ab.sh) with .bundle/gpu.tar.xz from
# experiments/gpu/bundle.sh and three CPU-only builds (-DCASCADEKIT_CUDA=OFF -DCASCADEKIT_TOOLS_CODECS=OFF)
# carried as .bundle/old-cascade (f199db6), .bundle/new-cascade (298cdbc) and .bundle/nobatch-cascade
# (298cdbc with WaldBoostLbpEvaluator::runs_rows_together returning false); output in xeon-cpu-ab.txt.
source experiments/gpu/device_env.sh
chmod +x .bundle/*-cascade
for round in 1 2 3 4; do
  for bin in .bundle/old-cascade .bundle/new-cascade .bundle/nobatch-cascade $B/cascade; do
    for run in faces-lbp inria-hybrid:octaves; do
      m=${run%%:*}
      if [ $m = faces-lbp ]; then a="--sizes 1920x1080 --scale-steps 1.1 --strides 2 --frame $D/face-frame.ppm"
      else a="--sizes 1280x960 --scale-steps 1.05 --strides 8 --frame $D/bench-frame.ppm --approximate-lbp --approximate-hog"; fi
      r=$("$bin" -q bench detect --backend cpu --model experiments/models/$m.h5 $a --cpu-repeats 7 --cpu-threads 1 2>/dev/null |
          grep -E "^\| (1920x1080|1280x960) \| ×1\.[0-9]+ \| [0-9]+ \| [0-9]+ \|" | tail -1 | cut -d'|' -f8)
      echo "round $round $bin $run: 1 thread ms: $r"
    done
  done
done
