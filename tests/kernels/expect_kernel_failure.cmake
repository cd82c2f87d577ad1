# Runs the xgpu_add_kernels pipeline (compile, link, pack, check) on SOURCE
# for one AMDGPU target and one host level, each on its own ("amdgpu",
# "host") and both packed into one executable ("combined", run only when
# listed in FAIL_ON: rules that compare targets), and, only when listed in
# FAIL_ON, the nvptx compile alone ("nvptx": rules of that target's
# compile); passes when every configuration in FAIL_ON (default:
# amdgpu;host) fails with output matching EXPECT. Invoked by ctest with -D CLANG, LLD, TOOL, FLAGS ('|'-separated),
# INCLUDE, INFO_SOURCE, WORK_DIR, SOURCE, EXPECT [, FAIL_ON].
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" FLAGS "${FLAGS}")
if(NOT DEFINED FAIL_ON)
  set(FAIL_ON "amdgpu;host")
endif()
get_filename_component(case ${SOURCE} NAME_WE)
set(dir ${WORK_DIR}/${case})
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})

# Runs one step; on failure records the log and stops the pipeline.
macro(step)
  if(NOT failed)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(APPEND log "${out}${err}")
    if(NOT rc EQUAL 0)
      set(failed TRUE)
    endif()
  endif()
endmacro()

set(amdgpu_isa amdgcn-amd-amdhsa--gfx942)
set(host_isa x86_64-unknown-linux-gnu--x86-64-v3)

# Compiles and links SOURCE for `kind` (amdgpu or host) into ${dir}/${kind}.co.
macro(build_code_object kind)
  if(${kind} STREQUAL "amdgpu")
    step(${CLANG} -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -flto -x c -std=c17 ${FLAGS}
         -I${INCLUDE} -c ${SOURCE} -o ${dir}/amdgpu.o)
    step(${LLD} -shared -plugin-opt=mcpu=gfx942 ${dir}/amdgpu.o -o ${dir}/amdgpu.co)
  elseif(${kind} STREQUAL "nvptx")
    step(${CLANG} --target=nvptx64-nvidia-cuda -march=sm_80 -emit-llvm -Wno-unused-command-line-argument -x c
         -std=c17 ${FLAGS} -I${INCLUDE} -c ${SOURCE} -o ${dir}/nvptx.bc)
  else()
    set(target_flags --target=x86_64-linux-gnu -march=x86-64-v3 -fPIC)
    step(${CLANG} ${target_flags} -x c -std=c17 ${FLAGS} -I${INCLUDE} -c ${SOURCE} -o ${dir}/host.o)
    step(${CLANG} ${target_flags} -x c -std=c17 ${FLAGS} -I${INCLUDE} "-DXGPU_HOST_ISA_NAME=\"${host_isa}\""
         -c ${INFO_SOURCE} -o ${dir}/info.o)
    step(${LLD} -shared --no-undefined -z relro -z now ${dir}/host.o ${dir}/info.o -o ${dir}/host.co)
  endif()
endmacro()

function(run_pipeline kind out_failed out_log)
  set(failed FALSE)
  set(log "")
  if(kind STREQUAL "nvptx")
    build_code_object(nvptx)
    set(${out_failed} ${failed} PARENT_SCOPE)
    set(${out_log} "${log}" PARENT_SCOPE)
    return()
  elseif(kind STREQUAL "combined")
    build_code_object(amdgpu)
    build_code_object(host)
    step(${TOOL} pack -o ${dir}/${kind}.xgpux --entry ${amdgpu_isa}=${dir}/amdgpu.co --entry ${host_isa}=${dir}/host.co)
  else()
    build_code_object(${kind})
    step(${TOOL} pack -o ${dir}/${kind}.xgpux --entry ${${kind}_isa}=${dir}/${kind}.co)
  endif()
  step(${TOOL} check ${dir}/${kind}.xgpux)
  set(${out_failed} ${failed} PARENT_SCOPE)
  set(${out_log} "${log}" PARENT_SCOPE)
endfunction()

set(problems "")
set(kinds amdgpu host)
foreach(kind combined nvptx)
  if(kind IN_LIST FAIL_ON)
    list(APPEND kinds ${kind})
  endif()
endforeach()
foreach(kind ${kinds})
  run_pipeline(${kind} failed log)
  message(STATUS "${case} on ${kind}: ${log}")
  if(kind IN_LIST FAIL_ON)
    if(NOT failed)
      string(APPEND problems "${case} built for ${kind} but must fail\n")
    elseif(NOT log MATCHES "${EXPECT}")
      string(APPEND problems "${case} failed on ${kind} without the expected message '${EXPECT}'\n")
    endif()
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
