# Session 28: the faster face sequences measured in the twenty-seventh session (alpha 0.175; alpha 0.15 with
# rejection_rounds 8) with the first launch taking 4 windows a thread, and the shipped sequence in the same call.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench_faces $B/cascade .bundle/ab/faces-lbp-a0.175.h5 fast-a0.175
bench_faces $B/cascade .bundle/ab/faces-lbp-a0.15-rr8.h5 fast-a0.15-rr8
bench_faces $B/cascade experiments/models/faces-lbp.h5 fast-shipped
echo "all done at $(( $(date +%s) - t0 )) s"
