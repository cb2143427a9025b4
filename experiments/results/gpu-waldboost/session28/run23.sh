# Session 28: rows kernel + pairs of look-ups + untiled by default: face and people benchmarks against the session's first binary.
source experiments/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ab_faces 2 "weak classifiers looked up at once"
grep -A9 "first launch, tiled or not" $out/fa-new-1.md | grep "^| 1920" | cut -c1-200
ab_people 1
echo "all done at $(( $(date +%s) - t0 )) s"
