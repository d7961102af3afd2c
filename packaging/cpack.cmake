# SPDX-License-Identifier: GPL-2.0-or-later
# cpack -G DEB: both programs, the profiles, desktop file, AppStream metainfo and icon.
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
# iproute2, and ping and iperf3 as traffic.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "librte-net-null23, librte-net-ring23, librte-net-tap23, librte-mempool-ring23, iproute2")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "librte-net-af-packet23, iperf3, iputils-ping")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://ringlab.example.org")
include(CPack)
