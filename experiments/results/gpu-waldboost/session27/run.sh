# Faces: the shipped sequence against larger-alpha sequences (issue 12's face benchmark), two rounds.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do
  bench_faces $B/cascade experiments/models/faces-lbp.h5 shipped-$r
  for m in a0.15 a0.2 a0.15-pq02 a0.15-s2 a0.1-s2; do
    [ -f .bundle/ab/faces-lbp-$m.h5 ] && bench_faces $B/cascade .bundle/ab/faces-lbp-$m.h5 $m-$r
  done
done
