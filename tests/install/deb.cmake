# Builds the Debian package with CPack and checks it without installing it:
# file name, control fields (Depends from dpkg-shlibdeps plus the kernel
# toolchain), contents, and an extracted copy that runs xgpuinfo and a sample
# from its own tree in a clean environment.
#   cmake -DCPACK=<cpack> -DBUILD_DIR=<build> -DWORK=<folder> -DVERSION=<x.y.z> -DRUN_CLEAN=<run_clean.cmake> -P deb.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "${command}\nfailed (${result}):\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
set(failures)

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
run("${CPACK}" -G DEB --config "${BUILD_DIR}/CPackConfig.cmake" -B "${WORK}")
set(deb "${WORK}/xgpu_${VERSION}_amd64.deb")
if(NOT EXISTS "${deb}")
  file(GLOB made "${WORK}/*.deb")
  message(FATAL_ERROR "cpack made ${made}, not ${deb}")
endif()

# Control fields.
foreach(field Package Version Architecture Depends)
  run(dpkg-deb --field "${deb}" ${field})
  string(STRIP "${out}" ${field})
endforeach()
message(STATUS "Depends: ${Depends}")
if(NOT Package STREQUAL "xgpu" OR NOT Version STREQUAL VERSION OR NOT Architecture STREQUAL "amd64")
  list(APPEND failures "control: Package ${Package}, Version ${Version}, Architecture ${Architecture}")
endif()
# Debian 12 package names: the C and C++ runtimes and Boost.Context (hsa-cpu's
# fibers) from dpkg-shlibdeps, the kernel toolchain for xgpu_add_kernels.
foreach(package libc6 libstdc\\+\\+6 libgcc-s1 libboost-context1\\.74\\.0 clang-19 lld-19)
  if(NOT Depends MATCHES "(^|, )${package}( \\([^)]*\\))?(,|$)")
    list(APPEND failures "Depends does not name ${package}: ${Depends}")
  endif()
endforeach()

# Contents: the layout under /usr; ROCR's name only in the private folder.
run(dpkg-deb --contents "${deb}")
set(contents "${out}")
foreach(path usr/lib/libxgpu.so.1 usr/lib/libxgpu_amdgpu.so usr/lib/libxgpu-hsa-cpu.so
    usr/share/xgpu/icd.d/xgpu_amdgpu.json usr/bin/xgpuinfo usr/bin/xgpu-kernels
    usr/include/xgpu/xgpu.h usr/lib/cmake/xgpu/xgpuConfig.cmake usr/lib/pkgconfig/xgpu.pc
    usr/lib/xgpu/samples/indirect_dispatch)
  if(NOT contents MATCHES " \\./${path}( |\n)")
    list(APPEND failures "the package does not hold /${path}")
  endif()
endforeach()
if(NOT contents MATCHES " \\./usr/lib/xgpu/hsa-cpu-rocr/libhsa-runtime64\\.so\\.1 -> \\.\\./\\.\\./libxgpu-hsa-cpu\\.so\n")
  list(APPEND failures "the package does not link /usr/lib/xgpu/hsa-cpu-rocr/libhsa-runtime64.so.1 to hsa-cpu")
endif()
if(contents MATCHES " \\./usr/lib/libhsa-runtime64")
  list(APPEND failures "the package puts libhsa-runtime64 on the default library path")
endif()

# Extracted, the tree works where it lies: pkg-config names /usr, and the
# loader finds the driver and hsa-cpu relative to itself (the system's data
# folders are emptied so an installed xgpu cannot answer instead).
set(root "${WORK}/root")
run(dpkg-deb --extract "${deb}" "${root}")
file(STRINGS "${root}/usr/lib/pkgconfig/xgpu.pc" pc_prefix REGEX "^prefix=")
if(NOT pc_prefix STREQUAL "prefix=/usr")
  list(APPEND failures "xgpu.pc says ${pc_prefix}, not prefix=/usr")
endif()
file(MAKE_DIRECTORY "${WORK}/empty")
set(clean_env "XDG_DATA_DIRS=${WORK}/empty\\;XDG_CONFIG_DIRS=${WORK}/empty")
foreach(program_expect
    "usr/bin/xgpuinfo|runtimeName +${root}/usr/lib/libxgpu-hsa-cpu\\.so"
    "usr/lib/xgpu/samples/alloca|: OK")
  string(REPLACE "|" ";" program_expect "${program_expect}")
  list(GET program_expect 0 program)
  list(GET program_expect 1 expect)
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DPROGRAM=${root}/${program}" "-DEXPECT=${expect}"
      "-DENV=${clean_env}" "-DHOME_DIR=${WORK}/home" -P "${RUN_CLEAN}"
    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    list(APPEND failures "the extracted /${program} does not run as expected:\n${out}${err}")
  endif()
endforeach()

if(failures)
  list(JOIN failures "\n  " failures)
  message(FATAL_ERROR "${deb}:\n  ${failures}")
endif()
message(STATUS "${deb}: ok")
