# Shared build settings for xgpu's own targets.

# xgpu_target_defaults(<target>): warnings as errors and the public include dir.
function(xgpu_target_defaults target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Werror -Wno-unused-parameter
    $<$<COMPILE_LANGUAGE:CXX>:-Wno-missing-field-initializers>)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/include)
endfunction()

# xgpu_link_time_optimisation(<target> <what>): link-time optimisation for a
# library whose hot paths call across its files. Not under the sanitizers
# (their builds find bugs, and link slower), nor with XGPU_LTO=OFF, nor where the toolchain cannot
# (the library is then only slower; the status line says why, naming <what>).
function(xgpu_link_time_optimisation target what)
  include(CheckIPOSupported)
  check_ipo_supported(RESULT ipo OUTPUT ipo_why LANGUAGES CXX)
  if(ipo AND XGPU_LTO AND NOT XGPU_SANITIZE AND NOT XGPU_SANITIZE_THREAD)
    set_property(TARGET ${target} PROPERTY INTERPROCEDURAL_OPTIMIZATION ON)
  elseif(NOT ipo)
    message(STATUS "${what}: no link-time optimisation (${ipo_why})")
  endif()
endfunction()

if(XGPU_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
    # vptr checks need UBSan's C++ runtime in every program, also the C
    # samples that link the C++ libraries; the rest of UBSan stays on.
    -fno-sanitize=vptr)
  add_link_options(-fsanitize=address,undefined)
endif()
if(XGPU_SANITIZE_THREAD)
  if(XGPU_SANITIZE)
    message(FATAL_ERROR "XGPU_SANITIZE and XGPU_SANITIZE_THREAD exclude each other (ASan and TSan cannot share a process)")
  endif()
  # The shared TSan runtime (-shared-libsan, found through a run path to the
  # compiler's runtime folder): libraries then link against it, so their
  # -Wl,--no-undefined still holds, and every library and program of the
  # process uses the one runtime.
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.tsan-x86_64.so
    OUTPUT_VARIABLE xgpu_tsan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${xgpu_tsan_runtime}" OR NOT EXISTS "${xgpu_tsan_runtime}")
    message(FATAL_ERROR "XGPU_SANITIZE_THREAD needs clang's shared ThreadSanitizer runtime (libclang-rt-19-dev)")
  endif()
  get_filename_component(xgpu_tsan_runtime_dir "${xgpu_tsan_runtime}" DIRECTORY)
  # DT_RPATH rather than DT_RUNPATH (--disable-new-dtags): TSan's dlopen
  # interceptor calls the real dlopen from the runtime library, and only an
  # executable's DT_RPATH (not its RUNPATH) also serves a dlopen made by
  # another object, so programs still find libxgpu.so.1 by name as they do
  # without TSan.
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread -shared-libsan "-Wl,-rpath,${xgpu_tsan_runtime_dir}" -Wl,--disable-new-dtags)
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
  find_path(XGPU_NETTLE_INCLUDE nettle/sha2.h)
  xgpu_require_(XGPU_NETTLE_INCLUDE "nettle/sha2.h (the executables' SHA-256)" nettle-dev)
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

# xgpu_add_folder_target(<name> <folder> [DEPENDS <target>...]): a target that
# builds every target defined in <folder> (a source folder already added) and
# the folders below it, plus the DEPENDS targets and those a folder names in
# its XGPU_FOLDER_DEPENDS directory property (what its tests run from
# elsewhere), so that a check or a command builds only what it runs
# (`cmake --build <tree> --target <name>`, with any generator).
function(xgpu_add_folder_target name folder)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "DEPENDS")
  set(targets ${arg_DEPENDS})
  set(folders ${folder})
  while(folders)
    list(POP_FRONT folders current)
    get_property(defined DIRECTORY ${current} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS defined)
      get_target_property(type ${target} TYPE)
      if(NOT type STREQUAL "INTERFACE_LIBRARY")
        list(APPEND targets ${target})
      endif()
    endforeach()
    get_property(uses DIRECTORY ${current} PROPERTY XGPU_FOLDER_DEPENDS)
    list(APPEND targets ${uses})
    get_property(below DIRECTORY ${current} PROPERTY SUBDIRECTORIES)
    list(APPEND folders ${below})
  endwhile()
  add_custom_target(${name})
  if(targets)
    add_dependencies(${name} ${targets})
  endif()
endfunction()

# --- Install layout ------------------------------------------------------------
# GNUInstallDirs' folders under the prefix, plus xgpu's own. Everything is
# found through paths relative to these folders, so an installed tree can be
# moved to any prefix (`cmake --install <build> --prefix P`).
set(XGPU_INSTALL_ICD_DIR ${CMAKE_INSTALL_DATADIR}/xgpu/icd.d)
set(XGPU_INSTALL_LAYER_DIR ${CMAKE_INSTALL_DATADIR}/xgpu/explicit_layer.d)
set(XGPU_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/xgpu)
set(XGPU_INSTALL_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# Executables that are not commands (the samples), each beside its kernels.
set(XGPU_INSTALL_SAMPLES_DIR ${CMAKE_INSTALL_LIBDIR}/xgpu/samples)
# hsa-cpu under ROCR's file name: private, never on the default library path,
# so it cannot shadow a real ROCR.
set(XGPU_INSTALL_HSA_CPU_ROCR_DIR ${CMAKE_INSTALL_LIBDIR}/xgpu/hsa-cpu-rocr)
# The loader's data folder relative to its library folder (spec/loader.md,
# "Entries and standard folders").
file(RELATIVE_PATH XGPU_INSTALL_LIBDIR_TO_DATADIR ${CMAKE_INSTALL_FULL_LIBDIR} ${CMAKE_INSTALL_FULL_DATADIR})

# xgpu_install_relative_path(<out_var> <from install dir> <to install path>):
# the path from one folder of the install tree to a file or folder of it.
function(xgpu_install_relative_path out_var from to)
  foreach(var from to)
    if(NOT IS_ABSOLUTE "${${var}}")
      set(${var} "${CMAKE_INSTALL_PREFIX}/${${var}}")
    endif()
  endforeach()
  file(RELATIVE_PATH rel "${from}" "${to}")
  if(rel STREQUAL "")
    set(rel ".")
  endif()
  set(${out_var} "${rel}" PARENT_SCOPE)
endfunction()

# xgpu_install_rpath(<target> <install dir>): the installed <target> finds
# libxgpu through $ORIGIN, wherever the prefix is.
function(xgpu_install_rpath target destination)
  xgpu_install_relative_path(rel "${destination}" "${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${rel}")
endfunction()

# xgpu_install_with_manifest(<library target> <manifest template> <variable> ICD|LAYER):
# installs the driver or layer library into the library folder and its
# manifest, configured from <manifest template> with @<variable>@ set to the
# library's path relative to the installed manifest, into
# share/xgpu/icd.d or share/xgpu/explicit_layer.d.
function(xgpu_install_with_manifest target template variable kind)
  if(kind STREQUAL "ICD")
    set(manifest_dir ${XGPU_INSTALL_ICD_DIR})
  elseif(kind STREQUAL "LAYER")
    set(manifest_dir ${XGPU_INSTALL_LAYER_DIR})
  else()
    message(FATAL_ERROR "xgpu_install_with_manifest(${target}): kind must be ICD or LAYER, not '${kind}'")
  endif()
  get_filename_component(template ${template} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  get_filename_component(manifest_name ${template} NAME)
  string(REGEX REPLACE "\\.in$" "" manifest_name ${manifest_name})
  get_target_property(library_name ${target} OUTPUT_NAME)
  if(NOT library_name)
    set(library_name ${target})
  endif()
  xgpu_install_relative_path(${variable} "${manifest_dir}"
    "${CMAKE_INSTALL_LIBDIR}/${CMAKE_SHARED_LIBRARY_PREFIX}${library_name}${CMAKE_SHARED_LIBRARY_SUFFIX}")
  set(manifest ${CMAKE_CURRENT_BINARY_DIR}/install-manifest/${manifest_name})
  configure_file(${template} ${manifest} @ONLY)
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${manifest} DESTINATION ${manifest_dir})
  set_property(GLOBAL APPEND PROPERTY XGPU_INSTALLED_WITH_MANIFEST ${target})
endfunction()
