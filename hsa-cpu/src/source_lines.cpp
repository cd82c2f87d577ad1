#include "source_lines.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <type_traits>

#if defined(HSA_CPU_HAVE_LIBDW)
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>
#endif

namespace hsa_cpu {
namespace {

// `count` objects of type T at byte `offset` of `image`; null when they do
// not fit.
template <typename T>
const T* at(const std::vector<unsigned char>& image, uint64_t offset, uint64_t count = 1) {
  if (offset > image.size() || count > (image.size() - offset) / sizeof(T)) return nullptr;
  return reinterpret_cast<const T*>(image.data() + offset);
}

// The name of the function symbol (.symtab) whose bytes hold `address`;
// empty when none does.
std::string function_holding(const std::vector<unsigned char>& image, uint64_t address) {
  const auto* eh = at<Elf64_Ehdr>(image, 0);
  if (eh == nullptr || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shentsize != sizeof(Elf64_Shdr))
    return {};
  const auto* sh = at<Elf64_Shdr>(image, eh->e_shoff, eh->e_shnum);
  if (sh == nullptr) return {};
  for (uint32_t i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_link >= eh->e_shnum)
      continue;
    const Elf64_Shdr& strtab = sh[sh[i].sh_link];
    const uint64_t count = sh[i].sh_size / sizeof(Elf64_Sym);
    const auto* symbols = at<Elf64_Sym>(image, sh[i].sh_offset, count);
    const auto* strings = at<char>(image, strtab.sh_offset, strtab.sh_size);
    if (symbols == nullptr || strings == nullptr) continue;
    for (uint64_t k = 0; k < count; ++k) {
      const Elf64_Sym& s = symbols[k];
      const unsigned type = ELF64_ST_TYPE(s.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || s.st_name >= strtab.sh_size)
        continue;
      if (address < s.st_value || address - s.st_value >= s.st_size) continue;
      const char* name = strings + s.st_name;
      const size_t length = strnlen(name, strtab.sh_size - s.st_name);
      return std::string(name, length);
    }
  }
  return {};
}

// A C++ symbol's source name ("_Z..." demangled); others as they are.
std::string demangled(const std::string& name) {
  if (name.compare(0, 2, "_Z") != 0) return name;
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (text == nullptr || status != 0) {
    free(text);
    return name;
  }
  std::string result(text);
  free(text);
  return result;
}

#if defined(HSA_CPU_HAVE_LIBDW)
// libdw, loaded at the first fault that asks for a line, not linked: libdw
// and libelf keep thread-local data that glibc allocates on a thread's first
// use and ends the process when it cannot (host memory exhausted), and a
// runtime that never reports a fault should not pay for five more libraries.
struct LibDw {
  decltype(&::elf_version) elf_version = nullptr;
  decltype(&::elf_memory) elf_memory = nullptr;
  decltype(&::elf_end) elf_end = nullptr;
  decltype(&::dwarf_begin_elf) dwarf_begin_elf = nullptr;
  decltype(&::dwarf_get_units) dwarf_get_units = nullptr;
  decltype(&::dwarf_haspc) dwarf_haspc = nullptr;
  decltype(&::dwarf_getsrc_die) dwarf_getsrc_die = nullptr;
  decltype(&::dwarf_lineno) dwarf_lineno = nullptr;
  decltype(&::dwarf_linecol) dwarf_linecol = nullptr;
  decltype(&::dwarf_linesrc) dwarf_linesrc = nullptr;
  decltype(&::dwarf_end) dwarf_end = nullptr;
  bool ready = false;  // every function found and libelf initialized
};

const LibDw& libdw() {
  static const LibDw table = [] {
    LibDw t;
    // Never closed: its functions stay valid for the process.
    void* handle = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return t;
    bool all = true;
    auto get = [&](auto* slot, const char* name) {
      *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(dlsym(handle, name));
      all = all && *slot != nullptr;
    };
    get(&t.elf_version, "elf_version");
    get(&t.elf_memory, "elf_memory");
    get(&t.elf_end, "elf_end");
    get(&t.dwarf_begin_elf, "dwarf_begin_elf");
    get(&t.dwarf_get_units, "dwarf_get_units");
    get(&t.dwarf_haspc, "dwarf_haspc");
    get(&t.dwarf_getsrc_die, "dwarf_getsrc_die");
    get(&t.dwarf_lineno, "dwarf_lineno");
    get(&t.dwarf_linecol, "dwarf_linecol");
    get(&t.dwarf_linesrc, "dwarf_linesrc");
    get(&t.dwarf_end, "dwarf_end");
    t.ready = all && t.elf_version(EV_CURRENT) != EV_NONE;
    return t;
  }();
  return table;
}

// The line table's row for `address`: the compile unit whose ranges hold it
// (every unit is tried: line-tables-only objects carry no .debug_aranges),
// then its row with the greatest address not above it.
void find_line(std::vector<unsigned char>& image, uint64_t address, SourcePosition* out) {
  const LibDw& dw = libdw();
  if (!dw.ready) return;
  Elf* elf = dw.elf_memory(reinterpret_cast<char*>(image.data()), image.size());
  if (elf == nullptr) return;
  if (Dwarf* dwarf = dw.dwarf_begin_elf(elf, DWARF_C_READ, nullptr)) {
    Dwarf_CU* unit = nullptr;
    Dwarf_Die unit_die;
    uint8_t unit_type = 0;
    while (dw.dwarf_get_units(dwarf, unit, &unit, nullptr, &unit_type, &unit_die, nullptr) == 0) {
      if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) continue;
      if (dw.dwarf_haspc(&unit_die, address) <= 0) continue;
      if (Dwarf_Line* line = dw.dwarf_getsrc_die(&unit_die, address)) {
        int number = 0, column = 0;
        if (dw.dwarf_lineno(line, &number) == 0 && number > 0) out->line = uint32_t(number);
        if (dw.dwarf_linecol(line, &column) == 0 && column > 0) out->column = uint32_t(column);
        if (const char* file = dw.dwarf_linesrc(line, nullptr, nullptr)) out->file = file;
      }
      break;
    }
    dw.dwarf_end(dwarf);
  }
  dw.elf_end(elf);
}
#endif

}  // namespace

void find_source_position(std::vector<unsigned char> sections, uint64_t address, SourcePosition* out) {
  *out = SourcePosition{};
  if (sections.empty()) return;
  out->function = demangled(function_holding(sections, address));
#if defined(HSA_CPU_HAVE_LIBDW)
  find_line(sections, address, out);
#endif
}

bool source_lines_supported() {
#if defined(HSA_CPU_HAVE_LIBDW)
  return libdw().ready;
#else
  return false;
#endif
}

void source_lines_prepare() {
#if defined(HSA_CPU_HAVE_LIBDW)
  (void)libdw();
#endif
}

}  // namespace hsa_cpu
