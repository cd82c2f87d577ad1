// Code objects: a bounds-checked ELF64 reader over untrusted bytes (plain
// <elf.h> structs, copied out with memcpy so no alignment is assumed), the
// AMDGPU metadata note (msgpack, via msgpack-cxx with size and depth limits),
// host kernel descriptors (<xgpu/host_kernel.h>) and the kernel layout
// records of both kinds (<xgpu/executable_format.h>).
#include <elf.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstddef>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#define MSGPACK_NO_BOOST 1
#include <msgpack.hpp>

#include <xgpu/host_kernel.h>

#include "format_util.h"
#include "xgpu_common/format.h"
#include "xgpu_executable.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

namespace xgpu::executable {
namespace {

// Facts from the AMDGPU ELF ABI (LLVM AMDGPUUsage, amd_hsa_elf.h).
constexpr uint8_t kElfOsAbiAmdgpuHsa = 64;      // ELFOSABI_AMDGPU_HSA
constexpr uint32_t kNtAmdgpuMetadata = 32;      // NT_AMDGPU_METADATA
constexpr std::string_view kAmdgpuNoteName = "AMDGPU";
// Limits on the metadata document: generous for real code objects, small
// enough that a hostile note cannot make the parser allocate much.
constexpr size_t kMaxMetadataBytes = 1u << 20;
const msgpack::unpack_limit kMetadataLimits(/*array=*/4096, /*map=*/4096, /*str=*/4096,
                                            /*bin=*/4096, /*ext=*/4096, /*depth=*/16);
constexpr size_t kMaxKernels = 4096;
constexpr size_t kMaxSymbols = 1u << 20;
constexpr size_t kMaxStringLength = 4096;

class Elf {
 public:
  Status open(std::span<const uint8_t> bytes) {
    bytes_ = bytes;
    if (bytes.size() < sizeof(Elf64_Ehdr)) {
      return Status::error("truncated ELF: " + std::to_string(bytes.size()) + " bytes, the ELF header needs " +
                           std::to_string(sizeof(Elf64_Ehdr)));
    }
    std::memcpy(&header_, bytes.data(), sizeof(header_));
    if (std::memcmp(header_.e_ident, ELFMAG, SELFMAG) != 0) return Status::error("not an ELF file (bad magic)");
    if (header_.e_ident[EI_CLASS] != ELFCLASS64) return Status::error("not a 64-bit ELF file");
    if (header_.e_ident[EI_DATA] != ELFDATA2LSB) return Status::error("not a little-endian ELF file");
    if (header_.e_type != ET_DYN) {
      return Status::error("ELF type " + std::to_string(header_.e_type) + " is not ET_DYN (shared object)");
    }
    if (header_.e_shnum == 0 || header_.e_shoff == 0) return Status::error("ELF has no section headers");
    if (header_.e_shentsize != sizeof(Elf64_Shdr)) {
      return Status::error("ELF e_shentsize is " + std::to_string(header_.e_shentsize) + ", expected " +
                           std::to_string(sizeof(Elf64_Shdr)));
    }
    if (!range_inside(header_.e_shoff, uint64_t{header_.e_shnum} * sizeof(Elf64_Shdr), bytes.size())) {
      return Status::error("ELF section header table [" + std::to_string(header_.e_shoff) + ", +" +
                           std::to_string(uint64_t{header_.e_shnum} * sizeof(Elf64_Shdr)) +
                           ") extends past the end of the code object (" + std::to_string(bytes.size()) +
                           " bytes)");
    }
    sections_.resize(header_.e_shnum);
    std::memcpy(sections_.data(), bytes.data() + header_.e_shoff, sections_.size() * sizeof(Elf64_Shdr));
    for (size_t i = 0; i < sections_.size(); ++i) {
      const Elf64_Shdr& s = sections_[i];
      if (s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL && !range_inside(s.sh_offset, s.sh_size, bytes.size())) {
        return Status::error("ELF section " + std::to_string(i) + " [" + std::to_string(s.sh_offset) + ", +" +
                             std::to_string(s.sh_size) + ") extends past the end of the code object (" +
                             std::to_string(bytes.size()) + " bytes)");
      }
    }
    if (header_.e_shstrndx == SHN_UNDEF || header_.e_shstrndx >= sections_.size()) {
      return Status::error("ELF e_shstrndx " + std::to_string(header_.e_shstrndx) + " is not a section index");
    }
    if (header_.e_phnum != 0) {
      if (header_.e_phentsize != sizeof(Elf64_Phdr)) {
        return Status::error("ELF e_phentsize is " + std::to_string(header_.e_phentsize) + ", expected " +
                             std::to_string(sizeof(Elf64_Phdr)));
      }
      if (!range_inside(header_.e_phoff, uint64_t{header_.e_phnum} * sizeof(Elf64_Phdr), bytes.size())) {
        return Status::error("ELF program header table extends past the end of the code object");
      }
      segments_.resize(header_.e_phnum);
      std::memcpy(segments_.data(), bytes.data() + header_.e_phoff, segments_.size() * sizeof(Elf64_Phdr));
    }
    index_relocations();
    return {};
  }

  const Elf64_Ehdr& header() const { return header_; }
  const std::vector<Elf64_Shdr>& sections() const { return sections_; }
  const std::vector<Elf64_Phdr>& segments() const { return segments_; }

  std::span<const uint8_t> data(const Elf64_Shdr& s) const {
    if (s.sh_type == SHT_NOBITS || s.sh_type == SHT_NULL) return {};
    return bytes_.subspan(s.sh_offset, s.sh_size);  // checked in open()
  }

  // A NUL-terminated string at `offset` in string table section `index`.
  Status string_at(uint32_t index, uint64_t offset, std::string_view* out) const {
    if (index >= sections_.size() || sections_[index].sh_type != SHT_STRTAB) {
      return Status::error("ELF string table index " + std::to_string(index) + " is not a string table");
    }
    std::span<const uint8_t> table = data(sections_[index]);
    if (offset >= table.size()) {
      return Status::error("ELF string offset " + std::to_string(offset) + " is outside its string table (" +
                           std::to_string(table.size()) + " bytes)");
    }
    const auto* begin = reinterpret_cast<const char*>(table.data() + offset);
    size_t limit = std::min<size_t>(table.size() - offset, kMaxStringLength);
    const void* nul = std::memchr(begin, 0, limit);
    if (!nul) return Status::error("ELF string at offset " + std::to_string(offset) + " is not NUL-terminated");
    *out = std::string_view(begin, static_cast<const char*>(nul) - begin);
    return {};
  }

  Status section_name(const Elf64_Shdr& s, std::string_view* out) const {
    return string_at(header_.e_shstrndx, s.sh_name, out);
  }

  // The symbols of the first section of `type` (SHT_DYNSYM or SHT_SYMTAB);
  // `out_strtab` is the index of its string table. Empty when absent.
  Status symbols(uint32_t type, std::vector<Elf64_Sym>* out, uint32_t* out_strtab) const {
    out->clear();
    for (const Elf64_Shdr& s : sections_) {
      if (s.sh_type != type) continue;
      if (s.sh_entsize != sizeof(Elf64_Sym)) {
        return Status::error("ELF symbol table entry size is " + std::to_string(s.sh_entsize) + ", expected " +
                             std::to_string(sizeof(Elf64_Sym)));
      }
      std::span<const uint8_t> table = data(s);
      size_t count = table.size() / sizeof(Elf64_Sym);
      if (count > kMaxSymbols) return Status::error("ELF symbol table has " + std::to_string(count) + " symbols");
      out->resize(count);
      if (count != 0) std::memcpy(out->data(), table.data(), count * sizeof(Elf64_Sym));
      *out_strtab = s.sh_link;
      return {};
    }
    return {};
  }

  // Bytes at virtual address [vaddr, vaddr + size) from the section that
  // contains them in the file.
  Status bytes_at(uint64_t vaddr, uint64_t size, std::span<const uint8_t>* out) const {
    for (const Elf64_Shdr& s : sections_) {
      if (!(s.sh_flags & SHF_ALLOC) || s.sh_type == SHT_NOBITS || s.sh_type == SHT_NULL) continue;
      if (vaddr < s.sh_addr || !range_inside(vaddr - s.sh_addr, size, s.sh_size)) continue;
      *out = data(s).subspan(vaddr - s.sh_addr, size);
      return {};
    }
    return Status::error("ELF address " + xgpu_common::hex(vaddr) + " (+" + std::to_string(size) +
                         " bytes) is not inside any section with file contents");
  }

  // What a pointer-sized field at `vaddr` holds once relocated: the addend of
  // an R_X86_64_RELATIVE relocation, else the bytes in the file.
  Status pointer_at(uint64_t vaddr, uint64_t* out) const {
    auto it = std::lower_bound(relocation_order_.begin(), relocation_order_.end(), vaddr,
                               [&](size_t i, uint64_t offset) { return relocations_[i].r_offset < offset; });
    if (it != relocation_order_.end() && relocations_[*it].r_offset == vaddr) {
      const Elf64_Rela& rela = relocations_[*it];
      if (ELF64_R_TYPE(rela.r_info) != R_X86_64_RELATIVE) {
        return Status::error("ELF pointer at " + xgpu_common::hex(vaddr) + " has a relocation of type " +
                             std::to_string(ELF64_R_TYPE(rela.r_info)) + ", expected R_X86_64_RELATIVE");
      }
      *out = static_cast<uint64_t>(rela.r_addend);
      return {};
    }
    if (bad_relocation_section_) return Status::error("ELF relocation entry size is wrong");
    std::span<const uint8_t> raw;
    Status status = bytes_at(vaddr, sizeof(uint64_t), &raw);
    if (!status.ok()) return status;
    std::memcpy(out, raw.data(), sizeof(uint64_t));
    return {};
  }

  // A NUL-terminated string at virtual address `vaddr`.
  Status string_at_address(uint64_t vaddr, std::string* out) const {
    for (const Elf64_Shdr& s : sections_) {
      if (!(s.sh_flags & SHF_ALLOC) || s.sh_type == SHT_NOBITS || s.sh_type == SHT_NULL) continue;
      if (vaddr < s.sh_addr || vaddr - s.sh_addr >= s.sh_size) continue;
      std::span<const uint8_t> rest = data(s).subspan(vaddr - s.sh_addr);
      size_t limit = std::min<size_t>(rest.size(), kMaxStringLength);
      const void* nul = std::memchr(rest.data(), 0, limit);
      if (!nul) return Status::error("ELF string at " + xgpu_common::hex(vaddr) + " is not NUL-terminated");
      out->assign(reinterpret_cast<const char*>(rest.data()), static_cast<const uint8_t*>(nul) - rest.data());
      return {};
    }
    return Status::error("ELF string address " + xgpu_common::hex(vaddr) + " is not inside any section with file contents");
  }

 private:
  std::span<const uint8_t> bytes_;
  Elf64_Ehdr header_{};
  std::vector<Elf64_Shdr> sections_;
  std::vector<Elf64_Phdr> segments_;
  // Entries of the SHT_RELA sections in section order, and their indices
  // sorted by (r_offset, index): for each offset the relocation a scan in
  // section order would meet first comes first.
  std::vector<Elf64_Rela> relocations_;
  std::vector<size_t> relocation_order_;
  // An SHT_RELA section with a wrong entry size; relocations_ holds only the
  // sections before it (what a scan in section order reads before failing).
  bool bad_relocation_section_ = false;

  // Reads the relocations once so that pointer_at() is a binary search, not
  // a scan of every relocation per pointer.
  void index_relocations() {
    for (const Elf64_Shdr& s : sections_) {
      if (s.sh_type != SHT_RELA) continue;
      if (s.sh_entsize != sizeof(Elf64_Rela)) {
        bad_relocation_section_ = true;
        break;
      }
      std::span<const uint8_t> table = data(s);
      const size_t count = table.size() / sizeof(Elf64_Rela);
      const size_t first = relocations_.size();
      relocations_.resize(first + count);
      if (count != 0) std::memcpy(relocations_.data() + first, table.data(), count * sizeof(Elf64_Rela));
    }
    relocation_order_.resize(relocations_.size());
    for (size_t i = 0; i < relocation_order_.size(); ++i) relocation_order_[i] = i;
    std::sort(relocation_order_.begin(), relocation_order_.end(), [&](size_t a, size_t b) {
      return relocations_[a].r_offset != relocations_[b].r_offset ? relocations_[a].r_offset < relocations_[b].r_offset
                                                                  : a < b;
    });
  }
};

// --- AMDGPU metadata --------------------------------------------------------

const msgpack::object* map_find(const msgpack::object& map, std::string_view key) {
  if (map.type != msgpack::type::MAP) return nullptr;
  for (uint32_t i = 0; i < map.via.map.size; ++i) {
    const msgpack::object_kv& kv = map.via.map.ptr[i];
    if (kv.key.type == msgpack::type::STR && std::string_view(kv.key.via.str.ptr, kv.key.via.str.size) == key) {
      return &kv.val;
    }
  }
  return nullptr;
}

Status get_u32(const msgpack::object& map, std::string_view key, bool required, uint32_t* out,
               const std::string& who) {
  const msgpack::object* value = map_find(map, key);
  if (!value) {
    if (required) return Status::error(who + ": metadata key " + std::string(key) + " is missing");
    return {};
  }
  if (value->type != msgpack::type::POSITIVE_INTEGER || value->via.u64 > UINT32_MAX) {
    return Status::error(who + ": metadata key " + std::string(key) + " is not a 32-bit unsigned integer");
  }
  *out = static_cast<uint32_t>(value->via.u64);
  return {};
}

Status get_str(const msgpack::object& map, std::string_view key, std::string* out, const std::string& who) {
  const msgpack::object* value = map_find(map, key);
  if (!value) return Status::error(who + ": metadata key " + std::string(key) + " is missing");
  if (value->type != msgpack::type::STR) {
    return Status::error(who + ": metadata key " + std::string(key) + " is not a string");
  }
  out->assign(value->via.str.ptr, value->via.str.size);
  return {};
}

Status parse_amdgpu_metadata(std::span<const uint8_t> note, CodeObjectInfo* info) {
  if (note.size() > kMaxMetadataBytes) {
    return Status::error("AMDGPU metadata note is " + std::to_string(note.size()) + " bytes, more than " +
                         std::to_string(kMaxMetadataBytes));
  }
  msgpack::object_handle handle;
  try {
    handle = msgpack::unpack(reinterpret_cast<const char*>(note.data()), note.size(), nullptr, nullptr,
                             kMetadataLimits);
  } catch (const std::exception& e) {
    return Status::error(std::string("AMDGPU metadata is not valid msgpack: ") + e.what());
  }
  const msgpack::object& root = handle.get();
  if (root.type != msgpack::type::MAP) return Status::error("AMDGPU metadata is not a msgpack map");
  Status status = get_str(root, "amdhsa.target", &info->isa_name, "AMDGPU metadata");
  if (!status.ok()) return status;
  if (const msgpack::object* version = map_find(root, "amdhsa.version")) {
    if (version->type != msgpack::type::ARRAY || version->via.array.size != 2 ||
        version->via.array.ptr[0].type != msgpack::type::POSITIVE_INTEGER ||
        version->via.array.ptr[1].type != msgpack::type::POSITIVE_INTEGER) {
      return Status::error("AMDGPU metadata: amdhsa.version is not [major, minor]");
    }
    info->amdhsa_version[0] = static_cast<uint32_t>(version->via.array.ptr[0].via.u64);
    info->amdhsa_version[1] = static_cast<uint32_t>(version->via.array.ptr[1].via.u64);
  }
  const msgpack::object* kernels = map_find(root, "amdhsa.kernels");
  if (!kernels) return {};  // a code object without kernels
  if (kernels->type != msgpack::type::ARRAY) return Status::error("AMDGPU metadata: amdhsa.kernels is not an array");
  if (kernels->via.array.size > kMaxKernels) {
    return Status::error("AMDGPU metadata: " + std::to_string(kernels->via.array.size) + " kernels");
  }
  for (uint32_t k = 0; k < kernels->via.array.size; ++k) {
    const msgpack::object& kernel = kernels->via.array.ptr[k];
    std::string who = "AMDGPU metadata kernel " + std::to_string(k);
    if (kernel.type != msgpack::type::MAP) return Status::error(who + " is not a map");
    KernelInfo ki;
    if (!(status = get_str(kernel, ".name", &ki.name, who)).ok()) return status;
    who = "AMDGPU metadata kernel '" + ki.name + "'";
    std::string symbol;
    if (!(status = get_str(kernel, ".symbol", &symbol, who)).ok()) return status;
    if (symbol != ki.name + XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX) {
      return Status::error(who + ": descriptor symbol '" + symbol + "' is not '" + ki.name + ".kd'");
    }
    if (!(status = get_u32(kernel, ".kernarg_segment_size", true, &ki.kernarg_size, who)).ok()) return status;
    if (!(status = get_u32(kernel, ".kernarg_segment_align", true, &ki.kernarg_alignment, who)).ok()) return status;
    if (!(status = get_u32(kernel, ".group_segment_fixed_size", true, &ki.group_segment_size, who)).ok())
      return status;
    if (!(status = get_u32(kernel, ".private_segment_fixed_size", true, &ki.private_segment_size, who)).ok())
      return status;
    if (!(status = get_u32(kernel, ".max_flat_workgroup_size", false, &ki.max_flat_workgroup_size, who)).ok())
      return status;
    if (!(status = get_u32(kernel, ".wavefront_size", false, &ki.wavefront_size, who)).ok()) return status;
    if (!(status = get_u32(kernel, ".sgpr_count", false, &ki.sgpr_count, who)).ok()) return status;
    if (!(status = get_u32(kernel, ".vgpr_count", false, &ki.vgpr_count, who)).ok()) return status;
    if (const msgpack::object* dyn = map_find(kernel, ".uses_dynamic_stack")) {
      ki.uses_dynamic_stack = dyn->type == msgpack::type::BOOLEAN && dyn->via.boolean;
    }
    if (const msgpack::object* reqd = map_find(kernel, ".reqd_workgroup_size")) {
      if (reqd->type != msgpack::type::ARRAY || reqd->via.array.size != 3) {
        return Status::error(who + ": .reqd_workgroup_size is not an array of 3");
      }
      for (int d = 0; d < 3; ++d) {
        const msgpack::object& v = reqd->via.array.ptr[d];
        if (v.type != msgpack::type::POSITIVE_INTEGER || v.via.u64 > UINT32_MAX) {
          return Status::error(who + ": .reqd_workgroup_size has a non-integer");
        }
        ki.required_workgroup_size[d] = static_cast<uint32_t>(v.via.u64);
      }
    }
    if (const msgpack::object* args = map_find(kernel, ".args")) {
      if (args->type != msgpack::type::ARRAY) return Status::error(who + ": .args is not an array");
      for (uint32_t a = 0; a < args->via.array.size; ++a) {
        std::string kind;
        if (!(status = get_str(args->via.array.ptr[a], ".value_kind", &kind, who + " argument " + std::to_string(a)))
                 .ok())
          return status;
        if (kind.starts_with("hidden_")) {
          ki.hidden_args.push_back(kind);
        } else {
          ++ki.explicit_arg_count;
        }
      }
    }
    info->kernels.push_back(std::move(ki));
  }
  return {};
}

Status read_amdgpu(const Elf& elf, CodeObjectInfo* info) {
  bool found = false;
  for (const Elf64_Shdr& s : elf.sections()) {
    if (s.sh_type != SHT_NOTE) continue;
    std::span<const uint8_t> notes = elf.data(s);
    size_t at = 0;
    while (notes.size() - at >= sizeof(Elf64_Nhdr)) {
      Elf64_Nhdr nhdr;
      std::memcpy(&nhdr, notes.data() + at, sizeof(nhdr));
      at += sizeof(nhdr);
      const uint64_t name_padded = (uint64_t{nhdr.n_namesz} + 3) & ~uint64_t{3};
      const uint64_t desc_padded = (uint64_t{nhdr.n_descsz} + 3) & ~uint64_t{3};
      if (!range_inside(at, name_padded, notes.size()) || !range_inside(at + name_padded, nhdr.n_descsz, notes.size())) {
        return Status::error("ELF note extends past the end of its section");
      }
      std::string_view name(reinterpret_cast<const char*>(notes.data() + at), nhdr.n_namesz);
      if (!name.empty() && name.back() == '\0') name.remove_suffix(1);
      std::span<const uint8_t> desc = notes.subspan(at + name_padded, nhdr.n_descsz);
      if (name == kAmdgpuNoteName && nhdr.n_type == kNtAmdgpuMetadata) {
        if (found) return Status::error("AMDGPU code object has more than one metadata note");
        found = true;
        Status status = parse_amdgpu_metadata(desc, info);
        if (!status.ok()) return status;
      }
      at += name_padded;
      at += std::min<uint64_t>(desc_padded, notes.size() - at);
    }
  }
  if (!found) return Status::error("AMDGPU code object has no NT_AMDGPU_METADATA note (code object v3 or later)");
  return {};
}

// --- host -------------------------------------------------------------------

// The records of XGPU_HOST_WILOOP_PATHS_SECTION ("<kernel>\0<paths>\0",
// concatenated) into the kernels of `info` they name.
Status read_wiloop_paths(const Elf& elf, CodeObjectInfo* info) {
  const std::string section_name = XGPU_HOST_WILOOP_PATHS_SECTION;
  for (const Elf64_Shdr& s : elf.sections()) {
    std::string_view name;
    Status status = elf.section_name(s, &name);
    if (!status.ok()) return status;
    if (name != section_name) continue;
    if (s.sh_type != SHT_PROGBITS) {
      return Status::error("section " + section_name + " has type " + std::to_string(s.sh_type) +
                           ", expected SHT_PROGBITS (" + std::to_string(SHT_PROGBITS) + ")");
    }
    const std::span<const uint8_t> bytes = elf.data(s);
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    for (size_t at = 0; at < text.size();) {
      const size_t name_end = text.find('\0', at);
      const size_t paths_end = name_end == std::string_view::npos ? name_end : text.find('\0', name_end + 1);
      if (paths_end == std::string_view::npos) {
        return Status::error("section " + section_name + ": the record at offset " + std::to_string(at) +
                             " is not two NUL-terminated strings");
      }
      const std::string_view kernel = text.substr(at, name_end - at);
      auto it = std::find_if(info->kernels.begin(), info->kernels.end(),
                             [&](const KernelInfo& k) { return k.name == kernel; });
      if (it == info->kernels.end()) {
        return Status::error("section " + section_name + ": the record at offset " + std::to_string(at) +
                             " names kernel '" + std::string(kernel) + "', which the code object does not define");
      }
      it->wiloop_paths = std::string(text.substr(name_end + 1, paths_end - name_end - 1));
      at = paths_end + 1;
    }
  }
  return {};
}

Status read_host(const Elf& elf, CodeObjectInfo* info) {
  std::vector<Elf64_Sym> symbols;
  uint32_t strtab = 0;
  Status status = elf.symbols(SHT_DYNSYM, &symbols, &strtab);
  if (!status.ok()) return status;
  const std::string_view suffix = XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX;
  bool found_info = false;
  for (size_t i = 1; i < symbols.size(); ++i) {
    const Elf64_Sym& sym = symbols[i];
    if (sym.st_shndx == SHN_UNDEF) continue;
    std::string_view name;
    if (!(status = elf.string_at(strtab, sym.st_name, &name)).ok()) return status;
    if (name == XGPU_HOST_CODE_OBJECT_SYMBOL) {
      xgpu_host_code_object_info_t raw;
      std::span<const uint8_t> bytes;
      if (!(status = elf.bytes_at(sym.st_value, sizeof(raw), &bytes)).ok()) {
        return Status::error(std::string(XGPU_HOST_CODE_OBJECT_SYMBOL) + ": " + status.message());
      }
      std::memcpy(&raw, bytes.data(), sizeof(raw));
      if (raw.magic != XGPU_HOST_KERNEL_MAGIC || raw.abi_version != XGPU_HOST_KERNEL_ABI_VERSION) {
        return Status::error(std::string(XGPU_HOST_CODE_OBJECT_SYMBOL) + ": magic " + xgpu_common::hex(raw.magic) +
                             " / ABI version " + std::to_string(raw.abi_version) + ", expected " +
                             xgpu_common::hex(XGPU_HOST_KERNEL_MAGIC) + " / " + std::to_string(XGPU_HOST_KERNEL_ABI_VERSION));
      }
      uint64_t name_address = 0;
      if (!(status = elf.pointer_at(sym.st_value + offsetof(xgpu_host_code_object_info_t, isa_name), &name_address))
               .ok())
        return status;
      if (!(status = elf.string_at_address(name_address, &info->isa_name)).ok()) {
        return Status::error(std::string(XGPU_HOST_CODE_OBJECT_SYMBOL) + ".isa_name: " + status.message());
      }
      found_info = true;
      continue;
    }
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
    KernelInfo ki;
    ki.name = std::string(name.substr(0, name.size() - suffix.size()));
    const std::string who = "host kernel descriptor '" + std::string(name) + "'";
    if (sym.st_size != sizeof(xgpu_host_kernel_descriptor_t)) {
      return Status::error(who + " is " + std::to_string(sym.st_size) + " bytes, expected " +
                           std::to_string(sizeof(xgpu_host_kernel_descriptor_t)));
    }
    xgpu_host_kernel_descriptor_t raw;
    std::span<const uint8_t> bytes;
    if (!(status = elf.bytes_at(sym.st_value, sizeof(raw), &bytes)).ok()) {
      return Status::error(who + ": " + status.message());
    }
    std::memcpy(&raw, bytes.data(), sizeof(raw));
    if (raw.magic != XGPU_HOST_KERNEL_MAGIC || raw.abi_version != XGPU_HOST_KERNEL_ABI_VERSION) {
      return Status::error(who + ": magic " + xgpu_common::hex(raw.magic) + " / ABI version " + std::to_string(raw.abi_version) +
                           ", expected " + xgpu_common::hex(XGPU_HOST_KERNEL_MAGIC) + " / " +
                           std::to_string(XGPU_HOST_KERNEL_ABI_VERSION));
    }
    uint64_t run_workgroup = 0, run_workitem = 0, name_address = 0;
    if (!(status = elf.pointer_at(sym.st_value + offsetof(xgpu_host_kernel_descriptor_t, run_workgroup),
                                  &run_workgroup))
             .ok() ||
        !(status = elf.pointer_at(sym.st_value + offsetof(xgpu_host_kernel_descriptor_t, run_workitem),
                                  &run_workitem))
             .ok() ||
        !(status = elf.pointer_at(sym.st_value + offsetof(xgpu_host_kernel_descriptor_t, name), &name_address))
             .ok()) {
      return Status::error(who + ": " + status.message());
    }
    std::string descriptor_name;
    if (!(status = elf.string_at_address(name_address, &descriptor_name)).ok()) {
      return Status::error(who + ".name: " + status.message());
    }
    if (descriptor_name != ki.name) {
      return Status::error(who + ": name field '" + descriptor_name + "' differs from the symbol");
    }
    if (run_workgroup == 0) return Status::error(who + ": run_workgroup is null");
    ki.uses_barriers = (raw.flags & XGPU_HOST_KERNEL_FLAG_USES_BARRIERS) != 0;
    if (ki.uses_barriers && run_workitem == 0) {
      return Status::error(who + ": uses barriers but run_workitem is null");
    }
    if (raw.flags & ~(XGPU_HOST_KERNEL_FLAG_USES_BARRIERS | XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS |
                      XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS)) {
      return Status::error(who + ": unknown flags " + xgpu_common::hex(raw.flags));
    }
    // A barrier kernel runs runs of workgroups only as work-item loops
    // (its fiber entry runs one workgroup).
    if ((raw.flags & XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS) && ki.uses_barriers &&
        !(raw.flags & XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS)) {
      return Status::error(who + ": flags " + xgpu_common::hex(raw.flags) +
                           " have workgroup runs with barriers but no work-item loops");
    }
    ki.workitem_loops = (raw.flags & XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS) != 0;
    if (ki.workitem_loops && !ki.uses_barriers) {
      return Status::error(who + ": flags " + xgpu_common::hex(raw.flags) + " have work-item loops without barriers");
    }
    ki.kernarg_size = raw.kernarg_size;
    ki.kernarg_alignment = raw.kernarg_alignment;
    ki.group_segment_size = raw.group_segment_size;
    ki.private_segment_size = raw.private_segment_size;
    std::copy(std::begin(raw.required_workgroup_size), std::end(raw.required_workgroup_size),
              ki.required_workgroup_size);
    if (info->kernels.size() >= kMaxKernels) return Status::error("host code object has too many kernels");
    info->kernels.push_back(std::move(ki));
  }
  if (!found_info) {
    return Status::error("host code object does not export " + std::string(XGPU_HOST_CODE_OBJECT_SYMBOL));
  }
  return read_wiloop_paths(elf, info);
}

// --- kernel layout records (both kinds) --------------------------------------

std::string list_kernel_names(const CodeObjectInfo& info) {
  std::string names;
  for (const KernelInfo& k : info.kernels) names += (names.empty() ? "" : ", ") + k.name;
  return names.empty() ? "(none)" : names;
}

// Reads the records of XGPU_KERNEL_LAYOUT_SECTION into the kernels of
// `info` (sorted by name). Every record is checked before anything is
// trusted: a layout the driver takes from here must fit the kernarg segment.
Status read_layout_records(std::span<const uint8_t> bytes, CodeObjectInfo* info);

Status read_layouts(const Elf& elf, CodeObjectInfo* info) {
  const std::string section_name = XGPU_KERNEL_LAYOUT_SECTION;
  const Elf64_Shdr* section = nullptr;
  for (const Elf64_Shdr& s : elf.sections()) {
    std::string_view name;
    Status status = elf.section_name(s, &name);
    if (!status.ok()) return status;
    if (name != section_name) continue;
    if (section) return Status::error("the code object has more than one " + section_name + " section");
    section = &s;
  }
  if (!section) return {};  // no kernel declares its layout
  if (section->sh_type != SHT_PROGBITS) {
    return Status::error("section " + section_name + " has type " + std::to_string(section->sh_type) +
                         ", expected SHT_PROGBITS (" + std::to_string(SHT_PROGBITS) + ")");
  }
  return read_layout_records(elf.data(*section), info);
}

// The records of XGPU_KERNEL_LAYOUT_SECTION (or, in PTX, of the layout
// arrays), concatenated: layout records, kernel flags records and binding
// access records, told apart by their magic, each a header (16 bytes; 48 for
// an access record) and a name field.
Status read_layout_records(std::span<const uint8_t> bytes, CodeObjectInfo* info) {
  const std::string section_name = XGPU_KERNEL_LAYOUT_SECTION;
  constexpr uint64_t kSmallHeader = sizeof(xgpu_kernel_layout_record_t);
  static_assert(sizeof(xgpu_kernel_flags_record_t) == kSmallHeader, "one header size for layout and flags records");
  std::vector<bool> flagged(info->kernels.size());   // per kernel: a flags record read
  std::vector<bool> accessed(info->kernels.size());  // per kernel: an access record read
  for (uint64_t at = 0; at < bytes.size();) {
    const std::string where = section_name + " record at offset " + std::to_string(at);
    const uint64_t left = bytes.size() - at;
    if (left < kSmallHeader) {
      return Status::error(where + ": " + std::to_string(left) + " bytes left, a record header needs " +
                           std::to_string(kSmallHeader));
    }
    xgpu_kernel_layout_record_t record;
    std::memcpy(&record, bytes.data() + at, sizeof(record));
    const bool flags_record = record.magic == XGPU_KERNEL_FLAGS_MAGIC;
    const bool access_record = record.magic == XGPU_KERNEL_ACCESS_MAGIC;
    if (record.magic != XGPU_KERNEL_LAYOUT_MAGIC && !flags_record && !access_record) {
      return Status::error(where + ": magic " + xgpu_common::hex(record.magic) + " is none of XGPU_KERNEL_LAYOUT_MAGIC (" +
                           xgpu_common::hex(XGPU_KERNEL_LAYOUT_MAGIC) + "), XGPU_KERNEL_FLAGS_MAGIC (" +
                           xgpu_common::hex(XGPU_KERNEL_FLAGS_MAGIC) + ") and XGPU_KERNEL_ACCESS_MAGIC (" +
                           xgpu_common::hex(XGPU_KERNEL_ACCESS_MAGIC) + ")");
    }
    const uint64_t kHeaderSize = access_record ? sizeof(xgpu_kernel_access_record_t) : kSmallHeader;
    if (record.record_size < kHeaderSize + XGPU_KERNEL_LAYOUT_ALIGNMENT ||
        record.record_size % XGPU_KERNEL_LAYOUT_ALIGNMENT != 0 ||
        record.record_size - kHeaderSize > XGPU_KERNEL_LAYOUT_MAX_NAME_SIZE) {
      return Status::error(where + ": record_size " + std::to_string(record.record_size) + " is not " +
                           std::to_string(kHeaderSize) + " plus a name field of " +
                           std::to_string(XGPU_KERNEL_LAYOUT_ALIGNMENT) + " to " +
                           std::to_string(XGPU_KERNEL_LAYOUT_MAX_NAME_SIZE) + " bytes in steps of " +
                           std::to_string(XGPU_KERNEL_LAYOUT_ALIGNMENT));
    }
    if (record.record_size > left) {
      return Status::error(where + ": record_size " + std::to_string(record.record_size) +
                           " extends past the end of the section (" + std::to_string(left) + " bytes left)");
    }
    const std::span<const uint8_t> field = bytes.subspan(at + kHeaderSize, record.record_size - kHeaderSize);
    const void* nul = std::memchr(field.data(), 0, field.size());
    if (!nul) return Status::error(where + ": the kernel name is not NUL-terminated within record_size " +
                                   std::to_string(record.record_size));
    const std::string name(reinterpret_cast<const char*>(field.data()), static_cast<const uint8_t*>(nul) - field.data());
    if (name.empty()) return Status::error(where + ": the kernel name is empty");
    // The name field is exactly the name, its NUL and zero padding to 8:
    // anything else is not what <xgpu/kernel.h> writes.
    const uint64_t padded = (name.size() + 1 + XGPU_KERNEL_LAYOUT_ALIGNMENT - 1) / XGPU_KERNEL_LAYOUT_ALIGNMENT *
                            XGPU_KERNEL_LAYOUT_ALIGNMENT;
    if (padded != field.size()) {
      return Status::error(where + ": record_size " + std::to_string(record.record_size) + " does not fit the name '" +
                           name + "' (" + std::to_string(kHeaderSize + padded) + " bytes)");
    }
    if (std::any_of(field.begin() + static_cast<ptrdiff_t>(name.size()), field.end(), [](uint8_t b) { return b != 0; })) {
      return Status::error(where + ": non-zero bytes after the kernel name '" + name + "'");
    }
    const std::string who = section_name +
                            (flags_record ? " flags record" : access_record ? " binding access record" : " record") +
                            " of kernel '" + name + "'";
    auto kernel = std::lower_bound(info->kernels.begin(), info->kernels.end(), name,
                                   [](const KernelInfo& k, const std::string& n) { return k.name < n; });
    if (kernel == info->kernels.end() || kernel->name != name) {
      return Status::error(who + ": the code object has no kernel '" + name +
                           "' (its kernels: " + list_kernel_names(*info) + ")");
    }
    if (access_record) {
      xgpu_kernel_access_record_t access;
      std::memcpy(&access, bytes.data() + at, sizeof(access));
      const size_t index = static_cast<size_t>(kernel - info->kernels.begin());
      if (accessed[index]) return Status::error(who + ": the kernel has two binding access records");
      if (access.binding_count > XGPU_KERNEL_ACCESS_MAX_BINDINGS) {
        return Status::error(who + ": binding_count " + std::to_string(access.binding_count) + " is more than " +
                             std::to_string(XGPU_KERNEL_ACCESS_MAX_BINDINGS));
      }
      if (access.reserved != 0) return Status::error(who + ": reserved is " + xgpu_common::hex(access.reserved) + ", not zero");
      const uint64_t valid =
          access.binding_count == 64 ? ~uint64_t{0} : (uint64_t{1} << access.binding_count) - 1;
      const uint64_t all = access.read_mask | access.write_mask | access.atomic_mask | access.unknown_mask;
      if (all & ~valid) {
        return Status::error(who + ": masks name bindings past binding_count " + std::to_string(access.binding_count) +
                             " (bits " + xgpu_common::hex(all & ~valid) + ")");
      }
      const uint64_t both = access.read_mask & access.write_mask & access.atomic_mask;
      if ((access.unknown_mask & ~both) != 0) {
        return Status::error(who + ": a binding in unknown_mask lacks its read, write or atomic bit");
      }
      accessed[index] = true;
      kernel->access_known = true;
      kernel->access_binding_count = access.binding_count;
      kernel->binding_reads = access.read_mask;
      kernel->binding_writes = access.write_mask;
      kernel->binding_atomics = access.atomic_mask;
      kernel->binding_unknown = access.unknown_mask;
      at += record.record_size;
      continue;
    }
    if (flags_record) {
      xgpu_kernel_flags_record_t flags;
      std::memcpy(&flags, bytes.data() + at, sizeof(flags));
      const size_t index = static_cast<size_t>(kernel - info->kernels.begin());
      if (flagged[index]) return Status::error(who + ": the kernel has two flags records");
      if (flags.flags & ~uint32_t{XGPU_KERNEL_FLAGS_KNOWN}) {
        return Status::error(who + ": flags " + xgpu_common::hex(flags.flags) + " have bits this reader does not know (" +
                             xgpu_common::hex(flags.flags & ~uint32_t{XGPU_KERNEL_FLAGS_KNOWN}) + "; known: " +
                             xgpu_common::hex(XGPU_KERNEL_FLAGS_KNOWN) + ")");
      }
      if (flags.reserved != 0) {
        return Status::error(who + ": reserved is " + xgpu_common::hex(flags.reserved) + ", not zero");
      }
      flagged[index] = true;
      kernel->prints = (flags.flags & XGPU_KERNEL_FLAG_PRINTS) != 0;
      kernel->bounds_checked = (flags.flags & XGPU_KERNEL_FLAG_BOUNDS_CHECKED) != 0;
      // Its reports are print records: it needs the print slots.
      if (kernel->bounds_checked && !kernel->prints)
        return Status::error(who + ": XGPU_KERNEL_FLAG_BOUNDS_CHECKED without XGPU_KERNEL_FLAG_PRINTS");
      at += record.record_size;
      continue;
    }
    if (kernel->layout_declared) return Status::error(who + ": the kernel has two layout records");
    if (record.kernarg_size != kernel->kernarg_size) {
      if (!kernel->hidden_args.empty() && record.kernarg_size < kernel->kernarg_size) {
        // What AMDGPU does to a kernel that makes a call it cannot see
        // through: it reserves the implicit arguments after the explicit ones.
        return Status::error(who + ": the kernel takes hidden kernel arguments (a kernarg segment of " +
                             std::to_string(kernel->kernarg_size) + " bytes, its argument struct " +
                             std::to_string(record.kernarg_size) + ", then " + hidden_args_list(*kernel) +
                             "): " + kHiddenArgsCause);
      }
      return Status::error(who + ": kernarg_size " + std::to_string(record.kernarg_size) +
                           " differs from the kernel's kernarg segment size " + std::to_string(kernel->kernarg_size));
    }
    const uint64_t binding_bytes = uint64_t{record.binding_count} * XGPU_KERNEL_LAYOUT_BINDING_SIZE;
    if (binding_bytes > kernel->kernarg_size) {
      return Status::error(who + ": binding_count " + std::to_string(record.binding_count) + " needs " +
                           std::to_string(binding_bytes) + " bytes of binding pointers, more than the kernarg size " +
                           std::to_string(kernel->kernarg_size));
    }
    kernel->layout_declared = true;
    kernel->binding_count = record.binding_count;
    kernel->constant_size = kernel->kernarg_size - static_cast<uint32_t>(binding_bytes);
    at += record.record_size;
  }
  // An access record describes the bindings the kernel's layout declares.
  for (const KernelInfo& kernel : info->kernels) {
    if (!kernel.access_known) continue;
    if (!kernel.layout_declared || kernel.access_binding_count != kernel.binding_count) {
      return Status::error(section_name + " binding access record of kernel '" + kernel.name + "': binding_count " +
                           std::to_string(kernel.access_binding_count) + (kernel.layout_declared ? " differs from the " + std::to_string(kernel.binding_count) + " of its layout record" : ", but the kernel declares no layout"));
    }
  }
  return {};
}


// --- NVPTX (PTX text) -----------------------------------------------------------

// PTX is text: checked as such before anything is parsed.
Status ptx_text(std::span<const uint8_t> code_object, std::string* out) {
  if (code_object.empty()) return Status::error("the PTX text is empty");
  if (std::memchr(code_object.data(), 0, code_object.size())) {
    return Status::error("the PTX text holds a NUL byte");
  }
  out->assign(reinterpret_cast<const char*>(code_object.data()), code_object.size());
  if (out->find(".version ") == std::string::npos) return Status::error("the PTX text has no .version directive");
  if (out->find(".target sm_") == std::string::npos) return Status::error("the PTX text has no .target sm_<N> directive");
  return {};
}

// One `.param` declaration: its size and alignment in bytes.
Status ptx_param(const std::string& decl, uint32_t* size, uint32_t* align, const std::string& who) {
  static const struct {
    const char* type;
    uint32_t size;
  } kTypes[] = {{".b8 ", 1},  {".u8 ", 1},  {".s8 ", 1},  {".b16 ", 2}, {".u16 ", 2}, {".s16 ", 2},
                {".f16 ", 2}, {".b32 ", 4}, {".u32 ", 4}, {".s32 ", 4}, {".f32 ", 4}, {".b64 ", 8},
                {".u64 ", 8}, {".s64 ", 8}, {".f64 ", 8}};
  *size = 0;
  *align = 0;
  if (size_t a = decl.find(".align "); a != std::string::npos) *align = uint32_t(std::strtoul(decl.c_str() + a + 7, nullptr, 10));
  for (const auto& t : kTypes) {
    if (decl.find(t.type) == std::string::npos) continue;
    *size = t.size;
    if (!*align) *align = t.size;
    break;
  }
  if (!*size || !*align || (*align & (*align - 1))) return Status::error(who + ": parameter '" + decl + "' is not understood");
  if (size_t b = decl.find('['); b != std::string::npos) *size *= uint32_t(std::strtoul(decl.c_str() + b + 1, nullptr, 10));
  return {};
}

// Whether PTX text `body` names the identifier `name` (not as part of a longer one).
bool ptx_names(const std::string& body, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; };
  for (size_t p = 0; (p = body.find(name, p)) != std::string::npos; p += name.size()) {
    if ((p == 0 || !ident(body[p - 1])) && (p + name.size() >= body.size() || !ident(body[p + name.size()])))
      return true;
  }
  return false;
}

// The body ("{" to "}") of the PTX function `name` (.func or .entry), or "".
std::string ptx_function_body(const std::string& text, const std::string& name) {
  for (size_t p = 0; (p = text.find(name, p)) != std::string::npos; p += name.size()) {
    const size_t line = text.rfind('\n', p);
    const std::string head = text.substr(line == std::string::npos ? 0 : line + 1, p - (line == std::string::npos ? 0 : line + 1));
    if (head.find(".func") == std::string::npos && head.find(".entry") == std::string::npos) continue;
    size_t after = p + name.size();
    while (after < text.size() && text[after] == ' ') ++after;
    if (after >= text.size() || text[after] != '(') continue;
    const size_t params_end = text.find(')', after);
    if (params_end == std::string::npos) return {};
    size_t next = params_end + 1;
    while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
    if (next < text.size() && text[next] == ';') continue;  // a prototype, not the definition
    const size_t open = text.find("\n{", params_end);
    if (open == std::string::npos) return {};
    const size_t close = text.find("\n}", open);
    return text.substr(open, close == std::string::npos ? std::string::npos : close - open);
  }
  return {};
}

// The group memory an entry whose body is `body` uses through module-scope
// `.shared` variables: NVPTX declares a function's static group memory at
// module scope when more than one function refers to it (a kernel and its
// bounds-checked copy, K__xgpu_checked). Counts each variable `body`, or a
// function it calls (transitively), names.
uint32_t ptx_module_shared_bytes(const std::string& text, const std::string& body,
                                 const std::vector<std::pair<std::string, uint32_t>>& shared) {
  std::vector<std::string> bodies{body}, seen;
  std::vector<bool> counted(shared.size(), false);
  uint32_t bytes = 0;
  while (!bodies.empty()) {
    const std::string b = std::move(bodies.back());
    bodies.pop_back();
    for (size_t i = 0; i < shared.size(); ++i) {
      if (!counted[i] && ptx_names(b, shared[i].first)) {
        counted[i] = true;
        bytes += shared[i].second;
      }
    }
    // Callees: "call[.uni] (ret), NAME, (" or "call[.uni] NAME, (".
    for (size_t c = 0; (c = b.find("call", c)) != std::string::npos; c += 4) {
      size_t n = b.find_first_of("\n", c);
      const std::string call = b.substr(c, n == std::string::npos ? std::string::npos : n - c);
      if (call.rfind("call", 0) != 0 || (call.size() > 4 && call[4] != '.' && call[4] != ' ' && call[4] != '\t')) continue;
      // The callee is on this line or the next non-empty one: the first
      // identifier that is not a parameter list.
      size_t from = c + 4;
      while (from < b.size() && b[from] != ' ' && b[from] != '\t' && b[from] != '\n') ++from;  // past ".uni"
      std::string rest = b.substr(from, 400);
      size_t k = 0;
      std::string callee;
      while (k < rest.size() && callee.empty()) {
        const char ch = rest[k];
        if (ch == '(') {
          const size_t close = rest.find(')', k);
          if (close == std::string::npos) break;
          k = close + 1;
        } else if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$') {
          size_t e = k;
          while (e < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[e])) || rest[e] == '_' || rest[e] == '$')) ++e;
          callee = rest.substr(k, e - k);
        } else {
          ++k;
        }
      }
      if (callee.empty() || std::find(seen.begin(), seen.end(), callee) != seen.end()) continue;
      seen.push_back(callee);
      std::string callee_body = ptx_function_body(text, callee);
      if (!callee_body.empty()) bodies.push_back(std::move(callee_body));
    }
  }
  return bytes;
}

Status read_ptx(const std::string& text, CodeObjectInfo* info) {
  const size_t target = text.find(".target sm_");
  size_t end = text.find_first_of(" ,\n\r\t", target + 8);
  info->isa_name = "nvptx64-nvidia-cuda--" + text.substr(target + 8, end == std::string::npos ? std::string::npos : end - target - 8);
  // Module-scope `.shared` variables (name, bytes); see ptx_module_shared_bytes.
  std::vector<std::pair<std::string, uint32_t>> module_shared;
  for (size_t p = 0; (p = text.find("\n.shared ", p)) != std::string::npos; ++p) {
    const size_t stop = text.find(';', p);
    if (stop == std::string::npos) return Status::error("a module-scope .shared declaration has no end");
    const std::string decl = text.substr(p + 1, stop - p - 1);
    uint32_t size, align;
    Status status = ptx_param(decl, &size, &align, "module-scope group memory");
    if (!status.ok()) return status;
    const std::string head = decl.substr(0, decl.find('['));
    const size_t space = head.find_last_of(" \t");
    module_shared.push_back({head.substr(space == std::string::npos ? 0 : space + 1), size});
  }
  for (size_t at = 0; (at = text.find(".entry ", at)) != std::string::npos;) {
    at += 7;
    const size_t open = text.find('(', at);
    const size_t close = open == std::string::npos ? open : text.find(')', open);
    if (close == std::string::npos) return Status::error("a .entry has no parameter list");
    KernelInfo k;
    size_t name_end = open;
    while (name_end > at && std::isspace(static_cast<unsigned char>(text[name_end - 1]))) --name_end;
    k.name = text.substr(at, name_end - at);
    const std::string who = "kernel '" + k.name + "'";
    const std::string params = text.substr(open + 1, close - open - 1);
    std::vector<std::pair<uint32_t, uint32_t>> sizes;  // size, alignment
    for (size_t p = 0; (p = params.find(".param", p)) != std::string::npos; p += 6) {
      const size_t stop = params.find_first_of(",\n", p);
      uint32_t size, align;
      Status status = ptx_param(params.substr(p, stop == std::string::npos ? std::string::npos : stop - p), &size, &align, who);
      if (!status.ok()) return status;
      sizes.push_back({size, align});
    }
    k.explicit_arg_count = uint32_t(sizes.size());
    // <xgpu/kernel.h>'s nvptx entry: the argument struct, then the grid
    // (xgpu_nvptx_grid_t: size[3], a zero word, the kernarg address; 24
    // bytes).
    constexpr uint32_t kGridParamSize = 24;
    if (sizes.size() != 2) {
      return Status::error(who + " has " + std::to_string(sizes.size()) +
                           " parameters; an xgpu kernel on nvptx has two (its argument struct, the grid)");
    }
    if (sizes[1].first != kGridParamSize) {
      return Status::error(who + "'s second parameter (the grid, xgpu_nvptx_grid_t) is " +
                           std::to_string(sizes[1].first) + " bytes, not " + std::to_string(kGridParamSize) +
                           ": the kernel was built with another version of <xgpu/kernel.h>");
    }
    k.kernarg_size = sizes[0].first;
    k.kernarg_alignment = std::max<uint32_t>(4, sizes[0].second);
    // Static shared memory declared in the entry's body (up to the next
    // function).
    size_t body_end = text.find("\n}", close);
    const std::string body = text.substr(close, body_end == std::string::npos ? std::string::npos : body_end - close);
    for (size_t p = 0; (p = body.find(".shared ", p)) != std::string::npos; p += 8) {
      const size_t line = body.rfind('\n', p);
      const std::string prefix = body.substr(line == std::string::npos ? 0 : line + 1, p - (line == std::string::npos ? 0 : line + 1));
      if (prefix.find(".extern") != std::string::npos) continue;
      const size_t stop = body.find(';', p);
      uint32_t size, align;
      Status status = ptx_param(body.substr(p, stop - p), &size, &align, who);
      if (!status.ok()) return status;
      k.group_segment_size += size;
    }
    k.group_segment_size += ptx_module_shared_bytes(text, body, module_shared);
    // XGPU_KERNEL_NVPTX_REQUIRED_SIZE_: <kernel>_xgpu_required_size_, three
    // little-endian uint32_t (absent or all zero: none).
    const std::string required = ".b8 " + k.name + "_xgpu_required_size_[12]";
    if (size_t r = text.find(required); r != std::string::npos) {
      const size_t stop = text.find(';', r);
      const size_t brace = text.find('{', r);
      if (brace != std::string::npos && brace < stop) {
        uint8_t bytes[12] = {};
        size_t i = 0;
        for (const char* c = text.c_str() + brace + 1; *c && *c != '}' && i < 12;) {
          char* next = nullptr;
          const unsigned long v = std::strtoul(c, &next, 10);
          if (next == c) {
            ++c;
            continue;
          }
          bytes[i++] = uint8_t(v);
          c = next;
        }
        std::memcpy(k.required_workgroup_size, bytes, sizeof(bytes));
      }
    }
    info->kernels.push_back(k);
    at = close;
  }
  return {};
}

// The `<kernel>_xgpu_layout_` arrays' bytes, in the order they appear.
Status ptx_layout_bytes(const std::string& text, std::vector<uint8_t>* out) {
  static const std::string kSuffix = "_xgpu_layout_[";
  for (size_t at = 0; (at = text.find(kSuffix, at)) != std::string::npos; at += kSuffix.size()) {
    const size_t line = text.rfind('\n', at);
    if (text.compare(line + 1, 8, ".global ") != 0) continue;
    const size_t size = std::strtoul(text.c_str() + at + kSuffix.size(), nullptr, 10);
    if (size == 0 || size > 4096) return Status::error("a layout array has an invalid size");
    std::vector<uint8_t> bytes(size, 0);
    const size_t stop = text.find(';', at);
    const size_t brace = text.find('{', at);
    if (brace != std::string::npos && brace < stop) {
      size_t i = 0;
      for (const char* c = text.c_str() + brace + 1; *c && *c != '}';) {
        char* next = nullptr;
        const unsigned long v = std::strtoul(c, &next, 10);
        if (next == c) {
          ++c;
          continue;
        }
        if (i >= size || v > 255) return Status::error("a layout array's initializer does not fit its size");
        bytes[i++] = uint8_t(v);
        c = next;
      }
    }
    out->insert(out->end(), bytes.begin(), bytes.end());
  }
  return {};
}

// Writable data: every `.global` is a layout array or initialized constant
// data; no external functions.
Status check_ptx_rules(const std::string& text) {
  for (size_t at = 0; (at = text.find("\n.global ", at)) != std::string::npos; ++at) {
    const std::string line = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
    if (line.find(" = {") == std::string::npos && line.find("_xgpu_layout_[") == std::string::npos &&
        line.find("_xgpu_required_size_[") == std::string::npos) {
      return Status::error("writable global '" + line +
                           "': kernels must not have globals or static variables other than const data and "
                           "groupshared memory");
    }
  }
  for (size_t at = 0; (at = text.find(".extern .func", at)) != std::string::npos; ++at) {
    const size_t stop = text.find('\n', at);
    return Status::error("undefined function (" + text.substr(at, stop - at) +
                         "): kernels must not call libc or other external functions");
  }
  return {};
}

Status open_checked(xgpu_executable_entry_kind_t kind, std::span<const uint8_t> code_object, Elf* elf) {
  Status status = elf->open(code_object);
  if (!status.ok()) return status;
  if (kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU) {
    if (elf->header().e_machine != EM_AMDGPU) {
      return Status::error("ELF machine " + std::to_string(elf->header().e_machine) + " is not EM_AMDGPU (" +
                           std::to_string(EM_AMDGPU) + ")");
    }
    if (elf->header().e_ident[EI_OSABI] != kElfOsAbiAmdgpuHsa) {
      return Status::error("ELF OS ABI " + std::to_string(elf->header().e_ident[EI_OSABI]) +
                           " is not ELFOSABI_AMDGPU_HSA (64)");
    }
  } else if (kind == XGPU_EXECUTABLE_ENTRY_KIND_HOST) {
    if (elf->header().e_machine != EM_X86_64) {
      return Status::error("ELF machine " + std::to_string(elf->header().e_machine) + " is not EM_X86_64 (" +
                           std::to_string(EM_X86_64) + ")");
    }
  } else {
    return Status::error("unknown code object kind " + std::to_string(kind));
  }
  return {};
}

}  // namespace

Status read_code_object(xgpu_executable_entry_kind_t kind, std::span<const uint8_t> code_object,
                        CodeObjectInfo* out_info) {
  *out_info = CodeObjectInfo{};
  if (kind == XGPU_EXECUTABLE_ENTRY_KIND_NVPTX) {
    std::string text;
    Status status = ptx_text(code_object, &text);
    if (!status.ok()) return status;
    if (!(status = read_ptx(text, out_info)).ok()) return status;
    std::sort(out_info->kernels.begin(), out_info->kernels.end(),
              [](const KernelInfo& a, const KernelInfo& b) { return a.name < b.name; });
    for (size_t i = 1; i < out_info->kernels.size(); ++i) {
      if (out_info->kernels[i].name == out_info->kernels[i - 1].name) {
        return Status::error("kernel '" + out_info->kernels[i].name + "' is defined twice");
      }
    }
    std::vector<uint8_t> records;
    if (!(status = ptx_layout_bytes(text, &records)).ok()) return status;
    return read_layout_records(records, out_info);
  }
  Elf elf;
  Status status = open_checked(kind, code_object, &elf);
  if (!status.ok()) return status;
  out_info->e_machine = elf.header().e_machine;
  out_info->e_flags = elf.header().e_flags;
  status = kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU ? read_amdgpu(elf, out_info) : read_host(elf, out_info);
  if (!status.ok()) return status;
  std::sort(out_info->kernels.begin(), out_info->kernels.end(),
            [](const KernelInfo& a, const KernelInfo& b) { return a.name < b.name; });
  for (size_t i = 1; i < out_info->kernels.size(); ++i) {
    if (out_info->kernels[i].name == out_info->kernels[i - 1].name) {
      return Status::error("kernel '" + out_info->kernels[i].name + "' is defined twice");
    }
  }
  return read_layouts(elf, out_info);
}

Status check_code_object_rules(xgpu_executable_entry_kind_t kind, std::span<const uint8_t> code_object) {
  if (kind == XGPU_EXECUTABLE_ENTRY_KIND_NVPTX) {
    std::string text;
    Status status = ptx_text(code_object, &text);
    if (!status.ok()) return status;
    return check_ptx_rules(text);
  }
  Elf elf;
  Status status = open_checked(kind, code_object, &elf);
  if (!status.ok()) return status;
  // Writable sections that hold no kernel state: dynamic linking structures
  // and data that is only written by relocation and then made read-only.
  static constexpr std::string_view kAllowedWritable[] = {".dynamic", ".got", ".data.rel.ro", ".relro_padding"};
  for (const Elf64_Shdr& s : elf.sections()) {
    std::string_view name;
    if (!(status = elf.section_name(s, &name)).ok()) return status;
    if (s.sh_flags & SHF_TLS) {
      return Status::error("section " + std::string(name) +
                           " holds thread-local storage: kernels must not use thread_local/_Thread_local");
    }
    if (!(s.sh_flags & SHF_WRITE) || !(s.sh_flags & SHF_ALLOC) || s.sh_size == 0) continue;
    if (std::find(std::begin(kAllowedWritable), std::end(kAllowedWritable), name) != std::end(kAllowedWritable)) {
      continue;
    }
    return Status::error("writable data section " + std::string(name) + " (" + std::to_string(s.sh_size) +
                         " bytes): kernels must not have globals or static variables other than const "
                         "data and groupshared memory");
  }
  for (const Elf64_Phdr& p : elf.segments()) {
    if (p.p_type == PT_TLS) {
      return Status::error("code object has a PT_TLS segment: kernels must not use thread-local storage");
    }
  }
  for (uint32_t type : {uint32_t{SHT_DYNSYM}, uint32_t{SHT_SYMTAB}}) {
    std::vector<Elf64_Sym> symbols;
    uint32_t strtab = 0;
    if (!(status = elf.symbols(type, &symbols, &strtab)).ok()) return status;
    for (size_t i = 1; i < symbols.size(); ++i) {
      if (symbols[i].st_shndx != SHN_UNDEF) continue;
      std::string_view name;
      if (!(status = elf.string_at(strtab, symbols[i].st_name, &name)).ok()) return status;
      if (name.empty()) continue;
      return Status::error("undefined symbol '" + std::string(name) +
                           "': kernels must not call libc or other external functions");
    }
  }
  return {};
}

}  // namespace xgpu::executable
