// hsa-cpu source positions: an address of a loaded code object to the
// function holding it (the ELF symbol table) and the source file, line and
// column of its instruction (the DWARF line table, read with libdw), for the
// report of a kernel fault.
//
// The input is the ELF file executable.cpp keeps of each code object it
// loads: a few of the object's non-allocated sections only (the DWARF
// sections of its line table, .symtab and their strings), so that a fault
// can be described long after the code object reader that held the whole
// image was destroyed. It is read in
// ordinary context after a fault was contained, never in a signal handler.
// Without libdw at build time (HSA_CPU_HAVE_LIBDW unset) only the function
// is found. libdw is dlopen()ed when the first code object with line tables
// is loaded (source_lines_prepare), not linked: a process that loads no
// kernels does not load it.
//
// Threading: thread-safe; each call parses its own copy and holds no lock.
#ifndef HSA_CPU_SOURCE_LINES_H_
#define HSA_CPU_SOURCE_LINES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace hsa_cpu {

struct SourcePosition {
  std::string function;  // the symbol holding the address (C++ names demangled); empty: unknown
  std::string file;      // source file as the line table names it, with its directory; empty: unknown
  uint32_t line = 0;     // 1-based source line; 0: unknown
  uint32_t column = 0;   // 1-based source column; 0: unknown
};

// Fills *out for `address`, an address of the code object's ELF file (an
// instruction's run-time address minus the object's load base), from
// `sections` (see above; the call's own copy: libelf reads it in place).
// What cannot be found stays empty. May allocate; throws std::bad_alloc
// when host memory runs out.
void find_source_position(std::vector<unsigned char> sections, uint64_t address, SourcePosition* out);

// True when hsa-cpu reads DWARF line tables (built with libdw).
bool source_lines_supported();

// Loads libdw (once per process; later calls return at once), so that the
// first fault's report does not pay for it: called when a code object with
// line tables is loaded. Touches none of libdw's thread-local data. Without
// libdw, or when it cannot be loaded, does nothing (find_source_position
// then finds the function only).
void source_lines_prepare();

}  // namespace hsa_cpu

#endif  // HSA_CPU_SOURCE_LINES_H_
