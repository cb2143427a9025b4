#!/usr/bin/python3
"""Plots cascade eval's CSV files: miss rate vs FPPW and vs FPPI (log-log), and the rejection profile.

usage: plot_eval.py fppw OUT.png LABEL=FILE.csv ...
       plot_eval.py fppi OUT.png LABEL=FILE.csv ...
       plot_eval.py faces OUT.png IMAGES LABEL=FILE.csv ...   (eval --faces CSVs: detection rate vs false positives)
       plot_eval.py rejection OUT.png FILE.csv
       plot_eval.py survival OUT.png LABEL=FILE.csv ...        (eval --survival CSVs)
Needs Debian's python3-matplotlib (installed by .ci/setup).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def curves(kind, out, pairs):
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for pair in pairs:
        label, path = pair.split("=", 1)
        rows = read(path)
        xs = [float(r[kind]) for r in rows]
        ys = [max(float(r["miss_rate"]), 1e-3) for r in rows]
        ax.step(xs, ys, where="post", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    if kind == "fppw":
        ax.set_xlim(1e-6, 1e-1)
        ax.set_xlabel("false positives per window (held-out INRIA negatives)")
    else:
        ax.set_xlim(1e-2, 1e1)
        ax.set_xlabel("false positives per image (PennFudanPed)")
    ax.set_ylim(1e-2, 1)
    ax.set_ylabel("miss rate")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def faces(out, images, pairs):
    """The classic face-detection ROC: detection rate against the number of false positives."""
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for pair in pairs:
        label, path = pair.split("=", 1)
        rows = read(path)
        xs = [float(r["fppi"]) * images for r in rows]
        ys = [1 - float(r["miss_rate"]) for r in rows]
        ax.step(xs, ys, where="post", label=label)
    ax.set_xscale("log")
    ax.set_xlim(1, 300)
    ax.set_ylim(0.4, 1)
    for fp in (10, 31, 50, 65, 78, 95, 167):
        ax.axvline(fp, color="gray", lw=0.5, alpha=0.4)
    ax.set_xlabel("false positives over the set (CMU+MIT frontal, %d images)" % images)
    ax.set_ylabel("detection rate (face-points rule)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def survival(out, pairs):
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for pair in pairs:
        label, path = pair.split("=", 1)
        rows = read(path)
        ks = [int(r["weak_classifiers"]) for r in rows]
        ax.plot([max(k, 0.8) for k in ks], [max(float(r["surviving"]), 1e-9) for r in rows], label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("weak classifiers evaluated")
    ax.set_ylabel("share of background windows still alive")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def rejection(out, path):
    rows = read(path)
    stages = [int(r["stage"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot(stages, [100 * float(r["rejected_so_far"]) for r in rows], "o-", label="windows rejected so far (%)")
    ax.set_xlabel("stage")
    ax.set_ylabel("rejected (%)")
    ax.set_ylim(0, 100)
    ax2 = ax.twinx()
    ax2.plot(stages, [float(r["learners_per_window"]) for r in rows], "s--", color="tab:orange", label="learners per window")
    ax2.set_ylabel("mean weak learners evaluated per window")
    ax.grid(True, alpha=0.3)
    fig.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    kind, out = sys.argv[1], sys.argv[2]
    if kind in ("fppw", "fppi"):
        curves(kind, out, sys.argv[3:])
    elif kind == "faces":
        faces(out, int(sys.argv[3]), sys.argv[4:])
    elif kind == "rejection":
        rejection(out, sys.argv[3])
    elif kind == "survival":
        survival(out, sys.argv[3:])
    else:
        sys.exit(__doc__)
