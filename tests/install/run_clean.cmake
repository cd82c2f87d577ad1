# Runs an installed program with a clean environment: nothing but PATH, an
# empty HOME and the given variables (no XGPU_*, no LD_LIBRARY_PATH), and
# checks its exit code (0) and its output (stdout, then stderr).
#   cmake -DPROGRAM=<path> [-DARGS="<arg> ..."] -DEXPECT=<regex> [-DREJECT=<regex>]
#         -DHOME_DIR=<folder> [-DENV="VAR=value;VAR=value"] -P run_clean.cmake
separate_arguments(args UNIX_COMMAND "${ARGS}")
file(REMOVE_RECURSE "${HOME_DIR}")
file(MAKE_DIRECTORY "${HOME_DIR}")
execute_process(COMMAND env -i PATH=/usr/bin:/bin HOME=${HOME_DIR} ${ENV} "${PROGRAM}" ${args}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} (clean environment: ${ENV}) exited with ${result}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: output does not match: ${EXPECT}")
endif()
if(DEFINED REJECT AND "${out}${err}" MATCHES "${REJECT}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: output matches what it must not: ${REJECT}")
endif()
