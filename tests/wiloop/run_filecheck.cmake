# One IR-level test of the work-item loop pass (tests/wiloop/CMakeLists.txt):
#   cmake -DCLANG= -DOPT= -DFILECHECK= -DPLUGIN= -DFLAGS=<a|b|...> -DINCLUDE= -DSOURCE= -DWORK_DIR= -P run_filecheck.cmake
# A case may say, on a line of its own, `// FLAGS: <extra clang flags>`
# (e.g. -g), `// LEVEL: x86-64-v2`, `// TARGET: amdgcn` or `// TARGET: nvptx`
# (default: the host) and `// PASSES: <opt pipeline>` (default xgpu-wiloop;
# xgpu-wiloop,xgpu-wiloop-late adds the plugin's last step,
# xgpu-printing-kernels the record of the kernels that print,
# xgpu-binding-access the kernels' binding access records).
string(REPLACE "|" ";" flags "${FLAGS}")
list(REMOVE_ITEM flags -O3 -g0 -Werror)
file(MAKE_DIRECTORY ${WORK_DIR})
file(READ ${SOURCE} text)
set(extra)
if(text MATCHES "// FLAGS: ([^\n]*)")
  separate_arguments(extra UNIX_COMMAND "${CMAKE_MATCH_1}")
endif()
set(level x86-64-v3)
if(text MATCHES "// LEVEL: ([^\n ]*)")
  set(level ${CMAKE_MATCH_1})
endif()
set(passes xgpu-wiloop)
if(text MATCHES "// PASSES: ([^\n ]*)")
  set(passes ${CMAKE_MATCH_1})
endif()
set(target host)
if(text MATCHES "// TARGET: ([^\n ]*)")
  set(target ${CMAKE_MATCH_1})
endif()
if(target STREQUAL "amdgcn")
  set(target_flags -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib)
elseif(target STREQUAL "nvptx")
  set(target_flags --target=nvptx64-nvidia-cuda -march=sm_80)
elseif(target STREQUAL "host")
  set(target_flags --target=x86_64-linux-gnu -march=${level} -fPIC -DXGPU_KERNEL_WORKITEM_LOOPS=1
                   "-DXGPU_HOST_ISA_NAME=\"x86_64-unknown-linux-gnu--${level}\"")
else()
  message(FATAL_ERROR "${SOURCE}: TARGET ${target} is not amdgcn, nvptx or host")
endif()
get_filename_component(name ${SOURCE} NAME_WE)
set(raw ${WORK_DIR}/${name}.raw.ll)
set(ir ${WORK_DIR}/${name}.ll)
set(out ${WORK_DIR}/${name}.out.ll)
set(remarks ${WORK_DIR}/${name}.remarks)
execute_process(
  COMMAND ${CLANG} ${target_flags} -x c -std=c17
          ${flags} -O3 -Xclang -disable-llvm-passes ${extra} -I${INCLUDE} -S -emit-llvm ${SOURCE} -o ${raw}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling ${SOURCE} to IR failed:\n${err}")
endif()
# The IR the pass sees in a kernel build: inlined and simplified (O3's
# module simplification), not yet vectorised.
execute_process(COMMAND ${OPT} "-passes=thinlto-pre-link<O3>" -S ${raw} -o ${ir} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "simplifying ${raw} failed:\n${err}")
endif()
execute_process(
  COMMAND ${OPT} -load-pass-plugin=${PLUGIN} -passes=${passes} "-pass-remarks=xgpu-wiloop|xgpu-printing"
          -pass-remarks-missed=xgpu-wiloop "-pass-remarks-analysis=xgpu-binding-access|xgpu-bounds-checks" -S ${ir} -o ${out}
  RESULT_VARIABLE rc ERROR_FILE ${remarks})
if(NOT rc EQUAL 0)
  file(READ ${remarks} err)
  message(FATAL_ERROR "opt with the pass failed on ${ir}:\n${err}")
endif()
foreach(prefix REMARK IR)
  if(NOT text MATCHES "// ${prefix}(-NOT|-NEXT|-SAME|-DAG)?:")
    continue()
  endif()
  if(prefix STREQUAL "REMARK")
    set(input ${remarks})
  else()
    set(input ${out})
  endif()
  execute_process(COMMAND ${FILECHECK} --check-prefix=${prefix} ${SOURCE} --input-file=${input}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE fc_out ERROR_VARIABLE fc_err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FileCheck --check-prefix=${prefix} failed (input ${input}):\n${fc_out}${fc_err}")
  endif()
endforeach()
