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
    libdpdk-dev iperf3 iputils-ping iproute2 util-linux sqlite3
    dpdk-dev # dpdk-testpmd: bench/dpdk_forward's reference
    clang libfuzzer-14-dev
    libcpp-httplib-dev # HTTP: the engine's API (serve) and Prometheus's scrapes
    python3-jsonschema openssl # tst_api: replies against docs/api.md's schema; a certificate for HTTPS
    prometheus # tst_prometheus: promtool lints the exposition; a real Prometheus scrapes a run
    lintian appstream desktop-file-utils man-db # tst_package, tst_cli_docs: Debian's own checks
)

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
    cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
    cmake --build "$build" -j "$(nproc)"
}

# The suite under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails the test
# that raised it), the threads' tests under ThreadSanitizer, then each libFuzzer target for
# FUZZ_SECONDS from its committed corpus. Build trees: build/dev-asan, build/dev-tsan,
# build/fuzz (CMakePresets.json).
sanitizers_and_fuzzers() {
    cd "$here"
    echo "bootstrap: the suite under ASan and UBSan"
    cmake --preset dev-asan >/dev/null
    cmake --build --preset dev-asan -j "$(nproc)"
    ctest --preset dev-asan --timeout 900 # sanitizer options: the test preset

    echo "bootstrap: the concurrency tests under TSan"
    # TSan needs the address space layout it knows; kernels with 32 random mmap bits break it.
    if [ "$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)" -gt 28 ] && [ "$(id -u)" -eq 0 ]; then
        sysctl -qw vm.mmap_rnd_bits=28
    fi
    cmake --preset dev-tsan >/dev/null
    cmake --build --preset dev-tsan -j "$(nproc)" --target concurrency_tests
    ctest --preset dev-tsan --timeout 900

    echo "bootstrap: fuzzers, ${FUZZ_SECONDS:-30} s each"
    cmake --preset fuzz >/dev/null
    cmake --build --preset fuzz -j "$(nproc)"
    tests/fuzz/run.sh build/fuzz "${FUZZ_SECONDS:-30}"
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
    install_packages
    configure_and_build -DRINGLAB_WERROR=ON
    export QT_QPA_PLATFORM=offscreen
    (cd "$build" && ctest --output-on-failure --timeout 600)
    [ "$mode" = test ] || exit 0
    # On the machine while it is quiet: each figure against bench/baseline.json.
    python3 "$here/bench/check" "$build"
    sanitizers_and_fuzzers
    ;;
*)
    echo "usage: $0 run|test|test-quick|deps" >&2
    exit 2
    ;;
esac
