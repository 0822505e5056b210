#!/usr/bin/env python3
"""Best score versus evaluations for every autotune strategy on one workload (docs/autotune.md,
"Comparing strategies").

Runs `warpsmith tune WORKLOAD --strategy S --budget N --seed K` for each strategy S with the same
budget and seed, reads each run's tune_curve.json and prints the curves side by side: the best
score after n evaluations, per strategy. The runs share one evaluation cache, so a point that two
strategies both visit is measured once and scores the same for both (the comparison is about how
fast each strategy finds good points, not about timing noise); --separate-caches turns that off.

With --offline-seeds M it then replays every strategy against that cache for seeds 1..M without a
GPU (`warpsmith tune --offline`) and prints the mean best curve over the seeds, which says more
than one seed can. Points a strategy visits that no run measured count as invalid there.

Needs a GPU machine for the online runs. Example:
    bench/strategies/compare_strategies.py --warpsmith build/bin/warpsmith --budget 60 --seed 1 \\
        --offline-seeds 20 -- --gpus 0
Everything after `--` is passed to every `warpsmith tune` run.
"""

import argparse
import json
import math
import os
import subprocess
import sys

STRATEGIES = ["grid", "random", "local", "anneal", "genetic"]


def run(cmd):
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode not in (0, 130):
        sys.exit(f"command failed with exit code {proc.returncode}: {' '.join(cmd)}")
    return proc.stdout


def last_json_line(text, kind=None):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        obj = json.loads(line)
        if kind is None or obj.get("type") == kind:
            return obj
    return None


def best_after(curve, n):
    """Best score after the first n evaluations of a tune_curve.json curve (None: none valid yet)."""
    steps = curve["curve"]
    if not steps or n <= 0:
        return None
    return steps[min(n, len(steps)) - 1]["best_us"]


def checkpoints(budget):
    marks = {1, 2, 5, budget}
    for m in (10, 20, 30, 40, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 2000, 5000):
        if m < budget:
            marks.add(m)
    return sorted(marks)


def fmt(x):
    return "-" if x is None or (isinstance(x, float) and math.isinf(x)) else f"{x:.2f}"


def print_table(title, curves, budget, extra_rows):
    names = list(curves)
    width = max(10, *(len(n) + 2 for n in names))
    print(title)
    print("  " + "evals".rjust(7) + "".join(n.rjust(width) for n in names))
    for n in checkpoints(budget):
        print("  " + str(n).rjust(7) + "".join(fmt(curves[s](n)).rjust(width) for s in names))
    for label, values in extra_rows:
        print("  " + label.rjust(7) + "".join(str(values[s]).rjust(width) for s in names))
    print()


def main():
    argv = sys.argv[1:]
    passthrough = []
    if "--" in argv:
        i = argv.index("--")
        argv, passthrough = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--warpsmith", default="build/bin/warpsmith", help="the warpsmith binary")
    p.add_argument("--workload", default="bench/workloads/sgemm")
    p.add_argument("--budget", type=int, default=60, help="GPU evaluations per strategy (default 60)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--strategies", default=",".join(STRATEGIES))
    p.add_argument("--out", default="bench-results/strategies", help="results directory of the runs")
    p.add_argument("--separate-caches", action="store_true", help="each strategy measures every point itself")
    p.add_argument("--offline-seeds", type=int, default=0, help="also replay seeds 1..M offline (no GPU)")
    args = p.parse_args(argv)
    strategies = [s for s in args.strategies.split(",") if s]
    for s in strategies:
        if s not in STRATEGIES:
            sys.exit(f"unknown strategy {s!r} (expected {', '.join(STRATEGIES)})")

    shared_cache = os.path.join(args.out, "eval-cache")
    curves, summaries = {}, {}
    for s in strategies:
        results = os.path.join(args.out, s)
        cmd = [args.warpsmith, "tune", args.workload, "--strategy", s, "--budget", str(args.budget),
               "--seed", str(args.seed), "--results", results, "--json-progress"]
        if not args.separate_caches:
            cmd += ["--eval-cache", shared_cache]
        out = run(cmd + passthrough)
        summary = last_json_line(out, "summary")
        if summary is None:
            sys.exit(f"{s}: no summary line in the output of warpsmith tune")
        with open(os.path.join(summary["run"], "tune_curve.json")) as f:
            curves[s] = json.load(f)
        summaries[s] = summary["summary"]

    fns = {s: (lambda n, c=curves[s]: best_after(c, n)) for s in strategies}
    extra = [("best@", {s: curves[s].get("time_to_best") or "-" for s in strategies}),
             ("pruned", {s: (summaries[s].get("tune") or {}).get("pruned", "-") for s in strategies})]
    print_table(f"best score (us) after n evaluations: {args.workload}, budget {args.budget}, seed {args.seed}",
                fns, args.budget, extra)

    if args.offline_seeds > 0:
        if args.separate_caches:
            sys.exit("--offline-seeds replays the shared cache; drop --separate-caches")
        mean_curves = {}
        for s in strategies:
            runs = []
            for seed in range(1, args.offline_seeds + 1):
                out = run([args.warpsmith, "tune", args.workload, "--offline", "--strategy", s, "--budget",
                           str(args.budget), "--seed", str(seed), "--eval-cache", shared_cache, "--json-progress"])
                runs.append(last_json_line(out))

            def mean(n, runs=runs):
                vals = [best_after(r, n) for r in runs]
                vals = [v for v in vals if v is not None]
                return sum(vals) / len(vals) if vals else None

            mean_curves[s] = mean
        print_table(f"mean best score (us) over seeds 1..{args.offline_seeds}, offline against {shared_cache}",
                    mean_curves, args.budget, [])


if __name__ == "__main__":
    main()
