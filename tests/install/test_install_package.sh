#!/usr/bin/env bash
# The .deb, installed where nothing else is: cpack -G DEB from BUILD_DIR, dpkg-deb -x into a fresh
# directory, then the unpacked programs run from an empty working directory with a bare
# environment (no WARPSMITH_* variables, PATH without the build tree). They must name their own
# worker and data, compile a kernel through NVRTC, reach their worker, and find a bundled workload
# by name. Run by ctest as install_package (label "install").
#   tests/install/test_install_package.sh BUILD_DIR
set -uo pipefail
build_dir="$(cd "${1:?usage: test_install_package.sh BUILD_DIR}" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/warpsmith-install-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
failures=0

check() {  # check DESCRIPTION CONDITION...: on failure prints the last command's output
    local what="$1"
    shift
    if "$@"; then
        echo "ok: $what"
    else
        echo "FAIL: $what"
        sed 's/^/  | /' "$work/last.out" | head -n 40
        failures=$((failures + 1))
    fi
}
contains() { [[ "$1" == *"$2"* ]]; }
same() { [[ "$1" == "$2" ]]; }

# Runs a program in the empty directory with a bare environment; output (both streams) in
# $work/last.out, status in $status.
mkdir -p "$work/cwd" "$work/home"
bare_run() {
    (cd "$work/cwd" && env -i HOME="$work/home" PATH="$bare_path" LANG=C.UTF-8 "$@") >"$work/last.out" 2>&1
    status=$?
    output=$(cat "$work/last.out")
}

# ---- the package ----
cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work/package" >"$work/last.out" 2>&1
status=$?
deb=$(find "$work/package" -maxdepth 1 -name 'warpsmith_*.deb' | head -n 1)
check "cpack -G DEB made a package" same "$status $([[ -n "$deb" ]] && echo found)" "0 found"
[[ -n "$deb" ]] || { echo "install_package: no package, nothing more to check"; exit 1; }

dpkg-deb -f "$deb" Package Version Architecture Depends Recommends >"$work/last.out" 2>&1
control=$(cat "$work/last.out")
# The libraries the programs link, as dpkg-shlibdeps names them on this release (libssl3 or
# libssl3t64, ...); NVRTC is NVIDIA's and no package is named for it.
for library in libc6 libstdc++6 libgcc-s1 libssl3 libsqlite3-0 libpng16-16; do
    check "Depends names $library" contains "$control" "$library"
done
check "Recommends ca-certificates (HTTPS to model providers)" contains "$control" "Recommends: ca-certificates"
check "Depends names nothing from CUDA" eval '! grep -qi "cuda\|nvrtc" <<<"$control"'

root="$work/root"
dpkg-deb -x "$deb" "$root"
for file in usr/bin/warpsmith usr/bin/warpsmith-worker usr/share/doc/warpsmith/README.md \
    usr/share/doc/warpsmith/docs/cli.md usr/share/warpsmith/guidance/occupancy.md \
    usr/share/warpsmith/workloads/sgemm/workload.json usr/share/warpsmith/workloads/sgemm/initial.cu; do
    check "installed $file" test -s "$root/$file"
done
check "no test or bench program installed" same "$(ls "$root/usr/bin" | tr '\n' ' ')" "warpsmith warpsmith-worker "
check "guidance is data, not also a copy under the docs" test ! -e "$root/usr/share/doc/warpsmith/docs/guidance"

# ---- the installed programs, away from the build and source trees ----
bin="$root/usr/bin"
bare_path=/usr/local/bin:/usr/bin:/bin
bare_run "$bin/warpsmith" --version
check "--version: status 0, version and commit on the first line" \
    eval '[[ $status -eq 0 && "$(head -n1 <<<"$output")" =~ ^warpsmith\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ [^\ ]+\)$ ]]'
check "--version: the worker beside the installed binary" contains "$output" $'\n'"worker: $bin/warpsmith-worker"$'\n'
check "--version: the data under the install prefix" contains "$output" $'\n'"data: $root/usr/share/warpsmith"
check "--version: nothing from the build tree" eval '! grep -qF "$build_dir" <<<"$output"'

# A copy of the CLI alone finds the worker on PATH, and says so when PATH has none.
mkdir -p "$work/alone"
cp "$bin/warpsmith" "$work/alone/warpsmith"
bare_path="$bin:/usr/bin:/bin"
bare_run "$work/alone/warpsmith" --version
check "a lone CLI finds the worker on PATH" contains "$output" "worker: $bin/warpsmith-worker"
bare_path=/usr/bin:/bin
bare_run "$work/alone/warpsmith" --version
check "a lone CLI without a worker on PATH says so" contains "$output" "worker: not found beside this binary or on PATH"
bare_path=/usr/local/bin:/usr/bin:/bin

kernel="$root/usr/share/warpsmith/workloads/sgemm/initial.cu"
bare_run "$bin/warpsmith" compile "$kernel" --arch sm_90 --no-cache
check "compile: NVRTC compiles the bundled sgemm kernel" \
    eval '[[ $status -eq 0 ]] && contains "$output" "compiled" && contains "$output" "for sm_90"'

# device-info starts the installed worker: on a GPU machine it answers, elsewhere the worker
# itself reports that it has no device (a worker that could not start is a different message).
bare_run "$bin/warpsmith" device-info
check "device-info reaches the installed worker" \
    eval '[[ $status -eq 0 ]] || contains "$output" "worker refused to start (no_device)"'

# A bundled workload by name: the offline replay of the H100 evaluations shipped with sgemm.
bare_run "$bin/warpsmith" tune sgemm --offline --strategy random --budget 4 --seed 1 \
    --eval-cache "$root/usr/share/warpsmith/workloads/sgemm/demo-eval-cache"
check "tune sgemm (bundled, by name) replays offline" eval '[[ $status -eq 0 ]] && contains "$output" "random seed 1: 4 evaluations"'

if ((failures)); then
    echo "install_package: $failures check(s) failed"
    exit 1
fi
echo "install_package: all checks passed"
