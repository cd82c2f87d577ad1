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
