#!/usr/bin/env bash
# The user's path without writing code, on data we have: PennFudanPed's boxes written as a PASCAL
# VOC folder and as a COCO file (experiments/make_annotated_sets.py) -> cascade train from the
# annotated images (threshold chosen on the held-out half) -> cascade eval --annotations ->
# cascade detect with the stored operating point. Each step's output is checked.
#
# Usage: annotated_people.sh CASCADE SOURCE_DIR WORK_DIR   (CTest: userpath.AnnotatedPeopleTrainEvalDetect)
# Skips (exit 77) when $CASCADEKIT_DATA (default SOURCE_DIR/../shared/data) has no PennFudanPed.
set -euo pipefail
cascade=$1 src=$2 work=$3
data=${CASCADEKIT_DATA:-$src/../shared/data}
if [ ! -d "$data/PennFudanPed/PNGImages" ]; then
    echo "skipped: $data/PennFudanPed is absent (set CASCADEKIT_DATA to the datasets' folder)"
    exit 77
fi
data=$(cd "$data" && pwd)
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 "$src/experiments/make_annotated_sets.py" "$work/sets" "$data"

fail() { echo "FAILED: $*" >&2; exit 1; }

for fmt in voc coco; do
    if [ $fmt = voc ]; then
        annotations=$work/sets/pennfudan-voc/Annotations images=$data/PennFudanPed/PNGImages
    else
        annotations=$work/sets/pennfudan-coco.json images=$data/PennFudanPed
    fi
    # The COCO run trains the VOC run's first 5 stages only (they must be the same stages), and the
    # operating point scans at stride 8: the held-out calibration at stride 4 took most of the
    # test's time under the sanitizers.
    stages=8; [ $fmt = coco ] && stages=5
    cat > "$work/$fmt.yaml" <<YAML
seed: 1
data:
  layout: annotated
  annotations: $annotations
  annotation_class: person
  annotation_images: $images
  flip_positives: true
  holdout_every: 2
window: {width: 64, height: 128}
boosting: {max_stages: $stages, max_learners_per_stage: 30, candidates_per_round: 60}
mining: {stride: 8, scale_step: 1.2}
detect: {stride: 8, scale_step: 1.1, min_scale: 0.75, pad: 0.25, fuse: nms, fppi: 0.3}
YAML
    echo "=== $fmt: train"
    "$cascade" train --config "$work/$fmt.yaml" --out "$work/$fmt.h5" > "$work/$fmt-train.out" 2> "$work/$fmt-train.log" ||
        { cat "$work/$fmt-train.log"; fail "$fmt: cascade train"; }
    cat "$work/$fmt-train.out"
    grep -q "positives of 423 objects" "$work/$fmt-train.log" || fail "$fmt: the training log does not count PennFudan's 423 people"
    grep -q "chosen on held-out images" "$work/$fmt-train.out" || fail "$fmt: no threshold chosen on the held-out images"
    "$cascade" inspect "$work/$fmt.h5" > "$work/$fmt-inspect.txt"
    grep -q "operating point: threshold .*, stride 8, scale step 1.1, min scale 0.75, pad 0.25, fuse nms" "$work/$fmt-inspect.txt" ||
        fail "$fmt: the model's operating point is not the configured one"

    if [ $fmt = coco ]; then  # the same people, so the same first stages as from the VOC folder
        rows() { sed -n 's/^ *\([0-9]\+\) \+\/stages\/[0-9]\+ \+\(.*\)$/\1 \2/p' "$1" | head -5; }
        [ "$(rows "$work/coco-inspect.txt")" = "$(rows "$work/voc-inspect.txt")" ] && [ -n "$(rows "$work/coco-inspect.txt")" ] ||
            { diff <(rows "$work/voc-inspect.txt") <(rows "$work/coco-inspect.txt"); fail "coco: stages 1-5 differ from the VOC run's"; }
    fi
    echo "=== $fmt: eval"
    "$cascade" -q eval --model "$work/$fmt.h5" --annotations "$annotations" --images "$images" --class person \
        --curve "$work/$fmt-curve.csv" | tee "$work/$fmt-eval.txt"
    lamr=$(sed -n 's/.*log-average miss rate \([0-9.]*\);.*/\1/p' "$work/$fmt-eval.txt" | head -1)
    [ -n "$lamr" ] || fail "$fmt: eval printed no log-average miss rate"
    /usr/bin/python3 -c "import sys; sys.exit(0 if float('$lamr') < 0.95 else 1)" || fail "$fmt: log-average miss rate $lamr"

    echo "=== $fmt: detect"
    "$cascade" -q detect --model "$work/$fmt.h5" --json "$work/$fmt-detect.json" \
        "$data/PennFudanPed/PNGImages/FudanPed00002.png" "$data/PennFudanPed/PNGImages/PennPed00010.png" \
        "$data/PennFudanPed/PNGImages/PennPed00040.png"
    /usr/bin/python3 - "$work/$fmt-detect.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["params"]
assert p["stride"] == 8 and p["fuse"] == "nms" and p["pad"] == 0.25 and p["boxes"] == "object", p
assert j["operating_point"].startswith("threshold for FPPI <= 0.300"), j["operating_point"]
boxes = [d for im in j["images"] for d in im["detections"]]
assert boxes, "no person found in 3 PennFudan images"
for d in boxes:
    assert d["score"] >= p["threshold"] - 1e-4, (d, p["threshold"])
    wx, wy, ww, wh = d["window"]
    assert abs(d["h"] - 0.75 * wh) < 0.02 and abs(d["w"] - 0.57 * ww) < 0.02, d  # the person inside the window
print(f"{len(boxes)} boxes in 3 images at threshold {p['threshold']}")
PY
done
echo "user path passed"
