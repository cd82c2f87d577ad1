# Installs the build tree into a fresh prefix and checks the layout
# (cmake/XgpuPackage.cmake lists it):
#   cmake -DBUILD_DIR=<build> -DPREFIX=<prefix> -DSOURCE_DIR=<source> -DVERSION=<x.y.z>
#         -DLIBDIR=lib -DBINDIR=bin -DDATADIR=share -DINCLUDEDIR=include
#         -DSAMPLES_DIR=<libdir>/xgpu/samples -DROCR_DIR=<libdir>/xgpu/hsa-cpu-rocr
#         -DLAYER=ON|OFF -DWILOOP=ON|OFF -P install_tree.cmake
set(failures)
macro(fail what)
  list(APPEND failures "${what}")
endmacro()

file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} --prefix ${PREFIX} failed (${result}):\n${out}${err}")
endif()

# Everything the issue asks for is there.
set(files
  ${INCLUDEDIR}/xgpu/xgpu.h ${INCLUDEDIR}/xgpu/xgpu_meta.h ${INCLUDEDIR}/xgpu/kernel.h
  ${INCLUDEDIR}/xgpu/host_kernel.h ${INCLUDEDIR}/xgpu/executable_format.h ${INCLUDEDIR}/xgpu/kernel_print.h
  ${INCLUDEDIR}/xgpu/xgpu_icd.h ${INCLUDEDIR}/xgpu/xgpu_layer.h ${INCLUDEDIR}/xgpu/xgpu_dispatch_table.h
  ${INCLUDEDIR}/xgpu/xgpu_enum_string.h
  ${LIBDIR}/libxgpu.so.1 ${LIBDIR}/libxgpu.so ${LIBDIR}/libxgpu_meta.a
  ${LIBDIR}/libxgpu_amdgpu.so ${LIBDIR}/libxgpu-hsa-cpu.so
  ${DATADIR}/xgpu/icd.d/xgpu_amdgpu.json
  ${BINDIR}/xgpuinfo ${BINDIR}/xgpu-kernels
  ${SAMPLES_DIR}/indirect_dispatch ${SAMPLES_DIR}/indirect_dispatch_kernels.xgpux
  ${SAMPLES_DIR}/alloca ${SAMPLES_DIR}/alloca_kernels.xgpux
  ${LIBDIR}/cmake/xgpu/xgpuConfig.cmake ${LIBDIR}/cmake/xgpu/xgpuConfigVersion.cmake
  ${LIBDIR}/cmake/xgpu/xgpuTargets.cmake ${LIBDIR}/cmake/xgpu/XgpuKernels.cmake
  ${LIBDIR}/cmake/xgpu/host_code_object_info.c
  ${LIBDIR}/pkgconfig/xgpu.pc ${LIBDIR}/pkgconfig/xgpu-meta.pc
  ${DATADIR}/xgpu/registry/xgpu.json ${DATADIR}/xgpu/registry/vuids.json
  ${DATADIR}/doc/xgpu/README.md ${DATADIR}/doc/xgpu/spec/loader.md ${DATADIR}/doc/xgpu/spec/api.md)
if(WILOOP)
  list(APPEND files ${LIBDIR}/xgpu/xgpu-wiloop.so)
endif()
if(LAYER)
  list(APPEND files ${LIBDIR}/libxgpu_layer_validation.so
    ${DATADIR}/xgpu/explicit_layer.d/xgpu_layer_validation.json)
endif()
foreach(file ${files})
  if(NOT (EXISTS "${PREFIX}/${file}"))
    fail("${file} is installed")
  endif()
endforeach()
# No source or test headers beside the public ones.
file(GLOB stray RELATIVE "${PREFIX}/${INCLUDEDIR}/xgpu" "${PREFIX}/${INCLUDEDIR}/xgpu/*")
list(FILTER stray EXCLUDE REGEX "\\.h$")
list(JOIN stray ", " stray)
if(NOT ("${stray}" STREQUAL ""))
  fail("include/xgpu holds headers only (found: ${stray})")
endif()

# hsa-cpu's ROCR name exists only in its private folder, and names hsa-cpu.
set(rocr_link "${PREFIX}/${ROCR_DIR}/libhsa-runtime64.so.1")
if(NOT (IS_SYMLINK "${rocr_link}"))
  fail("${ROCR_DIR}/libhsa-runtime64.so.1 is a symbolic link")
endif()
file(REAL_PATH "${rocr_link}" rocr_target)
file(REAL_PATH "${PREFIX}/${LIBDIR}/libxgpu-hsa-cpu.so" hsa_cpu)
if(NOT (rocr_target STREQUAL hsa_cpu))
  fail("${ROCR_DIR}/libhsa-runtime64.so.1 resolves to ${hsa_cpu} (it resolves to ${rocr_target})")
endif()
file(GLOB_RECURSE rocr_names RELATIVE "${PREFIX}" "${PREFIX}/*libhsa-runtime64*")
list(JOIN rocr_names ", " rocr_names)
if(NOT ("${rocr_names}" STREQUAL "${ROCR_DIR}/libhsa-runtime64.so.1"))
  fail("libhsa-runtime64 appears only as ${ROCR_DIR}/libhsa-runtime64.so.1 (found: ${rocr_names})")
endif()

# Manifests name their libraries relative to themselves, inside the prefix.
file(GLOB manifests "${PREFIX}/${DATADIR}/xgpu/icd.d/*.json" "${PREFIX}/${DATADIR}/xgpu/explicit_layer.d/*.json")
foreach(manifest ${manifests})
  file(READ "${manifest}" json)
  string(JSON library ERROR_VARIABLE not_icd GET "${json}" ICD library_path)
  if(not_icd)
    string(JSON library GET "${json}" layer library_path)
  endif()
  get_filename_component(manifest_dir "${manifest}" DIRECTORY)
  if(IS_ABSOLUTE "${library}")
    fail("${manifest}: library_path ${library} is relative")
  endif()
  if(NOT (EXISTS "${manifest_dir}/${library}"))
    fail("${manifest}: library_path ${library} names an installed file")
  endif()
endforeach()

# The CMake package and the pkg-config files do not point back into the
# source or build tree.
file(GLOB package_files "${PREFIX}/${LIBDIR}/cmake/xgpu/*.cmake" "${PREFIX}/${LIBDIR}/pkgconfig/*.pc")
foreach(file ${package_files})
  file(READ "${file}" text)
  string(REPLACE "${PREFIX}" "<prefix>" text "${text}")  # the prefix may lie inside the build tree
  foreach(tree "${BUILD_DIR}" "${SOURCE_DIR}")
    string(FIND "${text}" "${tree}" at)
    if(NOT (at EQUAL -1))
      fail("${file} does not mention ${tree}")
    endif()
  endforeach()
endforeach()
file(STRINGS "${PREFIX}/${LIBDIR}/pkgconfig/xgpu.pc" pc_prefix REGEX "^prefix=")
if(NOT (pc_prefix STREQUAL "prefix=${PREFIX}"))
  fail("xgpu.pc says prefix=${PREFIX} (it says ${pc_prefix})")
endif()

# xgpuConfigVersion.cmake: the same minor version matches, another does not.
macro(find_version requested out_var)
  set(PACKAGE_FIND_VERSION ${requested})
  string(REPLACE "." ";" parts ${requested})
  list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
  list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
  set(PACKAGE_FIND_VERSION_RANGE FALSE)
  unset(PACKAGE_VERSION_COMPATIBLE)
  include("${PREFIX}/${LIBDIR}/cmake/xgpu/xgpuConfigVersion.cmake")
  set(${out_var} ${PACKAGE_VERSION_COMPATIBLE})
endmacro()
string(REGEX MATCH "^[0-9]+\\.[0-9]+" major_minor "${VERSION}")
find_version(${major_minor} same)
if(NOT (same))
  fail("xgpuConfigVersion.cmake accepts ${major_minor}")
endif()
if(NOT (PACKAGE_VERSION STREQUAL VERSION))
  fail("xgpuConfigVersion.cmake says ${VERSION}")
endif()
find_version(99.0 newer)
if(newer)
  fail("xgpuConfigVersion.cmake refuses 99.0")
endif()

if(failures)
  list(JOIN failures "\n  " failures)
  message(FATAL_ERROR "install tree ${PREFIX}: these expectations do not hold:\n  ${failures}")
endif()
list(LENGTH files file_count)
message(STATUS "install tree ${PREFIX}: ${file_count} files checked, layout ok")
