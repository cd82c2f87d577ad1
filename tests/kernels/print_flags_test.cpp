// Kernel flags records (<xgpu/executable_format.h>): the printing test
// kernels, built by xgpu_add_kernels with the pass plugin, carry
// XGPU_KERNEL_FLAG_PRINTS on every target and their siblings carry nothing;
// the nvptx PTX carries it as an array; the reader rejects a record with
// bits it does not know, a non-zero reserved word, no such kernel or two
// records for one kernel, and the check rejects targets that disagree.
#include <doctest/doctest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <xgpu/executable_format.h>

#include "test_files.h"
#include "xgpu_executable.h"

#if defined(XGPU_TEST_PRINT_KERNELS_FILE)

namespace xe = xgpu::executable;
using xgpu_test::edit_flags_record;
using xgpu_test::layout_record;
using xgpu_test::TestExecutable;

namespace {

// kernels/printing.c and printing_cxx.cpp.
const std::set<std::string> kPrinting = {"print_values", "print_assert", "print_in_helper", "print_barriers",
                                         "print_cxx"};
const std::set<std::string> kQuiet = {"quiet_values", "quiet_barriers"};

bool has(const xe::Status& status, const std::string& needle) {
  return !status.ok() && status.message().find(needle) != std::string::npos;
}

const xe::KernelInfo& kernel(const xe::CodeObjectInfo& info, const std::string& name) {
  for (const xe::KernelInfo& k : info.kernels)
    if (k.name == name) return k;
  FAIL("no kernel " << name);
  return info.kernels.front();
}

// Writes `name` over the name field of the flags record at `at` (the new
// name, a NUL, zeros to the end of the field).
void rename_record(std::vector<uint8_t>& code, const xgpu_test::LayoutRecord& record, const std::string& name) {
  const uint64_t field = record.at + sizeof(xgpu_kernel_flags_record_t);
  const uint64_t size = record.size - sizeof(xgpu_kernel_flags_record_t);
  REQUIRE(name.size() < size);
  std::memset(code.data() + field, 0, size);
  std::memcpy(code.data() + field, name.data(), name.size());
}

}  // namespace

TEST_CASE("printing kernels carry XGPU_KERNEL_FLAG_PRINTS on every target, their siblings nothing") {
  TestExecutable file(XGPU_TEST_PRINT_KERNELS_FILE);
  std::vector<xe::CodeObjectInfo> infos;
  const xe::Status status = xe::check(file.executable, &infos);
  REQUIRE_MESSAGE(status.ok(), status.message());
  REQUIRE(infos.size() == file.executable.entries().size());
  bool amdgpu = false, host = false;
  for (size_t e = 0; e < infos.size(); ++e) {
    const xe::Entry& entry = file.executable.entries()[e];
    amdgpu |= entry.kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU;
    host |= entry.kind == XGPU_EXECUTABLE_ENTRY_KIND_HOST;
    // Each kernel and its bounds-checked copy (every one declares its
    // layout), which prints (its reports are print records).
    CHECK(infos[e].kernels.size() == 2 * (kPrinting.size() + kQuiet.size()));
    const std::string suffix = XGPU_KERNEL_BOUNDS_CHECKED_SUFFIX;
    for (const xe::KernelInfo& k : infos[e].kernels) {
      INFO(entry.isa_name << " kernel " << k.name);
      const bool copy = k.name.size() > suffix.size() && k.name.ends_with(suffix);
      const std::string name = copy ? k.name.substr(0, k.name.size() - suffix.size()) : k.name;
      CHECK((kPrinting.count(name) + kQuiet.count(name)) == 1);
      CHECK(k.bounds_checked == copy);
      CHECK(k.prints == (copy || kPrinting.count(name) == 1));
      // Reading the print slot and calling xgpu_print_emit_ (also from a
      // helper that was not inlined) adds no hidden kernel arguments.
      CHECK(k.hidden_args.empty());
      CHECK(k.layout_declared);
    }
  }
  CHECK(amdgpu);
  CHECK(host);
}

TEST_CASE("kernel flags records: unknown bits, reserved, no such kernel, two for one kernel, wrong magic") {
  TestExecutable file(XGPU_TEST_PRINT_KERNELS_FILE);
  const std::string section = XGPU_KERNEL_LAYOUT_SECTION;
  for (xgpu_executable_entry_kind_t kind : {XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, XGPU_EXECUTABLE_ENTRY_KIND_HOST}) {
    const xe::Entry& entry = file.first(kind);
    INFO(entry.isa_name);
    const std::vector<uint8_t> pristine(entry.code_object.begin(), entry.code_object.end());
    const std::string of = section + " flags record of kernel ";
    auto read = [&](const std::vector<uint8_t>& code) {
      xe::CodeObjectInfo info;
      return xe::read_code_object(kind, code, &info);
    };
    REQUIRE(read(pristine).ok());
    const xgpu_test::LayoutRecord values = layout_record(pristine, "print_values", XGPU_KERNEL_FLAGS_MAGIC);
    CHECK(values.size == sizeof(xgpu_kernel_flags_record_t) + 16);  // "print_values\0" + 3 bytes of padding
    // Siblings have none.
    for (const std::string& quiet : kQuiet) {
      xgpu_kernel_flags_record_t r;
      bool found = false;
      xgpu_test::ElfLayout elf(pristine);
      const Elf64_Shdr& s = elf.sections()[elf.section_index(XGPU_KERNEL_LAYOUT_SECTION)];
      for (uint64_t at = s.sh_offset; at < s.sh_offset + s.sh_size; at += r.record_size) {
        std::memcpy(&r, pristine.data() + at, sizeof(r));
        found |= r.magic == XGPU_KERNEL_FLAGS_MAGIC &&
                 quiet == reinterpret_cast<const char*>(pristine.data() + at + sizeof(r));
      }
      CHECK_FALSE(found);
    }

    std::vector<uint8_t> code = pristine;
    edit_flags_record(code, "print_values", [](xgpu_kernel_flags_record_t& r) { r.flags |= 0x80u; });
    CHECK(read(code).message() ==
          of + "'print_values': flags 0x81 have bits this reader does not know (0x80; known: 0x3)");

    code = pristine;
    edit_flags_record(code, "print_values", [](xgpu_kernel_flags_record_t& r) { r.reserved = 5; });
    CHECK(read(code).message() == of + "'print_values': reserved is 0x5, not zero");

    code = pristine;
    rename_record(code, values, "print_valuez");
    CHECK(has(read(code), of + "'print_valuez': the code object has no kernel 'print_valuez' (its kernels: "));

    // Two records for print_cxx: print_assert's renamed ("print_assert" and
    // "print_cxx" both take a 16-byte name field).
    code = pristine;
    rename_record(code, layout_record(pristine, "print_assert", XGPU_KERNEL_FLAGS_MAGIC), "print_cxx");
    CHECK(read(code).message() == of + "'print_cxx': the kernel has two flags records");

    code = pristine;
    edit_flags_record(code, "print_values", [](xgpu_kernel_flags_record_t& r) { r.magic = 0x464b4759u; });
    CHECK(has(read(code), " is none of XGPU_KERNEL_LAYOUT_MAGIC (0x4c4b4758), XGPU_KERNEL_FLAGS_MAGIC (0x464b4758) and XGPU_KERNEL_ACCESS_MAGIC (0x414b4758)"));

    // No flags: a record is allowed to say so.
    code = pristine;
    edit_flags_record(code, "print_values", [](xgpu_kernel_flags_record_t& r) { r.flags = 0; });
    xe::CodeObjectInfo info;
    REQUIRE(xe::read_code_object(kind, code, &info).ok());
    CHECK_FALSE(kernel(info, "print_values").prints);
    CHECK(kernel(info, "print_assert").prints);
  }
}

TEST_CASE("the check requires every target to agree on which kernels print") {
  TestExecutable file(XGPU_TEST_PRINT_KERNELS_FILE);
  std::vector<xe::EntryInput> inputs = file.inputs();
  const std::string first_isa = inputs[0].isa_name;
  xe::EntryInput& last = inputs.back();
  edit_flags_record(last.code_object, "print_barriers", [](xgpu_kernel_flags_record_t& r) { r.flags = 0; });
  const std::vector<uint8_t> bytes = xgpu_test::pack(inputs);
  xe::Executable executable;
  REQUIRE(xe::Executable::parse(bytes, &executable).ok());
  const xe::Status status = xe::check(executable);
  CHECK(status.message() == "kernel 'print_barriers': it may print (XGPU_KERNEL_FLAG_PRINTS) on " + first_isa +
                                " but not on " + last.isa_name);
}

TEST_CASE("nvptx: a kernel that may print carries its flags record as a PTX array") {
  const std::vector<uint8_t> ptx = xgpu_test::read_file(XGPU_TEST_PRINT_PTX);
  xe::CodeObjectInfo info;
  const xe::Status status = xe::read_code_object(XGPU_EXECUTABLE_ENTRY_KIND_NVPTX, ptx, &info);
  REQUIRE_MESSAGE(status.ok(), status.message());
  // Each kernel and its bounds-checked copy.
  REQUIRE(info.kernels.size() == 6);
  // A call into another source may print: recorded; its sibling is not.
  CHECK(kernel(info, "calls_elsewhere").prints);
  CHECK_FALSE(kernel(info, "quiet_values").prints);
  CHECK(kernel(info, "calls_elsewhere").layout_declared);
  CHECK(kernel(info, "quiet_values").layout_declared);

  // The copies pass the packer's rules (no writable global: their report's
  // "no file" is not an all-zero array), and a kernel's group memory, which
  // its copy also refers to and NVPTX therefore declares at module scope,
  // counts for both (print_test_shared_t: 256 words).
  // (The rules look at globals first; the one thing they refuse here is the
  // call into another source, by design of this PTX.)
  const xe::Status rules = xe::check_code_object_rules(XGPU_EXECUTABLE_ENTRY_KIND_NVPTX, ptx);
  CHECK(rules.message().rfind("undefined function (", 0) == 0);
  CHECK(kernel(info, "group_ring").group_segment_size == 1024u);
  CHECK(kernel(info, "group_ring__xgpu_checked").group_segment_size == 1024u);
  CHECK(kernel(info, "quiet_values").group_segment_size == 0);

  // The same array twice (under another name that ends in _xgpu_layout_).
  std::string text(ptx.begin(), ptx.end());
  const std::string array = "calls_elsewhere_xgpu_flags_xgpu_layout_[";
  const size_t at = text.find(array);
  REQUIRE(at != std::string::npos);
  const size_t begin = text.rfind('\n', at) + 1;
  std::string line = text.substr(begin, text.find('\n', at) + 1 - begin);
  line.replace(line.find(array), array.size(), "calls_elsewhere_again_xgpu_layout_[");
  text.insert(begin, line);
  const std::vector<uint8_t> twice(text.begin(), text.end());
  CHECK(xe::read_code_object(XGPU_EXECUTABLE_ENTRY_KIND_NVPTX, twice, &info).message() ==
        std::string(XGPU_KERNEL_LAYOUT_SECTION) + " flags record of kernel 'calls_elsewhere': the kernel has two flags "
                                                  "records");
}

#endif  // XGPU_TEST_PRINT_KERNELS_FILE
