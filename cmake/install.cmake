# `make install` (PREFIX, DESTDIR) and the Debian package's file list: the two
# programs, and a default server.properties under etc/gregor/ whose log.dirs
# points under var/lib/gregor/ of the same prefix (/etc and /var for the
# package: debhelper passes those directories). op-tools' cmake file adds the
# kafka-*.sh names beside gregor-admin.
include(GNUInstallDirs)

set(GR_INSTALL_CONFIG_DIR ${CMAKE_INSTALL_FULL_SYSCONFDIR}/gregor)
set(GR_INSTALL_STATE_DIR ${CMAKE_INSTALL_FULL_LOCALSTATEDIR}/lib/gregor)
set(GR_INSTALL_LOG_DIR ${GR_INSTALL_STATE_DIR}/logs)
configure_file(${CMAKE_SOURCE_DIR}/config/server.installed.properties.in
  ${CMAKE_BINARY_DIR}/install/server.properties @ONLY)

if(TARGET gregor)
  install(TARGETS gregor RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET gregor-admin)
  install(TARGETS gregor-admin RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(FILES ${CMAKE_BINARY_DIR}/install/server.properties DESTINATION ${GR_INSTALL_CONFIG_DIR})
