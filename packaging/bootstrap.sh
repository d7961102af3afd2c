#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs what Ringlab needs from Debian 12, builds it, then runs it or tests it.
#   packaging/bootstrap.sh run    build, then start the Ringlab workbench on the simulated NIC
#                                 (without a display: a 10 s headless run instead)
#   packaging/bootstrap.sh test   build with warnings as errors and run the whole test suite; then
#                                 the performance guard (bench/check), the suite again under
#                                 ASan+UBSan, the concurrency tests under TSan, and every fuzzer
#                                 for 30 s (what CI runs)
#   packaging/bootstrap.sh test-quick   only the first of those
#   packaging/bootstrap.sh deps   install the packages only
set -euo pipefail

mode=${1:-run}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RINGLAB_BUILD_DIR:-$here/build}

packages=(
    build-essential cmake ninja-build pkg-config git
    qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev
    libsqlite3-dev nlohmann-json3-dev libcli11-dev libnlopt-cxx-dev libmuparser-dev
    libdpdk-dev iperf3 iputils-ping iproute2 ethtool util-linux sqlite3
    dpdk-dev # dpdk-testpmd: bench/dpdk_forward's reference
    clang libfuzzer-14-dev libclang-rt-14-dev lld # the sanitizer and fuzz trees; lld links every tree
    libcpp-httplib-dev # HTTP: the engine's API (serve) and Prometheus's scrapes
    libmnl-dev # netdev generic netlink: a NAPI's own settings (the kernel device)
    libbpf-dev bpftool # who drove each NAPI poll: a BPF program and its skeleton
    python3-jsonschema openssl # tst_api: replies against docs/api.md's schema; a certificate for HTTPS
    prometheus # tst_prometheus: promtool lints the exposition; a real Prometheus scrapes a run
    lintian appstream desktop-file-utils man-db # tst_package, tst_cli_docs: Debian's own checks
)

# Every stage's minutes, printed as a line when it ends and as a table when the script does
# (also when a stage fails), so each CI log shows where its time went.
stage_names=() stage_secs=()
stage_total_start=$SECONDS
stage() {
    local name=$1 start=$SECONDS
    shift
    echo "bootstrap: stage '$name'"
    "$@"
    stage_names+=("$name") stage_secs+=($((SECONDS - start)))
    printf 'bootstrap: stage %-28s %5.1f min\n' "'$name'" "$(bc_min $((SECONDS - start)))"
}
bc_min() { awk -v s="$1" 'BEGIN { printf "%.1f", s / 60 }'; }
stage_table() {
    ((${#stage_names[@]})) || return 0
    echo "bootstrap: minutes per stage"
    for i in "${!stage_names[@]}"; do
        printf 'bootstrap:   %-34s %5.1f\n' "${stage_names[$i]}" "$(bc_min "${stage_secs[$i]}")"
    done
    printf 'bootstrap:   %-34s %5.1f\n' "total" "$(bc_min $((SECONDS - stage_total_start)))"
}
trap stage_table EXIT

install_packages() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "bootstrap: installing ${missing[*]}"
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo=sudo
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
        # Debian's prometheus package enables a server on :9090 at once; the tests start their
        # own. Only when this script installed it and systemd runs.
        if [[ " ${missing[*]} " == *" prometheus "* ]] && [ -d /run/systemd/system ]; then
            echo "bootstrap: stopping and disabling the prometheus service the package started"
            $sudo systemctl disable --now prometheus >/dev/null 2>&1 || true
        fi
    fi
}

configure_and_build() {
    cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGLAB_UNITY=ON "$@"
    cmake --build "$build" -j "$(nproc)"
}

# The suite under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails the test
# that raised it), the threads' tests under ThreadSanitizer, then each libFuzzer target for
# FUZZ_SECONDS from its committed corpus. Build trees (CMakePresets.json): build/dev-asan,
# which also holds the fuzz targets (coverage-instrumented, at OSS-Fuzz's -O1), and
# build/dev-tsan. Both suites run two tests at a time, the RUN_SERIAL (timing) tests alone.
sanitizers_and_fuzzers() {
    cd "$here"
    stage "ASan+UBSan build" build_preset dev-asan
    # sanitizer options: the test preset
    stage "suite under ASan+UBSan" ctest --preset dev-asan --timeout 900 -j "$(nproc)"

    # TSan needs the address space layout it knows; kernels with 32 random mmap bits break it.
    if [ "$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)" -gt 28 ] && [ "$(id -u)" -eq 0 ]; then
        sysctl -qw vm.mmap_rnd_bits=28
    fi
    stage "TSan build" build_preset dev-tsan --target concurrency_tests
    stage "concurrency tests under TSan" ctest --preset dev-tsan --timeout 900 -j "$(nproc)"

    # The fuzz targets were built in the ASan tree, on the suite's objects.
    stage "fuzzers, ${FUZZ_SECONDS:-30} s each" tests/fuzz/run.sh build/dev-asan "${FUZZ_SECONDS:-30}"
}

build_preset() {
    local preset=$1
    shift
    cmake --preset "$preset" -DRINGLAB_UNITY=ON >/dev/null
    cmake --build --preset "$preset" -j "$(nproc)" "$@"
}

case "$mode" in
deps)
    install_packages
    ;;
run)
    install_packages
    configure_and_build
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
        exec "$build/app/ringlab" --profile default
    fi
    echo "bootstrap: no display; a 10 s headless run of the default profile instead (the desktop app: $build/app/ringlab)"
    exec "$build/app/ringlab-engine" run --profile default --duration 10s --no-record
    ;;
test | test-quick)
    stage "packages" install_packages
    # Line tables and function names (-g1) for the tests' backtraces, not every variable's
    # location: a sixth less compile time, the same code.
    stage "build" configure_and_build -DRINGLAB_WERROR=ON \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
    export QT_QPA_PLATFORM=offscreen
    stage "suite" ctest --test-dir "$build" --output-on-failure --timeout 600 -j "$(nproc)"
    [ "$mode" = test ] || exit 0
    # On the machine while it is quiet: each figure against bench/baseline.json.
    stage "bench/check" python3 "$here/bench/check" "$build"
    sanitizers_and_fuzzers
    ;;
*)
    echo "usage: $0 run|test|test-quick|deps" >&2
    exit 2
    ;;
esac
