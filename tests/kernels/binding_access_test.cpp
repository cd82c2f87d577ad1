// Binding access records (<xgpu/executable_format.h>): what the pass plugin
// (tools/xgpu-wiloop, binding_access.cpp) records of the test kernels on
// every target, and how the reader refuses a damaged record.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <xgpu/executable_format.h>

#include "test_files.h"
#include "xgpu_executable.h"

#if defined(XGPU_TEST_PRINT_KERNELS_FILE)  // built with the pass plugin

namespace xe = xgpu::executable;
using xgpu_test::edit_access_record;
using xgpu_test::layout_record;
using xgpu_test::TestExecutable;

namespace {

// Per binding: r(ead), w(rite), a(tomic), ? (unknown), - (not accessed).
std::string text_of(const xe::KernelInfo& k) {
  std::string text;
  for (uint32_t i = 0; i < k.binding_count; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if (i) text += ' ';
    if (k.binding_unknown & bit) {
      text += '?';
      continue;
    }
    std::string one;
    if (k.binding_reads & bit) one += 'r';
    if (k.binding_writes & bit) one += 'w';
    if (k.binding_atomics & bit) one += 'a';
    text += one.empty() ? "-" : one;
  }
  return text;
}

}  // namespace

TEST_CASE("binding access: the test kernels' records say what their code does, on every target") {
  // tests/kernels/kernels/basic.c and groupshared.c, by binding.
  const std::map<std::string, std::string> expected = {
      {"saxpy", "r rw"},         // x read, y read and written
      {"fill", "w"},             // out written
      {"ids", "w"},              //
      {"histogram", "r a a"},    // values read, bins and summary updated atomically
      {"reduce", "r w"},         // in read, out written
      {"reverse", "r w"},        //
      {"scan", "r w w w"},       // in read; out, totals, echo written
      {"group_atomics", "w"},    // out written (its atomics are on group memory)
  };
  TestExecutable file;
  size_t checked_entries = 0;
  for (const xe::Entry& entry : file.executable.entries()) {
    INFO(entry.isa_name);
    xe::CodeObjectInfo info;
    const xe::Status status = xe::read_code_object(entry.kind, entry.code_object, &info);
    REQUIRE_MESSAGE(status.ok(), status.message());
    for (const xe::KernelInfo& k : info.kernels) {
      INFO("kernel " << k.name);
      // Every kernel that declares its layout has a record.
      CHECK(k.access_known == k.layout_declared);
      const auto it = expected.find(k.name);
      if (it == expected.end() || !k.access_known) continue;
      CHECK(text_of(k) == it->second);
    }
    ++checked_entries;
  }
  CHECK(checked_entries >= 2);  // AMDGPU and the host at least
}

TEST_CASE("binding access records: reserved, masks past the bindings, unknown alone, two, no such kernel") {
  TestExecutable file;
  const std::string section = XGPU_KERNEL_LAYOUT_SECTION;
  for (xgpu_executable_entry_kind_t kind : {XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, XGPU_EXECUTABLE_ENTRY_KIND_HOST}) {
    const xe::Entry& entry = file.first(kind);
    INFO(entry.isa_name);
    const std::vector<uint8_t> pristine(entry.code_object.begin(), entry.code_object.end());
    const std::string of = section + " binding access record of kernel 'saxpy': ";
    auto read = [&](const std::vector<uint8_t>& code) {
      xe::CodeObjectInfo info;
      return xe::read_code_object(kind, code, &info);
    };
    REQUIRE(read(pristine).ok());
    CHECK(layout_record(pristine, "saxpy", XGPU_KERNEL_ACCESS_MAGIC).size == sizeof(xgpu_kernel_access_record_t) + 8);
    auto edited = [&](auto change) {
      std::vector<uint8_t> code = pristine;
      edit_access_record(code, "saxpy", change);
      return read(code).message();
    };
    CHECK(edited([](xgpu_kernel_access_record_t& r) { r.reserved = 7; }) == of + "reserved is 0x7, not zero");
    CHECK(edited([](xgpu_kernel_access_record_t& r) { r.write_mask |= 4; }) ==
          of + "masks name bindings past binding_count 2 (bits 0x4)");
    CHECK(edited([](xgpu_kernel_access_record_t& r) { r.unknown_mask = 1; }) ==
          of + "a binding in unknown_mask lacks its read, write or atomic bit");
    CHECK(edited([](xgpu_kernel_access_record_t& r) { r.binding_count = 65; }) ==
          of + "binding_count 65 is more than 64");
    CHECK(edited([](xgpu_kernel_access_record_t& r) { r.binding_count = 3; }) ==
          section + " binding access record of kernel 'saxpy': binding_count 3 differs from the 2 of its layout record");
    // An unknown binding with all three bits is what the plugin writes for
    // a pointer it cannot follow: read as such.
    {
      std::vector<uint8_t> code = pristine;
      edit_access_record(code, "saxpy", [](xgpu_kernel_access_record_t& r) {
        r.read_mask |= 1;
        r.write_mask |= 1;
        r.atomic_mask |= 1;
        r.unknown_mask = 1;
      });
      xe::CodeObjectInfo info;
      REQUIRE(xe::read_code_object(kind, code, &info).ok());
      for (const xe::KernelInfo& k : info.kernels)
        if (k.name == "saxpy") CHECK(k.binding_unknown == 1);
    }
    // The record renamed (in place) to a name no kernel has.
    {
      std::vector<uint8_t> code = pristine;
      const xgpu_test::LayoutRecord r = layout_record(code, "saxpy", XGPU_KERNEL_ACCESS_MAGIC);
      std::memcpy(code.data() + r.at + sizeof(xgpu_kernel_access_record_t), "saxpz", 5);
      CHECK(read(code).message().find(section + " binding access record of kernel 'saxpz': the code object has no "
                                                "kernel 'saxpz'") != std::string::npos);
    }
  }
}

#endif
