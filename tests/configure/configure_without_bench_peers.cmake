# Configures the source tree with the benchmarks' peers hidden (OpenMP,
# OpenCL, Vulkan: what ./build.sh test does not install) and checks that
#  - the configure step succeeds and records the benchmark it cannot build,
#    cpu_kernels_bench, with what is missing, in bench/skipped.json;
#  - bench/run.py --smoke reads that as a note, not an error (exit status 0),
#    while a benchmark missing for no recorded reason still fails the run.
#   cmake -DSOURCE_DIR=<xgpu> -DBINARY_DIR=<scratch> -DGENERATOR=<generator>
#         -DC_COMPILER=<cc> -DCXX_COMPILER=<c++> -DPYTHON=<python3>
#         -P configure_without_bench_peers.cmake
file(REMOVE_RECURSE "${BINARY_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
    "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON -DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON
    -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=ON
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT result EQUAL 0)
  file(REMOVE_RECURSE "${BINARY_DIR}")
  message(FATAL_ERROR "configuring with the benchmark peers hidden failed:\n${out}${err}")
endif()

set(skipped_file "${BINARY_DIR}/bench/skipped.json")
if(NOT EXISTS "${skipped_file}")
  file(REMOVE_RECURSE "${BINARY_DIR}")
  message(FATAL_ERROR "the configure step wrote no ${skipped_file}")
endif()
file(READ "${skipped_file}" skipped)
string(JSON reason ERROR_VARIABLE json_error GET "${skipped}" cpu_kernels_bench)
if(json_error OR NOT reason MATCHES "OpenCL")
  file(REMOVE_RECURSE "${BINARY_DIR}")
  message(FATAL_ERROR "bench/skipped.json does not say that cpu_kernels_bench lacks OpenCL (${json_error}):\n${skipped}")
endif()

# run.py over the configured (unbuilt) tree, cpu_kernels only: a note.
set(run "${PYTHON}" "${SOURCE_DIR}/bench/run.py" --smoke --no-write --only cpu_kernels --build "${BINARY_DIR}")
execute_process(COMMAND ${run} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${out}" "note [cpu_kernels]: not built: skipped at configure time: ${reason}" at)
if(NOT result EQUAL 0 OR at EQUAL -1)
  file(REMOVE_RECURSE "${BINARY_DIR}")
  message(FATAL_ERROR "bench/run.py did not report the skipped benchmark as a note (exit status ${result}):\n${out}${err}")
endif()

# Without the record the same missing binary is an error.
file(REMOVE "${skipped_file}")
execute_process(COMMAND ${run} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE_RECURSE "${BINARY_DIR}")
string(FIND "${out}" "error [cpu_kernels]: not built:" at)
if(result EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "bench/run.py accepted a missing benchmark that was not skipped (exit status ${result}):\n${out}${err}")
endif()
message(STATUS "skipped at configure time: cpu_kernels_bench (${reason}); run.py: a note")
