# Builds tests/install/consumer against an installed xgpu and runs it in a
# clean environment (run_clean.cmake's: no XGPU_*, no LD_LIBRARY_PATH).
#   MODE=cmake:     configure with find_package(xgpu) (CMAKE_PREFIX_PATH=<prefix>),
#                   build, run `consumer` and `consumer_meta`
#   MODE=pkgconfig: compile consumer.c with `pkg-config --cflags --libs xgpu`
#                   (and xgpu-meta), run both with the kernels the cmake build made
#   cmake -DMODE=cmake|pkgconfig -DPREFIX=<prefix> -DSOURCE=<consumer source> -DBINARY=<work folder>
#         -DGENERATOR=<generator> -DC_COMPILER=<cc> [-DC_FLAGS=<flags>] -DLIBDIR=lib
#         -DVERSION=<x.y.z> -DKERNELS=<consumer_kernels.xgpux> -DRUN_CLEAN=<run_clean.cmake>
#         [-DWILOOP=1: the prefix has the xgpu-wiloop plugin] -P consumer.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "${command}\nfailed (${result}):\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()
function(run_clean program expect)
  run("${CMAKE_COMMAND}" -DPROGRAM=${program} "-DARGS=${ARGN}" "-DEXPECT=${expect}"
      -DHOME_DIR=${BINARY}/home -P "${RUN_CLEAN}")
  message(STATUS "${program}: ${err}")
endfunction()
set(expect_ok "consumer \\((libxgpu|meta-loader)\\): .*: 4096 elements: OK")

if(MODE STREQUAL "cmake")
  file(REMOVE_RECURSE "${BINARY}")
  run("${CMAKE_COMMAND}" -S "${SOURCE}" -B "${BINARY}" -G "${GENERATOR}"
      "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_C_FLAGS=${C_FLAGS}"
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
  # The package came from the prefix, with the version asked for.
  file(STRINGS "${BINARY}/CMakeCache.txt" xgpu_dir REGEX "^xgpu_DIR:")
  if(NOT xgpu_dir STREQUAL "xgpu_DIR:PATH=${PREFIX}/${LIBDIR}/cmake/xgpu")
    message(FATAL_ERROR "find_package(xgpu) found ${xgpu_dir}, not ${PREFIX}/${LIBDIR}/cmake/xgpu")
  endif()
  run("${CMAKE_COMMAND}" --build "${BINARY}")
  run_clean("${BINARY}/consumer" "${expect_ok}")
  run_clean("${BINARY}/consumer_meta" "${expect_ok}")
  # The kernels were packed by the installed xgpu-kernels and hold every target.
  run("${PREFIX}/bin/xgpu-kernels" inspect "${BINARY}/consumer_kernels.xgpux")
  if(NOT out MATCHES "kernel saxpy" OR NOT out MATCHES "amdgcn-amd-amdhsa--gfx" OR NOT out MATCHES "x86_64-unknown-linux-gnu--")
    message(FATAL_ERROR "xgpu-kernels inspect ${BINARY}/consumer_kernels.xgpux:\n${out}")
  endif()
  # With the SDK's xgpu-wiloop plugin, the barrier kernel runs as work-item
  # loops on the host.
  if(WILOOP AND NOT out MATCHES "kernel reverse64.*work-item loops")
    message(FATAL_ERROR "reverse64 is not built as work-item loops with the installed plugin:\n${out}")
  endif()
elseif(MODE STREQUAL "pkgconfig")
  file(REMOVE_RECURSE "${BINARY}")
  file(MAKE_DIRECTORY "${BINARY}")
  # Only the prefix's .pc files.
  set(ENV{PKG_CONFIG_LIBDIR} "${PREFIX}/${LIBDIR}/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "")
  run(pkg-config --modversion xgpu)
  string(STRIP "${out}" modversion)
  if(NOT modversion STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config --modversion xgpu says ${modversion}, not ${VERSION}")
  endif()
  run(pkg-config --variable=libdir xgpu)
  string(STRIP "${out}" libdir)
  separate_arguments(c_flags UNIX_COMMAND "${C_FLAGS}")
  foreach(variant xgpu xgpu-meta)
    run(pkg-config --cflags --libs ${variant})
    separate_arguments(pc_flags UNIX_COMMAND "${out}")
    message(STATUS "pkg-config --cflags --libs ${variant}: ${out}")
    set(defines)
    if(variant STREQUAL "xgpu-meta")
      set(defines -DCONSUMER_USE_META_LOADER=1)
    endif()
    # Run path: the prefix is not on the default library path.
    run("${C_COMPILER}" ${c_flags} -std=c11 ${defines} "${SOURCE}/consumer.c" ${pc_flags}
        -Wl,-rpath,${libdir} -o "${BINARY}/consumer_${variant}")
    run_clean("${BINARY}/consumer_${variant}" "${expect_ok}" "${KERNELS}")
  endforeach()
else()
  message(FATAL_ERROR "MODE must be cmake or pkgconfig")
endif()
