# Runs one program and checks both its exit code (0) and its output, which
# ctest's PASS_REGULAR_EXPRESSION alone would not: that ignores the exit code.
# The expression is matched against stdout followed by stderr.
#   cmake -DPROGRAM=<path> [-DARGS="<arg> <arg>"] -DEXPECT=<regex> -P XgpuExpectOutput.cmake
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${args}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} exited with ${result}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: output does not match: ${EXPECT}")
endif()
