// Helpers for tests that take the built test executable apart: read it,
// locate sections and symbols in its (trusted, well-formed) code objects,
// and pack edited copies of its entries into new executables.
//
// Thread-compatible: plain functions over values.
#pragma once

#include <doctest/doctest.h>

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <xgpu/executable_format.h>
#include <xgpu/host_kernel.h>

#include "xgpu_executable.h"

namespace xgpu_test {

namespace xe = xgpu::executable;

inline std::vector<uint8_t> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  REQUIRE_MESSAGE(out.good(), "cannot write " << path);
}

// The built test executable (or another built executable), parsed.
struct TestExecutable {
  std::vector<uint8_t> bytes;
  xe::Executable executable;
  explicit TestExecutable(const char* path = XGPU_TEST_KERNELS_FILE) : bytes(read_file(path)) {
    xe::Status status = xe::Executable::parse(bytes, &executable);
    REQUIRE_MESSAGE(status.ok(), status.message());
  }
  // The first entry of `kind`.
  const xe::Entry& first(xgpu_executable_entry_kind_t kind) const {
    for (const xe::Entry& e : executable.entries()) {
      if (e.kind == kind) return e;
    }
    FAIL("the test executable has no entry of kind " << kind);
    return executable.entries()[0];
  }
  // Every entry as packer input, for editing and packing again.
  std::vector<xe::EntryInput> inputs() const {
    std::vector<xe::EntryInput> out;
    for (const xe::Entry& e : executable.entries()) {
      out.push_back({std::string(e.isa_name), e.kind, std::vector<uint8_t>(e.code_object.begin(), e.code_object.end())});
    }
    return out;
  }
};

inline std::vector<uint8_t> pack(const std::vector<xe::EntryInput>& inputs) {
  std::vector<uint8_t> bytes;
  xe::Status status = xe::write(inputs, &bytes);
  REQUIRE_MESSAGE(status.ok(), status.message());
  return bytes;
}

// Section and symbol lookup in a well-formed ELF64 code object (the test's
// own build output; the reader under test is not used to find its input).
class ElfLayout {
 public:
  explicit ElfLayout(const std::vector<uint8_t>& bytes) : bytes_(bytes) {
    REQUIRE(bytes.size() >= sizeof(Elf64_Ehdr));
    std::memcpy(&header_, bytes.data(), sizeof(header_));
    REQUIRE(header_.e_shoff + uint64_t{header_.e_shnum} * sizeof(Elf64_Shdr) <= bytes.size());
    sections_.resize(header_.e_shnum);
    std::memcpy(sections_.data(), bytes.data() + header_.e_shoff, sections_.size() * sizeof(Elf64_Shdr));
  }

  const Elf64_Ehdr& header() const { return header_; }
  const std::vector<Elf64_Shdr>& sections() const { return sections_; }
  // File offset of section header `index`.
  uint64_t section_header_offset(size_t index) const { return header_.e_shoff + index * sizeof(Elf64_Shdr); }

  std::string_view section_name(const Elf64_Shdr& s) const { return string_at(sections_[header_.e_shstrndx], s.sh_name); }

  // Index of the first section named `name`.
  size_t section_index(std::string_view name) const {
    for (size_t i = 0; i < sections_.size(); ++i) {
      if (section_name(sections_[i]) == name) return i;
    }
    FAIL("no section " << name);
    return 0;
  }
  // Index of the first section of `type`.
  size_t section_of_type(uint32_t type) const {
    for (size_t i = 0; i < sections_.size(); ++i) {
      if (sections_[i].sh_type == type) return i;
    }
    FAIL("no section of type " << type);
    return 0;
  }

  // File offset of section `index`'s name in the section name table.
  uint64_t section_name_offset(size_t index) const {
    return sections_[header_.e_shstrndx].sh_offset + sections_[index].sh_name;
  }

  // File offset of dynamic symbol `name`'s contents.
  uint64_t symbol_file_offset(std::string_view name) const { return file_offset(symbol_address(name)); }

  // File offset of virtual address `vaddr`.
  uint64_t file_offset(uint64_t vaddr) const {
    for (const Elf64_Shdr& s : sections_) {
      if (!(s.sh_flags & SHF_ALLOC) || s.sh_type == SHT_NOBITS) continue;
      if (vaddr >= s.sh_addr && vaddr < s.sh_addr + s.sh_size) return s.sh_offset + (vaddr - s.sh_addr);
    }
    FAIL("address 0x" << std::hex << vaddr << " is in no section");
    return 0;
  }

  // File offset of the R_X86_64_RELATIVE relocation entry for `vaddr`.
  uint64_t relocation_entry_offset(uint64_t vaddr) const {
    const Elf64_Shdr& rela = sections_[section_of_type(SHT_RELA)];
    for (uint64_t at = rela.sh_offset; at + sizeof(Elf64_Rela) <= rela.sh_offset + rela.sh_size;
         at += sizeof(Elf64_Rela)) {
      Elf64_Rela r;
      std::memcpy(&r, bytes_.data() + at, sizeof(r));
      if (r.r_offset == vaddr) return at;
    }
    FAIL("no relocation for 0x" << std::hex << vaddr);
    return 0;
  }

  // Virtual address of dynamic symbol `name`.
  uint64_t symbol_address(std::string_view name) const {
    const Elf64_Shdr& dynsym = sections_[section_of_type(SHT_DYNSYM)];
    for (uint64_t at = dynsym.sh_offset; at + sizeof(Elf64_Sym) <= dynsym.sh_offset + dynsym.sh_size;
         at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, bytes_.data() + at, sizeof(sym));
      if (string_at(sections_[dynsym.sh_link], sym.st_name) == name) return sym.st_value;
    }
    FAIL("no dynamic symbol " << name);
    return 0;
  }

 private:
  std::string_view string_at(const Elf64_Shdr& table, uint64_t offset) const {
    REQUIRE(offset < table.sh_size);
    return std::string_view(reinterpret_cast<const char*>(bytes_.data() + table.sh_offset + offset));
  }

  const std::vector<uint8_t>& bytes_;
  Elf64_Ehdr header_{};
  std::vector<Elf64_Shdr> sections_;
};

// Edits the host kernel descriptor of `kernel` in a host code object.
inline void edit_host_descriptor(std::vector<uint8_t>& code_object, const std::string& kernel,
                                 const std::function<void(xgpu_host_kernel_descriptor_t&)>& edit) {
  const uint64_t at = ElfLayout(code_object).symbol_file_offset(kernel + XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX);
  REQUIRE(at + sizeof(xgpu_host_kernel_descriptor_t) <= code_object.size());
  xgpu_host_kernel_descriptor_t descriptor;
  std::memcpy(&descriptor, code_object.data() + at, sizeof(descriptor));
  REQUIRE(descriptor.magic == XGPU_HOST_KERNEL_MAGIC);
  edit(descriptor);
  std::memcpy(code_object.data() + at, &descriptor, sizeof(descriptor));
}

// Where one kernel's layout record lies in a code object.
struct LayoutRecord {
  uint64_t section_header;  // file offset of the layout section's Elf64_Shdr
  uint64_t section;         // file offset of the section's contents
  uint64_t section_size;    // bytes of the section
  uint64_t at;              // file offset of the record
  uint32_t size;            // the record's record_size
};

// Finds `kernel`'s record of `magic` (a layout record, a kernel flags
// record with XGPU_KERNEL_FLAGS_MAGIC, a binding access record with
// XGPU_KERNEL_ACCESS_MAGIC) in the code object's
// XGPU_KERNEL_LAYOUT_SECTION.
inline LayoutRecord layout_record(const std::vector<uint8_t>& code, std::string_view kernel,
                                  uint32_t magic = XGPU_KERNEL_LAYOUT_MAGIC) {
  ElfLayout elf(code);
  const size_t index = elf.section_index(XGPU_KERNEL_LAYOUT_SECTION);
  const Elf64_Shdr& s = elf.sections()[index];
  for (uint64_t at = s.sh_offset; at + sizeof(xgpu_kernel_layout_record_t) <= s.sh_offset + s.sh_size;) {
    xgpu_kernel_layout_record_t r;
    std::memcpy(&r, code.data() + at, sizeof(r));
    // The name follows the header: 48 bytes for an access record, else 16.
    const uint64_t header =
        r.magic == XGPU_KERNEL_ACCESS_MAGIC ? sizeof(xgpu_kernel_access_record_t) : sizeof(xgpu_kernel_layout_record_t);
    REQUIRE(r.record_size >= header);
    if (r.magic == magic && std::string_view(reinterpret_cast<const char*>(code.data() + at + header)) == kernel) {
      return {elf.section_header_offset(index), s.sh_offset, s.sh_size, at, r.record_size};
    }
    at += r.record_size;
  }
  FAIL("no record of magic 0x" << std::hex << magic << " for " << kernel);
  return {};
}

// Edits the header of `kernel`'s layout record in a code object.
inline void edit_layout_record(std::vector<uint8_t>& code_object, std::string_view kernel,
                               const std::function<void(xgpu_kernel_layout_record_t&)>& edit) {
  const uint64_t at = layout_record(code_object, kernel).at;
  xgpu_kernel_layout_record_t record;
  std::memcpy(&record, code_object.data() + at, sizeof(record));
  edit(record);
  std::memcpy(code_object.data() + at, &record, sizeof(record));
}

// Edits the header of `kernel`'s kernel flags record in a code object.
inline void edit_flags_record(std::vector<uint8_t>& code_object, std::string_view kernel,
                              const std::function<void(xgpu_kernel_flags_record_t&)>& edit) {
  const uint64_t at = layout_record(code_object, kernel, XGPU_KERNEL_FLAGS_MAGIC).at;
  xgpu_kernel_flags_record_t record;
  std::memcpy(&record, code_object.data() + at, sizeof(record));
  edit(record);
  std::memcpy(code_object.data() + at, &record, sizeof(record));
}

// Edits the header of `kernel`'s binding access record in a code object.
inline void edit_access_record(std::vector<uint8_t>& code_object, std::string_view kernel,
                               const std::function<void(xgpu_kernel_access_record_t&)>& edit) {
  const uint64_t at = layout_record(code_object, kernel, XGPU_KERNEL_ACCESS_MAGIC).at;
  xgpu_kernel_access_record_t record;
  std::memcpy(&record, code_object.data() + at, sizeof(record));
  edit(record);
  std::memcpy(code_object.data() + at, &record, sizeof(record));
}

}  // namespace xgpu_test
