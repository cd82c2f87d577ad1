// The generated entry points of libxgpu and the generated tables.
#include <cstring>
#include <exception>

#include "loader.h"

namespace xgpu_loader {

PFN_xgpuVoidFunction LookupSorted(const NamedFunction* table, size_t count, const char* name) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = std::strcmp(table[mid].name, name);
    if (c == 0) return table[mid].function;
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return nullptr;
}

#include "../generated/tables.inc"

}  // namespace xgpu_loader

#include "../generated/trampolines.inc"
