# xgpu kernels: one C17/C++ kernel source -> AMDGPU code objects for every
# configured gfx target + host (x86-64) code objects for hsa-cpu, packed into
# one xgpu executable file (spec/executable-format.md).
#
#   xgpu_add_kernels(<name>
#     SOURCES <file>...                  kernel sources (.c: C17, .cpp: C++20)
#     [TARGETS <gfx>...]                 default: XGPU_AMDGPU_TARGETS
#     [HOST_LEVELS <x86-64 level>...]    default: XGPU_HOST_KERNEL_LEVELS
#     [OUTPUT <file>]                    default: <binary dir>/<name>.xgpux
#     [INCLUDE_DIRECTORIES <dir>...]     extra -I for the kernel compiles
#     [DEFINITIONS <NAME[=VALUE]>...]    extra -D for the kernel compiles
#     [COMPILE_OPTIONS <flag>...]        extra flags for every kernel compile
#     [BOUNDS_CHECKS ON|OFF])            bounds-checked copies of the kernels
#                                        (default: XGPU_KERNELS_BOUNDS_CHECKS;
#                                        spec/kernels.md "Bounds-checked entries")
#
# Host code objects are built with -gline-tables-only (a DWARF line table in
# non-allocated sections: the same code, nothing more mapped), which hsa-cpu
# reads to name the source line of a kernel fault; COMPILE_OPTIONS may say
# otherwise (-g0, -g).
#
# Creates the custom target <name> (built by ALL) whose XGPU_EXECUTABLE_FILE
# property is the output path. Every code object is checked by the packer (no
# writable data, no TLS, no undefined symbols, right machine), and every
# executable by `xgpu-kernels check` (same kernels with the same kernarg
# size/alignment and group segment size on every target): a failure fails the
# build.
#
#   xgpu_embed_executable(<target> <kernels-target> <symbol>)
#
# Embeds the executable into <target> (any C or C++ target): adds a generated
# C source that .incbin's the file, 4096-byte aligned, read-only, hidden
# visibility, and a generated header <symbol>.h (on <target>'s include path)
# declaring
#   extern const uint8_t <symbol>[];      // the file's bytes
#   extern const size_t <symbol>_size;    // the file's size in bytes
# <target> is rebuilt when the executable changes.

set(XGPU_AMDGPU_TARGETS "gfx90a;gfx942;gfx1100;gfx1201" CACHE STRING
    "AMDGPU processors every xgpu kernel executable is built for")
set(XGPU_HOST_KERNEL_LEVELS "x86-64-v3;x86-64-v2" CACHE STRING
    "x86-64 micro-architecture levels of the host code objects packed in every xgpu kernel executable")
# NVIDIA targets (PTX text for hsa-cuda), e.g. "sm_90". Empty by default: CI
# has no NVIDIA GPU. Needs llvm-link-19 (Debian's llvm-19).
set(XGPU_NVPTX_TARGETS "" CACHE STRING
    "NVIDIA sm_<N> targets whose PTX is packed in every xgpu kernel executable (empty: none)")

# The kernel toolchain is clang-19 and ld.lld-19 whatever compiles the host
# code (gcc is fine there): found here, or given with -DXGPU_KERNEL_CLANG=...
# and -DXGPU_KERNEL_LLD=... A plain `clang` / `ld.lld` is taken only when it is
# version 19 or newer.
set(XGPU_KERNEL_LLVM_MIN_VERSION 19)
function(xgpu_kernel_tool_version_ tool out_var)
  execute_process(COMMAND ${tool} --version OUTPUT_VARIABLE text ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND text MATCHES "(clang version|LLD) ([0-9]+)\\.")
    set(${out_var} ${CMAKE_MATCH_2} PARENT_SCOPE)
  else()
    set(${out_var} 0 PARENT_SCOPE)
  endif()
endfunction()
function(xgpu_kernel_tool_validator_ result_var candidate)
  xgpu_kernel_tool_version_(${candidate} version)
  if(version LESS XGPU_KERNEL_LLVM_MIN_VERSION)
    set(${result_var} FALSE PARENT_SCOPE)
  endif()
endfunction()
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.25)
  set(xgpu_kernel_tool_validator VALIDATOR xgpu_kernel_tool_validator_)
endif()
find_program(XGPU_KERNEL_CLANG NAMES clang-19 clang ${xgpu_kernel_tool_validator}
             DOC "clang (19 or newer) used to compile xgpu kernels")
find_program(XGPU_KERNEL_LLD NAMES ld.lld-19 ld.lld ${xgpu_kernel_tool_validator}
             DOC "ld.lld (19 or newer) used to link xgpu kernel code objects")
unset(xgpu_kernel_tool_validator)

# Checks the toolchain once per configure; a missing or too old tool is a
# configure-time error that names what to install.
function(xgpu_check_kernel_toolchain context)
  get_property(checked GLOBAL PROPERTY XGPU_KERNEL_TOOLCHAIN_CHECKED)
  if(checked)
    return()
  endif()
  set(problems)
  foreach(tool CLANG LLD)
    if(tool STREQUAL "CLANG")
      set(names "clang-19, then clang")
      set(what "clang")
    else()
      set(names "ld.lld-19, then ld.lld")
      set(what "ld.lld")
    endif()
    set(path "${XGPU_KERNEL_${tool}}")
    if(NOT path)
      list(APPEND problems "${what} ${XGPU_KERNEL_LLVM_MIN_VERSION} was not found on the PATH (looked for ${names} >= ${XGPU_KERNEL_LLVM_MIN_VERSION})")
      continue()
    endif()
    xgpu_kernel_tool_version_("${path}" version)
    if(NOT EXISTS "${path}")
      list(APPEND problems "XGPU_KERNEL_${tool}=${path} does not exist")
    elseif(version EQUAL 0)
      list(APPEND problems "XGPU_KERNEL_${tool}=${path} does not run as ${what} (`${path} --version` failed or names no version)")
    elseif(version LESS XGPU_KERNEL_LLVM_MIN_VERSION)
      list(APPEND problems "XGPU_KERNEL_${tool}=${path} is ${what} ${version}; ${XGPU_KERNEL_LLVM_MIN_VERSION} or newer is needed")
    endif()
  endforeach()
  if(problems)
    list(JOIN problems "\n  " problems)
    message(FATAL_ERROR "${context}: xgpu kernels are compiled by clang 19 and linked by ld.lld 19, "
      "whatever compiles the host code:\n  ${problems}\n"
      "On Debian 12: apt install clang-19 lld-19 (or pass -DXGPU_KERNEL_CLANG=<clang> -DXGPU_KERNEL_LLD=<ld.lld>).")
  endif()
  set_property(GLOBAL PROPERTY XGPU_KERNEL_TOOLCHAIN_CHECKED TRUE)
endfunction()

# What the kernels are built with. In xgpu's own tree: its include/ and
# tools/ folders and the xgpu-kernels target; the installed package
# (xgpuConfig.cmake) sets these to the install tree before including this file.
set(XGPU_KERNELS_MODULE_DIR ${CMAKE_CURRENT_LIST_DIR})
if(NOT DEFINED XGPU_KERNELS_INCLUDE_DIR)
  set(XGPU_KERNELS_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/../include)
endif()
if(NOT DEFINED XGPU_KERNELS_HOST_INFO_SOURCE)
  set(XGPU_KERNELS_HOST_INFO_SOURCE ${CMAKE_CURRENT_LIST_DIR}/../tools/xgpu-kernels/host_code_object_info.c)
endif()
if(NOT DEFINED XGPU_KERNELS_TOOL)
  set(XGPU_KERNELS_TOOL xgpu-kernels)
endif()

# The xgpu-wiloop pass plugin (tools/xgpu-wiloop), loaded into every kernel
# compile (AMDGPU, nvptx and host) when it is available:
# - on every target it records which kernels may print (xgpu_printf,
#   xgpu_assert: a kernel flags record in the code object), and the compiles
#   that load it define XGPU_KERNEL_PRINT_PASS, without which <xgpu/kernel.h>
#   refuses xgpu_printf and xgpu_assert;
# - on the host, work-item loops: it turns each barrier kernel's work-item
#   function into loops over the work items of a workgroup split at each
#   barrier; a kernel it cannot transform keeps fiber mode and the build
#   prints a note naming it.
# The plugin is built here, by the kernel clang, against Debian's llvm-19-dev
# (the clang binary provides LLVM's symbols when it loads it), without the
# host build's flags (sanitizers cannot load into clang). It is installed as
# <libdir>/xgpu/xgpu-wiloop.so; the installed copy of this file
# (<libdir>/cmake/xgpu/) loads it when the kernel clang is LLVM 19, the
# version it was built against. Without llvm-19-dev at xgpu's build, or with
# another kernel clang, barrier kernels run as fibers and kernels cannot
# print.
# XGPU_KERNELS_WORKITEM_LOOPS=OFF leaves the work-item loops out: host
# compiles do not define XGPU_KERNEL_WORKITEM_LOOPS, so the plugin finds no
# work-item function and barrier kernels run as fibers (the reference the
# pass is tested against), kernels without barriers as <xgpu/kernel.h>'s own
# item loop. The plugin is still built and loaded, for printing.
option(XGPU_KERNELS_WORKITEM_LOOPS
       "Run host barrier kernels as work-item loops made by the xgpu-wiloop pass plugin (OFF: as fibers; the plugin is still loaded, for printing)" ON)
# XGPU_KERNELS_BOUNDS_CHECKS (ON) has the plugin add to every code object a
# bounds-checked copy of each kernel that declares its layout
# (K__xgpu_checked, spec/kernels.md "Bounds-checked entries"), which the
# validation layer's GPU-assisted checks run instead of K
# (XGPU_VALIDATION_GPU_ASSISTED=1). It costs build time and code object
# size, never run time: nothing runs the copies unless asked. OFF: no
# copies; the layer then says that it cannot check the kernels.
option(XGPU_KERNELS_BOUNDS_CHECKS
       "Add a bounds-checked copy of each kernel to the code objects, for the validation layer's GPU-assisted checks" ON)
set(XGPU_KERNELS_WILOOP_PLUGIN "")
set(xgpu_wiloop_source ${CMAKE_CURRENT_LIST_DIR}/../tools/xgpu-wiloop/plugin.cpp)
set(xgpu_wiloop_installed ${CMAKE_CURRENT_LIST_DIR}/../../xgpu/xgpu-wiloop.so)
if(NOT XGPU_KERNELS_WORKITEM_LOOPS)
  message(STATUS "xgpu kernels: XGPU_KERNELS_WORKITEM_LOOPS is OFF: barrier kernels run their work items as fibers "
                 "on the host")
endif()
if(NOT EXISTS ${xgpu_wiloop_source} AND EXISTS ${xgpu_wiloop_installed} AND XGPU_KERNEL_CLANG)
  xgpu_kernel_tool_version_(${XGPU_KERNEL_CLANG} xgpu_wiloop_clang_version)
  if(xgpu_wiloop_clang_version EQUAL 19)
    get_filename_component(XGPU_KERNELS_WILOOP_PLUGIN ${xgpu_wiloop_installed} REALPATH)
  else()
    message(STATUS "xgpu kernels: ${XGPU_KERNEL_CLANG} is not clang 19, which the installed xgpu-wiloop "
                   "plugin was built for: barrier kernels run their work items as fibers on the host, and "
                   "kernels cannot use xgpu_printf or xgpu_assert")
  endif()
elseif(EXISTS ${xgpu_wiloop_source} AND XGPU_KERNEL_CLANG)
  find_program(XGPU_LLVM_CONFIG NAMES llvm-config-19 DOC "llvm-config of LLVM 19 (llvm-19-dev)")
  set(xgpu_llvm_include "")
  if(XGPU_LLVM_CONFIG)
    execute_process(COMMAND ${XGPU_LLVM_CONFIG} --includedir OUTPUT_VARIABLE xgpu_llvm_include
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  if(xgpu_llvm_include AND EXISTS ${xgpu_llvm_include}/llvm/Passes/PassPlugin.h)
    set(XGPU_KERNELS_WILOOP_PLUGIN ${CMAKE_BINARY_DIR}/lib/xgpu-wiloop.so)
    # One object per source of the pass (tools/xgpu-wiloop/README.md), then
    # the plugin. The ABI header is checked against <xgpu/host_kernel.h>.
    get_filename_component(xgpu_wiloop_dir ${xgpu_wiloop_source} DIRECTORY)
    file(GLOB xgpu_wiloop_sources ${xgpu_wiloop_dir}/*.cpp)
    file(GLOB xgpu_wiloop_headers ${xgpu_wiloop_dir}/*.h)
    set(xgpu_wiloop_objects)
    # Ninja makes an output's folder itself; the Makefile generator (the
    # plain `cmake -S . -B build`) does not.
    file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tools/xgpu-wiloop)
    foreach(source ${xgpu_wiloop_sources})
      get_filename_component(stem ${source} NAME_WE)
      set(object ${CMAKE_BINARY_DIR}/tools/xgpu-wiloop/${stem}.o)
      add_custom_command(
        OUTPUT ${object}
        COMMAND ${XGPU_KERNEL_CLANG} --driver-mode=g++ -std=c++17 -O2 -fPIC -fno-rtti
                -Wall -Wextra -Werror -Wno-unused-parameter
                -isystem ${xgpu_llvm_include} -I${CMAKE_CURRENT_LIST_DIR}/../include -c ${source} -o ${object}
        DEPENDS ${source} ${xgpu_wiloop_headers} ${CMAKE_CURRENT_LIST_DIR}/../include/xgpu/host_kernel.h
                ${CMAKE_CURRENT_LIST_DIR}/../include/xgpu/executable_format.h
        COMMENT "Compiling the xgpu-wiloop pass plugin: ${stem}.cpp"
        VERBATIM)
      list(APPEND xgpu_wiloop_objects ${object})
    endforeach()
    add_custom_command(
      OUTPUT ${XGPU_KERNELS_WILOOP_PLUGIN}
      COMMAND ${XGPU_KERNEL_CLANG} --driver-mode=g++ -shared ${xgpu_wiloop_objects} -o ${XGPU_KERNELS_WILOOP_PLUGIN}
      DEPENDS ${xgpu_wiloop_objects}
      COMMENT "Linking the xgpu-wiloop pass plugin"
      VERBATIM)
    add_custom_target(xgpu-wiloop ALL DEPENDS ${XGPU_KERNELS_WILOOP_PLUGIN})
    # Installed beside the samples: the SDK's copy of this file finds it
    # there (xgpu_wiloop_installed above).
    if(DEFINED CMAKE_INSTALL_LIBDIR)
      install(FILES ${XGPU_KERNELS_WILOOP_PLUGIN} DESTINATION ${CMAKE_INSTALL_LIBDIR}/xgpu)
    endif()
  else()
    message(STATUS "xgpu kernels: llvm-19-dev not found (llvm-config-19 / llvm/Passes/PassPlugin.h): "
                   "barrier kernels run their work items as fibers on the host, and kernels cannot use "
                   "xgpu_printf or xgpu_assert")
  endif()
endif()

# Flags shared by every kernel compile: freestanding, no libc headers, no
# hidden runtime calls, no implicit declarations, no variable-length arrays
# (AMDGPU has no dynamic stack allocation).
set(XGPU_KERNEL_COMMON_FLAGS
  -O3 -ffreestanding -nostdlibinc -fno-math-errno -fno-stack-protector
  -fno-exceptions -fvisibility=hidden -g0 -DXGPU_KERNEL_BUILD=1
  -Wall -Wextra -Werror -Wno-unused-parameter -Werror=vla)

function(xgpu_kernel_language_flags_ source out_var)
  get_filename_component(ext ${source} LAST_EXT)
  if(ext STREQUAL ".cpp" OR ext STREQUAL ".cc" OR ext STREQUAL ".cxx")
    set(${out_var} -x c++ -std=c++20 -fno-rtti PARENT_SCOPE)
  else()
    set(${out_var} -x c -std=c17 PARENT_SCOPE)
  endif()
endfunction()

function(xgpu_add_kernels name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG ""
    "OUTPUT;BOUNDS_CHECKS" "SOURCES;TARGETS;HOST_LEVELS;INCLUDE_DIRECTORIES;DEFINITIONS;COMPILE_OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "xgpu_add_kernels(${name}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "xgpu_add_kernels(${name}): SOURCES is required")
  endif()
  xgpu_check_kernel_toolchain("xgpu_add_kernels(${name})")
  if(NOT DEFINED ARG_TARGETS)
    set(ARG_TARGETS ${XGPU_AMDGPU_TARGETS})
  endif()
  if(NOT DEFINED ARG_HOST_LEVELS)
    set(ARG_HOST_LEVELS ${XGPU_HOST_KERNEL_LEVELS})
  endif()
  if(NOT ARG_HOST_LEVELS)
    message(FATAL_ERROR "xgpu_add_kernels(${name}): at least one host level is required (hsa-cpu runs the host code object)")
  endif()
  if(NOT ARG_OUTPUT)
    set(ARG_OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${name}.xgpux)
  endif()
  get_filename_component(ARG_OUTPUT ${ARG_OUTPUT} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})

  set(flags ${XGPU_KERNEL_COMMON_FLAGS} -I${XGPU_KERNELS_INCLUDE_DIR})
  foreach(dir ${ARG_INCLUDE_DIRECTORIES})
    get_filename_component(dir ${dir} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND flags -I${dir})
  endforeach()
  foreach(def ${ARG_DEFINITIONS})
    list(APPEND flags -D${def})
  endforeach()

  set(work_dir ${CMAKE_CURRENT_BINARY_DIR}/${name}.xgpu-kernels)
  file(MAKE_DIRECTORY ${work_dir})
  set(pack_args)
  set(code_objects)

  # One configuration = one code object: AMDGPU processor or host level.
  set(configs)
  foreach(gfx ${ARG_TARGETS})
    list(APPEND configs "amdgpu:${gfx}")
  endforeach()
  foreach(level ${ARG_HOST_LEVELS})
    list(APPEND configs "host:${level}")
  endforeach()
  if(XGPU_NVPTX_TARGETS)
    find_program(XGPU_KERNEL_LLVM_LINK NAMES llvm-link-19 REQUIRED)
  endif()
  foreach(sm ${XGPU_NVPTX_TARGETS})
    list(APPEND configs "nvptx:${sm}")
  endforeach()

  # Every compile loads the pass plugin when there is one (see above).
  set(plugin_flags)
  if(XGPU_KERNELS_WILOOP_PLUGIN)
    set(plugin_flags -fpass-plugin=${XGPU_KERNELS_WILOOP_PLUGIN} -DXGPU_KERNEL_PRINT_PASS=1)
    if(NOT DEFINED ARG_BOUNDS_CHECKS)
      set(ARG_BOUNDS_CHECKS ${XGPU_KERNELS_BOUNDS_CHECKS})
    endif()
    if(ARG_BOUNDS_CHECKS)
      list(APPEND plugin_flags -DXGPU_KERNEL_BOUNDS_CHECKS=1)
    endif()
  endif()

  foreach(config ${configs})
    string(REPLACE ":" ";" parts ${config})
    list(GET parts 0 kind)
    list(GET parts 1 cpu)
    if(kind STREQUAL "amdgpu")
      set(isa "amdgcn-amd-amdhsa--${cpu}")
      # Bitcode objects linked with LTO: one module, so one code object with
      # one NT_AMDGPU_METADATA note listing every kernel (loaders read one).
      set(target_flags -target amdgcn-amd-amdhsa -mcpu=${cpu} -nogpulib -flto ${plugin_flags})
      set(suffix "co")
    elseif(kind STREQUAL "nvptx")
      # Bitcode per source, linked into one module, then one PTX text.
      set(isa "nvptx64-nvidia-cuda--${cpu}")
      set(target_flags --target=nvptx64-nvidia-cuda -march=${cpu} -emit-llvm
                       -Wno-unused-command-line-argument ${plugin_flags})
      set(suffix "ptx")
    else()
      set(isa "x86_64-unknown-linux-gnu--${cpu}")
      # Loops (and so functions) 64-byte aligned: a kernel's hot loop then
      # sits in the same cache lines and decode windows whatever code
      # precedes it in the object (a 16-byte shift of an unchanged
      # compaction kernel cost it 12 %, bench/cpu_kernels/README.md).
      # No interleaved-access vectorization: LLVM 19's loop vectoriser
      # takes an index masked with `&` (`a[(x * 35) & 31]`) for a strided
      # one and reads past the mask (llvm/llvm-project#156849, fixed after
      # 19); the work-item loops make such indexing an item loop's.
      # The benchmark kernels compile to the same code without it.
      set(target_flags --target=x86_64-linux-gnu -march=${cpu} -fPIC -falign-loops=64 -falign-functions=64
                       -mllvm -enable-interleaved-mem-accesses=0)
      list(APPEND target_flags ${plugin_flags})
      if(XGPU_KERNELS_WILOOP_PLUGIN AND XGPU_KERNELS_WORKITEM_LOOPS)
        list(APPEND target_flags -DXGPU_KERNEL_WORKITEM_LOOPS=1)
      endif()
      set(suffix "so")
    endif()
    # Host code objects carry a DWARF line table (non-allocated .debug_*
    # sections: the code is the same, nothing more is mapped), so that
    # hsa-cpu can name the source line of a kernel fault. After the common
    # flags' -g0, before the caller's COMPILE_OPTIONS (which may ask for more
    # or less).
    set(debug_flags)
    if(kind STREQUAL "host")
      set(debug_flags -gline-tables-only)
    endif()
    string(MAKE_C_IDENTIFIER ${cpu} cpu_id)
    set(objects)
    set(sources ${ARG_SOURCES})
    if(kind STREQUAL "host")
      list(APPEND sources ${XGPU_KERNELS_HOST_INFO_SOURCE})
    endif()
    foreach(source ${sources})
      get_filename_component(source ${source} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
      get_filename_component(stem ${source} NAME_WE)
      set(object ${work_dir}/${stem}.${cpu_id}.o)
      xgpu_kernel_language_flags_(${source} lang_flags)
      set(extra)
      if(kind STREQUAL "host")
        list(APPEND extra "-DXGPU_HOST_ISA_NAME=\"${isa}\"")
      endif()
      file(RELATIVE_PATH object_rel ${CMAKE_BINARY_DIR} ${object})
      add_custom_command(
        OUTPUT ${object}
        COMMAND ${XGPU_KERNEL_CLANG} ${target_flags} ${lang_flags} ${flags} ${debug_flags} ${extra}
                ${ARG_COMPILE_OPTIONS} -MD -MF ${object}.d -c ${source} -o ${object}
        DEPENDS ${source} ${XGPU_KERNELS_WILOOP_PLUGIN}
        DEPFILE ${object}.d
        COMMENT "Compiling xgpu kernel ${object_rel}"
        VERBATIM COMMAND_EXPAND_LISTS)
      list(APPEND objects ${object})
    endforeach()

    set(code_object ${work_dir}/${name}.${cpu_id}.${suffix})
    file(RELATIVE_PATH code_object_rel ${CMAKE_BINARY_DIR} ${code_object})
    if(kind STREQUAL "nvptx")
      add_custom_command(
        OUTPUT ${code_object}
        COMMAND ${XGPU_KERNEL_LLVM_LINK} ${objects} -o ${code_object}.bc
        COMMAND ${XGPU_KERNEL_CLANG} --target=nvptx64-nvidia-cuda -march=${cpu} -O3
                -Wno-override-module -S ${code_object}.bc -o ${code_object}
        DEPENDS ${objects}
        COMMENT "Linking xgpu code object ${code_object_rel}"
        VERBATIM)
      list(APPEND code_objects ${code_object})
      list(APPEND pack_args --entry "${isa}=${code_object}")
      continue()
    endif()
    if(kind STREQUAL "amdgpu")
      set(link_flags -shared -plugin-opt=mcpu=${cpu} -plugin-opt=O3)
    else()
      set(link_flags -shared --no-undefined -z relro -z now -z noexecstack
                     --hash-style=gnu --build-id=none)
    endif()
    file(RELATIVE_PATH code_object_rel ${CMAKE_BINARY_DIR} ${code_object})
    add_custom_command(
      OUTPUT ${code_object}
      COMMAND ${XGPU_KERNEL_LLD} ${link_flags} ${objects} -o ${code_object}
      DEPENDS ${objects}
      COMMENT "Linking xgpu code object ${code_object_rel}"
      VERBATIM)
    list(APPEND code_objects ${code_object})
    list(APPEND pack_args --entry "${isa}=${code_object}")
  endforeach()

  file(RELATIVE_PATH output_rel ${CMAKE_BINARY_DIR} ${ARG_OUTPUT})
  # A tool built in this tree is a target-level dependency; an installed
  # (imported) one is a file.
  set(tool ${XGPU_KERNELS_TOOL})
  set(tool_dependency ${tool})
  if(TARGET ${tool})
    get_target_property(tool_imported ${tool} IMPORTED)
    if(tool_imported)
      set(tool_dependency $<TARGET_FILE:${tool}>)
    endif()
  endif()
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND $<TARGET_FILE:${tool}> pack -o ${ARG_OUTPUT} ${pack_args}
    COMMAND $<TARGET_FILE:${tool}> check ${ARG_OUTPUT}
    DEPENDS ${code_objects} ${tool_dependency}
    COMMENT "Packing and checking xgpu executable ${output_rel}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${ARG_OUTPUT})
  if(TARGET xgpu-wiloop)
    add_dependencies(${name} xgpu-wiloop)
  endif()
  set_target_properties(${name} PROPERTIES
    XGPU_EXECUTABLE_FILE ${ARG_OUTPUT}
    XGPU_CODE_OBJECTS "${code_objects}")
endfunction()

function(xgpu_embed_executable target kernels_target symbol)
  if(NOT TARGET ${kernels_target})
    message(FATAL_ERROR "xgpu_embed_executable(${target}): ${kernels_target} is not a target (call xgpu_add_kernels first)")
  endif()
  if(NOT symbol MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "xgpu_embed_executable(${target}): '${symbol}' is not a C identifier")
  endif()
  get_target_property(file ${kernels_target} XGPU_EXECUTABLE_FILE)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${target}.xgpu-embed)
  file(MAKE_DIRECTORY ${dir})
  file(WRITE ${dir}/${symbol}.h.in
"/* Embedded xgpu executable (see cmake/XgpuKernels.cmake). Immutable. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern \"C\" {
#endif
extern const uint8_t ${symbol}[];  /* the executable file's bytes, 4096-byte aligned */
extern const size_t ${symbol}_size; /* the executable file's size in bytes */
#ifdef __cplusplus
}
#endif
")
  file(WRITE ${dir}/${symbol}.c.in
"/* Embedded xgpu executable (see cmake/XgpuKernels.cmake). */
#include <stddef.h>
__asm__(
    \"  .section .rodata.${symbol},\\\"a\\\",@progbits\\n\"
    \"  .balign 4096\\n\"
    \"  .globl ${symbol}\\n\"
    \"  .hidden ${symbol}\\n\"
    \"  .type ${symbol},@object\\n\"
    \"${symbol}:\\n\"
    \"  .incbin \\\"${file}\\\"\\n\"
    \"${symbol}_end:\\n\"
    \"  .size ${symbol}, ${symbol}_end - ${symbol}\\n\"
    \"  .balign 8\\n\"
    \"  .globl ${symbol}_size\\n\"
    \"  .hidden ${symbol}_size\\n\"
    \"  .type ${symbol}_size,@object\\n\"
    \"${symbol}_size:\\n\"
    \"  .quad ${symbol}_end - ${symbol}\\n\"
    \"  .size ${symbol}_size, 8\\n\"
    \"  .text\\n\");
")
  configure_file(${dir}/${symbol}.h.in ${dir}/${symbol}.h COPYONLY)
  configure_file(${dir}/${symbol}.c.in ${dir}/${symbol}.c COPYONLY)
  set_source_files_properties(${dir}/${symbol}.c PROPERTIES OBJECT_DEPENDS ${file})
  target_sources(${target} PRIVATE ${dir}/${symbol}.c)
  target_include_directories(${target} PRIVATE ${dir})
  add_dependencies(${target} ${kernels_target})
endfunction()
