#include "executable.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

namespace hsa_cpu {
namespace {

constexpr size_t kKdSuffixLength = sizeof(XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX) - 1;

struct CodeObjectReader {
  std::vector<unsigned char> bytes;  // private copy of the code object
};

struct Executable;

struct Symbol {
  Executable* executable;   // owner
  const Agent* agent;       // agent the code object was loaded for
  std::string name;         // dynamic symbol name ("K.kd" for kernels)
  bool is_kernel;           // kernel descriptor or variable
  const xgpu_host_kernel_descriptor_t* kernel;  // kernels: the descriptor
  void* address;            // variables: address; kernels: descriptor
  uint64_t size;            // variables: st_size bytes
};

struct LoadedObject {
  void* handle;             // dlopen handle
  std::string path;         // path string dlopen saw (kept unique)
  const Agent* agent;       // agent it was loaded for
  uint64_t load_base = 0;   // l_addr: added to the file's addresses at load
  uint64_t begin = 0;       // [begin, end): its PT_LOAD segments in memory
  uint64_t end = 0;
  // report_sections() of its image: what a kernel fault's report reads
  // (source_lines.h), kept because the reader holding the image may be
  // destroyed once the object is loaded. Empty when the image has none.
  std::vector<unsigned char> report_sections;
};

// An external variable definition (hsa_executable_*_variable_define).
struct VariableDefinition {
  std::string name;       // the variable's name
  const Agent* agent;     // agent allocation: its agent; program: null
  void* address;          // where the application placed it
};

struct Executable {
  hsa_profile_t profile;
  hsa_default_float_rounding_mode_t rounding;
  hsa_executable_state_t state;                   // Registry::mutex
  std::vector<std::unique_ptr<LoadedObject>> objects;
  std::vector<std::unique_ptr<Symbol>> symbols;
  // External variables the application defined. Host code objects resolve
  // every symbol when they are loaded (and refuse an object with undefined
  // symbols), so nothing reads them; they are kept so that a second
  // definition of the same name is refused as the specification asks.
  std::vector<VariableDefinition> definitions;    // Registry::mutex
};

// kernel_object_generation(): executables destroyed so far.
std::atomic<uint64_t> g_kernel_object_generation{0};

struct Registry {
  std::shared_mutex mutex;
  std::unordered_set<CodeObjectReader*> readers;
  std::unordered_set<Executable*> executables;
  std::unordered_set<Symbol*> symbols;
  std::unordered_set<uint64_t> kernel_objects;   // live descriptor addresses
  std::unordered_set<std::string> loaded_paths;  // dlopen names in use
  std::unordered_set<void*> loaded_handles;      // dlopen handles in use
  uint64_t next_path_serial = 0;                 // spelt into the next dlopen name
};
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

// ---------------------------------------------------------------------------
// ELF inspection of an unmapped image (every offset bounds-checked)

struct ElfImage {
  const unsigned char* data;
  size_t size;

  template <typename T>
  const T* at(uint64_t offset, uint64_t count = 1) const {
    if (offset > size || count > (size - offset) / sizeof(T)) return nullptr;
    return reinterpret_cast<const T*>(data + offset);
  }
  const Elf64_Ehdr* header() const { return at<Elf64_Ehdr>(0); }

  // File offset of virtual address `vaddr` spanning `bytes`; false if no
  // PT_LOAD segment holds it in the file.
  bool file_offset(uint64_t vaddr, uint64_t bytes, uint64_t* out) const {
    const Elf64_Ehdr* eh = header();
    if (eh->e_phentsize != sizeof(Elf64_Phdr)) return false;
    const auto* ph = at<Elf64_Phdr>(eh->e_phoff, eh->e_phnum);
    if (ph == nullptr) return false;
    for (uint32_t i = 0; i < eh->e_phnum; ++i) {
      if (ph[i].p_type != PT_LOAD) continue;
      if (vaddr >= ph[i].p_vaddr && vaddr - ph[i].p_vaddr + bytes <= ph[i].p_filesz) {
        *out = ph[i].p_offset + (vaddr - ph[i].p_vaddr);
        return true;
      }
    }
    return false;
  }

  const Elf64_Shdr* sections(uint32_t* count) const {
    const Elf64_Ehdr* eh = header();
    if (eh->e_shentsize != sizeof(Elf64_Shdr)) return nullptr;
    *count = eh->e_shnum;
    return at<Elf64_Shdr>(eh->e_shoff, eh->e_shnum);
  }

  const char* string(const Elf64_Shdr& strtab, uint32_t offset) const {
    if (offset >= strtab.sh_size) return nullptr;
    const auto* s = at<char>(strtab.sh_offset + offset);
    if (s == nullptr) return nullptr;
    const uint64_t limit = std::min<uint64_t>(strtab.sh_size - offset, size - (strtab.sh_offset + offset));
    return memchr(s, '\0', limit) ? s : nullptr;
  }
};

struct DynamicSymbol {
  std::string name;
  uint64_t value;   // st_value (virtual address)
  uint64_t size;    // st_size
  bool is_object;   // STT_OBJECT
};

// Lists defined dynamic symbols; false if the table is malformed.
bool dynamic_symbols(const ElfImage& elf, std::vector<DynamicSymbol>* out) {
  uint32_t count = 0;
  const Elf64_Shdr* sh = elf.sections(&count);
  if (sh == nullptr) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (sh[i].sh_type != SHT_DYNSYM) continue;
    if (sh[i].sh_link >= count || sh[i].sh_entsize != sizeof(Elf64_Sym)) return false;
    const Elf64_Shdr& strtab = sh[sh[i].sh_link];
    const uint64_t n = sh[i].sh_size / sizeof(Elf64_Sym);
    const auto* syms = elf.at<Elf64_Sym>(sh[i].sh_offset, n);
    if (syms == nullptr) return false;
    for (uint64_t k = 0; k < n; ++k) {
      if (syms[k].st_shndx == SHN_UNDEF || syms[k].st_name == 0) continue;
      const char* name = elf.string(strtab, syms[k].st_name);
      if (name == nullptr) return false;
      out->push_back(DynamicSymbol{name, syms[k].st_value, syms[k].st_size,
                                   ELF64_ST_TYPE(syms[k].st_info) == STT_OBJECT});
    }
    return true;
  }
  return false;
}

// Value the dynamic linker will store at `vaddr` (a pointer field) if a
// relocation targets it, else the 8 bytes in the file.
bool pointer_at(const ElfImage& elf, uint64_t vaddr, const std::vector<DynamicSymbol>& symbols,
                uint64_t* out) {
  uint32_t count = 0;
  const Elf64_Shdr* sh = elf.sections(&count);
  if (sh == nullptr) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (sh[i].sh_type != SHT_RELA || sh[i].sh_entsize != sizeof(Elf64_Rela)) continue;
    const uint64_t n = sh[i].sh_size / sizeof(Elf64_Rela);
    const auto* rela = elf.at<Elf64_Rela>(sh[i].sh_offset, n);
    if (rela == nullptr) return false;
    for (uint64_t k = 0; k < n; ++k) {
      if (rela[k].r_offset != vaddr) continue;
      const uint32_t type = ELF64_R_TYPE(rela[k].r_info);
      if (type == R_X86_64_RELATIVE) {
        *out = uint64_t(rela[k].r_addend);
        return true;
      }
      if (type == R_X86_64_64 && sh[i].sh_link < count) {
        // Symbol-relative: resolve against the object's own dynsym entry.
        const Elf64_Shdr& symtab = sh[sh[i].sh_link];
        const auto* sym = elf.at<Elf64_Sym>(symtab.sh_offset + ELF64_R_SYM(rela[k].r_info) * sizeof(Elf64_Sym));
        if (sym == nullptr || sym->st_shndx == SHN_UNDEF) return false;
        *out = sym->st_value + uint64_t(rela[k].r_addend);
        return true;
      }
      return false;
    }
  }
  (void)symbols;
  uint64_t offset = 0;
  if (!elf.file_offset(vaddr, sizeof(uint64_t), &offset)) return false;
  memcpy(out, elf.data + offset, sizeof(uint64_t));
  return true;
}

struct Inspection {
  hsa_status_t status = HSA_STATUS_SUCCESS;
  std::string isa_name;                 // from xgpu_host_code_object_info
  std::vector<DynamicSymbol> symbols;   // defined dynamic symbols
};

// [*out_begin, *out_end): the file addresses the PT_LOAD segments cover;
// false when the image has none.
bool segment_range(const ElfImage& elf, uint64_t* out_begin, uint64_t* out_end) {
  const Elf64_Ehdr* eh = elf.header();
  if (eh->e_phentsize != sizeof(Elf64_Phdr)) return false;
  const auto* ph = elf.at<Elf64_Phdr>(eh->e_phoff, eh->e_phnum);
  if (ph == nullptr) return false;
  uint64_t begin = UINT64_MAX, end = 0;
  for (uint32_t i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type != PT_LOAD || ph[i].p_memsz == 0 || ph[i].p_vaddr > UINT64_MAX - ph[i].p_memsz) continue;
    begin = std::min(begin, ph[i].p_vaddr);
    end = std::max(end, ph[i].p_vaddr + ph[i].p_memsz);
  }
  if (begin >= end) return false;
  *out_begin = begin;
  *out_end = end;
  return true;
}

// The DWARF sections a source line is found with (source_lines.cpp):
// units, their address ranges and the line tables, with their strings.
// Call frames, types, variables' locations and macros are left out.
bool is_line_section(const char* name) {
  static constexpr const char* kLineSections[] = {
      ".debug_info", ".debug_abbrev", ".debug_line", ".debug_line_str", ".debug_str", ".debug_str_offsets",
      ".debug_addr", ".debug_rnglists", ".debug_ranges", ".debug_aranges"};
  for (const char* line_section : kLineSections)
    if (strcmp(name, line_section) == 0) return true;
  return false;
}

// The sections a kernel fault's report reads (source_lines.h): the DWARF
// sections of the line table (is_line_section), the symbol table, the
// strings it names and the section names, as an ELF file of their own
// (header, sections, section table; no program headers), a fraction of the
// image: no code or data. Empty when the image has neither DWARF nor a
// symbol table. Throws std::bad_alloc when host memory runs out.
std::vector<unsigned char> report_sections(const ElfImage& elf) {
  uint32_t count = 0;
  const Elf64_Shdr* sh = elf.sections(&count);
  const Elf64_Ehdr* eh = elf.header();
  if (sh == nullptr || count >= SHN_LORESERVE || eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= count) return {};
  const Elf64_Shdr& names = sh[eh->e_shstrndx];
  auto has_data = [&](const Elf64_Shdr& s) {
    return s.sh_type != SHT_NOBITS && (s.sh_flags & SHF_ALLOC) == 0 && elf.at<unsigned char>(s.sh_offset, s.sh_size);
  };
  std::vector<bool> keep(count, false);
  bool any = false;
  for (uint32_t i = 1; i < count; ++i) {
    if (!has_data(sh[i])) continue;
    const char* name = elf.string(names, sh[i].sh_name);
    if (sh[i].sh_type == SHT_SYMTAB || (name != nullptr && is_line_section(name))) keep[i] = any = true;
  }
  if (!any || !has_data(names)) return {};
  keep[eh->e_shstrndx] = true;
  for (uint32_t i = 1; i < count; ++i)
    if (keep[i] && sh[i].sh_type == SHT_SYMTAB && sh[i].sh_link < count && has_data(sh[sh[i].sh_link]))
      keep[sh[i].sh_link] = true;

  // Layout: the header, each kept section at its alignment, the table.
  std::vector<uint32_t> index(count, SHN_UNDEF);  // old section index -> new
  std::vector<uint64_t> offset(count, 0);         // new file offset of each kept section
  uint32_t kept = 1;                              // the null section first
  uint64_t end = sizeof(Elf64_Ehdr);
  for (uint32_t i = 1; i < count; ++i) {
    if (!keep[i]) continue;
    uint64_t align = sh[i].sh_addralign;
    if (align == 0 || align > 64 || (align & (align - 1)) != 0) align = 8;
    offset[i] = (end + align - 1) & ~(align - 1);
    end = offset[i] + sh[i].sh_size;
    index[i] = kept++;
  }
  const uint64_t table = (end + 7) & ~uint64_t(7);
  std::vector<unsigned char> out(table + uint64_t(kept) * sizeof(Elf64_Shdr), 0);
  Elf64_Ehdr header = *eh;
  header.e_entry = 0;
  header.e_phoff = 0;
  header.e_phnum = 0;
  header.e_shoff = table;
  header.e_shnum = uint16_t(kept);
  header.e_shstrndx = uint16_t(index[eh->e_shstrndx]);
  memcpy(out.data(), &header, sizeof(header));
  for (uint32_t i = 1; i < count; ++i) {
    if (!keep[i]) continue;
    Elf64_Shdr section = sh[i];
    memcpy(out.data() + offset[i], elf.data + section.sh_offset, section.sh_size);
    section.sh_offset = offset[i];
    section.sh_link = section.sh_link < count ? index[section.sh_link] : SHN_UNDEF;
    memcpy(out.data() + table + uint64_t(index[i]) * sizeof(Elf64_Shdr), &section, sizeof(section));
  }
  return out;
}

Inspection inspect(const std::vector<unsigned char>& bytes, const Agent* agent) {
  Inspection result;
  const ElfImage elf{bytes.data(), bytes.size()};
  const Elf64_Ehdr* eh = bytes.size() >= sizeof(Elf64_Ehdr) ? elf.header() : nullptr;
  if (eh == nullptr || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
    log("code object refused: not an ELF image (%zu bytes)", bytes.size());
    result.status = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    return result;
  }
  const uint16_t machine = eh->e_machine;  // same offset in ELF32 and ELF64
  if (machine == EM_AMDGPU) {
    log("code object refused: it is an amdgcn code object (EM_AMDGPU, e_flags 0x%x); this "
        "agent runs host ISA %s",
        eh->e_ident[EI_CLASS] == ELFCLASS64 ? eh->e_flags : 0u, agent->isas[0]->name);
    result.status = HSA_STATUS_ERROR_INVALID_ISA;
    return result;
  }
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || machine != EM_X86_64) {
    log("code object refused: ELF machine %u class %u is not x86-64; this agent runs %s",
        machine, eh->e_ident[EI_CLASS], agent->isas[0]->name);
    result.status = HSA_STATUS_ERROR_INVALID_ISA;
    return result;
  }
  if (eh->e_type != ET_DYN) {
    log("code object refused: ELF type %u is not a shared object (ET_DYN)", eh->e_type);
    result.status = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    return result;
  }
  if (!dynamic_symbols(elf, &result.symbols)) {
    log("code object refused: malformed or missing dynamic symbol table");
    result.status = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    return result;
  }
  const DynamicSymbol* info = nullptr;
  for (const DynamicSymbol& s : result.symbols)
    if (s.name == XGPU_HOST_CODE_OBJECT_SYMBOL) info = &s;
  if (info == nullptr) {
    log("code object refused: x86-64 shared object without %s (not a host code object)",
        XGPU_HOST_CODE_OBJECT_SYMBOL);
    result.status = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    return result;
  }
  uint64_t info_offset = 0;
  uint64_t isa_vaddr = 0, isa_offset = 0;
  if (!elf.file_offset(info->value, sizeof(xgpu_host_code_object_info_t), &info_offset) ||
      !pointer_at(elf, info->value + offsetof(xgpu_host_code_object_info_t, isa_name),
                  result.symbols, &isa_vaddr) ||
      !elf.file_offset(isa_vaddr, 1, &isa_offset)) {
    log("code object refused: cannot read %s from the image", XGPU_HOST_CODE_OBJECT_SYMBOL);
    result.status = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    return result;
  }
  xgpu_host_code_object_info_t header;
  memcpy(&header, bytes.data() + info_offset, sizeof(header));
  if (header.magic != XGPU_HOST_KERNEL_MAGIC || header.abi_version != XGPU_HOST_KERNEL_ABI_VERSION) {
    log("code object refused: host ABI magic 0x%x version %u, expected 0x%x version %u",
        header.magic, header.abi_version, XGPU_HOST_KERNEL_MAGIC, XGPU_HOST_KERNEL_ABI_VERSION);
    result.status = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    return result;
  }
  const char* isa = reinterpret_cast<const char*>(bytes.data() + isa_offset);
  const void* end = memchr(isa, '\0', bytes.size() - isa_offset);
  if (end == nullptr) {
    log("code object refused: unterminated ISA name");
    result.status = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    return result;
  }
  result.isa_name = isa;
  for (const Isa* supported : agent->isas)
    if (result.isa_name == supported->name) return result;
  std::string list;
  for (const Isa* supported : agent->isas) list += std::string(list.empty() ? "" : ", ") + supported->name;
  log("code object refused: built for ISA '%s'; agent %u runs: %s", result.isa_name.c_str(),
      agent->index, list.c_str());
  result.status = HSA_STATUS_ERROR_INVALID_ISA;
  return result;
}

// The name a code object's memfd is dlopen()ed under. glibc returns the
// object already loaded under a name it has seen, and a closed memfd's
// number is reused by the next one, so every name must be new. The serial is
// spelt between "fd" and the number in separators that leave the file named
// the same ("/" for a 0 bit, "./" for a 1 bit, lowest bit first): distinct
// serials give distinct names, and a name grows by two bytes per bit, so a
// process may hold any number of code objects at once.
std::string memfd_path(int fd, uint64_t serial) {
  std::string path = "/proc/self/fd/";
  for (; serial != 0; serial >>= 1) path += (serial & 1) ? "./" : "/";
  return path + std::to_string(fd);
}

// True when dlopen's message says a resource ran out (memory, mappings,
// files) rather than that the object is malformed.
bool dlopen_out_of_resources(const char* message) {
  if (message == nullptr) return false;
  for (int error : {ENOMEM, EMFILE, ENFILE, EAGAIN})
    if (strstr(message, strerror(error)) != nullptr) return true;
  return false;
}

// dlopen()s `bytes` via a memfd without leaving a file behind.
hsa_status_t map_object(const std::vector<unsigned char>& bytes, LoadedObject* out) {
  const int fd = memfd_create("hsa-cpu-code-object", MFD_CLOEXEC);
  if (fd < 0) {
    log("memfd_create failed: %s", strerror(errno));
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n <= 0) {
      log("writing the code object to its memfd failed: %s", n < 0 ? strerror(errno) : "no progress");
      close(fd);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    written += size_t(n);
  }
  Registry& r = registry();
  hsa_status_t status = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  {
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    std::string path = memfd_path(fd, r.next_path_serial++);
    while (r.loaded_paths.count(path)) path = memfd_path(fd, r.next_path_serial++);
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* message = dlerror();
      log("dlopen of the code object failed: %s", message ? message : "(no message)");
      if (dlopen_out_of_resources(message)) status = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    } else if (r.loaded_handles.count(handle)) {
      // The memfd is new, so glibc cannot have matched it to an object we
      // hold by name or by file; refuse rather than share one.
      log("dlopen of the code object returned an object already loaded");
      dlclose(handle);
    } else {
      r.loaded_paths.insert(path);
      r.loaded_handles.insert(handle);
      out->handle = handle;
      out->path = path;
      status = HSA_STATUS_SUCCESS;
    }
  }
  close(fd);
  return status;
}

void unload_object(LoadedObject* object) {
  Registry& r = registry();
  {
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    r.loaded_paths.erase(object->path);
    r.loaded_handles.erase(object->handle);
  }
  dlclose(object->handle);
}

CodeObjectReader* lookup_reader(hsa_code_object_reader_t handle) {
  auto* reader = reinterpret_cast<CodeObjectReader*>(static_cast<uintptr_t>(handle.handle));
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  return r.readers.count(reader) ? reader : nullptr;
}

Executable* lookup_executable(hsa_executable_t handle) {
  auto* exec = reinterpret_cast<Executable*>(static_cast<uintptr_t>(handle.handle));
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  return r.executables.count(exec) ? exec : nullptr;
}

Symbol* lookup_symbol(hsa_executable_symbol_t handle) {
  auto* symbol = reinterpret_cast<Symbol*>(static_cast<uintptr_t>(handle.handle));
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  return r.symbols.count(symbol) ? symbol : nullptr;
}

hsa_executable_symbol_t to_handle(const Symbol* s) {
  return hsa_executable_symbol_t{reinterpret_cast<uintptr_t>(s)};
}
hsa_executable_t to_handle(const Executable* e) {
  return hsa_executable_t{reinterpret_cast<uintptr_t>(e)};
}

void destroy_executable(Executable* exec) {
  Registry& r = registry();
  {
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    for (auto& s : exec->symbols) {
      r.symbols.erase(s.get());
      if (s->is_kernel) r.kernel_objects.erase(reinterpret_cast<uint64_t>(s->kernel));
    }
    // Before the objects are unloaded: a memo filled before this point no
    // longer answers once their addresses can be reused.
    g_kernel_object_generation.fetch_add(1, std::memory_order_acq_rel);
  }
  for (auto& o : exec->objects) unload_object(o.get());
  delete exec;
}

// Largest file hsa_code_object_reader_create_from_file reads (1 GiB): a
// code object is far smaller, and a sparse file must not be read whole.
constexpr uint64_t kMaxCodeObjectFileBytes = uint64_t{1} << 30;

// `size` bytes from `bytes` (zeros when null) into *out; false when the
// memory cannot be had (no exception leaves the HSA API).
bool copy_bytes(const unsigned char* bytes, size_t size, std::vector<unsigned char>* out) {
  try {
    if (bytes) out->assign(bytes, bytes + size);
    else out->resize(size);
    return true;
  } catch (const std::bad_alloc&) {
    log("code object reader: cannot allocate %zu bytes", size);
    return false;
  }
}

hsa_status_t create_reader(std::vector<unsigned char>&& bytes, hsa_code_object_reader_t* out) {
  auto* reader = new (std::nothrow) CodeObjectReader();
  if (reader == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  reader->bytes = std::move(bytes);
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  try {
    r.readers.insert(reader);
  } catch (const std::bad_alloc&) {
    delete reader;
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  out->handle = reinterpret_cast<uintptr_t>(reader);
  return HSA_STATUS_SUCCESS;
}

}  // namespace

uint64_t kernel_object_generation() { return g_kernel_object_generation.load(std::memory_order_acquire); }

bool read_kernel_descriptor(uint64_t kernel_object, xgpu_host_kernel_descriptor_t* out) {
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  if (r.kernel_objects.count(kernel_object) == 0) return false;
  memcpy(out, reinterpret_cast<const void*>(kernel_object), sizeof(*out));
  return true;
}

bool describe_code_address(uint64_t pc, CodeAddress* out) {
  std::vector<unsigned char> sections;
  bool found = false;
  {
    Registry& r = registry();
    std::shared_lock<std::shared_mutex> lock(r.mutex);
    for (const Executable* exec : r.executables) {
      for (const auto& object : exec->objects) {
        if (pc < object->begin || pc >= object->end) continue;
        out->offset = pc - object->load_base;
        sections = object->report_sections;
        found = true;
        break;
      }
      if (found) break;
    }
  }
  if (!found) return false;
  find_source_position(std::move(sections), out->offset, &out->source);
  return true;
}

void destroy_all_executables() {
  Registry& r = registry();
  std::unordered_set<Executable*> executables;
  std::unordered_set<CodeObjectReader*> readers;
  {
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    executables.swap(r.executables);
    readers.swap(r.readers);
  }
  if (!executables.empty() || !readers.empty())
    log("hsa_shut_down: %zu executable(s) and %zu code object reader(s) still live (destroyed now)",
        executables.size(), readers.size());
  for (Executable* e : executables) destroy_executable(e);
  for (CodeObjectReader* reader : readers) delete reader;
}

}  // namespace hsa_cpu

using namespace hsa_cpu;

HSA_CPU_EXPORT hsa_status_t hsa_code_object_reader_create_from_memory(
    const void* code_object, size_t size, hsa_code_object_reader_t* code_object_reader) {
  HSA_CPU_REQUIRE_INIT();
  if (code_object == nullptr || size == 0 || code_object_reader == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const auto* bytes = static_cast<const unsigned char*>(code_object);
  std::vector<unsigned char> copy;
  if (!copy_bytes(bytes, size, &copy)) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  return create_reader(std::move(copy), code_object_reader);
}

HSA_CPU_EXPORT hsa_status_t hsa_code_object_reader_create_from_file(
    hsa_file_t file, hsa_code_object_reader_t* code_object_reader) {
  HSA_CPU_REQUIRE_INIT();
  if (code_object_reader == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  struct stat st;
  if (fstat(file, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    log("hsa_code_object_reader_create_from_file: fd %d is not a readable, non-empty file", file);
    return HSA_STATUS_ERROR_INVALID_FILE;
  }
  if (uint64_t(st.st_size) > kMaxCodeObjectFileBytes) {
    log("hsa_code_object_reader_create_from_file: fd %d is %lld bytes, more than the %llu a code object may have",
        file, static_cast<long long>(st.st_size), static_cast<unsigned long long>(kMaxCodeObjectFileBytes));
    return HSA_STATUS_ERROR_INVALID_FILE;
  }
  std::vector<unsigned char> bytes;
  if (!copy_bytes(nullptr, size_t(st.st_size), &bytes)) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = pread(file, bytes.data() + done, bytes.size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return HSA_STATUS_ERROR_INVALID_FILE;
    done += size_t(n);
  }
  return create_reader(std::move(bytes), code_object_reader);
}

HSA_CPU_EXPORT hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t code_object_reader) {
  HSA_CPU_REQUIRE_INIT();
  auto* reader = reinterpret_cast<CodeObjectReader*>(static_cast<uintptr_t>(code_object_reader.handle));
  {
    Registry& r = registry();
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    if (reader == nullptr || r.readers.erase(reader) == 0)
      return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  }
  delete reader;
  return HSA_STATUS_SUCCESS;
}

namespace {

// The enums are taken by reference and read as bits until checked: a value
// outside an enum's range must not be loaded as the enum.
hsa_status_t create_executable(const hsa_profile_t& profile, const hsa_default_float_rounding_mode_t& rounding,
                               const hsa_executable_state_t& state, hsa_executable_t* executable) {
  if (executable == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (enum_bits(profile) > HSA_PROFILE_FULL) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (enum_bits(rounding) > HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // Both states are valid initial states (a FROZEN one accepts no code
  // object, but is a valid executable).
  if (enum_bits(state) != HSA_EXECUTABLE_STATE_UNFROZEN && enum_bits(state) != HSA_EXECUTABLE_STATE_FROZEN)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto* exec = new (std::nothrow) Executable();
  if (exec == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  exec->profile = profile;
  exec->rounding = rounding;
  exec->state = state;
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  r.executables.insert(exec);
  *executable = to_handle(exec);
  return HSA_STATUS_SUCCESS;
}

}  // namespace

HSA_CPU_EXPORT hsa_status_t hsa_executable_create(hsa_profile_t profile,
                                                  hsa_executable_state_t executable_state,
                                                  const char* options, hsa_executable_t* executable) {
  HSA_CPU_REQUIRE_INIT();
  return create_executable(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, executable_state,
                           executable);
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_create_alt(
    hsa_profile_t profile, hsa_default_float_rounding_mode_t default_float_rounding_mode,
    const char* options, hsa_executable_t* executable) {
  HSA_CPU_REQUIRE_INIT();
  return create_executable(profile, default_float_rounding_mode, HSA_EXECUTABLE_STATE_UNFROZEN,
                           executable);
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_destroy(hsa_executable_t executable) {
  HSA_CPU_REQUIRE_INIT();
  auto* exec = reinterpret_cast<Executable*>(static_cast<uintptr_t>(executable.handle));
  {
    Registry& r = registry();
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    if (exec == nullptr || r.executables.erase(exec) == 0) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  }
  destroy_executable(exec);
  return HSA_STATUS_SUCCESS;
}

namespace {

hsa_status_t load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                    hsa_code_object_reader_t code_object_reader,
                                    hsa_loaded_code_object_t* loaded_code_object);

}  // namespace

HSA_CPU_EXPORT hsa_status_t hsa_executable_load_agent_code_object(
    hsa_executable_t executable, hsa_agent_t agent, hsa_code_object_reader_t code_object_reader,
    const char* options, hsa_loaded_code_object_t* loaded_code_object) {
  HSA_CPU_REQUIRE_INIT();
  // Host memory running out while the symbols are collected is a status,
  // not an exception through the C API.
  try {
    return load_agent_code_object(executable, agent, code_object_reader, loaded_code_object);
  } catch (const std::bad_alloc&) {
    log("hsa_executable_load_agent_code_object: out of host memory");
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}

namespace {

hsa_status_t load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                    hsa_code_object_reader_t code_object_reader,
                                    hsa_loaded_code_object_t* loaded_code_object) {
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  const Agent* a = runtime()->agent(agent);
  if (a == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  CodeObjectReader* reader = lookup_reader(code_object_reader);
  if (reader == nullptr) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  {
    Registry& r = registry();
    std::shared_lock<std::shared_mutex> lock(r.mutex);
    if (exec->state == HSA_EXECUTABLE_STATE_FROZEN) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  }

  Inspection inspection = inspect(reader->bytes, a);
  if (inspection.status != HSA_STATUS_SUCCESS) return inspection.status;

  // Everything that may throw before the object is mapped.
  const ElfImage elf{reader->bytes.data(), reader->bytes.size()};
  auto object = std::make_unique<LoadedObject>();
  object->agent = a;
  object->report_sections = report_sections(elf);
  // A code object a fault can be described with: libdw is loaded now, once
  // per process, so that the first fault's report does not wait for it.
  if (!object->report_sections.empty()) source_lines_prepare();
  uint64_t segments_begin = 0, segments_end = 0;
  const bool has_segments = segment_range(elf, &segments_begin, &segments_end);
  hsa_status_t status = map_object(reader->bytes, object.get());
  if (status != HSA_STATUS_SUCCESS) return status;
  link_map* map = nullptr;
  if (has_segments && dlinfo(object->handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr) {
    object->load_base = uint64_t(map->l_addr);
    object->begin = object->load_base + segments_begin;
    object->end = object->load_base + segments_end;
  }

  std::vector<std::unique_ptr<Symbol>> symbols;
  for (const DynamicSymbol& ds : inspection.symbols) {
    if (!ds.is_object || ds.name == XGPU_HOST_CODE_OBJECT_SYMBOL) continue;
    // Names starting with "__" belong to the implementation (e.g. the
    // sanitizers' "__odr_asan_gen_K.kd" indicators), not to the program.
    if (ds.name.compare(0, 2, "__") == 0) continue;
    void* address = dlsym(object->handle, ds.name.c_str());
    if (address == nullptr) continue;
    auto symbol = std::make_unique<Symbol>();
    symbol->agent = a;
    symbol->name = ds.name;
    symbol->address = address;
    symbol->size = ds.size;
    symbol->kernel = nullptr;
    const bool is_kernel =
        ds.name.size() > kKdSuffixLength &&
        ds.name.compare(ds.name.size() - kKdSuffixLength, kKdSuffixLength,
                        XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX) == 0;
    symbol->is_kernel = is_kernel;
    if (is_kernel) {
      const auto* kd = static_cast<const xgpu_host_kernel_descriptor_t*>(address);
      if (ds.size < sizeof(*kd) || kd->magic != XGPU_HOST_KERNEL_MAGIC ||
          kd->abi_version != XGPU_HOST_KERNEL_ABI_VERSION || kd->run_workgroup == nullptr) {
        log("code object refused: %s is not a valid host kernel descriptor (size %llu, magic "
            "0x%x, abi %u)", ds.name.c_str(), static_cast<unsigned long long>(ds.size),
            ds.size >= 8 ? kd->magic : 0u, ds.size >= 8 ? kd->abi_version : 0u);
        unload_object(object.get());
        return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
      }
      symbol->kernel = kd;
    }
    symbols.push_back(std::move(symbol));
  }

  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  for (auto& s : symbols) {
    s->executable = exec;
    r.symbols.insert(s.get());
    if (s->is_kernel) r.kernel_objects.insert(reinterpret_cast<uint64_t>(s->kernel));
    exec->symbols.push_back(std::move(s));
  }
  if (loaded_code_object) loaded_code_object->handle = reinterpret_cast<uintptr_t>(object.get());
  exec->objects.push_back(std::move(object));
  return HSA_STATUS_SUCCESS;
}

}  // namespace

HSA_CPU_EXPORT hsa_status_t hsa_executable_load_program_code_object(
    hsa_executable_t executable, hsa_code_object_reader_t code_object_reader, const char* options,
    hsa_loaded_code_object_t* loaded_code_object) {
  HSA_CPU_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (lookup_reader(code_object_reader) == nullptr) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  {
    Registry& r = registry();
    std::shared_lock<std::shared_mutex> lock(r.mutex);
    if (exec->state == HSA_EXECUTABLE_STATE_FROZEN) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  }
  // "Not compatible with the implementation": hsa-cpu has agent code
  // objects only.
  log("hsa_executable_load_program_code_object: host code objects are agent code objects; use "
      "hsa_executable_load_agent_code_object");
  return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_freeze(hsa_executable_t executable, const char* options) {
  HSA_CPU_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  if (exec->state == HSA_EXECUTABLE_STATE_FROZEN) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  exec->state = HSA_EXECUTABLE_STATE_FROZEN;
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_get_info(hsa_executable_t executable,
                                                    hsa_executable_info_t attribute, void* value) {
  HSA_CPU_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (enum_bits(attribute)) {
    case HSA_EXECUTABLE_INFO_PROFILE: *static_cast<hsa_profile_t*>(value) = exec->profile; break;
    case HSA_EXECUTABLE_INFO_STATE: {
      Registry& r = registry();
      std::shared_lock<std::shared_mutex> lock(r.mutex);
      *static_cast<hsa_executable_state_t*>(value) = exec->state;
      break;
    }
    case HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
      *static_cast<hsa_default_float_rounding_mode_t*>(value) = exec->rounding;
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_validate(hsa_executable_t executable, uint32_t* result) {
  HSA_CPU_REQUIRE_INIT();
  if (lookup_executable(executable) == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = 0;  // every loaded object was checked at load time
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_validate_alt(hsa_executable_t executable,
                                                        const char* options, uint32_t* result) {
  return hsa_executable_validate(executable, result);
}

namespace {

// Finds `name` or `name.kd` among the executable's symbols for `agent`
// (any agent when null).
Symbol* find_symbol(Executable* exec, const char* name, const Agent* agent) {
  const std::string wanted(name);
  const std::string wanted_kd = wanted + XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX;
  for (auto& s : exec->symbols) {
    if (agent != nullptr && s->agent != agent) continue;
    if (s->name == wanted || (s->is_kernel && s->name == wanted_kd)) return s.get();
  }
  return nullptr;
}

}  // namespace

HSA_CPU_EXPORT hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t executable,
                                                              const char* symbol_name,
                                                              const hsa_agent_t* agent,
                                                              hsa_executable_symbol_t* symbol) {
  HSA_CPU_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (symbol_name == nullptr || symbol == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const Agent* a = nullptr;
  if (agent != nullptr && (a = runtime()->agent(*agent)) == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  Symbol* s = find_symbol(exec, symbol_name, a);
  if (s == nullptr) {
    log("hsa_executable_get_symbol_by_name: no symbol '%s' (nor '%s%s')", symbol_name, symbol_name,
        XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX);
    return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  }
  *symbol = to_handle(s);
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_get_symbol(hsa_executable_t executable,
                                                      const char* module_name,
                                                      const char* symbol_name, hsa_agent_t agent,
                                                      int32_t call_convention,
                                                      hsa_executable_symbol_t* symbol) {
  return hsa_executable_get_symbol_by_name(executable, symbol_name, &agent, symbol);
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t executable_symbol,
                                                           hsa_executable_symbol_info_t attribute,
                                                           void* value) {
  HSA_CPU_REQUIRE_INIT();
  Symbol* s = lookup_symbol(executable_symbol);
  if (s == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const xgpu_host_kernel_descriptor_t* kd = s->kernel;
  switch (enum_bits(attribute)) {
    case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
      *static_cast<hsa_symbol_kind_t*>(value) = s->is_kernel ? HSA_SYMBOL_KIND_KERNEL : HSA_SYMBOL_KIND_VARIABLE;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH:
      *static_cast<uint32_t*>(value) = uint32_t(s->name.size());
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME:
      memcpy(value, s->name.data(), s->name.size());
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH:
      *static_cast<uint32_t*>(value) = 0;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME:
      return HSA_STATUS_SUCCESS;  // program/agent linkage: no module name
    case HSA_EXECUTABLE_SYMBOL_INFO_AGENT:
      *static_cast<hsa_agent_t*>(value) = to_handle(s->agent);
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE:
      *static_cast<hsa_symbol_linkage_t*>(value) = HSA_SYMBOL_LINKAGE_PROGRAM;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION:
      *static_cast<bool*>(value) = true;
      return HSA_STATUS_SUCCESS;
    default: break;
  }
  if (!s->is_kernel) {
    switch (enum_bits(attribute)) {
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS:
        *static_cast<uint64_t*>(value) = reinterpret_cast<uint64_t>(s->address);
        return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION:
        *static_cast<hsa_variable_allocation_t*>(value) = HSA_VARIABLE_ALLOCATION_AGENT;
        return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT:
        *static_cast<hsa_variable_segment_t*>(value) = HSA_VARIABLE_SEGMENT_GLOBAL;
        return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT: {
        // The largest power of two (up to 16) dividing the address.
        uint32_t align = 16;
        while (align > 1 && (reinterpret_cast<uintptr_t>(s->address) % align) != 0) align /= 2;
        *static_cast<uint32_t*>(value) = align;
        return HSA_STATUS_SUCCESS;
      }
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE:
        *static_cast<uint32_t*>(value) = uint32_t(s->size);
        return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST:
        *static_cast<bool*>(value) = false;
        return HSA_STATUS_SUCCESS;
      default:
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  switch (enum_bits(attribute)) {
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
      *static_cast<uint64_t*>(value) = reinterpret_cast<uint64_t>(kd);
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
      *static_cast<uint32_t*>(value) = kd->kernarg_size;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT:
      *static_cast<uint32_t*>(value) = kd->kernarg_alignment;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
      *static_cast<uint32_t*>(value) = kd->group_segment_size;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
      *static_cast<uint32_t*>(value) = kd->private_segment_size;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK:
      *static_cast<bool*>(value) = false;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION:
      *static_cast<uint32_t*>(value) = 0;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

namespace {

// Snapshot of symbol handles so callbacks may use the API freely.
std::vector<Symbol*> symbols_of(Executable* exec, const Agent* agent) {
  std::vector<Symbol*> out;
  for (auto& s : exec->symbols)
    if (agent == nullptr || s->agent == agent) out.push_back(s.get());
  return out;
}

}  // namespace

HSA_CPU_EXPORT hsa_status_t hsa_executable_iterate_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_executable_symbol_t symbol, void* data),
    void* data) {
  HSA_CPU_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (Symbol* s : symbols_of(exec, nullptr)) {
    const hsa_status_t status = callback(executable, to_handle(s), data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_iterate_agent_symbols(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_agent_t agent,
                             hsa_executable_symbol_t symbol, void* data),
    void* data) {
  HSA_CPU_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  const Agent* a = runtime()->agent(agent);
  if (a == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (Symbol* s : symbols_of(exec, a)) {
    const hsa_status_t status = callback(executable, agent, to_handle(s), data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_iterate_program_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_executable_symbol_t symbol, void* data),
    void* data) {
  HSA_CPU_REQUIRE_INIT();
  if (lookup_executable(executable) == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;  // host code objects define agent symbols only
}

namespace {

// hsa_executable_{global,agent_global,readonly}_variable_define. `agent`
// is null for a program allocation (global_variable_define).
hsa_status_t define_variable(const char* function, hsa_executable_t executable, const hsa_agent_t* agent,
                             const char* variable_name, void* address) {
  HSA_CPU_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  const Agent* a = nullptr;
  if (agent != nullptr && (a = runtime()->agent(*agent)) == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (variable_name == nullptr || address == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  if (exec->state == HSA_EXECUTABLE_STATE_FROZEN) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  for (const VariableDefinition& d : exec->definitions) {
    if (d.name == variable_name && d.agent == a) {
      log("%s: '%s' is already defined in this executable", function, variable_name);
      return HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED;
    }
  }
  exec->definitions.push_back(VariableDefinition{variable_name, a, address});
  return HSA_STATUS_SUCCESS;
}

}  // namespace

HSA_CPU_EXPORT hsa_status_t hsa_executable_global_variable_define(hsa_executable_t executable,
                                                                  const char* variable_name, void* address) {
  return define_variable("hsa_executable_global_variable_define", executable, nullptr, variable_name, address);
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_agent_global_variable_define(hsa_executable_t executable,
                                                                        hsa_agent_t agent,
                                                                        const char* variable_name, void* address) {
  return define_variable("hsa_executable_agent_global_variable_define", executable, &agent, variable_name, address);
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_readonly_variable_define(hsa_executable_t executable, hsa_agent_t agent,
                                                                    const char* variable_name, void* address) {
  return define_variable("hsa_executable_readonly_variable_define", executable, &agent, variable_name, address);
}

// v2 code objects (hsa_code_object_t) cannot exist on hsa-cpu: every handle
// is invalid once the executable and agent are.
HSA_CPU_EXPORT hsa_status_t hsa_executable_load_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                                            hsa_code_object_t code_object, const char* options) {
  HSA_CPU_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (runtime()->agent(agent) == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  {
    Registry& r = registry();
    std::shared_lock<std::shared_mutex> lock(r.mutex);
    if (exec->state == HSA_EXECUTABLE_STATE_FROZEN) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  }
  log("hsa_executable_load_code_object: hsa-cpu has no v2 code objects; load host code objects through "
      "hsa_executable_load_agent_code_object");
  return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
}
