# Included by the codegen checks (check_vectorized.cmake, check_jammed.cmake):
# disassembles CODE_OBJECT with OBJDUMP and sets `body` to FUNCTION's
# instructions (from its label to the blank line after it); stops the check
# with an error when objdump fails or the function is not there.
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
