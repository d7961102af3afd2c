# SPDX-License-Identifier: GPL-2.0-or-later
# cpack -G DEB: both programs, the profiles, desktop file, AppStream metainfo and icon, and the
# engine as a system service for a lab host (docs/api.md).
set(CPACK_PACKAGE_NAME ringlab)
set(CPACK_PACKAGE_VENDOR "Ringlab")
set(CPACK_PACKAGE_CONTACT "The Ringlab developers <ringlab@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "workbench for tuning the host side of network drivers")
# The extended description (CPack puts the summary above it): control's continuation
# lines, a paragraph break as ".".
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Ringlab runs a network driver's host side (RX refill, polling, TX
completion coalescing, stage hand-off) on a simulated NIC, on DPDK ports,
or on a one-machine lab that real ping and iperf3 traffic crosses, and lets
its knobs move live while charts show throughput, CPU time and wakeups per
thread, latency and drops.
.
Every run is recorded as a session in SQLite, to compare with confidence
intervals, export and repeat. The package holds the desktop workbench
(ringlab), the engine without a window (ringlab-engine) for scripts,
sweeps and a tuner, and a systemd unit that serves the engine's HTTP API
on a lab host (not enabled).")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON) # Qt, SQLite, DPDK's libraries and libc from the binaries
# DPDK loads its PMDs and mempool driver as plugins: shlibdeps cannot see them. The lab runs
# iproute2, and ping and iperf3 as traffic. postinst creates the service's user with adduser.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "librte-net-null23, librte-net-ring23, librte-net-tap23, \
librte-mempool-ring23, iproute2, adduser, init-system-helpers (>= 1.54~)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "librte-net-af-packet23, iperf3, iputils-ping")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/ringlab/ringlab")
# Relative, so under the packaging prefix: /usr/lib/systemd/system, which systemd reads (and
# merged /usr makes /lib's). An absolute destination would escape CPack's staging directory.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/ringlab-engine.service DESTINATION lib/systemd/system)
# Debian's binaries carry no debug information (lintian: unstripped-binary-or-object).
set(CPACK_STRIP_FILES ON)
# The package's copyright (machine-readable, with the libraries compiled in) and changelog,
# compressed as Debian's tools do it.
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/changelog.in ${CMAKE_BINARY_DIR}/deb/changelog @ONLY)
add_custom_command(
    OUTPUT ${CMAKE_BINARY_DIR}/deb/changelog.gz
    COMMAND gzip -9nkf ${CMAKE_BINARY_DIR}/deb/changelog
    DEPENDS ${CMAKE_BINARY_DIR}/deb/changelog VERBATIM)
add_custom_target(ringlab_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/deb/changelog.gz)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/deb/copyright ${CMAKE_BINARY_DIR}/deb/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/deb/postinst
    ${CMAKE_CURRENT_LIST_DIR}/deb/prerm ${CMAKE_CURRENT_LIST_DIR}/deb/postrm)
# Maintainer scripts 0755 whatever a checkout left their modes.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
include(CPack)
