# Install rules and the CPack configuration of the determined-master .deb:
#
#   cmake --install build                      # into CMAKE_INSTALL_PREFIX
#   cd build && cpack -G DEB                   # determined-master_<v>_<arch>.deb
#
# What is installed (prefix /usr in the .deb):
#   bin/                          det-master det-agent det-replay det-inspect
#                                 det-deploy: those whose targets exist
#   lib/systemd/system/           det-master.service det-agent.service
#   DET_INSTALL_CONFDIR           master.yaml agent.yaml (conf/; conffiles)
#   share/determined/deploy/aws/  the CloudFormation templates det-deploy reads
#   share/determined/examples/    conf/master-aws.yaml
#   share/determined/webui/       the WebUI's bundle, when `make` built it
#                                 into the build tree (BUILD/webui)
#
# Included once from the top-level CMakeLists.txt. The program install rules
# are deferred to the end of the top-level directory, so `if(TARGET ...)`
# sees every program wherever the include() line stands.

include_guard(GLOBAL)
include(GNUInstallDirs)

# An absolute path, as the master and the agent read /etc/determined/*.yaml
# by default; `DESTDIR=/tmp/x cmake --install build` stages it like the rest.
set(DET_INSTALL_CONFDIR "/etc/determined" CACHE PATH
    "Where master.yaml and agent.yaml are installed")

set(DET_PACKAGED_PROGRAMS det-master det-agent det-replay det-inspect det-deploy)

function(det_install_programs)
  set(found "")
  foreach(program IN LISTS DET_PACKAGED_PROGRAMS)
    if(TARGET ${program})
      # OPTIONAL: cpack and `cmake --install` package what is built, so a
      # tree where only some programs were built still installs.
      install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
              OPTIONAL)
      list(APPEND found ${program})
    endif()
  endforeach()
  message(STATUS "Packaging: programs in the package: ${found}")
endfunction()

if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR}
                 CALL det_install_programs)
else()
  # Older CMake: include(Packaging) must come after the add_subdirectory()s.
  det_install_programs()
endif()

install(FILES ${CMAKE_SOURCE_DIR}/deploy/systemd/det-master.service
              ${CMAKE_SOURCE_DIR}/deploy/systemd/det-agent.service
        DESTINATION lib/systemd/system)
install(FILES ${CMAKE_SOURCE_DIR}/conf/master.yaml
              ${CMAKE_SOURCE_DIR}/conf/agent.yaml
        DESTINATION ${DET_INSTALL_CONFDIR})
file(GLOB det_cfn_templates ${CMAKE_SOURCE_DIR}/deploy/aws/*.yaml)
install(FILES ${det_cfn_templates}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/determined/deploy/aws)
install(FILES ${CMAKE_SOURCE_DIR}/conf/master-aws.yaml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/determined/examples)
# det-master looks for it at <bindir>/../share/determined/webui. OPTIONAL:
# a tree built by cmake alone (no npm) installs without a WebUI.
install(DIRECTORY ${CMAKE_BINARY_DIR}/webui/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/determined/webui
        OPTIONAL PATTERN ".*" EXCLUDE)

# ---- CPack: one .deb ----
set(CPACK_PACKAGE_NAME determined-master)
set(CPACK_PACKAGE_VENDOR "det-master")
set(CPACK_PACKAGE_CONTACT "det-master maintainers <det-master@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Event-sourced training-cluster master (Determined-compatible)")
set(CPACK_PACKAGE_DESCRIPTION
    "det-master, det-agent and their tools: a C++ cluster master for deep-learning training that keeps its state as an event log in PostgreSQL and launches agents on EC2. Includes the systemd units, example configs and the CloudFormation templates of det-deploy.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Shared-library dependencies (libcaf, libpqxx, yaml-cpp, curl, ...) come
# from dpkg-shlibdeps; the maintainer scripts need adduser.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser, ca-certificates")

set(det_debian_dir ${CMAKE_BINARY_DIR}/debian-control)
file(MAKE_DIRECTORY ${det_debian_dir})
file(WRITE ${det_debian_dir}/conffiles
     "${DET_INSTALL_CONFDIR}/master.yaml\n${DET_INSTALL_CONFDIR}/agent.yaml\n")
file(COPY ${CMAKE_SOURCE_DIR}/deploy/debian/postinst
          ${CMAKE_SOURCE_DIR}/deploy/debian/prerm
          ${CMAKE_SOURCE_DIR}/deploy/debian/postrm
     DESTINATION ${det_debian_dir}
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                      GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${det_debian_dir}/conffiles ${det_debian_dir}/postinst
    ${det_debian_dir}/prerm ${det_debian_dir}/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
