#!/usr/bin/env bash
# Builds the small GPU-machine build (CUDA on, OpenCV codecs off: PGM/PPM only) and packs it with
# the libraries it needs and a few PennFudan photos (as PPM) into .bundle/gpu.tar.xz, the one path
# a device run carries (and .bundle/lean.tar.xz, smaller, for mining runs). Run from the
# repository root on the build machine:
#   bash benchmarks/gpu/bundle.sh            then, on the GPU machine:  bash benchmarks/gpu/device_run.sh
set -euo pipefail
data=${CASCADEKIT_DATA:-../shared/data}
bash .ci/build build-gpu -DCASCADEKIT_CUDA=ON -DCASCADEKIT_TOOLS_CODECS=OFF
rm -rf .bundle/gpu .bundle/data .bundle/gpu.tar.xz .bundle/lean.tar.xz
# gpu-bundle warns above 60 MiB uncompressed; the xz archive that travels is about 20 MiB.
../shared/tools/gpu-bundle .bundle/gpu build-gpu/tests/gpu_test build-gpu/tests/trainer_test build-gpu/tests/runtime_test \
    build-gpu/tools/cascade build-gpu/benchmarks/opencv_hog_peer build-gpu/benchmarks/opencv_face_peer || true
test -x .bundle/gpu/bin/gpu_test
mkdir -p .bundle/data/PennFudanPed/PNGImages .bundle/data/opencv
# OpenCV's face cascades (Debian opencv-data) for the face peer, which the GPU machine lacks.
cp /usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml /usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml \
    .bundle/data/opencv/
/usr/bin/python3 - "$data/PennFudanPed/PNGImages" .bundle/data "$data/Faces/cmu-mit/test/music-groups-double.png" <<'PY'
import os, sys
import matplotlib.image as mpimg
src, out, face = sys.argv[1], sys.argv[2], sys.argv[3]
if os.path.exists(face):  # the faces benchmark frame (a CMU+MIT group photo), as PPM
    a = mpimg.imread(face)
    a = a if a.ndim == 3 else a[..., None].repeat(3, axis=2)
    rgb = (a[..., :3] * (255 if a.dtype.kind == "f" else 1) + (0.5 if a.dtype.kind == "f" else 0)).astype("uint8")
    with open(os.path.join(out, "face-frame.ppm"), "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (rgb.shape[1], rgb.shape[0]) + rgb.tobytes())
names = sorted(n for n in os.listdir(src) if n.endswith(".png"))[:6]
for i, n in enumerate(names):
    a = mpimg.imread(os.path.join(src, n))          # float in [0, 1] for 8-bit PNG
    rgb = (a[..., :3] * 255 + 0.5).astype("uint8")
    h, w = rgb.shape[:2]
    for path in [os.path.join(out, "PennFudanPed", "PNGImages", n[:-4] + ".ppm")] + ([os.path.join(out, "bench-frame.ppm")] if i == 0 else []):
        with open(path, "wb") as f:
            f.write(b"P6\n%d %d\n255\n" % (w, h) + rgb.tobytes())
PY
tar -C .bundle -cJf .bundle/gpu.tar.xz gpu data
# The same without trainer_test, the OpenCV peers and the PennFudan frames (about 21 MiB against
# 23): a device run carries at most 64 MiB with the working tree (about 22 MiB), so mining runs
# carry this with .bundle/mining.tar.xz (18 MiB) and an earlier binary for an A/B. device_env.sh
# unpacks it where gpu.tar.xz was not carried; the tests that read PennFudan frames then skip
# those cases.
tar -C .bundle -cJf .bundle/lean.tar.xz --exclude=gpu/bin/trainer_test --exclude=gpu/bin/runtime_test --exclude='gpu/bin/opencv_*' \
    --exclude=data/PennFudanPed gpu data
ls -l .bundle/gpu.tar.xz .bundle/lean.tar.xz
