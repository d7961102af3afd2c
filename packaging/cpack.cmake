# SPDX-License-Identifier: GPL-2.0-or-later
# cpack -G DEB: both programs, the profiles, desktop file, AppStream metainfo and icon, and the
# engine as a system service for a lab host (docs/api.md).
set(CPACK_PACKAGE_NAME ringlab)
set(CPACK_PACKAGE_VENDOR "Ringlab")
set(CPACK_PACKAGE_CONTACT "Ringlab developers <dev@ringlab.example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Workbench for tuning the host side of network drivers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON) # Qt, SQLite, DPDK's libraries and libc from the binaries
# DPDK loads its PMDs and mempool driver as plugins: shlibdeps cannot see them. The lab runs
# iproute2, and ping and iperf3 as traffic. postinst creates the service's user with adduser.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "librte-net-null23, librte-net-ring23, librte-net-tap23, \
librte-mempool-ring23, iproute2, adduser")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "librte-net-af-packet23, iperf3, iputils-ping")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://ringlab.example.org")
# Relative, so under the packaging prefix: /usr/lib/systemd/system, which systemd reads (and
# merged /usr makes /lib's). An absolute destination would escape CPack's staging directory.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/ringlab-engine.service DESTINATION lib/systemd/system)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/deb/postinst
    ${CMAKE_CURRENT_LIST_DIR}/deb/prerm ${CMAKE_CURRENT_LIST_DIR}/deb/postrm)
# Maintainer scripts 0755 whatever a checkout left their modes.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
include(CPack)
