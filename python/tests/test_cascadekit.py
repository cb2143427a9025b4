"""The cascadekit Python module against the C++ command and the shipped models.

Run by CTest (python.pytest) with PYTHONPATH set to the module's build folder and
CASCADEKIT_SOURCE_DIR to the checkout; data-dependent tests skip when $CASCADEKIT_DATA is absent.
"""
import json
import os
import pathlib
import subprocess
import threading

import numpy as np
import pytest

import cascadekit

SOURCE = pathlib.Path(os.environ.get("CASCADEKIT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
MODELS = SOURCE / "models"
PEOPLE = MODELS / "inria-hog-cascade.h5"
CASCADE = os.environ.get("CASCADE_EXE")


def sample_frame():
    """Frame 0 of OpenCV's vtest.avi (people walking), gray, written by CTest's python.sample_frame."""
    path = os.environ.get("CASCADEKIT_SAMPLE_FRAME")
    if not path or not os.path.exists(path):
        pytest.skip("CASCADEKIT_SAMPLE_FRAME (frame 0 of vtest.avi as PGM, CTest's python.sample_frame) is absent")
    data = pathlib.Path(path).read_bytes()
    magic, width, height, maxval, pixels = data.split(maxsplit=4)
    assert magic == b"P5" and maxval == b"255"
    return np.frombuffer(pixels, np.uint8).reshape(int(height), int(width))


def bars(width=320, height=256, seed=5):
    """A synthetic gray frame: noise with a few bright vertical bars."""
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 60, size=(height, width), dtype=np.uint8)
    for x in (40, 150, 260):
        img[30:230, x : x + 14] = 220
    return img


def test_model_loads_and_describes_itself():
    m = cascadekit.load_model(str(PEOPLE))
    assert m.window == (64, 128)
    assert m.feature_family == "hog"
    assert len(m.stages) > 10 and all(s["kind"] == "hog_svm" and s["size"] > 0 for s in m.stages)
    assert "Model hog" in repr(m)
    hybrid = cascadekit.load_model(MODELS / "inria-hybrid.h5")  # a pathlib.Path works too
    assert hybrid.feature_family == "lbp+hog" and hybrid.stages[0]["kind"] == "waldboost_lbp"


def test_damaged_model_names_the_file(tmp_path):
    bad = tmp_path / "bad.h5"
    bad.write_bytes(PEOPLE.read_bytes()[:1000])
    with pytest.raises(RuntimeError, match="bad.h5"):
        cascadekit.load_model(str(bad))
    with pytest.raises(RuntimeError, match="missing.h5"):
        cascadekit.Detector(str(tmp_path / "missing.h5"))


def test_detect_returns_boxes_and_statistics():
    det = cascadekit.Detector(str(PEOPLE), backend="cpu", stride=4, scale_step=1.1)
    assert det.backend == "cpu"
    plain = dict(pad=0, threshold=0, boxes="window")  # not the model's operating point: every window, as scanned
    raw = det.detect(bars(), fuse="none", **plain)
    assert raw.dtype == np.float64 and raw.ndim == 2 and raw.shape[1] == 6
    assert (raw[:, 5] == 1).all()  # a raw window stands for itself
    stats = det.last_stats
    assert stats["windows_scanned"] > 1000
    assert stats["windows_accepted"] == raw.shape[0]
    assert len(stats["rejected_per_stage"]) == len(det.model.stages)
    assert sum(stats["rejected_per_stage"]) + raw.shape[0] == stats["windows_scanned"]
    # Every raw box is a window of the model's shape, inside the frame.
    if raw.shape[0]:
        assert np.allclose(raw[:, 3] / raw[:, 2], 2.0)
        assert (raw[:, 0] >= 0).all() and (raw[:, 0] + raw[:, 2] <= 320 + 1e-6).all()
    fused = det.detect(bars(), fuse="nms", nms_iou=0.3, **plain)
    assert fused.shape[0] <= raw.shape[0]
    assert (np.diff(fused[:, 4]) <= 0).all()  # best first
    assert fused[:, 5].sum() == raw.shape[0]  # every window is counted by one box
    # Operating points: a score threshold and a neighbour count on fused boxes.
    if raw.shape[0]:
        cut = float(np.median(raw[:, 4]))
        assert (det.detect(bars(), fuse="none", threshold=cut, pad=0)[:, 4] >= cut).all()
        assert (det.detect(bars(), fuse="nms", min_neighbors=1, threshold=0)[:, 5] > 1).all()
    with pytest.raises(ValueError, match="min_neighbors"):
        det.detect(bars(), fuse="none", min_neighbors=2)


def test_defaults_are_the_models_operating_point_and_boxes_its_object_box():
    m = cascadekit.load_model(PEOPLE)
    op = m.operating_point
    assert op["chosen_on"].startswith("threshold for FPPI <= 0.100")
    assert op["fuse"] == "nms" and op["stride"] == 4 and op["pad"] == 0.25 and op["threshold"] > 0
    assert m.object_box == pytest.approx((0.215, 0.125, 0.57, 0.75))
    det = cascadekit.Detector(m, backend="cpu")
    img = sample_frame()
    default = det.detect(img)
    assert 1 <= default.shape[0] <= 10  # the three people of frame 0, tight boxes
    assert (default[:, 3] < 130).all()
    explicit = det.detect(img, fuse=op["fuse"], nms_iou=op["nms_iou"], threshold=op["threshold"], pad=op["pad"])
    np.testing.assert_array_equal(default, explicit)
    assert (default[:, 4] >= op["threshold"]).all()
    # Object boxes are the people inside the windows: the same fused windows, shrunk by the object box.
    loose = dict(threshold=0)
    objects = det.detect(img, boxes="object", **loose)
    windows = det.detect(img, boxes="window", **loose)
    assert objects.shape == windows.shape and objects.shape[0] > 0
    bx, by, bw, bh = m.object_box
    np.testing.assert_allclose(objects[:, 0], windows[:, 0] + bx * windows[:, 2])
    np.testing.assert_allclose(objects[:, 1], windows[:, 1] + by * windows[:, 3])
    np.testing.assert_allclose(objects[:, 2], bw * windows[:, 2])
    np.testing.assert_allclose(objects[:, 3], bh * windows[:, 3])
    # The model's pad lets windows reach past the frame; pad=0 keeps them inside.
    unpadded = det.detect(img, boxes="window", pad=0, **loose)
    assert (unpadded[:, 0] >= 0).all() and (unpadded[:, 1] >= 0).all()
    with pytest.raises(ValueError, match="boxes"):
        det.detect(img, boxes="person")
    with pytest.raises(ValueError, match="pad"):
        det.detect(img, pad=2)


def test_every_layout_gives_the_same_boxes():
    gray = bars()
    det = cascadekit.Detector(str(PEOPLE), backend="cpu", stride=4, scale_step=1.1)
    want = det.detect(gray, fuse="none")
    bgr = np.repeat(gray[:, :, None], 3, axis=2)
    bgra = np.concatenate([bgr, np.full_like(gray[:, :, None], 255)], axis=2)
    wide = np.zeros((gray.shape[0], gray.shape[1] + 37), np.uint8)
    wide[:, : gray.shape[1]] = gray
    for img, order in ((bgr, "bgr"), (bgr, "rgb"), (bgra, "bgr"), (wide[:, : gray.shape[1]], "bgr"),
                       (np.asfortranarray(gray), "bgr"), (np.repeat(gray, 2, axis=1)[:, ::2], "bgr")):
        np.testing.assert_array_equal(det.detect(img, fuse="none", order=order), want)


def test_bad_images_and_options_are_refused():
    det = cascadekit.Detector(str(PEOPLE), backend="cpu")
    with pytest.raises(TypeError, match="uint8"):
        det.detect(np.zeros((200, 200), np.float32))
    with pytest.raises(ValueError, match="channels"):
        det.detect(np.zeros((200, 200, 2), np.uint8))
    with pytest.raises(ValueError, match="dimensions"):
        det.detect(np.zeros((200,), np.uint8))
    with pytest.raises(RuntimeError, match="smaller than the model window"):
        det.detect(np.zeros((50, 50), np.uint8))
    with pytest.raises(ValueError, match="fuse"):
        det.detect(bars(), fuse="median")
    with pytest.raises(ValueError, match="backend"):
        cascadekit.Detector(str(PEOPLE), backend="tpu")
    with pytest.raises(ValueError, match="stride"):
        cascadekit.Detector(str(PEOPLE), stride=0)
    with pytest.raises(ValueError, match="level pad"):
        cascadekit.Detector(str(PEOPLE), level_pad=-1)


@pytest.mark.skipif(not CASCADE, reason="CASCADE_EXE (the cascade command) not given")
@pytest.mark.parametrize("scan", ["resampled", "scale_windows", "approximate_hog", "approximate_lbp"])
def test_same_detections_as_the_command(tmp_path, scan):
    """The module and `cascade detect` give the same fused boxes on the same image (people in
    vtest.avi's first frame), with the resampled scan, with scaled windows on octaves, with HoG
    histograms approximated from octaves and, for the people hybrid, with its LBP stages on the
    octaves (and HoG histograms approximated)."""
    img = np.ascontiguousarray(sample_frame())
    pgm = tmp_path / "frame.pgm"
    pgm.write_bytes(b"P5\n%d %d\n255\n" % (img.shape[1], img.shape[0]) + img.tobytes())
    out = tmp_path / "d.json"
    model = MODELS / "inria-hybrid.h5" if scan == "approximate_lbp" else PEOPLE  # LBP stages to read octaves
    subprocess.run([CASCADE, "-q", "detect", "--model", str(model), "--backend", "cpu", "--stride", "4",
                    "--scale-step", "1.1", "--json", str(out), str(pgm)] +
                   ([] if scan == "resampled" else ["--" + scan.replace("_", "-")]) +
                   (["--approximate-hog"] if scan == "approximate_lbp" else []), check=True)
    doc = json.loads(out.read_text())
    flags = {"scale_windows": scan == "scale_windows", "approximate_hog": scan in ("approximate_hog", "approximate_lbp"),
             "approximate_lbp": scan == "approximate_lbp"}
    for name, value in flags.items():
        assert doc["params"][name] is value
    want = doc["images"][0]["detections"]
    got = cascadekit.Detector(str(model), backend="cpu", stride=4, scale_step=1.1, **flags).detect(img)
    assert len(got) == len(want) > 0
    for g, w in zip(got, want):
        assert g[:4] == pytest.approx([w["x"], w["y"], w["w"], w["h"]], abs=0.01)
        assert g[4] == pytest.approx(w["score"], abs=1e-3)
        assert g[5] == w["windows"]


def test_detectors_run_in_parallel_threads():
    img = bars()
    want = cascadekit.Detector(str(PEOPLE), backend="cpu", stride=4).detect(img, fuse="none")
    results = [None] * 4

    def work(k):
        results[k] = cascadekit.Detector(str(PEOPLE), backend="cpu", stride=4).detect(img, fuse="none")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_array_equal(r, want)


def test_model_round_trips_through_save(tmp_path):
    m = cascadekit.load_model(str(PEOPLE))
    m.save(str(tmp_path / "copy.h5"))
    copy = cascadekit.load_model(str(tmp_path / "copy.h5"))
    assert copy.stages == m.stages and copy.window == m.window
    img = bars()
    a = cascadekit.Detector(m, backend="cpu", stride=4).detect(img, fuse="none")
    b = cascadekit.Detector(copy, backend="cpu", stride=4).detect(img, fuse="none")
    np.testing.assert_array_equal(a, b)


def test_train_from_a_config_with_progress(tmp_path):
    """A tiny WaldBoost run on synthetic data: crops and backgrounds written as PGM, a lists config."""
    rng = np.random.default_rng(3)
    pos, neg = tmp_path / "pos", tmp_path / "neg"
    pos.mkdir()
    neg.mkdir()

    def pgm(path, a):
        path.write_bytes(b"P5\n%d %d\n255\n" % (a.shape[1], a.shape[0]) + a.astype(np.uint8).tobytes())

    for i in range(40):  # a bright disc in the centre of every crop
        a = rng.integers(0, 80, size=(32, 32))
        yy, xx = np.mgrid[:32, :32]
        a[(yy - 16) ** 2 + (xx - 16) ** 2 < 36] = 230
        pgm(pos / f"p{i}.pgm", a)
    for i in range(6):
        pgm(neg / f"n{i}.pgm", rng.integers(0, 120, size=(120, 160)))
    (tmp_path / "pos.lst").write_text("".join(f"{p}\n" for p in sorted(pos.iterdir())))
    (tmp_path / "neg.lst").write_text("".join(f"{p}\n" for p in sorted(neg.iterdir())))
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(f"""seed: 2
data: {{layout: lists, positives_list: {tmp_path / 'pos.lst'}, negatives_list: {tmp_path / 'neg.lst'}, holdout_every: 0}}
window: {{width: 24, height: 24}}
boosting: {{stage_kind: waldboost_lbp, max_stages: 1}}
waldboost: {{weak_classifiers: 6, alpha: 0.05, features_per_round: 200, negatives: 200}}
mining: {{stride: 4, scale_step: 1.25, backend: cpu}}
""")
    events = []
    summary = cascadekit.train(str(cfg), str(tmp_path / "m.h5"), progress=events.append)
    assert summary["stages"] == 1 and summary["learners"] >= 1
    assert any(e["event"] == "round" for e in events) and any(e["event"] == "stage" for e in events)
    m = cascadekit.load_model(str(tmp_path / "m.h5"))
    assert m.feature_family == "lbp" and m.window == (24, 24)
    with pytest.raises(RuntimeError, match="missing.yaml"):
        cascadekit.train(str(tmp_path / "missing.yaml"), str(tmp_path / "x.h5"))


def test_evaluate_on_annotations_in_two_formats(tmp_path):
    """The bar-free synthetic frame annotated in COCO and OpenCV's text: the same figures."""
    img = bars()
    (tmp_path / "f.pgm").write_bytes(b"P5\n%d %d\n255\n" % (img.shape[1], img.shape[0]) + img.tobytes())
    (tmp_path / "a.txt").write_text("f.pgm 2 30 20 64 128 140 40 64 128\n")
    (tmp_path / "a.json").write_text(json.dumps({
        "images": [{"id": 1, "file_name": "f.pgm"}], "categories": [{"id": 1, "name": "person"}],
        "annotations": [{"image_id": 1, "bbox": [30, 20, 64, 128], "category_id": 1},
                        {"image_id": 1, "bbox": [140, 40, 64, 128], "category_id": 1}]}))
    a = cascadekit.evaluate(str(PEOPLE), tmp_path / "a.txt", stride=4, scale_step=1.1, pad=0, box="window", backend="cpu")
    b = cascadekit.evaluate(str(PEOPLE), tmp_path / "a.json", object_class="person", stride=4, scale_step=1.1, pad=0,
                            box="window", backend="cpu")
    assert a["images"] == 1 and a["objects"] == 2
    for k in ("log_average_miss_rate", "ap50", "miss_rate_at_0.1_fppi"):
        assert a[k] == b[k] and 0 <= a[k] <= 1
    assert a["curve"].shape[1] == 3
    assert set(a["detection_rate_at"]) == {10, 50, 100}
    sizes = a["found_by_height_at_1_fppi"]
    assert len(sizes) == 4 and sum(b["objects"] for b in sizes) == 2 and sizes[2]["objects"] == 2  # 128 px tall
    with pytest.raises(RuntimeError, match="no such file"):
        cascadekit.evaluate(str(PEOPLE), tmp_path / "missing.json")
    with pytest.raises(ValueError, match="box"):
        cascadekit.evaluate(str(PEOPLE), tmp_path / "a.txt", box="head")
