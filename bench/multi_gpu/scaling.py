#!/usr/bin/env python3
"""Scaling table for runs of the same search with different --gpus (docs/performance.md,
"Several GPUs"): candidates evaluated per minute, efficiency against linear scaling from the
first run, each GPU's busy fraction, and whether the chosen best and its confirmed timing agree.

Usage: bench/multi_gpu/scaling.py RUN_DIR [RUN_DIR...]   (the first run is the 1-GPU baseline)
"""

import hashlib
import json
import os
import sys


def load(run):
    with open(os.path.join(run, "summary.json")) as f:
        return json.load(f)


def best_of(run, s):
    """The best's source digest (ids follow arrival order, which differs between runs) and score."""
    b = s.get("best") or {}
    path = os.path.join(run, b.get("source_file") or "best.cu")
    digest = "-"
    if os.path.exists(path):
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:12]
    return f"{b.get('id', '-')} {digest}", digest, b.get("score_us")


def main():
    runs = sys.argv[1:]
    if not runs:
        sys.exit(__doc__)
    base_rate = None
    base_best = None
    print("| run | GPUs | evaluated | wall (s) | candidates/min | vs linear | GPU busy | best (id, source sha256) | best (us) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for run in runs:
        s = load(run)
        gpus = s.get("gpus", [])
        n = max(1, len(gpus))
        evaluated = s["candidates"]["evaluated"]
        wall = s["wall_seconds"]
        rate = 60.0 * evaluated / wall if wall > 0 else 0.0
        if base_rate is None:
            base_rate = rate
        eff = rate / (base_rate * n) if base_rate else 0.0
        busy = ", ".join(f"{g['index']}: {100 * g['busy_fraction']:.0f}%" for g in gpus)
        best, digest, best_us = best_of(run, s)
        if base_best is None:
            base_best = digest
        us = f"{best_us:.2f}" if isinstance(best_us, (int, float)) else "-"
        print(f"| {os.path.basename(run.rstrip('/'))} | {n} | {evaluated} | {wall:.1f} | {rate:.1f} | "
              f"{100 * eff:.0f}% | {busy} | {best}{'' if digest == base_best else ' (differs)'} | {us} |")


if __name__ == "__main__":
    main()
