#!/usr/bin/env bash
# Remakes the ncu CSV captures in tests/engine/profile/data on a machine with a GPU and Nsight
# Compute (docs/nsight.md, "Tests"): the sgemm and elementwise initial kernels, each launched once
# outside and once inside cudaProfilerStart/Stop, profiled with --profile-from-start off and the
# sections warpsmith collects by default. Usage: capture.sh [OUT_DIR] (default: the data folder).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../data}"
ncu="${NCU:-/usr/local/cuda/bin/ncu}"
tmp="$(mktemp -d)"
/usr/local/cuda/bin/nvcc -O2 -o "$tmp/capture" "$here/capture.cu"
sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats
          --section WarpStateStats --section ComputeWorkloadAnalysis --section SchedulerStats)
"$ncu" --version > "$out/ncu-version.txt"
for w in 0 1; do
    name=$([[ $w == 0 ]] && echo sgemm || echo elementwise)
    "$ncu" --profile-from-start off --clock-control none "${sections[@]}" --log-file "$tmp/$name.log" \
        --export "$tmp/$name" --force-overwrite "$tmp/capture" "$w" > /dev/null
    "$ncu" --import "$tmp/$name.ncu-rep" --csv --page raw > "$out/$name-raw.csv"
    "$ncu" --import "$tmp/$name.ncu-rep" --csv --page details > "$out/$name-details.csv"
done
rm -rf "$tmp"
