#!/usr/bin/python3
"""Writes a small synthetic PASCAL VOC set, so that the VOC training example runs where no
dataset is at hand (CI): OUT/JPEGImages/scene-NN.png, gray clutter with upright bright figures
(a head above a body, 0.38 as wide as tall, 90-170 px tall) and OUT/Annotations/scene-NN.xml
with their boxes (class person) and a few other objects (class car) to be left out.

Usage: /usr/bin/python3 tests/userpath/synthetic_voc.py OUT [IMAGES]
"""
import os
import sys

import matplotlib.image as mpimg
import numpy as np


def figure(img, x, y, h, value):
    """A figure h tall, 0.38·h wide, top-left (x, y): a round head and a body."""
    w = int(0.38 * h)
    head = h // 6
    cy, cx = y + head // 2, x + w // 2
    yy, xx = np.ogrid[: img.shape[0], : img.shape[1]]
    img[((yy - cy) ** 2 + (xx - cx) ** 2) <= (head // 2) ** 2] = value
    img[y + head : y + h, x + w // 6 : x + w - w // 6] = value
    img[y + head : y + head + h // 3, x : x + w] = value  # shoulders and arms
    return w


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    rng = np.random.default_rng(4)
    os.makedirs(os.path.join(out, "JPEGImages"), exist_ok=True)
    os.makedirs(os.path.join(out, "Annotations"), exist_ok=True)
    for i in range(count):
        img = rng.integers(20, 90, size=(360, 480)).astype(np.uint8)
        for _ in range(16):  # clutter: blocks, posts and beams of every size
            y, x = rng.integers(0, 340), rng.integers(0, 440)
            if rng.integers(0, 2):
                img[y : y + rng.integers(30, 160), x : x + rng.integers(4, 30)] = rng.integers(120, 255)
            else:
                img[y : y + rng.integers(4, 30), x : x + rng.integers(10, 90)] = rng.integers(120, 255)
        objects = []
        for k in range(2):
            h = int(rng.integers(90, 170))
            x, y = int(20 + 230 * k + rng.integers(0, 60)), int(rng.integers(10, 360 - h - 5))
            w = figure(img, x, y, h, int(rng.integers(170, 255)))
            objects.append(("person", x, y, w, h))
        objects.append(("car", 5, 300, 60, 40))
        name = f"scene-{i:02d}"
        mpimg.imsave(os.path.join(out, "JPEGImages", name + ".png"), img, cmap="gray", vmin=0, vmax=255)
        xml = "".join(
            f"<object><name>{c}</name><difficult>0</difficult><bndbox><xmin>{x + 1}</xmin><ymin>{y + 1}</ymin>"
            f"<xmax>{x + w}</xmax><ymax>{y + h}</ymax></bndbox></object>" for c, x, y, w, h in objects)
        with open(os.path.join(out, "Annotations", name + ".xml"), "w") as f:
            f.write(f"<annotation><filename>{name}.png</filename><size><width>480</width><height>360</height>"
                    f"<depth>1</depth></size>{xml}</annotation>\n")
    print(f"{count} images, {2 * count} people -> {out}")


if __name__ == "__main__":
    main()
