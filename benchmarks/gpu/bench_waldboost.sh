#!/usr/bin/env bash
# On the GPU machine, after benchmarks/gpu/bundle.sh (see device_run.sh): the WaldBoost LBP and
# hybrid benchmarks (experiments/gpu-speed). Tables go to ${OUT:-out}.
#   faces: faces-lbp.h5 as shipped and padded to 2048 weak classifiers, 1920x1080 / 1280x720 /
#          640x480, 8 levels per octave over 4 octaves (x1.0905077 up to scale 16) and x1.1,
#          stride 1 and 2, against OpenCV's LBP cascade on the machine's cores (1 and all threads);
#   people: the hybrid and the HoG cascade at 1280x960, stride 8, x1.05 / x1.1 / x1.2.
source benchmarks/gpu/device_env.sh
faces=(--model models/faces-lbp.h5 --sizes 1920x1080,1280x720,640x480 --frame $D/face-frame.ppm)
peer=(--peer $B/opencv_face_peer --peer-args="--cascade $D/opencv/lbpcascade_frontalface.xml --min-size 24"
      --peer-name "OpenCV LBP frontalface")
timeout 200 $B/cascade bench detect "${faces[@]}" --scale-steps 1.0905077 --max-scale 16 --strides 1,2 --lbp-weak 2048 \
    --cpu-repeats 1 --no-cpu --out "$out/bench-faces-2048.md" > "$out/bench-faces-2048.log" 2>&1
echo "faces 2048 rc=$?"
timeout 250 $B/cascade bench detect "${faces[@]}" --scale-steps 1.0905077,1.1 --max-scale 16 --strides 1,2 \
    --cpu-repeats 3 "${peer[@]}" --out "$out/bench-faces.md" > "$out/bench-faces.log" 2>&1
echo "faces rc=$?"
for m in inria-hybrid inria-hog-cascade; do
    timeout 120 $B/cascade bench detect --model models/$m.h5 --sizes 1280x960 --strides 8 \
        --scale-steps 1.05,1.1,1.2 --frame $D/bench-frame.ppm --cpu-repeats 3 --out "$out/bench-$m.md" > "$out/bench-$m.log" 2>&1
    echo "$m rc=$?"
done
grep -h "x1\|×" "$out"/bench-*.log | grep -E "windows;" | head -40
