#!/usr/bin/env bash
# Packs the data for timing WaldBoost mining on the GPU machine (benchmarks/gpu/mining-faces.yaml)
# into .bundle/mining.tar.xz, beside benchmarks/gpu/bundle.sh's .bundle/gpu.tar.xz: the first
# CROPS (default 2500) Caltech web-face crops and the first BACKGROUNDS (default 100) face-free
# backgrounds of $CASCADEKIT_DATA/Faces, as gray PGM (the GPU build reads PGM/PPM only): about
# 17 MB, so that with the repository and the GPU bundle it stays under what a device run carries
# (64 MiB). Nothing of it is committed. Run from the repository root on the build machine:
#   bash benchmarks/gpu/mining_bundle.sh [BACKGROUNDS [CROPS]]
set -euo pipefail
data=${CASCADEKIT_DATA:-../shared/data}
n=${1:-100}
crops=${2:-2500}
rm -rf .bundle/mining .bundle/mining.tar.xz
mkdir -p .bundle/mining/Faces/caltech-web-crops .bundle/mining/Faces/backgrounds
/usr/bin/python3 - "$data/Faces" .bundle/mining/Faces "$n" "$crops" <<'PY'
import os, sys
import matplotlib.image as mpimg
src, out, n, crops = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def gray_pgm(path, dest):
    a = mpimg.imread(path)
    if a.dtype.kind == "f":
        a = a * 255
    if a.ndim == 3:  # ITU-R BT.601 luma, as the loaders convert colour
        a = 0.299 * a[..., 0] + 0.587 * a[..., 1] + 0.114 * a[..., 2]
    g = (a + 0.5).clip(0, 255).astype("uint8")
    with open(dest, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (g.shape[1], g.shape[0]) + g.tobytes())

for sub, limit in (("caltech-web-crops", crops), ("backgrounds", n)):
    names = sorted(x for x in os.listdir(os.path.join(src, sub)) if x.lower().endswith((".jpg", ".png", ".pgm")))
    for x in names[:limit]:
        gray_pgm(os.path.join(src, sub, x), os.path.join(out, sub, os.path.splitext(x)[0] + ".pgm"))
    print(sub, len(names[:limit]))
PY
tar -C .bundle -cJf .bundle/mining.tar.xz mining
rm -rf .bundle/mining
ls -l .bundle/mining.tar.xz
