# Passes when FUNCTION in CODE_OBJECT (a host code object built for
# x86-64-v3 or -v4) runs at least MIN (default 4) scalar FMAs that are
# independent of each other in one basic block: each writes an accumulator
# none of the others writes or reads, i.e. several work items' sums advance
# in one iteration of their inner loop (unroll-and-jam by the xgpu-wiloop
# pass). One work item's sum is one chain: each FMA reads the accumulator
# the previous one wrote. Invoked by ctest with -D OBJDUMP, CODE_OBJECT,
# FUNCTION and optionally MIN.
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST)
if(NOT DEFINED MIN)
  set(MIN 4)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/disassemble_function.cmake)
# One list element per instruction (';' in the text would split elements).
string(REPLACE ";" "," body "${body}")
string(REPLACE "\n" ";" lines "${body}")

set(group "")  # accumulators written by the current run of independent FMAs
set(best 0)
foreach(line IN LISTS lines)
  if(line MATCHES "\tvfmadd[0-9]+ss\t([^#]*)")
    # AT&T order: the last operand is the accumulator (read and written).
    string(REGEX MATCHALL "%xmm[0-9]+" registers "${CMAKE_MATCH_1}")
    list(POP_BACK registers accumulator)
    set(independent TRUE)
    foreach(reg IN LISTS registers ITEMS ${accumulator})
      if(reg IN_LIST group)
        set(independent FALSE)
      endif()
    endforeach()
    if(independent)
      list(APPEND group ${accumulator})
    else()
      set(group ${accumulator})
    endif()
    list(LENGTH group size)
    if(size GREATER best)
      set(best ${size})
    endif()
  elseif(line MATCHES "\tj[a-z]+\t" OR line MATCHES ">:$")
    set(group "")  # a branch or a label ends the block
  endif()
endforeach()
if(best LESS MIN)
  message(FATAL_ERROR "${FUNCTION} in ${CODE_OBJECT}: at most ${best} independent scalar FMAs in a row "
                      "(want ${MIN}: the item loop is not interleaved):\n${body}")
endif()
message(STATUS "${FUNCTION}: ${best} independent scalar FMAs in a row (interleaved items)")
