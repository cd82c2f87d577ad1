# Configures the source tree with a kernel clang that does not exist and
# checks that the configure step fails, saying what is missing and what to
# install.
#   cmake -DSOURCE_DIR=<xgpu> -DBINARY_DIR=<scratch> -DGENERATOR=<generator>
#         -DC_COMPILER=<cc> -DCXX_COMPILER=<c++> -P configure_without_kernel_clang.cmake
file(REMOVE_RECURSE "${BINARY_DIR}")
set(missing "${BINARY_DIR}/no-such-dir/clang-19")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
    "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DXGPU_KERNEL_CLANG=${missing}"
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE_RECURSE "${BINARY_DIR}")
if(result EQUAL 0)
  message(FATAL_ERROR "configuring with XGPU_KERNEL_CLANG=${missing} succeeded:\n${out}${err}")
endif()
string(REGEX REPLACE "[ \n]+" " " text "${err}")
foreach(expected "XGPU_KERNEL_CLANG=${missing} does not exist" "apt install clang-19 lld-19")
  string(FIND "${text}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the configure error does not say \"${expected}\":\n${err}")
  endif()
endforeach()
message(STATUS "configure stopped as expected:\n${err}")
