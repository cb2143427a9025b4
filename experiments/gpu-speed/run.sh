#!/usr/bin/env bash
# GPU speed of the shipped detectors (`cascade bench detect`, CUDA rows: medians of 200 frames;
# batched: 16 frames a call, 4 in flight; latency: one frame a call, upload and read-back
# included), with the CPU backend on all of the host's cores and OpenCV on them in the same run,
# printed as this folder's table (Markdown). Runs on the GPU machine from the repository root,
# after benchmarks/gpu/bundle.sh made .bundle/gpu.tar.xz here (the device tool carries it):
#   bash experiments/gpu-speed/run.sh > experiments/gpu-speed/table.md
# People: 1280×960 (a PennFudan photo), ×1.05, stride 8; faces: 1920×1080 (a CMU+MIT group
# photo), 8 levels an octave over 4 octaves (×1.0905), strides 1 and 2, windows from 24 px.
set -uo pipefail
cd "$(dirname "$0")/../.."
source benchmarks/gpu/device_env.sh >/dev/null
work=$(mktemp -d)
threads=$(nproc)
echo "Machine: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $threads CPU threads ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))."
echo
echo "| model | frame, scan | CUDA batched ms | CUDA latency ms | ours, CPU $threads threads ms | OpenCV, $threads threads ms | CUDA batched vs OpenCV, $threads threads |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
bench() {  # MODEL PEER PEER_ARGS ARGS...
  local model=$1 peer=$2 peer_args=$3
  shift 3
  local extra=()
  [ -z "$peer_args" ] || extra=("--peer-args=$peer_args")
  timeout 150 $B/cascade -q bench detect --model models/$model.h5 --repeats 200 --cpu-repeats 3 --peer "$B/$peer" \
      "${extra[@]}" "$@" --out "$work/t.md" >/dev/null 2>&1
  awk -v model="$model" -v label="" -F'|' -f experiments/bench_rows.awk \
      -v cols="CUDA batched ms;CUDA latency ms;CPU $threads thr ms;OpenCV $threads thr ms;CUDA vs OpenCV $threads thr" "$work/t.md"
}
people=(--sizes 1280x960 --scale-steps 1.05 --strides 8 --frame "$D/bench-frame.ppm")
faces=(--sizes 1920x1080 --scale-steps 1.0905077 --max-scale 16 --strides 1,2 --frame "$D/face-frame.ppm")
lbp="--cascade $D/opencv/lbpcascade_frontalface.xml"
for m in inria-hog-cascade inria-hog-nested inria-hog-colour inria-hybrid; do bench $m opencv_hog_peer "" "${people[@]}"; done
for m in faces-lbp faces-lbp-fast; do bench $m opencv_face_peer "$lbp" "${faces[@]}"; done
