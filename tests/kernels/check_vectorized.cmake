# Passes when FUNCTION in CODE_OBJECT (a host code object built for
# x86-64-v3) contains 256-bit vector arithmetic, i.e. clang vectorised the
# work-item loop. Invoked by ctest with -D OBJDUMP, CODE_OBJECT, FUNCTION.
execute_process(COMMAND ${OBJDUMP} -d --no-show-raw-insn ${CODE_OBJECT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE disassembly ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OBJDUMP} failed on ${CODE_OBJECT}: ${err}")
endif()
string(FIND "${disassembly}" "<${FUNCTION}>:" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "${FUNCTION} not found in ${CODE_OBJECT}")
endif()
string(SUBSTRING "${disassembly}" ${begin} -1 body)
string(FIND "${body}" "\n\n" end)
string(SUBSTRING "${body}" 0 ${end} body)
if(NOT body MATCHES "(vfmadd[0-9]+ps|vmulps)[^\n]*%ymm")
  message(FATAL_ERROR "${FUNCTION} in ${CODE_OBJECT} is not vectorised (no ymm vfmadd/vmulps):\n${body}")
endif()
message(STATUS "${FUNCTION}: vectorised (ymm FMA/multiply found)")
