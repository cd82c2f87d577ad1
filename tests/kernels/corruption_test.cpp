// Deterministic corruption of real code objects: the built test executable's
// first AMDGPU and first host entry, truncated at every length and with
// bytes flipped across the ELF header, section and program headers, the
// AMDGPU metadata note, the host kernel descriptors, symbols and
// relocations. Every outcome must be success or a clear error (never a
// crash, which the sanitizer build also watches); targeted corruptions must
// give the error that names what is wrong.
#include <doctest/doctest.h>

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <xgpu/host_kernel.h>

#include "kernels/test_kernels.h"
#include "test_files.h"
#include "xgpu_executable.h"

namespace xe = xgpu::executable;
using xgpu_test::ElfLayout;
using xgpu_test::layout_record;
using xgpu_test::LayoutRecord;
using xgpu_test::TestExecutable;

namespace {

constexpr uint32_t kNtAmdgpuMetadata = 32;  // NT_AMDGPU_METADATA
constexpr uint8_t kFlipMasks[] = {0x01, 0x80, 0xff};

// A clear error: one line of printable text that says something.
bool clear_error(const xe::Status& status, std::string* out_why) {
  if (status.ok()) return true;
  const std::string& m = status.message();
  if (m.size() < 8) {
    *out_why = "message too short: '" + m + "'";
    return false;
  }
  for (char c : m) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) {
      *out_why = "message has a non-printable byte: '" + m + "'";
      return false;
    }
  }
  return true;
}

// Two-entry executable (the first AMDGPU and the first host entry of the
// test executable) that corruptions are applied to in place.
class Subject {
 public:
  Subject() {
    for (xgpu_executable_entry_kind_t kind : {XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, XGPU_EXECUTABLE_ENTRY_KIND_HOST}) {
      const xe::Entry& e = test_.first(kind);
      inputs_.push_back({std::string(e.isa_name), e.kind, std::vector<uint8_t>(e.code_object.begin(), e.code_object.end())});
    }
    bytes_ = xgpu_test::pack(inputs_);
    pristine_ = bytes_;
    xe::Executable executable;
    REQUIRE(xe::Executable::parse(bytes_, &executable).ok());
    for (const xe::Entry& e : executable.entries()) offsets_.push_back(e.offset);
    xe::Status status = xe::check(executable);
    REQUIRE_MESSAGE(status.ok(), status.message());
  }

  // The pristine code object of entry `index` (0 = AMDGPU, 1 = host).
  const std::vector<uint8_t>& code_object(size_t index) const { return inputs_[index].code_object; }
  xgpu_executable_entry_kind_t kind(size_t index) const { return inputs_[index].kind; }
  const std::string& isa(size_t index) const { return inputs_[index].isa_name; }

  // Applies `edit` to entry `index`'s code object in place, runs the reader
  // and the check, restores the bytes. Returns the check's status; fails the
  // test when any result is not a clear error.
  template <typename Edit>
  xe::Status corrupt(size_t index, Edit edit) {
    std::span<uint8_t> code(bytes_.data() + offsets_[index], inputs_[index].code_object.size());
    edit(code);
    // The corruption is deliberate: restamp the hash, so that what is
    // examined is the reader's checks behind it (a corrupt file keeps its
    // old hash and parse() refuses it, format_test covers that).
    REQUIRE(xe::rehash(bytes_).ok());
    xe::Status result = examine(index, code);
    // Back to the pristine file (its bytes and hashes), without hashing again.
    std::copy(pristine_.begin(), pristine_.end(), bytes_.begin());
    return result;
  }

  // Flips `mask` into byte `at` of entry `index`'s code object.
  xe::Status flip(size_t index, uint64_t at, uint8_t mask) {
    return corrupt(index, [&](std::span<uint8_t> code) { code[at] ^= mask; });
  }

  // The reader and the check on a copy of entry `index` cut to `size` bytes.
  xe::Status truncate(size_t index, size_t size) {
    std::vector<uint8_t> cut(inputs_[index].code_object.begin(),
                             inputs_[index].code_object.begin() + static_cast<ptrdiff_t>(size));
    xe::CodeObjectInfo info;
    xe::Status read = xe::read_code_object(kind(index), cut, &info);
    xe::Status rules = xe::check_code_object_rules(kind(index), cut);
    std::string why;
    if (!clear_error(read, &why) || !clear_error(rules, &why)) FAIL("truncated to " << size << ": " << why);
    if (read.ok() || rules.ok()) FAIL("truncated to " << size << " bytes and still accepted");
    return read;
  }

  size_t cases() const { return cases_; }

 private:
  xe::Status examine(size_t index, std::span<const uint8_t> code) {
    ++cases_;
    xe::CodeObjectInfo info;
    xe::Status read = xe::read_code_object(kind(index), code, &info);
    xe::Status rules = xe::check_code_object_rules(kind(index), code);
    xe::Executable executable;
    xe::Status parsed = xe::Executable::parse(bytes_, &executable);
    if (!parsed.ok()) FAIL("the executable around the code object no longer parses: " << parsed.message());
    std::vector<xe::CodeObjectInfo> infos;
    xe::Status checked = xe::check(executable, &infos);
    std::string why;
    if (!clear_error(read, &why) || !clear_error(rules, &why) || !clear_error(checked, &why)) FAIL(why);
    // The check reads the same bytes: it fails whenever the reader does.
    if ((!read.ok() || !rules.ok()) && checked.ok()) FAIL("the check accepted what the reader rejected");
    return checked;
  }

  TestExecutable test_;
  std::vector<xe::EntryInput> inputs_;
  std::vector<uint8_t> bytes_;
  std::vector<uint8_t> pristine_;  // bytes_ as packed (restored after each corruption)
  std::vector<uint64_t> offsets_;
  size_t cases_ = 0;
};

constexpr size_t kAmdgpu = 0;
constexpr size_t kHost = 1;

bool has(const xe::Status& status, const std::string& needle) {
  return !status.ok() && status.message().find(needle) != std::string::npos;
}

// File range [offset, offset + size) of the NT_AMDGPU_METADATA note's
// descriptor (the msgpack document) and of its note header.
struct NoteRange {
  uint64_t header;  // file offset of the Elf64_Nhdr
  uint64_t desc;    // file offset of the msgpack bytes
  uint64_t size;    // msgpack bytes
};

NoteRange metadata_note(const std::vector<uint8_t>& code) {
  ElfLayout elf(code);
  for (const Elf64_Shdr& s : elf.sections()) {
    if (s.sh_type != SHT_NOTE) continue;
    for (uint64_t at = s.sh_offset; at + sizeof(Elf64_Nhdr) <= s.sh_offset + s.sh_size;) {
      Elf64_Nhdr n;
      std::memcpy(&n, code.data() + at, sizeof(n));
      const uint64_t name = at + sizeof(n);
      const uint64_t desc = name + ((n.n_namesz + 3u) & ~3u);
      if (n.n_type == kNtAmdgpuMetadata && std::string_view(reinterpret_cast<const char*>(code.data() + name)) == "AMDGPU") {
        return {at, desc, n.n_descsz};
      }
      at = desc + ((n.n_descsz + 3u) & ~3u);
    }
  }
  FAIL("no AMDGPU metadata note");
  return {};
}

// File offset of the first occurrence of `text` in `code` at or after `from`.
uint64_t find_text(const std::vector<uint8_t>& code, std::string_view text, uint64_t from = 0) {
  auto it = std::search(code.begin() + static_cast<ptrdiff_t>(from), code.end(), text.begin(), text.end());
  REQUIRE_MESSAGE(it != code.end(), "'" << text << "' not found");
  return static_cast<uint64_t>(it - code.begin());
}

template <typename T>
void store(std::span<uint8_t> code, uint64_t at, T value) {
  std::memcpy(code.data() + at, &value, sizeof(value));
}

}  // namespace

TEST_CASE("real code objects: every truncation is rejected, naming the ELF header or the section table") {
  Subject subject;
  for (size_t index : {kAmdgpu, kHost}) {
    const std::vector<uint8_t>& code = subject.code_object(index);
    ElfLayout elf(code);
    INFO(subject.isa(index));
    // ld.lld writes the section header table last: every cut loses part of it.
    REQUIRE(elf.header().e_shoff + uint64_t{elf.header().e_shnum} * sizeof(Elf64_Shdr) == code.size());
    for (size_t size = 0; size < code.size(); ++size) {
      xe::Status status = subject.truncate(index, size);
      if (size < sizeof(Elf64_Ehdr)) {
        if (!has(status, "truncated ELF: " + std::to_string(size) + " bytes, the ELF header needs 64"))
          FAIL(size << ": " << status.message());
      } else if (!has(status, "ELF section header table [") ||
                 !has(status, ") extends past the end of the code object (" + std::to_string(size) + " bytes)")) {
        FAIL(size << ": " << status.message());
      }
    }
  }
}

TEST_CASE("real code objects: flipped bytes in the ELF, program and section headers never crash") {
  Subject subject;
  for (size_t index : {kAmdgpu, kHost}) {
    ElfLayout elf(subject.code_object(index));
    INFO(subject.isa(index));
    // Header fields the reader validates: any change is rejected. (Others,
    // such as e_entry or sh_addralign, the reader does not need.)
    std::vector<std::pair<uint64_t, uint64_t>> validated = {
        {0, SELFMAG},
        {EI_CLASS, 1},
        {EI_DATA, 1},
        {offsetof(Elf64_Ehdr, e_type), sizeof(Elf64_Half)},
        {offsetof(Elf64_Ehdr, e_machine), sizeof(Elf64_Half)},
        {offsetof(Elf64_Ehdr, e_shentsize), sizeof(Elf64_Half)},
    };
    if (subject.kind(index) == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU) validated.push_back({EI_OSABI, 1});
    if (elf.header().e_phnum != 0) validated.push_back({offsetof(Elf64_Ehdr, e_phentsize), sizeof(Elf64_Half)});
    for (auto [begin, size] : validated) {
      for (uint64_t at = begin; at < begin + size; ++at) {
        for (uint8_t mask : kFlipMasks) {
          if (subject.flip(index, at, mask).ok()) FAIL("header byte " << at << " ^ " << int{mask} << " was accepted");
        }
      }
    }
    // Every byte of the ELF header, program headers and section headers.
    const std::pair<uint64_t, uint64_t> headers[] = {
        {0, sizeof(Elf64_Ehdr)},
        {elf.header().e_phoff, uint64_t{elf.header().e_phnum} * sizeof(Elf64_Phdr)},
        {elf.header().e_shoff, uint64_t{elf.header().e_shnum} * sizeof(Elf64_Shdr)},
    };
    size_t rejected = 0, cases = 0;
    for (auto [begin, size] : headers) {
      for (uint64_t at = begin; at < begin + size; ++at) {
        for (uint8_t mask : kFlipMasks) {
          rejected += !subject.flip(index, at, mask).ok();
          ++cases;
        }
      }
    }
    INFO(rejected << " of " << cases << " header flips rejected");
    CHECK(rejected > 0);
  }
}

TEST_CASE("real code objects: flipped bytes in every non-code section never crash") {
  Subject subject;
  for (size_t index : {kAmdgpu, kHost}) {
    ElfLayout elf(subject.code_object(index));
    for (const Elf64_Shdr& s : elf.sections()) {
      if (s.sh_type == SHT_NOBITS || s.sh_type == SHT_NULL || (s.sh_flags & SHF_EXECINSTR)) continue;
      // The DWARF line tables of host code objects (.debug_*): the reader
      // never reads them (hsa-cpu reads them with libdw after a fault), and
      // flipping each of their bytes would multiply the cases by 30.
      if (elf.section_name(s).rfind(".debug_", 0) == 0) continue;
      INFO(subject.isa(index) << " section " << elf.section_name(s));
      for (uint64_t at = s.sh_offset; at < s.sh_offset + s.sh_size; ++at) {
        (void)subject.flip(index, at, 0x01);
        (void)subject.flip(index, at, 0xff);
      }
    }
  }
  CHECK(subject.cases() > 1000);
}

TEST_CASE("real code objects: targeted ELF header and section table corruption") {
  Subject subject;
  const std::vector<uint8_t>& gpu = subject.code_object(kAmdgpu);
  ElfLayout elf(gpu);
  auto header = [&](auto edit) {
    return subject.corrupt(kAmdgpu, [&](std::span<uint8_t> code) {
      Elf64_Ehdr h;
      std::memcpy(&h, code.data(), sizeof(h));
      edit(h);
      std::memcpy(code.data(), &h, sizeof(h));
    });
  };
  const std::string who = subject.isa(kAmdgpu) + ": ";
  CHECK(header([](Elf64_Ehdr& h) { h.e_ident[EI_MAG1] = 'X'; }).message() == who + "not an ELF file (bad magic)");
  CHECK(header([](Elf64_Ehdr& h) { h.e_ident[EI_CLASS] = ELFCLASS32; }).message() == who + "not a 64-bit ELF file");
  CHECK(header([](Elf64_Ehdr& h) { h.e_ident[EI_DATA] = ELFDATA2MSB; }).message() ==
        who + "not a little-endian ELF file");
  CHECK(header([](Elf64_Ehdr& h) { h.e_type = ET_EXEC; }).message() == who + "ELF type 2 is not ET_DYN (shared object)");
  CHECK(header([](Elf64_Ehdr& h) { h.e_machine = EM_X86_64; }).message() == who + "ELF machine 62 is not EM_AMDGPU (224)");
  CHECK(header([](Elf64_Ehdr& h) { h.e_ident[EI_OSABI] = 0; }).message() ==
        who + "ELF OS ABI 0 is not ELFOSABI_AMDGPU_HSA (64)");
  CHECK(header([](Elf64_Ehdr& h) { h.e_shentsize = 40; }).message() == who + "ELF e_shentsize is 40, expected 64");
  CHECK(header([](Elf64_Ehdr& h) { h.e_shnum = 0; }).message() == who + "ELF has no section headers");
  CHECK(has(header([](Elf64_Ehdr& h) { h.e_shnum = 0xffff; }), "ELF section header table ["));
  CHECK(has(header([](Elf64_Ehdr& h) { h.e_shoff = ~0ull - 8; }), "ELF section header table ["));
  CHECK(header([&](Elf64_Ehdr& h) { h.e_shstrndx = h.e_shnum; }).message() ==
        who + "ELF e_shstrndx " + std::to_string(elf.header().e_shnum) + " is not a section index");
  CHECK(header([](Elf64_Ehdr& h) { h.e_phentsize = 8; }).message() == who + "ELF e_phentsize is 8, expected 56");
  CHECK(header([](Elf64_Ehdr& h) { h.e_phoff = ~0ull - 8; }).message() ==
        who + "ELF program header table extends past the end of the code object");

  // A section whose contents lie outside the file.
  const size_t note = elf.section_of_type(SHT_NOTE);
  xe::Status status = subject.corrupt(kAmdgpu, [&](std::span<uint8_t> code) {
    store<uint64_t>(code, elf.section_header_offset(note) + offsetof(Elf64_Shdr, sh_offset), ~0ull - 16);
  });
  CHECK(has(status, "ELF section " + std::to_string(note) + " ["));
  CHECK(has(status, ") extends past the end of the code object (" + std::to_string(gpu.size()) + " bytes)"));
  // A section name outside the section name table.
  status = subject.corrupt(kAmdgpu, [&](std::span<uint8_t> code) {
    store<uint32_t>(code, elf.section_header_offset(note) + offsetof(Elf64_Shdr, sh_name), 0x7fffffff);
  });
  CHECK(has(status, "ELF string offset 2147483647 is outside its string table"));
}

TEST_CASE("real code objects: targeted AMDGPU metadata note corruption") {
  Subject subject;
  const std::vector<uint8_t>& gpu = subject.code_object(kAmdgpu);
  const NoteRange note = metadata_note(gpu);
  const std::string who = subject.isa(kAmdgpu) + ": ";

  // Every byte of the note (header, name, msgpack document), three ways.
  size_t rejected = 0, cases = 0;
  for (uint64_t at = note.header; at < note.desc + note.size; ++at) {
    for (uint8_t mask : kFlipMasks) {
      rejected += !subject.flip(kAmdgpu, at, mask).ok();
      ++cases;
    }
  }
  INFO(rejected << " of " << cases << " note flips rejected");
  CHECK(rejected * 2 > cases);

  CHECK(subject.corrupt(kAmdgpu, [&](std::span<uint8_t> code) {
    store<uint32_t>(code, note.header + offsetof(Elf64_Nhdr, n_descsz), 0xfffffff0u);
  }).message() == who + "ELF note extends past the end of its section");
  CHECK(subject.corrupt(kAmdgpu, [&](std::span<uint8_t> code) {
    store<uint32_t>(code, note.header + offsetof(Elf64_Nhdr, n_type), 33);
  }).message() == who + "AMDGPU code object has no NT_AMDGPU_METADATA note (code object v3 or later)");
  // 0xc1 is the one byte msgpack never uses.
  CHECK(has(subject.corrupt(kAmdgpu, [&](std::span<uint8_t> code) { code[note.desc] = 0xc1; }),
            who + "AMDGPU metadata is not valid msgpack: "));
  // A fixarray where the root map should be.
  CHECK(subject.corrupt(kAmdgpu, [&](std::span<uint8_t> code) { code[note.desc] = 0x90; }).message() ==
        who + "AMDGPU metadata is not a msgpack map");
  // A kernel that lost a required key.
  const uint64_t key = find_text(gpu, ".kernarg_segment_size", note.desc);
  CHECK(has(subject.corrupt(kAmdgpu, [&](std::span<uint8_t> code) { code[key + 1] = 'K'; }),
            "': metadata key .kernarg_segment_size is missing"));
  // Metadata that names another processor than the entry.
  const std::string isa = subject.isa(kAmdgpu);
  const uint64_t target = find_text(gpu, isa, note.desc);
  CHECK(subject.corrupt(kAmdgpu, [&](std::span<uint8_t> code) {
    code[target + isa.size() - 1] = 'z';
  }).message() == who + "the code object was built for '" + isa.substr(0, isa.size() - 1) + "z'");
  // A descriptor symbol that does not follow the kernel name.
  const uint64_t symbol = find_text(gpu, std::string("saxpy.kd"), note.desc);
  CHECK(has(subject.corrupt(kAmdgpu, [&](std::span<uint8_t> code) { code[symbol + 6] = 'x'; }),
            "descriptor symbol 'saxpy.xd' is not 'saxpy.kd'"));
}

TEST_CASE("real code objects: targeted host descriptor, symbol and relocation corruption") {
  Subject subject;
  const std::vector<uint8_t>& host = subject.code_object(kHost);
  ElfLayout elf(host);
  const std::string who = subject.isa(kHost) + ": ";
  const uint64_t kd = elf.symbol_file_offset("reduce.kd");
  const uint64_t kd_address = elf.symbol_address("reduce.kd");

  // Every byte of every kernel descriptor and of the code object info.
  for (const std::string& symbol : {std::string("saxpy.kd"), std::string("reduce.kd"), std::string("tile_max.kd"),
                                    std::string("reverse.kd"), std::string("poly_clamp.kd"),
                                    std::string(XGPU_HOST_CODE_OBJECT_SYMBOL)}) {
    const uint64_t at = elf.symbol_file_offset(symbol);
    const size_t size = symbol.ends_with(".kd") ? sizeof(xgpu_host_kernel_descriptor_t)
                                                 : sizeof(xgpu_host_code_object_info_t);
    for (uint64_t b = at; b < at + size; ++b) {
      for (uint8_t mask : kFlipMasks) (void)subject.flip(kHost, b, mask);
    }
  }

  auto descriptor = [&](auto edit) {
    return subject.corrupt(kHost, [&](std::span<uint8_t> code) {
      xgpu_host_kernel_descriptor_t d;
      std::memcpy(&d, code.data() + kd, sizeof(d));
      edit(d);
      std::memcpy(code.data() + kd, &d, sizeof(d));
    });
  };
  CHECK(descriptor([](auto& d) { d.magic = 0x12345678; }).message() ==
        who + "host kernel descriptor 'reduce.kd': magic 0x12345678 / ABI version 1, expected 0x4b484758 / 1");
  CHECK(descriptor([](auto& d) { d.abi_version = 2; }).message() ==
        who + "host kernel descriptor 'reduce.kd': magic 0x4b484758 / ABI version 2, expected 0x4b484758 / 1");
  // reduce uses barriers (0x1) and, when the build has the pass plugin,
  // work-item loops (0x2) over runs of workgroups (0x4).
  const std::string unknown = descriptor([](auto& d) { d.flags |= 0x8; }).message();
  CHECK((unknown == who + "host kernel descriptor 'reduce.kd': unknown flags 0x9" ||
         unknown == who + "host kernel descriptor 'reduce.kd': unknown flags 0xf"));
  // Workgroup runs are for kernels without barriers and for work-item loops
  // (barriers as loops); a barrier kernel's fiber entry runs one workgroup.
  CHECK(descriptor([](auto& d) {
          d.flags = XGPU_HOST_KERNEL_FLAG_USES_BARRIERS | XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS;
        }).message() == who + "host kernel descriptor 'reduce.kd': flags 0x5 have workgroup runs with barriers but "
                              "no work-item loops");
  CHECK(descriptor([](auto& d) { d.flags = XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS; }).message() ==
        who + "host kernel descriptor 'reduce.kd': flags 0x2 have work-item loops without barriers");
  // The kernel's layout record still states the size the kernel was built
  // with: the code object contradicts itself before it contradicts others.
  CHECK(descriptor([](auto& d) { d.kernarg_size = 1000; }).message() ==
        who + XGPU_KERNEL_LAYOUT_SECTION " record of kernel 'reduce': kernarg_size " +
            std::to_string(sizeof(reduce_args_t)) + " differs from the kernel's kernarg segment size 1000");
  CHECK(has(descriptor([](auto& d) { d.group_segment_size = 4; }), "kernel 'reduce': static group segment size differs"));

  // Pointer fields come from their R_X86_64_RELATIVE relocations.
  const uint64_t run_workgroup =
      elf.relocation_entry_offset(kd_address + offsetof(xgpu_host_kernel_descriptor_t, run_workgroup));
  CHECK(subject.corrupt(kHost, [&](std::span<uint8_t> code) {
    store<int64_t>(code, run_workgroup + offsetof(Elf64_Rela, r_addend), 0);
  }).message() == who + "host kernel descriptor 'reduce.kd': run_workgroup is null");
  const uint64_t run_workitem =
      elf.relocation_entry_offset(kd_address + offsetof(xgpu_host_kernel_descriptor_t, run_workitem));
  CHECK(subject.corrupt(kHost, [&](std::span<uint8_t> code) {
    store<int64_t>(code, run_workitem + offsetof(Elf64_Rela, r_addend), 0);
  }).message() == who + "host kernel descriptor 'reduce.kd': uses barriers but run_workitem is null");
  const uint64_t name = elf.relocation_entry_offset(kd_address + offsetof(xgpu_host_kernel_descriptor_t, name));
  CHECK(has(subject.corrupt(kHost, [&](std::span<uint8_t> code) {
              store<uint64_t>(code, name + offsetof(Elf64_Rela, r_info), ELF64_R_INFO(0, R_X86_64_64));
            }),
            "has a relocation of type 1, expected R_X86_64_RELATIVE"));
  CHECK(has(subject.corrupt(kHost, [&](std::span<uint8_t> code) {
              store<int64_t>(code, name + offsetof(Elf64_Rela, r_addend), 0x7fff0000);
            }),
            "host kernel descriptor 'reduce.kd'.name: ELF string address 0x7fff0000 is not inside any section"));

  // Table entry sizes.
  const size_t rela = elf.section_of_type(SHT_RELA);
  CHECK(subject.corrupt(kHost, [&](std::span<uint8_t> code) {
    store<uint64_t>(code, elf.section_header_offset(rela) + offsetof(Elf64_Shdr, sh_entsize), 16);
  }).message().ends_with("ELF relocation entry size is wrong"));
  const size_t dynsym = elf.section_of_type(SHT_DYNSYM);
  CHECK(subject.corrupt(kHost, [&](std::span<uint8_t> code) {
    store<uint64_t>(code, elf.section_header_offset(dynsym) + offsetof(Elf64_Shdr, sh_entsize), 16);
  }).message() == who + "ELF symbol table entry size is 16, expected 24");

  // The code object's own ISA name.
  const uint64_t info = elf.symbol_file_offset(XGPU_HOST_CODE_OBJECT_SYMBOL);
  CHECK(has(subject.corrupt(kHost, [&](std::span<uint8_t> code) { code[info] ^= 0xff; }),
            who + "xgpu_host_code_object_info: magic 0x"));
  const std::string isa = subject.isa(kHost);
  const uint64_t isa_text = find_text(host, isa + std::string(1, '\0'));
  CHECK(subject.corrupt(kHost, [&](std::span<uint8_t> code) { code[isa_text + isa.size() - 1] = '9'; }).message() ==
        who + "the code object was built for '" + isa.substr(0, isa.size() - 1) + "9'");
}

TEST_CASE("real code objects: targeted kernel layout record corruption") {
  Subject subject;
  for (size_t index : {kAmdgpu, kHost}) {
    const std::vector<uint8_t>& code = subject.code_object(index);
    const std::string who = subject.isa(index) + ": ";
    INFO(subject.isa(index));
    // saxpy: 2 bindings, 8 bytes of constants; "saxpy\0" + 2 bytes of padding.
    const LayoutRecord saxpy = layout_record(code, "saxpy");
    const std::string section = XGPU_KERNEL_LAYOUT_SECTION;
    const std::string where = section + " record at offset " + std::to_string(saxpy.at - saxpy.section) + ": ";
    const std::string record_of = section + " record of kernel ";
    REQUIRE(saxpy.size == sizeof(xgpu_kernel_layout_record_t) + 8);
    auto edit = [&](auto change) {
      return subject.corrupt(index, [&](std::span<uint8_t> bytes) {
        xgpu_kernel_layout_record_t r;
        std::memcpy(&r, bytes.data() + saxpy.at, sizeof(r));
        change(r);
        std::memcpy(bytes.data() + saxpy.at, &r, sizeof(r));
      });
    };
    const uint64_t name = saxpy.at + sizeof(xgpu_kernel_layout_record_t);

    // Every byte of the record, three ways: a clear error or (for the
    // binding count within the kernarg size) a consistent layout.
    for (uint64_t at = saxpy.at; at < saxpy.at + saxpy.size; ++at) {
      for (uint8_t mask : kFlipMasks) (void)subject.flip(index, at, mask);
    }

    CHECK(edit([](auto& r) { r.magic = 0x12345678; }).message() ==
          who + where +
              "magic 0x12345678 is none of XGPU_KERNEL_LAYOUT_MAGIC (0x4c4b4758), XGPU_KERNEL_FLAGS_MAGIC "
              "(0x464b4758) and XGPU_KERNEL_ACCESS_MAGIC (0x414b4758)");
    for (uint32_t size : {0u, 16u, 20u, 25u, 16u + 4096u + 8u, 0xfffffff8u}) {
      CHECK(edit([&](auto& r) { r.record_size = size; }).message() ==
            who + where + "record_size " + std::to_string(size) +
                " is not 16 plus a name field of 8 to 4096 bytes in steps of 8");
    }
    // A name field larger than the name: the next record's bytes would be
    // read as padding.
    const uint64_t left = saxpy.section + saxpy.section_size - saxpy.at;
    if (left > saxpy.size) {
      CHECK(edit([](auto& r) { r.record_size += 8; }).message() ==
            who + where + "record_size 32 does not fit the name 'saxpy' (24 bytes)");
    }
    CHECK(edit([&](auto& r) { r.record_size = static_cast<uint32_t>(left + 8); }).message() ==
          who + where + "record_size " + std::to_string(left + 8) + " extends past the end of the section (" +
              std::to_string(left) + " bytes left)");
    CHECK(subject.corrupt(index, [&](std::span<uint8_t> bytes) {
      std::fill(bytes.begin() + static_cast<ptrdiff_t>(name), bytes.begin() + static_cast<ptrdiff_t>(name + 8), 'x');
    }).message() == who + where + "the kernel name is not NUL-terminated within record_size 24");
    CHECK(subject.corrupt(index, [&](std::span<uint8_t> bytes) { bytes[name] = 0; }).message() ==
          who + where + "the kernel name is empty");
    CHECK(subject.corrupt(index, [&](std::span<uint8_t> bytes) { bytes[name + 7] = 1; }).message() ==
          who + where + "non-zero bytes after the kernel name 'saxpy'");

    // Records that are well formed but do not describe the code object.
    CHECK(subject.corrupt(index, [&](std::span<uint8_t> bytes) { bytes[name + 4] = 'z'; }).message() ==
          who + record_of + "'saxpz': the code object has no kernel 'saxpz' (its kernels: fill, group_atomics, "
                            "guarded_rows, guarded_stencil, histogram, ids, poly_clamp, reduce, reverse, saxpy, scan, tile_max)");
    // fill and ids have the same layout (1 binding, 8 bytes of constants),
    // so whichever record comes first is accepted and the second is the
    // duplicate.
    const LayoutRecord fill = layout_record(code, "fill");
    CHECK(subject.corrupt(index, [&](std::span<uint8_t> bytes) {
      std::memcpy(bytes.data() + fill.at + sizeof(xgpu_kernel_layout_record_t), "ids", 4);
    }).message() == who + record_of + "'ids': the kernel has two layout records");
    CHECK(edit([](auto& r) { r.kernarg_size += 8; }).message() ==
          who + record_of + "'saxpy': kernarg_size 32 differs from the kernel's kernarg segment size 24");
    CHECK(edit([](auto& r) { r.binding_count = 4; }).message() ==
          who + record_of + "'saxpy': binding_count 4 needs 32 bytes of binding pointers, more than the kernarg size 24");
    CHECK(edit([](auto& r) { r.binding_count = 0xffffffffu; }).message() ==
          who + record_of +
              "'saxpy': binding_count 4294967295 needs 34359738360 bytes of binding pointers, more than the kernarg "
              "size 24");
    // All bindings and no constants is a layout the kernarg segment holds,
    // but not the one the kernel's binding access record describes.
    CHECK(has(edit([](auto& r) { r.binding_count = 3; }),
              "binding access record of kernel 'saxpy': binding_count 2 differs from the 3 of its layout record"));

    // The section itself.
    auto section_header = [&](auto change) {
      return subject.corrupt(index, [&](std::span<uint8_t> bytes) {
        Elf64_Shdr s;
        std::memcpy(&s, bytes.data() + saxpy.section_header, sizeof(s));
        change(s);
        std::memcpy(bytes.data() + saxpy.section_header, &s, sizeof(s));
      });
    };
    CHECK(section_header([](Elf64_Shdr& s) { s.sh_type = SHT_NOBITS; }).message() ==
          who + "section " + section + " has type 8, expected SHT_PROGBITS (1)");
    CHECK(section_header([](Elf64_Shdr& s) { s.sh_flags |= SHF_WRITE; }).message() ==
          who + "writable data section " + section + " (" + std::to_string(saxpy.section_size) +
              " bytes): kernels must not have globals or static variables other than const data and groupshared "
              "memory");
    CHECK(section_header([](Elf64_Shdr& s) { s.sh_size = 8; }).message() ==
          who + section + " record at offset 0: 8 bytes left, a record header needs 16");
    CHECK(has(section_header([](Elf64_Shdr& s) { s.sh_size -= 8; }), " extends past the end of the section ("));
  }
}
