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
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <hsa_core/backend.h>
#include <hsa_core/executable.h>

#include "runtime.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

namespace hsa_cpu {
namespace {

constexpr size_t kKdSuffixLength = sizeof(XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX) - 1;

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

// The dlopen names and handles of the loaded objects: each object gets a
// name (and so a handle) of its own.
struct Registry {
  std::mutex mutex;
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

Inspection inspect(const unsigned char* data, size_t size, const Agent* agent) {
  Inspection result;
  const ElfImage elf{data, size};
  const Elf64_Ehdr* eh = size >= sizeof(Elf64_Ehdr) ? elf.header() : nullptr;
  if (eh == nullptr || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
    log("code object refused: not an ELF image (%zu bytes)", size);
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
  memcpy(&header, data + info_offset, sizeof(header));
  if (header.magic != XGPU_HOST_KERNEL_MAGIC || header.abi_version != XGPU_HOST_KERNEL_ABI_VERSION) {
    log("code object refused: host ABI magic 0x%x version %u, expected 0x%x version %u",
        header.magic, header.abi_version, XGPU_HOST_KERNEL_MAGIC, XGPU_HOST_KERNEL_ABI_VERSION);
    result.status = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    return result;
  }
  const char* isa = reinterpret_cast<const char*>(data + isa_offset);
  const void* end = memchr(isa, '\0', size - isa_offset);
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
hsa_status_t map_object(const unsigned char* data, size_t size, LoadedObject* out) {
  const int fd = memfd_create("hsa-cpu-code-object", MFD_CLOEXEC);
  if (fd < 0) {
    log("memfd_create failed: %s", strerror(errno));
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  size_t written = 0;
  while (written < size) {
    const ssize_t n = write(fd, data + written, size - written);
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
    std::lock_guard<std::mutex> lock(r.mutex);
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
    std::lock_guard<std::mutex> lock(r.mutex);
    r.loaded_paths.erase(object->path);
    r.loaded_handles.erase(object->handle);
  }
  dlclose(object->handle);
}

// Backend::load_code_object: checks the image (inspect), dlopens it and
// reports its dynamic symbols; kernels are the `*.kd` ones, whose host
// kernel descriptor must be valid.
hsa_status_t load_code_object(hsa_agent_t agent, const void* bytes, size_t size, hsa_core::LoadedCode* out) {
  const Agent* a = runtime()->agent(agent);
  const auto* data = static_cast<const unsigned char*>(bytes);
  Inspection inspection = inspect(data, size, a);
  if (inspection.status != HSA_STATUS_SUCCESS) return inspection.status;

  // Everything that may throw before the object is mapped.
  const ElfImage elf{data, size};
  auto object = std::make_unique<LoadedObject>();
  object->agent = a;
  object->report_sections = report_sections(elf);
  // A code object a fault can be described with: libdw is loaded now, once
  // per process, so that the first fault's report does not wait for it.
  if (!object->report_sections.empty()) source_lines_prepare();
  uint64_t segments_begin = 0, segments_end = 0;
  const bool has_segments = segment_range(elf, &segments_begin, &segments_end);
  std::vector<hsa_core::CodeSymbol> symbols;
  symbols.reserve(inspection.symbols.size());
  hsa_status_t status = map_object(data, size, object.get());
  if (status != HSA_STATUS_SUCCESS) return status;
  link_map* map = nullptr;
  if (has_segments && dlinfo(object->handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr) {
    object->load_base = uint64_t(map->l_addr);
    object->begin = object->load_base + segments_begin;
    object->end = object->load_base + segments_end;
  }
  try {
    for (const DynamicSymbol& ds : inspection.symbols) {
      if (!ds.is_object || ds.name == XGPU_HOST_CODE_OBJECT_SYMBOL) continue;
      // Names starting with "__" belong to the implementation (e.g. the
      // sanitizers' "__odr_asan_gen_K.kd" indicators), not to the program.
      if (ds.name.compare(0, 2, "__") == 0) continue;
      void* address = dlsym(object->handle, ds.name.c_str());
      if (address == nullptr) continue;
      hsa_core::CodeSymbol symbol;
      symbol.name = ds.name;
      symbol.address = reinterpret_cast<uint64_t>(address);
      symbol.size = ds.size;
      symbol.is_kernel = ds.name.size() > kKdSuffixLength &&
                         ds.name.compare(ds.name.size() - kKdSuffixLength, kKdSuffixLength,
                                         XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX) == 0;
      if (symbol.is_kernel) {
        const auto* kd = static_cast<const xgpu_host_kernel_descriptor_t*>(address);
        if (ds.size < sizeof(*kd) || kd->magic != XGPU_HOST_KERNEL_MAGIC ||
            kd->abi_version != XGPU_HOST_KERNEL_ABI_VERSION || kd->run_workgroup == nullptr) {
          log("code object refused: %s is not a valid host kernel descriptor (size %llu, magic "
              "0x%x, abi %u)", ds.name.c_str(), static_cast<unsigned long long>(ds.size),
              ds.size >= 8 ? kd->magic : 0u, ds.size >= 8 ? kd->abi_version : 0u);
          unload_object(object.get());
          return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
        }
        symbol.kernel_object = reinterpret_cast<uint64_t>(kd);
        symbol.kernarg_size = kd->kernarg_size;
        symbol.kernarg_alignment = kd->kernarg_alignment;
        symbol.group_segment_size = kd->group_segment_size;
        symbol.private_segment_size = kd->private_segment_size;
      }
      symbols.push_back(std::move(symbol));
    }
  } catch (const std::bad_alloc&) {
    unload_object(object.get());
    throw;
  }
  out->symbols = std::move(symbols);
  out->object = object.release();
  return HSA_STATUS_SUCCESS;
}

// Backend::unload_code_object.
void unload_code_object(void* object) {
  auto* loaded = static_cast<LoadedObject*>(object);
  unload_object(loaded);
  delete loaded;
}

}  // namespace

bool read_kernel_descriptor(uint64_t kernel_object, xgpu_host_kernel_descriptor_t* out) {
  return hsa_core::read_kernel_object(kernel_object, [&] {
    memcpy(out, reinterpret_cast<const void*>(kernel_object), sizeof(*out));
  });
}

bool describe_code_address(uint64_t pc, CodeAddress* out) {
  std::vector<unsigned char> sections;
  const bool found = hsa_core::find_loaded_code_object([&](void* object) {
    const auto* loaded = static_cast<const LoadedObject*>(object);
    if (pc < loaded->begin || pc >= loaded->end) return false;
    out->offset = pc - loaded->load_base;
    sections = loaded->report_sections;
    return true;
  });
  if (!found) return false;
  find_source_position(std::move(sections), out->offset, &out->source);
  return true;
}

void set_code_object_hooks(hsa_core::Backend& backend) {
  backend.load_code_object = load_code_object;
  backend.unload_code_object = unload_code_object;
}

}  // namespace hsa_cpu
