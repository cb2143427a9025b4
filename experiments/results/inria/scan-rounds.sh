# Sourced by the scan comparisons (scaled-windows/, approximate-hog/, approximate-lbp/run.sh): speed_rounds
# OUT SCAN... times the shipped people hybrid and HoG cascade on one thread, 1280×960, ×1.05,
# stride 8, the synthetic frame and a PennFudan photo, each SCAN ("name" or "name:--flags") in
# turn, ROUNDS rounds (default 3), with OpenCV's HOG detector in the synthetic rounds (beside the
# first scan of the hybrid); tables into OUT/MODEL-SCAN-FRAME-ROUND.md, one line a round and frame.
speed_rounds() {
  local out=$1; shift
  local photo models="inria-hybrid inria-hog-cascade"
  photo=$CASCADEKIT_DATA/PennFudanPed/PNGImages/$(ls "$CASCADEKIT_DATA/PennFudanPed/PNGImages" | sed -n 41p)
  run() {  # NAME MODEL FRAME FLAGS...
    local name=$1 model=$2 frame=$3; shift 3
    build/tools/cascade -q bench detect --backend cpu --model experiments/models/$model.h5 --sizes 1280x960 \
        --scale-steps 1.05 --strides 8 --cpu-repeats 5 --cpu-threads 1 ${frame:+--frame "$frame"} "$@" \
        --out "$out/$name.md" > /dev/null 2>&1
    grep 'cascadekit CPU, 1 thread' "$out/$name.md" | cut -d'|' -f3 | tr -d ' '
  }
  local r frame f m scan line first=${1%%:*}
  for r in $(seq 1 "${ROUNDS:-3}"); do
    for frame in synthetic photo; do
      f=; [ $frame = photo ] && f=$photo
      line="round $r, $frame:"
      for m in $models; do
        line+=" $m"
        for scan in "$@"; do
          local name=${scan%%:*} flags=() peer=()
          [[ $scan == *:* ]] && read -r -a flags <<< "${scan#*:}"  # flags split at spaces
          [ $frame = synthetic ] && [ $m = inria-hybrid ] && [ "$name" = "$first" ] && peer=(--peer build/experiments/opencv_hog_peer)
          line+=" $name $(run $m-$name-$frame-$r $m "$f" "${flags[@]}" "${peer[@]}")"
        done
      done
      [ $frame = synthetic ] && line+=" OpenCV HOG $(grep 'OpenCV HOG, 1 thread' $out/inria-hybrid-$first-synthetic-$r.md | cut -d'|' -f3 | tr -d ' ')"
      echo "$line"
    done
  done
}
