# Compiles SOURCE for the host with the xgpu-wiloop plugin and passes when the
# build prints the note that kernel KERNEL keeps fiber mode and the object
# references none of the pass's markers (the fiber entry still links).
# Invoked by ctest with -D CLANG, PLUGIN, NM, FLAGS ('|'-separated), INCLUDE,
# SOURCE, KERNEL, REASON (the note's reason), WORK_DIR.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" FLAGS "${FLAGS}")
file(MAKE_DIRECTORY ${WORK_DIR})
set(object ${WORK_DIR}/fallback.o)
execute_process(
  COMMAND ${CLANG} --target=x86_64-linux-gnu -march=x86-64-v3 -fPIC -DXGPU_KERNEL_WORKITEM_LOOPS=1
          -fpass-plugin=${PLUGIN} -x c -std=c17 ${FLAGS} -I${INCLUDE} -c ${SOURCE} -o ${object}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling ${SOURCE} failed:\n${out}${err}")
endif()
set(expect "xgpu-wiloop: note: kernel '${KERNEL}' runs its work items as fibers on the host: ${REASON}")
string(FIND "${err}" "${expect}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "expected the note\n  ${expect}\ngot:\n${out}${err}")
endif()
execute_process(COMMAND ${NM} --undefined-only ${object} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR undefined MATCHES "xgpu_wiloop_")
  message(FATAL_ERROR "the object still references the pass's markers:\n${undefined}")
endif()
message(STATUS "${KERNEL}: fiber mode, with the note")
