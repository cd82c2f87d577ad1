# What xgpu installs beyond each component's own files, and how it is
# consumed: the public headers, the CMake package (find_package(xgpu)), the
# pkg-config files and the Debian package (CPack). Included at the end of the
# top-level CMakeLists.txt, once every component has defined its targets.
#
# Installed tree (cmake --install <build> --prefix P):
#   P/include/xgpu/*.h                          public headers
#   P/lib/libxgpu.so.1, libxgpu.so, libxgpu_meta.a   loader, meta-loader
#   P/lib/libxgpu_amdgpu.so                     the driver
#   P/lib/libxgpu-hsa-cpu.so                    hsa-cpu (the driver finds it beside itself)
#   P/lib/xgpu/hsa-cpu-rocr/libhsa-runtime64.so.1   hsa-cpu under ROCR's name (private folder)
#   P/lib/libxgpu_layer_validation.so           the validation layer (when built)
#   P/share/xgpu/icd.d/xgpu_amdgpu.json         driver manifest
#   P/share/xgpu/explicit_layer.d/*.json        layer manifests
#   P/bin/xgpuinfo, P/bin/xgpu-kernels          tools
#   P/lib/xgpu/samples/                         the samples and their kernels
#   P/lib/cmake/xgpu/                           xgpuConfig.cmake, xgpuConfigVersion.cmake,
#                                               xgpuTargets.cmake, XgpuKernels.cmake
#   P/lib/pkgconfig/xgpu.pc, xgpu-meta.pc       pkg-config
#   P/share/xgpu/registry/                      xgpu.json, vuids.json
#   P/share/doc/xgpu/                           README.md, spec/*.md
include(CMakePackageConfigHelpers)

# --- Headers and documentation ------------------------------------------------
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/xgpu DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(TARGETS xgpu_headers EXPORT xgpuTargets)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# --- The validation layer -----------------------------------------------------
# Installed here until layers/validation installs itself with
# xgpu_install_with_manifest (cmake/XgpuCommon.cmake).
get_property(xgpu_installed_with_manifest GLOBAL PROPERTY XGPU_INSTALLED_WITH_MANIFEST)
if(TARGET xgpu_layer_validation AND NOT xgpu_layer_validation IN_LIST xgpu_installed_with_manifest
   AND EXISTS ${PROJECT_SOURCE_DIR}/layers/validation/xgpu_layer_validation.json.in)
  xgpu_install_with_manifest(xgpu_layer_validation
    ${PROJECT_SOURCE_DIR}/layers/validation/xgpu_layer_validation.json.in XGPU_VALIDATION_LIBRARY_PATH LAYER)
endif()

# --- CMake package: find_package(xgpu CONFIG) ---------------------------------
install(EXPORT xgpuTargets NAMESPACE xgpu:: DESTINATION ${XGPU_INSTALL_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/xgpuConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/xgpuConfig.cmake
  INSTALL_DESTINATION ${XGPU_INSTALL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a minor version may change the API, so only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/xgpuConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/package/xgpuConfig.cmake
  ${PROJECT_BINARY_DIR}/package/xgpuConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/XgpuKernels.cmake
  ${PROJECT_SOURCE_DIR}/tools/xgpu-kernels/host_code_object_info.c
  DESTINATION ${XGPU_INSTALL_CMAKE_DIR})

# --- pkg-config: pkg-config --cflags --libs xgpu ------------------------------
# The prefix is the one `cmake --install` (or CPack) installs into, so it is
# written when installing: @XGPU_PC_PREFIX@ survives the configure step and is
# replaced then.
set(XGPU_PC_PREFIX "@XGPU_PC_PREFIX@")
foreach(pc xgpu xgpu-meta)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${PROJECT_BINARY_DIR}/package/${pc}.pc.in @ONLY)
  install(CODE "
    set(XGPU_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    configure_file(\"${PROJECT_BINARY_DIR}/package/${pc}.pc.in\" \"${PROJECT_BINARY_DIR}/package/install/${pc}.pc\" @ONLY)
    file(INSTALL \"${PROJECT_BINARY_DIR}/package/install/${pc}.pc\"
         DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${XGPU_INSTALL_PKGCONFIG_DIR}\")
  ")
endforeach()

# --- Debian package: cpack -G DEB -> xgpu_<version>_amd64.deb -----------------
set(CPACK_PACKAGE_NAME xgpu)
set(CPACK_PACKAGE_VENDOR "xgpu")
set(XGPU_PACKAGE_MAINTAINER "xgpu maintainers" CACHE STRING "Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT "${XGPU_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Vulkan-style explicit C API for GPU compute on HSA (SDK and CPU device)")
set(CPACK_PACKAGE_DESCRIPTION
  "xgpu is a Vulkan-style explicit C API for GPU compute, implemented on HSA.
This package holds the loader (libxgpu.so.1), the AMDGPU driver with its
manifest, hsa-cpu (an HSA runtime whose agents are the host's CPU cores, so
xgpu programs run without a GPU), the headers, the CMake package
(find_package(xgpu), xgpu_add_kernels), pkg-config files, the xgpuinfo and
xgpu-kernels tools, the samples and the specification.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
# Shared-library dependencies (libc6, libstdc++6, libgcc-s1,
# libboost-context1.74.0) from dpkg-shlibdeps; our own libraries resolve
# inside the package.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
# xgpu_add_kernels compiles kernels with clang-19 and links them with lld-19.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "clang-19, lld-19")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cmake (>= 3.25), pkg-config")
# ROCR drives real AMD GPUs; without it the driver uses hsa-cpu.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libhsa-runtime64-1")
include(CPack)
