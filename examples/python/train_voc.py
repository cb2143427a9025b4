#!/usr/bin/python3
"""Example: train a people detector on a PASCAL VOC folder, evaluate it, and detect with it,
from Python with the cascadekit module.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/train_voc.py \
        ANNOTATIONS_FOLDER IMAGES_FOLDER OUT_FOLDER [CLASS]

ANNOTATIONS_FOLDER holds one VOC XML per image (<object><name>person</name><bndbox>…); the
images are in IMAGES_FOLDER. CLASS (default person) picks the objects to learn. A small cascade
(8 stages) trains in under a minute on a few hundred boxes; see configs/README.md for the
settings of a full run. experiments/make_annotated_sets.py writes PennFudanPed as such a folder.
"""
import pathlib
import sys

import numpy as np

import cascadekit

CONFIG = """\
seed: 1
data:
  layout: annotated          # full images with boxes
  annotations: {annotations}
  annotation_format: voc
  annotation_class: {cls}
  annotation_images: {images}
  flip_positives: true       # each box also mirrored
  holdout_every: 2           # every 2nd image held out: the threshold is chosen there
window: {{width: 64, height: 128}}   # the person is 3/4 of the window tall, centred (window.object_box)
boosting: {{max_stages: 8, max_learners_per_stage: 30, candidates_per_round: 60}}
mining: {{stride: 8, scale_step: 1.2}}
detect: {{stride: 4, scale_step: 1.1, min_scale: 0.75, pad: 0.25, fuse: nms, fppi: 0.3}}
"""


def read_gray(path):
    """A PNG or JPEG as uint8 gray, with matplotlib (Debian's python3-matplotlib)."""
    import matplotlib.image as mpimg
    a = mpimg.imread(path)
    if a.dtype != np.uint8:
        a = (a * 255 + 0.5).astype(np.uint8)
    return a if a.ndim == 2 else (a[..., :3].astype(np.float32) @ [0.299, 0.587, 0.114]).astype(np.uint8)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    annotations, images, out = (pathlib.Path(p).resolve() for p in sys.argv[1:4])
    cls = sys.argv[4] if len(sys.argv) > 4 else "person"
    out.mkdir(parents=True, exist_ok=True)
    config = out / "people.yaml"
    config.write_text(CONFIG.format(annotations=annotations, images=images, cls=cls))

    # 1. Train: progress arrives as dicts; the held-out half picks the threshold at the end.
    def progress(event):
        if event["event"] in ("stage", "note"):
            print(" ", event.get("text") or f"stage {event['stage']:.0f}: {event['learners']:.0f} learners")
    model_file = out / "people.h5"
    summary = cascadekit.train(str(config), str(model_file), progress=progress)
    print(f"trained {summary['stages']} stages in {summary['seconds']:.0f} s")
    if "threshold" in summary:
        print(f"threshold {summary['threshold']:.4g} chosen on the held-out images "
              f"(there: FPPI {summary['held_out_fppi']:.3f}, miss rate {summary['held_out_miss_rate']:.3f})")
    else:  # too few or too easy held-out images: the model keeps threshold 0 (cascade calibrate can set one)
        print("no threshold chosen:", summary.get("threshold_error", "no held-out images"))

    # 2. Evaluate on the whole annotated set (training images included: a check, not a benchmark).
    model = cascadekit.load_model(model_file)
    figures = cascadekit.evaluate(model, annotations, format="voc", object_class=cls, images=images)
    print(f"{figures['images']} images, {figures['objects']} objects: log-average miss rate "
          f"{figures['log_average_miss_rate']:.3f}, AP@0.5 {figures['ap50']:.3f}")

    # 3. Detect with the stored operating point: boxes are the objects' boxes.
    first = sorted(p for p in images.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg"))[0]
    boxes = cascadekit.Detector(model, backend="auto").detect(read_gray(first))
    print(f"{first.name}: {len(boxes)} people")
    for x, y, w, h, score, windows in boxes:
        print(f"  x {x:.0f} y {y:.0f} w {w:.0f} h {h:.0f} score {score:.2f}")
    if figures["log_average_miss_rate"] >= 0.95:
        sys.exit("the trained model finds almost nothing")


if __name__ == "__main__":
    main()
