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
