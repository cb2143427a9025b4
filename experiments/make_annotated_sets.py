#!/usr/bin/python3
"""Writes the annotated sets we have in the formats labelling tools write, for `cascade eval
--annotations` (and, later, training from annotated images):

  PennFudanPed -> OUT/pennfudan-voc/Annotations/*.xml (PASCAL VOC; images named by absolute path
                  through --images, see below) and OUT/pennfudan-coco.json (COCO, category
                  "person", file_name relative to the PennFudanPed folder)

Usage: /usr/bin/python3 experiments/make_annotated_sets.py OUT [DATA]
  DATA: $CASCADEKIT_DATA, else ../shared/data
Then e.g.
  cascade eval --model models/inria-hog-cascade.h5 --annotations OUT/pennfudan-coco.json \
      --images DATA/PennFudanPed --class person
"""
import json
import os
import re
import sys
from xml.sax.saxutils import escape

BOX = re.compile(r'Bounding box for object (\d+) "([^"]*)" \(Xmin, Ymin\) - \(Xmax, Ymax\) : \((\d+), (\d+)\) - \((\d+), (\d+)\)')
SIZE = re.compile(r"Image size \(X x Y x C\) : (\d+) x (\d+)")


def pennfudan(root):
    """(relative image path, width, height, [(xmin, ymin, xmax, ymax)]) per image, by name."""
    out = []
    for name in sorted(os.listdir(os.path.join(root, "PNGImages"))):
        if not name.endswith(".png"):
            continue
        text = open(os.path.join(root, "Annotation", name[:-4] + ".txt"), encoding="latin-1").read()
        size = SIZE.search(text)
        boxes = [tuple(int(v) for v in m.groups()[2:]) for m in BOX.finditer(text)]
        out.append(("PNGImages/" + name, int(size.group(1)), int(size.group(2)), boxes))
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    data = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("CASCADEKIT_DATA", "../shared/data")
    root = os.path.join(data, "PennFudanPed")
    images = pennfudan(root)
    voc = os.path.join(out, "pennfudan-voc", "Annotations")
    os.makedirs(voc, exist_ok=True)
    for rel, w, h, boxes in images:
        objects = "".join(
            f"<object><name>person</name><difficult>0</difficult><bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin>"
            f"<xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>" for x0, y0, x1, y1 in boxes)
        xml = (f"<annotation><folder>PNGImages</folder><filename>{escape(os.path.basename(rel))}</filename>"
               f"<size><width>{w}</width><height>{h}</height><depth>3</depth></size>{objects}</annotation>\n")
        with open(os.path.join(voc, os.path.basename(rel)[:-4] + ".xml"), "w") as f:
            f.write(xml)
    # COCO: 0-based [x, y, w, h]. PennFudan's corners are 1-based pixel indices, as VOC's.
    coco = {"images": [], "annotations": [], "categories": [{"id": 1, "name": "person"}]}
    for i, (rel, w, h, boxes) in enumerate(images):
        coco["images"].append({"id": i + 1, "file_name": rel, "width": w, "height": h})
        for x0, y0, x1, y1 in boxes:
            coco["annotations"].append({"id": len(coco["annotations"]) + 1, "image_id": i + 1, "category_id": 1,
                                        "bbox": [x0 - 1, y0 - 1, x1 - x0 + 1, y1 - y0 + 1], "iscrowd": 0,
                                        "area": (x1 - x0 + 1) * (y1 - y0 + 1)})
    with open(os.path.join(out, "pennfudan-coco.json"), "w") as f:
        json.dump(coco, f)
    print(f"{len(images)} images, {len(coco['annotations'])} people -> {out}/pennfudan-voc, {out}/pennfudan-coco.json")


if __name__ == "__main__":
    main()
