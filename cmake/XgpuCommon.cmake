# Shared build settings for xgpu's own targets.

# xgpu_target_defaults(<target>): warnings as errors and the public include dir.
function(xgpu_target_defaults target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Werror -Wno-unused-parameter
    $<$<COMPILE_LANGUAGE:CXX>:-Wno-missing-field-initializers>)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/include)
endfunction()

if(XGPU_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
    # vptr checks need UBSan's C++ runtime in every program, also the C
    # samples that link the C++ libraries; the rest of UBSan stays on.
    -fno-sanitize=vptr)
  add_link_options(-fsanitize=address,undefined)
endif()

# Tests use doctest from Debian (doctest-dev).
find_path(XGPU_DOCTEST_INCLUDE doctest/doctest.h)
include(XgpuKernels)

# --- Build requirements ----------------------------------------------------------
# Checked here, at configure time, all at once: a missing one is named with the
# Debian 12 package that provides it instead of failing in the middle of the
# build. Host code builds with the default compiler (gcc or clang); kernels
# always with clang 19 (XgpuKernels.cmake).
function(xgpu_check_build_requirements)
  set(missing)
  set(packages)
  macro(xgpu_require_ found what package)
    if(NOT ${found})
      list(APPEND missing "${what} (${package})")
      list(APPEND packages ${package})
    endif()
  endmacro()
  find_path(XGPU_HSA_INCLUDE hsa/hsa.h)
  xgpu_require_(XGPU_HSA_INCLUDE "the HSA headers hsa/hsa.h" libhsa-runtime-dev)
  find_path(XGPU_NLOHMANN_JSON_INCLUDE nlohmann/json.hpp)
  xgpu_require_(XGPU_NLOHMANN_JSON_INCLUDE "nlohmann/json.hpp" nlohmann-json3-dev)
  find_path(XGPU_MSGPACK_INCLUDE msgpack.hpp)
  xgpu_require_(XGPU_MSGPACK_INCLUDE "msgpack.hpp" libmsgpack-cxx-dev)
  find_package(Boost 1.74 QUIET COMPONENTS context)
  xgpu_require_(Boost_FOUND "Boost.Context 1.74" libboost-context-dev)
  find_package(Python3 QUIET COMPONENTS Interpreter)
  xgpu_require_(Python3_Interpreter_FOUND "python3" python3)
  if(XGPU_BUILD_TESTS)
    xgpu_require_(XGPU_DOCTEST_INCLUDE "doctest/doctest.h (or -DXGPU_BUILD_TESTS=OFF)" doctest-dev)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 12)
    list(APPEND missing "g++ 12 or newer for C++20 (found ${CMAKE_CXX_COMPILER_VERSION})")
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 15)
    list(APPEND missing "clang++ 15 or newer for C++20 (found ${CMAKE_CXX_COMPILER_VERSION})")
  endif()
  if(missing)
    list(JOIN missing "\n  " missing)
    set(hint "")
    if(packages)
      list(JOIN packages " " packages)
      set(hint "On Debian 12: apt install ${packages} (./build.sh setup installs everything).")
    endif()
    message(FATAL_ERROR "xgpu cannot be built here; missing:\n  ${missing}\n${hint}")
  endif()
endfunction()
xgpu_check_build_requirements()
xgpu_check_kernel_toolchain("xgpu")

# xgpu_add_output_test(NAME <test> PROGRAM <target> [ARGS "<args>"] EXPECT <regex> [ENVIRONMENT <var=value>...])
# A ctest entry that passes when the program exits 0 and its output (stdout,
# then stderr) matches.
function(xgpu_add_output_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;PROGRAM;ARGS;EXPECT" "ENVIRONMENT")
  add_test(NAME ${arg_NAME} COMMAND ${CMAKE_COMMAND}
    "-DPROGRAM=$<TARGET_FILE:${arg_PROGRAM}>" "-DARGS=${arg_ARGS}" "-DEXPECT=${arg_EXPECT}"
    -P ${PROJECT_SOURCE_DIR}/cmake/XgpuExpectOutput.cmake)
  if(arg_ENVIRONMENT)
    set_tests_properties(${arg_NAME} PROPERTIES ENVIRONMENT "${arg_ENVIRONMENT}")
  endif()
endfunction()
