#!/usr/bin/env bash
# Which packages scripts/setup picks on each release it supports (and refuses), from that release's
# /etc/os-release and apt candidates (releases/*.os-release, releases/*.candidates) answered by
# fake-apt-cache. Run by ctest as setup_packages; needs nothing installed beyond bash and awk.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
setup="$here/../../scripts/setup"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# run_setup OS_RELEASE CANDIDATES: sets $out, $err and $status of `scripts/setup --print-packages`.
run_setup() {
    WARPSMITH_OS_RELEASE="$1" FAKE_APT_CANDIDATES="$2" WARPSMITH_APT_CACHE="$here/fake-apt-cache" \
        "$setup" --print-packages >"$work/out" 2>"$work/err"
    status=$?
    out=$(cat "$work/out")
    err=$(cat "$work/err")
}

check() {  # check DESCRIPTION CONDITION...
    local what="$1"
    shift
    if "$@"; then
        echo "ok: $what"
    else
        echo "FAIL: $what"
        echo "  status $status, stdout: $out"
        echo "  stderr: $err"
        failures=$((failures + 1))
    fi
}
same() { [[ "$1" == "$2" ]]; }
contains() { [[ "$1" == *"$2"* ]]; }
lines_of() { [[ -z "$1" ]] && echo 0 || printf '%s\n' "$1" | wc -l; }

common_head="build-essential cmake ninja-build pkg-config git file"
common_libs="libspdlog-dev libfmt-dev libssl-dev ca-certificates openssl libsqlite3-dev libcli11-dev libpng-dev zlib1g-dev"
scaleout="openssh-server openssh-client munge slurmctld slurmd slurm-client"

run_setup "$here/releases/debian12.os-release" "$here/releases/debian12.candidates"
check "Debian 12: versioned Boost 1.81 (the default libboost-dev is 1.74), clang-format-14, clang-tidy-14" \
    same "$status $out" "0 $common_head libboost1.81-dev libboost-test1.81-dev libboost-filesystem1.81-dev $common_libs clang-format-14 clang-tidy-14 $scaleout"
check "Debian 12: nothing on stderr" same "$err" ""

run_setup "$here/releases/debian13.os-release" "$here/releases/debian13.candidates"
check "Debian 13: the default Boost (1.83), not the newer versioned 1.88" \
    same "$status $out" "0 $common_head libboost-dev libboost-test-dev libboost-filesystem-dev $common_libs $scaleout"
check "Debian 13: says once each that clang-format-14 and clang-tidy-14 are not packaged" \
    same "$err" "setup: clang-format-14 is not packaged on Debian GNU/Linux 13 (trixie); scripts/check-format will not run here
setup: clang-tidy-14 is not packaged on Debian GNU/Linux 13 (trixie); scripts/tidy will not run here"

run_setup "$here/releases/ubuntu2404.os-release" "$here/releases/ubuntu2404.candidates"
check "Ubuntu 24.04: the default Boost (1.83), clang-format-14, clang-tidy-14" \
    same "$status $out" "0 $common_head libboost-dev libboost-test-dev libboost-filesystem-dev $common_libs clang-format-14 clang-tidy-14 $scaleout"

run_setup "$here/releases/ubuntu2204.os-release" "$here/releases/ubuntu2204.candidates"
check "Ubuntu 22.04: refused (status 1, nothing on stdout)" same "$status $out" "1 "
check "Ubuntu 22.04: one line naming the Boost it has, the one needed and what to do" \
    same "$(lines_of "$err") $(contains "$err" "Ubuntu 22.04.5 LTS offers Boost 1.74 at most" && echo has-offer) $(contains "$err" "needs Boost 1.81 or newer: use Debian 12 or 13 or Ubuntu 24.04" && echo has-advice)" \
    "1 has-offer has-advice"

# A release whose default is too old but which has two versioned Boosts takes the newest.
grep -v '^libboost.*1\.74' "$here/releases/debian12.candidates" >"$work/two-versioned.candidates"
printf '%s\n' "libboost-dev 1.74.0.3" "libboost1.83-dev 1.83.0-1" "libboost-test1.83-dev 1.83.0-1" \
    "libboost-filesystem1.83-dev 1.83.0-1" >>"$work/two-versioned.candidates"
run_setup "$here/releases/debian12.os-release" "$work/two-versioned.candidates"
check "default 1.74, versioned 1.81 and 1.83: the versioned 1.83" \
    contains "$status $out" "0 $common_head libboost1.83-dev libboost-test1.83-dev libboost-filesystem1.83-dev $common_libs"

# A package the release does not have (Ubuntu without universe has no libcli11-dev) is named.
grep -v '^libcli11-dev ' "$here/releases/ubuntu2404.candidates" >"$work/no-universe.candidates"
run_setup "$here/releases/ubuntu2404.os-release" "$work/no-universe.candidates"
check "a package apt does not know: status 1 and its name" \
    same "$status $err" "1 setup: not in this system's apt sources: libcli11-dev"

: >"$work/empty.candidates"
run_setup "$here/releases/debian12.os-release" "$work/empty.candidates"
check "no package lists yet: status 1 and apt-get update suggested" \
    same "$status $err" "1 setup: apt has no package lists here (run apt-get update)"

printf '%s\n' 'PRETTY_NAME="Fedora Linux 41 (Workstation Edition)"' 'ID=fedora' 'VERSION_ID=41' >"$work/fedora.os-release"
run_setup "$work/fedora.os-release" "$here/releases/debian12.candidates"
check "not a Debian-family system: status 1, one line" \
    same "$status $(lines_of "$err") $(contains "$err" "Fedora Linux 41 (Workstation Edition) is not an apt-based" && echo named)" "1 1 named"

if ((failures)); then
    echo "setup_packages: $failures check(s) failed"
    exit 1
fi
echo "setup_packages: all checks passed"
