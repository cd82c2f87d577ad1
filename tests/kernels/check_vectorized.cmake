# Passes when FUNCTION in CODE_OBJECT (a host code object built for
# x86-64-v3 or -v4) contains 256-bit vector arithmetic, i.e. clang vectorised
# the work-item loop. Invoked by ctest with -D OBJDUMP, CODE_OBJECT, FUNCTION
# and optionally PATTERN (a regex over the disassembly with its line breaks
# written as '|', so that [^|]* stays within one instruction; default: a ymm
# float FMA or multiply) and WHAT (how the message names it). With
# -DABSENT=ON it passes when FUNCTION exists and PATTERN is NOT in it.
if(NOT DEFINED PATTERN)
  set(PATTERN "(vfmadd[0-9]+ps|vmulps)[^|]*%ymm")
  set(WHAT "ymm vfmadd/vmulps")
endif()
if(NOT DEFINED WHAT)
  set(WHAT "${PATTERN}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/disassemble_function.cmake)
string(REPLACE "\n" "|" lines "${body}")
if(ABSENT)
  if(lines MATCHES "${PATTERN}")
    message(FATAL_ERROR "${FUNCTION} in ${CODE_OBJECT} has ${WHAT}:\n${body}")
  endif()
  message(STATUS "${FUNCTION}: no ${WHAT}")
  return()
endif()
if(NOT lines MATCHES "${PATTERN}")
  message(FATAL_ERROR "${FUNCTION} in ${CODE_OBJECT} is not vectorised (no ${WHAT}):\n${body}")
endif()
message(STATUS "${FUNCTION}: ${WHAT} found")
