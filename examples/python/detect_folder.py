#!/usr/bin/python3
"""Example: detect people in every PNG of a folder with the cascadekit Python module.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/detect_folder.py \
        models/inria-hog-cascade.h5 FOLDER

Images are read with matplotlib (Debian's python3-matplotlib); any reader that gives a uint8
NumPy array works (OpenCV's cv2.imread gives BGR: pass it as it is; RGB readers: order="rgb").
"""
import pathlib
import sys

import matplotlib.image as mpimg
import numpy as np

import cascadekit


def read_rgb(path):
    """A PNG as uint8 RGB (matplotlib returns floats in [0, 1] for 8-bit PNGs)."""
    a = mpimg.imread(path)
    if a.dtype != np.uint8:
        a = (a * 255 + 0.5).astype(np.uint8)
    return a[..., :3] if a.ndim == 3 else a


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    model, folder = sys.argv[1], pathlib.Path(sys.argv[2])
    # A detector for the model: CUDA when present, else the CPU; a denser scan than the default.
    det = cascadekit.Detector(model, backend="auto", stride=8, scale_step=1.05)
    print(f"backend: {det.backend}, model: {det.model}")
    for path in sorted(folder.glob("*.png")):
        img = read_rgb(path)
        boxes = det.detect(img, fuse="nms", order="rgb")  # N×6: x, y, w, h, score, windows; best first
        stats = det.last_stats
        print(f"{path.name}: {stats['windows_scanned']} windows scanned, {len(boxes)} boxes")
        for x, y, w, h, score, windows in boxes[:5]:
            print(f"  x {x:.0f} y {y:.0f} w {w:.0f} h {h:.0f} score {score:.3f} ({windows:.0f} windows)")


if __name__ == "__main__":
    main()
