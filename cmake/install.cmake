# The installed package: what `cmake --install` puts under the prefix so that
# an application outside this tree builds against wren with
# find_package(wren) or pkg-config.
#
#   lib/libwren.a                   wren::wren   the stack (src/) and the platform's
#                                                context switch (ucontext on Linux,
#                                                runtime/cortexm/ctx_cortexm.c on Cortex-M3)
#   lib/libwren_host.a              wren::host   host runtime (Linux): event loop, TAP, ZEP
#   lib/libwren_cortexm.a           wren::cortexm_rt  bare-metal runtime and startup code
#                                   wren::cortexm     the same plus what links an mps2-an385
#                                                     image (link.ld, specs, -nostartfiles)
#   include/wren/<module>/*.h       the src/ tree's headers ("core/node.h", "net/netapi.h")
#   include/wren/host|cortexm/*.h   the runtime's headers ("host/rt_host.h")
#   share/wren/link.ld              Cortex-M3: the linker script of the images
#   share/wren/arm-cortex-m3.cmake  Cortex-M3: the toolchain file the library was built with
#   lib/cmake/wren/                 wren-config.cmake, its version file, exported targets
#   lib/pkgconfig/                  wren.pc, wren-host.pc or wren-cortexm.pc
#
# The installed libraries are archives of the objects the build already made
# (the stack library of the runtime: wren_core on Linux, wren_core_m3, the
# default full configuration, on Cortex-M3); nothing is compiled twice. The
# CONFIG_WREN_* definitions that library was compiled with change struct
# layouts, so they travel with it: INTERFACE_COMPILE_DEFINITIONS of
# wren::wren and the Cflags of wren.pc.
#
# Included at the end of the top-level CMakeLists.txt (Linux) and of
# runtime/cortexm/CMakeLists.txt (Cortex-M3, where the top level returns
# early). The runtime CMakeLists.txt define the runtime's package target
# (wren_host_pkg, wren_cortexm_pkg) before this runs.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(PROJECT_VERSION)
  set(WREN_PACKAGE_VERSION ${PROJECT_VERSION})
else()
  set(WREN_PACKAGE_VERSION 0.1.0)
endif()

if(CMAKE_SYSTEM_NAME STREQUAL "Generic")
  set(WREN_PLATFORM cortexm)
  set(_wren_core wren_core_m3)
  set(_wren_ctx_objects $<TARGET_OBJECTS:wren_ctx_cortexm>)
  set(_wren_rt_libs wren_cortexm_pkg)
  set(_wren_rt_targets wren_cortexm_pkg wren_cortexm_image)
  set(_wren_pc_files wren.pc wren-cortexm.pc)
  # the ABI the archive is built for (the toolchain file's), for pkg-config users
  set(WREN_PC_ARCH_CFLAGS " -mcpu=cortex-m3 -mthumb")
  set(WREN_CONFIG_TARGETS_DOC
"#   wren::cortexm_rt   the bare-metal runtime and startup code (libwren_cortexm.a)
#   wren::cortexm      wren::cortexm_rt plus what links an image for qemu's
#                      mps2-an385 with semihosting: link.ld, -nostartfiles,
#                      newlib-nano and rdimon specs, --gc-sections")
  set(WREN_CONFIG_VARS_DOC ", WREN_LINKER_SCRIPT, WREN_TOOLCHAIN_FILE")
else()
  set(WREN_PLATFORM host)
  set(_wren_core wren_core)
  set(_wren_ctx_objects $<TARGET_OBJECTS:wren_ctx>)
  set(_wren_rt_libs wren_host_pkg)
  set(_wren_rt_targets wren_host_pkg)
  set(_wren_pc_files wren.pc wren-host.pc)
  set(WREN_PC_ARCH_CFLAGS "")
  set(WREN_CONFIG_TARGETS_DOC
"#   wren::host         the host runtime (libwren_host.a): event loop, TAP, ZEP")
  set(WREN_CONFIG_VARS_DOC "")
endif()

# The CONFIG_WREN_* definitions the stack library is compiled with: its own
# (PUBLIC or PRIVATE), its directory's, and any in CMAKE_C_FLAGS.
set(WREN_CONFIG_DEFINITIONS "")
get_target_property(_wren_src_dir ${_wren_core} SOURCE_DIR)
get_target_property(_d1 ${_wren_core} COMPILE_DEFINITIONS)
get_target_property(_d2 ${_wren_core} INTERFACE_COMPILE_DEFINITIONS)
get_directory_property(_d3 DIRECTORY ${_wren_src_dir} COMPILE_DEFINITIONS)
string(TOUPPER "${CMAKE_BUILD_TYPE}" _wren_bt)
string(REGEX MATCHALL "-DCONFIG_WREN_[A-Za-z0-9_]+(=[^ ]*)?" _d4
       "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${_wren_bt}}")
list(TRANSFORM _d4 REPLACE "^-D" "")
foreach(_d IN LISTS _d1 _d2 _d3 _d4)
  if(_d MATCHES "^CONFIG_WREN_")
    list(APPEND WREN_CONFIG_DEFINITIONS ${_d})
  endif()
endforeach()
list(REMOVE_DUPLICATES WREN_CONFIG_DEFINITIONS)

# wren::wren: libwren.a
add_library(wren_pkg STATIC $<TARGET_OBJECTS:${_wren_core}> ${_wren_ctx_objects})
set_target_properties(wren_pkg PROPERTIES
  OUTPUT_NAME wren EXPORT_NAME wren LINKER_LANGUAGE C
  ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/pkg)
target_include_directories(wren_pkg INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/wren>)
target_compile_definitions(wren_pkg INTERFACE ${WREN_CONFIG_DEFINITIONS})
target_compile_features(wren_pkg INTERFACE c_std_11)
# the traffic generator (apps/rawgen.c) uses libm
target_link_libraries(wren_pkg INTERFACE m)

# what `cmake --install` needs built (`cmake --build B --target wren_package`)
add_custom_target(wren_package)
add_dependencies(wren_package wren_pkg ${_wren_rt_libs})

install(TARGETS wren_pkg ${_wren_rt_targets} EXPORT wren-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/wren
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*_priv.h" EXCLUDE)

set(WREN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/wren)
install(EXPORT wren-targets NAMESPACE wren:: DESTINATION ${WREN_CMAKE_DIR}
        FILE wren-targets.cmake)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/wren-config.cmake.in
  ${PROJECT_BINARY_DIR}/pkg/wren-config.cmake
  INSTALL_DESTINATION ${WREN_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_DATADIR)
# not ARCH_INDEPENDENT: a 32-bit (Cortex-M3) install is unsuitable for a
# 64-bit consumer and the other way round
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pkg/wren-config-version.cmake
  VERSION ${WREN_PACKAGE_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pkg/wren-config.cmake
        ${PROJECT_BINARY_DIR}/pkg/wren-config-version.cmake
        DESTINATION ${WREN_CMAKE_DIR})

# pkg-config: relocatable (paths relative to the .pc file) unless the
# libdir is absolute
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(WREN_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(WREN_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(WREN_PC_PREFIX "\${pcfiledir}")
  string(REPLACE "/" ";" _parts "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  foreach(_p IN LISTS _parts)
    string(APPEND WREN_PC_PREFIX "/..")
  endforeach()
  set(WREN_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
set(WREN_PC_CFLAGS "")
foreach(_d IN LISTS WREN_CONFIG_DEFINITIONS)
  string(APPEND WREN_PC_CFLAGS " -D${_d}")
endforeach()
string(APPEND WREN_PC_CFLAGS "${WREN_PC_ARCH_CFLAGS}")
foreach(_pc IN LISTS _wren_pc_files)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${_pc}.in ${PROJECT_BINARY_DIR}/pkg/${_pc} @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkg/${_pc} DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
