#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs what Ringlab needs from Debian 12, builds it, then runs it or tests it.
#   packaging/bootstrap.sh run    build, then start the Ringlab workbench on the simulated NIC
#                                 (without a display: a 10 s headless run instead)
#   packaging/bootstrap.sh test   build with warnings as errors, then run the whole test suite
#   packaging/bootstrap.sh deps   install the packages only
set -euo pipefail

mode=${1:-run}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RINGLAB_BUILD_DIR:-$here/build}

packages=(
    build-essential cmake ninja-build pkg-config git
    qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev
    libsqlite3-dev nlohmann-json3-dev libcli11-dev
    libdpdk-dev iperf3 iputils-ping iproute2 util-linux sqlite3
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
    fi
}

configure_and_build() {
    cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
    cmake --build "$build" -j "$(nproc)"
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
test)
    install_packages
    configure_and_build -DRINGLAB_WERROR=ON
    cd "$build"
    export QT_QPA_PLATFORM=offscreen
    ctest --output-on-failure --timeout 600
    ;;
*)
    echo "usage: $0 run|test|deps" >&2
    exit 2
    ;;
esac
