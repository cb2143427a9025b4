#!/usr/bin/python3
"""Counts what the README's first command found: boxes per frame, their heights, and the boxes
taller than twice the tallest person of OpenCV's vtest.avi (people there stand at most 115 px
tall in frames 0-99, measured on the drawn frames 0, 50 and 99).

Usage: /usr/bin/python3 experiments/operating-points/readme_detect_check.py out/vtest.json [TALLEST_PX]
"""
import json
import sys

def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tallest = float(sys.argv[2]) if len(sys.argv) > 2 else 115.0
    with open(sys.argv[1]) as f:
        j = json.load(f)
    frames = j["images"]
    heights = sorted(d["h"] for im in frames for d in im["detections"])
    if not heights:
        print(f"{len(frames)} frames, no boxes")
        return
    empty = sum(1 for im in frames if not im["detections"])
    huge = sum(1 for h in heights if h > 2 * tallest)
    print(f"{len(frames)} frames, {len(heights)} boxes ({len(heights) / len(frames):.2f} a frame, {empty} frames without one); "
          f"heights {heights[0]:.0f}-{heights[-1]:.0f} px, median {heights[len(heights) // 2]:.0f}; "
          f"{huge} taller than twice the tallest person ({2 * tallest:.0f} px)")

main()
