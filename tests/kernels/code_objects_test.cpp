// The test kernels' executable, built by xgpu_add_kernels: one AMDGPU code
// object per configured processor, one host code object per level, and
// metadata that agrees across them.
#include <doctest/doctest.h>

#include <elf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <xgpu/host_kernel.h>

#include "kernels/test_kernels.h"
#include "test_files.h"
#include "xgpu_executable.h"

namespace xe = xgpu::executable;
using xgpu_test::edit_host_descriptor;
using xgpu_test::pack;
using xgpu_test::TestExecutable;

namespace {

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream stream(list);
  for (std::string item; std::getline(stream, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// EF_AMDGPU_MACH_* values (LLVM's ELF.h / AMDGPUUsage "AMDGPU ELF Header").
const std::map<std::string, uint32_t> kMachOfProcessor = {
    {"gfx90a", 0x03f}, {"gfx942", 0x04c}, {"gfx1100", 0x041}, {"gfx1201", 0x04e},
    {"gfx908", 0x030}, {"gfx1030", 0x036}, {"gfx1101", 0x046}, {"gfx1200", 0x048},
};
constexpr uint32_t kEfAmdgpuMachMask = 0x0ff;

struct ExpectedKernel {
  uint32_t kernarg_size;
  uint32_t kernarg_alignment;
  uint32_t group_segment_size;
  bool uses_barriers;
  std::array<uint32_t, 3> required_workgroup_size = {0, 0, 0};
};
const std::map<std::string, ExpectedKernel> kExpected = {
    {"saxpy", {sizeof(saxpy_args_t), alignof(saxpy_args_t), 0, false}},
    {"ids", {sizeof(ids_args_t), alignof(ids_args_t), 0, false}},
    {"guarded_rows", {sizeof(guarded_rows_args_t), alignof(guarded_rows_args_t), 0, false}},
    {"guarded_stencil", {sizeof(guarded_stencil_args_t), alignof(guarded_stencil_args_t), 0, false}},
    {"histogram", {sizeof(histogram_args_t), alignof(histogram_args_t), 0, false}},
    {"reduce", {sizeof(reduce_args_t), alignof(reduce_args_t), sizeof(reduce_shared_t), true}},
    {"scan", {sizeof(scan_args_t), alignof(scan_args_t), sizeof(scan_shared_t), true}},
    {"fill", {sizeof(fill_args_t), alignof(fill_args_t), 0, false, {XGPU_TEST_FILL_WORKGROUP, 1, 1}}},
    {"group_atomics",
     {sizeof(group_atomics_args_t), alignof(group_atomics_args_t), sizeof(group_atomics_shared_t), true}},
    {"reverse", {sizeof(reverse_args_t), alignof(reverse_args_t), 0, true, {XGPU_TEST_REVERSE_WORKGROUP, 1, 1}}},
    {"poly_clamp", {sizeof(poly_clamp_args_t), alignof(poly_clamp_args_t), 0, false}},
    {"tile_max",
     {sizeof(tile_max_args_t), alignof(tile_max_args_t), sizeof(tile_max_shared_t), true,
      {XGPU_TEST_TILE, XGPU_TEST_TILE, 1}}},
};

// The binding counts the kernel sources declare (XGPU_KERNEL_BINDINGS): the
// leading pointer fields of each struct in kernels/test_kernels.h.
const std::map<std::string, uint32_t> kBindings = {
    {"saxpy", 2}, {"ids", 1},   {"histogram", 3},  {"reduce", 2},     {"scan", 4},
    {"fill", 1},  {"group_atomics", 1}, {"reverse", 2}, {"poly_clamp", 2}, {"tile_max", 2},
    {"guarded_rows", 3}, {"guarded_stencil", 2},
};

using Loaded = TestExecutable;

void check_kernels(const xe::CodeObjectInfo& info, const std::string& isa) {
  REQUIRE(info.kernels.size() == kExpected.size());
  for (const xe::KernelInfo& k : info.kernels) {
    INFO(isa << " kernel " << k.name);
    auto it = kExpected.find(k.name);
    REQUIRE(it != kExpected.end());
    CHECK(k.kernarg_size == it->second.kernarg_size);
    CHECK(k.kernarg_alignment == it->second.kernarg_alignment);
    CHECK(k.group_segment_size == it->second.group_segment_size);
    CHECK(k.hidden_args.empty());
    // None of them prints: no kernel flags record.
    CHECK_FALSE(k.prints);
    // The layout record survived the link on this target and reads back.
    CHECK(k.layout_declared);
    CHECK(k.binding_count == kBindings.at(k.name));
    CHECK(k.constant_size == it->second.kernarg_size - 8 * kBindings.at(k.name));
  }
  // Constants as the structs spell them, tail padding included.
  auto find = [&](const std::string& name) {
    return *std::find_if(info.kernels.begin(), info.kernels.end(), [&](const xe::KernelInfo& k) { return k.name == name; });
  };
  CHECK(find("saxpy").constant_size == 8);
  CHECK(find("poly_clamp").constant_size == 24);
  CHECK(find("scan").constant_size == 8);
  CHECK(find("histogram").constant_size == 8);
}

}  // namespace

TEST_CASE("every configured AMDGPU target has an amdgcn code object for that processor") {
  Loaded file;
  for (const std::string& gfx : split(XGPU_TEST_AMDGPU_TARGETS)) {
    const std::string isa = "amdgcn-amd-amdhsa--" + gfx;
    INFO(isa);
    const xe::Entry* entry = file.executable.find(isa);
    REQUIRE(entry != nullptr);
    CHECK(entry->kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU);
    Elf64_Ehdr header;
    REQUIRE(entry->code_object.size() >= sizeof(header));
    std::memcpy(&header, entry->code_object.data(), sizeof(header));
    CHECK(header.e_ident[EI_CLASS] == ELFCLASS64);
    CHECK(header.e_ident[EI_OSABI] == 64);  // ELFOSABI_AMDGPU_HSA
    CHECK(header.e_machine == 224);         // EM_AMDGPU
    CHECK(header.e_type == ET_DYN);
    auto mach = kMachOfProcessor.find(gfx);
    if (mach != kMachOfProcessor.end()) CHECK((header.e_flags & kEfAmdgpuMachMask) == mach->second);

    xe::CodeObjectInfo info;
    xe::Status status = xe::read_code_object(entry->kind, entry->code_object, &info);
    REQUIRE_MESSAGE(status.ok(), status.message());
    CHECK(info.isa_name == isa);
    CHECK(info.amdhsa_version[0] == 1);
    check_kernels(info, isa);
    for (const xe::KernelInfo& k : info.kernels) {
      CHECK(k.explicit_arg_count == 1);
      CHECK(k.max_flat_workgroup_size >= 256);
      CHECK((k.wavefront_size == 32 || k.wavefront_size == 64));
      CHECK_FALSE(k.uses_dynamic_stack);
    }
    CHECK(xe::check_code_object_rules(entry->kind, entry->code_object).ok());
  }
}

TEST_CASE("every configured host level has a host code object whose descriptors match") {
  Loaded file;
  for (const std::string& level : split(XGPU_TEST_HOST_LEVELS)) {
    const std::string isa = "x86_64-unknown-linux-gnu--" + level;
    INFO(isa);
    const xe::Entry* entry = file.executable.find(isa);
    REQUIRE(entry != nullptr);
    CHECK(entry->kind == XGPU_EXECUTABLE_ENTRY_KIND_HOST);
    xe::CodeObjectInfo info;
    xe::Status status = xe::read_code_object(entry->kind, entry->code_object, &info);
    REQUIRE_MESSAGE(status.ok(), status.message());
    CHECK(info.e_machine == EM_X86_64);
    CHECK(info.isa_name == isa);
    check_kernels(info, isa);
    for (const xe::KernelInfo& k : info.kernels) {
      INFO(k.name);
      const ExpectedKernel& expected = kExpected.at(k.name);
      CHECK(k.uses_barriers == expected.uses_barriers);
      for (int d = 0; d < 3; ++d) CHECK(k.required_workgroup_size[d] == expected.required_workgroup_size[d]);
      CHECK(k.private_segment_size == 0);
    }
    status = xe::check_code_object_rules(entry->kind, entry->code_object);
    CHECK_MESSAGE(status.ok(), status.message());
  }
}

TEST_CASE("the executable passes the cross-target check and AMDGPU metadata equals the host descriptors") {
  Loaded file;
  std::vector<xe::CodeObjectInfo> infos;
  xe::Status status = xe::check(file.executable, &infos);
  REQUIRE_MESSAGE(status.ok(), status.message());
  REQUIRE(infos.size() == file.executable.entries().size());
}

TEST_CASE("select picks the best host level for a CPU agent") {
  Loaded file;
  std::vector<std::string> levels = split(XGPU_TEST_HOST_LEVELS);
  std::vector<std::string> agent = {"x86_64-unknown-linux-gnu--x86-64-v4", "x86_64-unknown-linux-gnu--x86-64-v3",
                                    "x86_64-unknown-linux-gnu--x86-64-v2", "x86_64-unknown-linux-gnu--x86-64"};
  const xe::Entry* entry = nullptr;
  xe::Status status = file.executable.select(agent, &entry);
  REQUIRE_MESSAGE(status.ok(), status.message());
  // The first agent level the file holds.
  for (const std::string& a : agent) {
    if (file.executable.find(a)) {
      CHECK(entry->isa_name == a);
      break;
    }
  }
  std::vector<std::string> unknown = {"amdgcn-amd-amdhsa--gfx700"};
  status = file.executable.select(unknown, &entry);
  CHECK(status.message().starts_with(
      "no code object for the agent: agent ISA amdgcn-amd-amdhsa--gfx700; the executable holds "));
  CHECK(status.message().find("x86_64-unknown-linux-gnu--" + levels[0]) != std::string::npos);
}

namespace {

// The test executable with the first host entry's descriptor of `kernel`
// edited; `out_host_isa` receives that entry's ISA name. The kernel's layout
// record follows the descriptor's kernarg size, so the code object stays
// consistent in itself and the check meets the rule between targets.
std::vector<uint8_t> with_host_descriptor(const std::string& kernel,
                                          const std::function<void(xgpu_host_kernel_descriptor_t&)>& edit,
                                          std::string* out_host_isa) {
  Loaded file;
  std::vector<xe::EntryInput> inputs = file.inputs();
  for (xe::EntryInput& input : inputs) {
    if (input.kind != XGPU_EXECUTABLE_ENTRY_KIND_HOST) continue;
    uint32_t kernarg_size = 0;
    edit_host_descriptor(input.code_object, kernel, [&](xgpu_host_kernel_descriptor_t& d) {
      edit(d);
      kernarg_size = d.kernarg_size;
    });
    xgpu_test::edit_layout_record(input.code_object, kernel,
                                  [&](xgpu_kernel_layout_record_t& r) { r.kernarg_size = kernarg_size; });
    *out_host_isa = input.isa_name;
    break;
  }
  REQUIRE(!out_host_isa->empty());
  return pack(inputs);
}

std::string check_message(const std::vector<uint8_t>& bytes) {
  xe::Executable executable;
  xe::Status status = xe::Executable::parse(bytes, &executable);
  REQUIRE_MESSAGE(status.ok(), status.message());
  status = xe::check(executable);
  return status.ok() ? std::string("(ok)") : status.message();
}

}  // namespace

TEST_CASE("the check reports a kernarg size that differs between targets") {
  Loaded file;
  const std::string first_isa(file.executable.entries()[0].isa_name);
  std::string host_isa;
  auto bytes = with_host_descriptor("saxpy", [](auto& d) { d.kernarg_size += 8; }, &host_isa);
  CHECK(check_message(bytes) == "kernel 'saxpy': kernarg size differs: " + std::to_string(sizeof(saxpy_args_t)) +
                                    " bytes on " + first_isa + ", " + std::to_string(sizeof(saxpy_args_t) + 8) +
                                    " bytes on " + host_isa);
}

TEST_CASE("kernel layouts: a layout declared on one target only, or with another binding count, fails the check") {
  Loaded file;
  const std::string first_isa(file.executable.entries()[0].isa_name);
  std::vector<xe::EntryInput> inputs = file.inputs();
  xe::EntryInput* host = nullptr;
  for (xe::EntryInput& input : inputs) {
    if (input.kind == XGPU_EXECUTABLE_ENTRY_KIND_HOST) {
      host = &input;
      break;
    }
  }
  REQUIRE(host != nullptr);
  SUBCASE("no layout records on one target") {
    // Renaming the section hides every record from the reader, as if no
    // kernel declared XGPU_KERNEL_BINDINGS when this entry was built.
    xgpu_test::ElfLayout elf(host->code_object);
    const uint64_t name = elf.section_name_offset(elf.section_index(XGPU_KERNEL_LAYOUT_SECTION));
    host->code_object[name + std::string_view(XGPU_KERNEL_LAYOUT_SECTION).size() - 1] = 'z';
    xe::CodeObjectInfo info;
    xe::Status status = xe::read_code_object(host->kind, host->code_object, &info);
    REQUIRE_MESSAGE(status.ok(), status.message());
    REQUIRE(info.kernels.size() == kExpected.size());
    for (const xe::KernelInfo& k : info.kernels) {
      INFO(k.name);
      CHECK_FALSE(k.layout_declared);
      CHECK(k.binding_count == 0);
      CHECK(k.constant_size == 0);
    }
    // fill comes first by name.
    CHECK(check_message(pack(inputs)) == "kernel 'fill': its layout (XGPU_KERNEL_BINDINGS) is declared on " +
                                             first_isa + " but not on " + host->isa_name);
  }
  SUBCASE("another binding count on one target") {
    xgpu_test::edit_layout_record(host->code_object, "saxpy", [](xgpu_kernel_layout_record_t& r) {
      r.binding_count = 1;
    });
    // Its binding access record follows (it describes the layout's bindings).
    xgpu_test::edit_access_record(host->code_object, "saxpy", [](xgpu_kernel_access_record_t& r) {
      r.binding_count = 1;
      r.read_mask &= 1;
      r.write_mask &= 1;
      r.atomic_mask &= 1;
      r.unknown_mask &= 1;
    });
    xe::CodeObjectInfo info;
    xe::Status status = xe::read_code_object(host->kind, host->code_object, &info);
    REQUIRE_MESSAGE(status.ok(), status.message());
    const xe::KernelInfo& saxpy =
        *std::find_if(info.kernels.begin(), info.kernels.end(), [](const xe::KernelInfo& k) { return k.name == "saxpy"; });
    CHECK(saxpy.binding_count == 1);
    CHECK(saxpy.constant_size == 16);
    CHECK(check_message(pack(inputs)) ==
          "kernel 'saxpy': declared binding count differs: 2 on " + first_isa + ", 1 on " + host->isa_name);
  }
}

TEST_CASE("the check reports a kernarg alignment that differs between targets") {
  Loaded file;
  const std::string first_isa(file.executable.entries()[0].isa_name);
  std::string host_isa;
  // Same size, stricter alignment: a runtime placing the kernarg for one
  // target would misalign it for the other.
  auto bytes = with_host_descriptor("scan", [](auto& d) { d.kernarg_alignment = 16; }, &host_isa);
  CHECK(check_message(bytes) == "kernel 'scan': kernarg alignment differs: " +
                                    std::to_string(alignof(scan_args_t)) + " bytes on " + first_isa +
                                    ", 16 bytes on " + host_isa);
}

TEST_CASE("the check reports a static group segment size that differs between targets") {
  Loaded file;
  const std::string first_isa(file.executable.entries()[0].isa_name);
  std::string host_isa;
  SUBCASE("a groupshared kernel") {
    auto bytes = with_host_descriptor("reduce", [](auto& d) { d.group_segment_size -= 4; }, &host_isa);
    CHECK(check_message(bytes) == "kernel 'reduce': static group segment size differs: " +
                                      std::to_string(sizeof(reduce_shared_t)) + " bytes on " + first_isa + ", " +
                                      std::to_string(sizeof(reduce_shared_t) - 4) + " bytes on " + host_isa);
  }
  SUBCASE("a kernel without static group memory") {
    auto bytes = with_host_descriptor("reverse", [](auto& d) { d.group_segment_size = 64; }, &host_isa);
    CHECK(check_message(bytes) == "kernel 'reverse': static group segment size differs: 0 bytes on " + first_isa +
                                      ", 64 bytes on " + host_isa);
  }
}

TEST_CASE("the check reports a required workgroup size above an AMDGPU target's limit") {
  Loaded file;
  SUBCASE("every target's limit") {
    std::string host_isa;
    auto bytes = with_host_descriptor("fill", [](auto& d) { d.required_workgroup_size[0] = 2048; }, &host_isa);
    CHECK(check_message(bytes) == "kernel 'fill': required workgroup size 2048 work items exceeds the limit 1024 on " +
                                      std::string(file.executable.entries()[0].isa_name));
  }
  SUBCASE("the first target in entry order whose limit is exceeded") {
    // Lower the metadata's .max_flat_workgroup_size (1024, msgpack uint16)
    // to 512 on the second AMDGPU entry and to 256 on the third.
    std::vector<xe::EntryInput> inputs = file.inputs();
    REQUIRE(inputs.size() >= 4);
    REQUIRE(inputs[2].kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU);
    // fixstr key (0xa0 | 24), then uint16 (0xcd) 0x0400 big-endian.
    std::vector<uint8_t> key = {0xb8};
    for (char c : std::string_view(".max_flat_workgroup_size")) key.push_back(static_cast<uint8_t>(c));
    key.insert(key.end(), {0xcd, 0x04, 0x00});
    auto set_limit = [&](std::vector<uint8_t>& code, uint8_t high_byte) {
      size_t count = 0;
      for (auto it = code.begin(); (it = std::search(it, code.end(), key.begin(), key.end())) != code.end(); ++count) {
        it += static_cast<ptrdiff_t>(key.size());
        *(it - 2) = high_byte;
      }
      CHECK(count == kExpected.size());
    };
    set_limit(inputs[1].code_object, 0x02);
    set_limit(inputs[2].code_object, 0x01);
    for (xe::EntryInput& input : inputs) {
      if (input.kind != XGPU_EXECUTABLE_ENTRY_KIND_HOST) continue;
      edit_host_descriptor(input.code_object, "fill", [](auto& d) { d.required_workgroup_size[0] = 600; });
      edit_host_descriptor(input.code_object, "reverse", [](auto& d) { d.required_workgroup_size[0] = 300; });
    }
    // fill comes first by name: 600 > 512 on the second entry (the third's
    // 256 is smaller, but the second comes first).
    CHECK(check_message(pack(inputs)) == "kernel 'fill': required workgroup size 600 work items exceeds the limit 512 on " +
                                             inputs[1].isa_name);
    for (xe::EntryInput& input : inputs) {
      if (input.kind != XGPU_EXECUTABLE_ENTRY_KIND_HOST) continue;
      edit_host_descriptor(input.code_object, "fill", [](auto& d) { d.required_workgroup_size[0] = 64; });
    }
    CHECK(check_message(pack(inputs)) ==
          "kernel 'reverse': required workgroup size 300 work items exceeds the limit 256 on " + inputs[2].isa_name);
  }
}

TEST_CASE("the fiber stack check: the test kernels fit, and the host stack grows with the descriptor") {
  Loaded file;
  std::vector<xe::CodeObjectInfo> infos;
  xe::Status status = xe::check(file.executable, &infos);
  REQUIRE_MESSAGE(status.ok(), status.message());
  const uint64_t default_stack = xe::host_fiber_kernel_stack_bytes(0);
  CHECK(default_stack == XGPU_HOST_FIBER_STACK_MIN_BYTES - XGPU_HOST_FIBER_STACK_RUNTIME_BYTES);
  CHECK(xe::host_fiber_kernel_stack_bytes(1u << 20) == (1u << 20));
  for (size_t e = 0; e < infos.size(); ++e) {
    if (file.executable.entries()[e].kind != XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU) continue;
    for (const xe::KernelInfo& k : infos[e].kernels) CHECK(k.private_segment_size <= default_stack);
  }
  // (The failing side, a barrier kernel with a 64 KiB stack array, is the
  // kernels.must_fail.private_stack build test.)
}

TEST_CASE("the check reports a kernel missing from one target") {
  Loaded file;
  auto replace_all = [](std::vector<uint8_t>& code, const std::string& from, const std::string& to) {
    size_t count = 0;
    for (auto it = code.begin(); (it = std::search(it, code.end(), from.begin(), from.end())) != code.end(); ++count) {
      it = std::copy(to.begin(), to.end(), it);
    }
    return count;
  };
  std::vector<xe::EntryInput> inputs;
  std::string host_isa;
  for (const xe::Entry& e : file.executable.entries()) {
    std::vector<uint8_t> code(e.code_object.begin(), e.code_object.end());
    if (e.kind == XGPU_EXECUTABLE_ENTRY_KIND_HOST && host_isa.empty()) {
      host_isa = std::string(e.isa_name);
      // Rename kernel "scan" to "scam": its symbol and its descriptor's name.
      CHECK(replace_all(code, std::string("scan.kd", 8), std::string("scam.kd", 8)) >= 1);
      CHECK(replace_all(code, std::string("\0scan\0", 6), std::string("\0scam\0", 6)) >= 1);
    }
    inputs.push_back({std::string(e.isa_name), e.kind, std::move(code)});
  }
  std::vector<uint8_t> bytes;
  REQUIRE(xe::write(inputs, &bytes).ok());
  xe::Executable executable;
  REQUIRE(xe::Executable::parse(bytes, &executable).ok());
  xe::Status status = xe::check(executable);
  REQUIRE_FALSE(status.ok());
  CHECK(status.message().starts_with("kernel sets differ: "));
  CHECK(status.message().find(host_isa +
                              " has fill, group_atomics, guarded_rows, guarded_stencil, histogram, ids, poly_clamp, reduce, reverse, saxpy, scam, "
                              "tile_max") != std::string::npos);
}

namespace {

struct ToolRun {
  int exit_code = -1;  // the tool's exit status
  std::string out;     // what it printed on stdout
};

// Runs `xgpu-kernels <command> <path>` (stderr discarded).
ToolRun run_tool(const std::string& command, const std::string& path) {
  const std::string line = std::string("'") + XGPU_KERNELS_TOOL + "' " + command + " '" + path + "' 2>/dev/null";
  FILE* pipe = popen(line.c_str(), "r");
  REQUIRE(pipe != nullptr);
  ToolRun run;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;) run.out.append(buffer, n);
  const int status = pclose(pipe);
  REQUIRE_MESSAGE(WIFEXITED(status), line << " did not exit normally (status " << status << ")");
  run.exit_code = WEXITSTATUS(status);
  return run;
}

std::string work_file(const std::string& name) {
  return std::string(XGPU_TEST_WORK_DIR) + "/" + name + "." + std::to_string(getpid()) + ".xgpux";
}

bool has(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("xgpu-kernels inspect prints the table and exits 0 only when the check passes") {
  SUBCASE("the built executable") {
    ToolRun run = run_tool("inspect", XGPU_TEST_KERNELS_FILE);
    CHECK(run.exit_code == 0);
    CHECK(has(run.out, "\ncheck: ok\n"));
    // The declared layout: saxpy has 2 bindings and 8 bytes of constants.
    CHECK(has(run.out, " kernarg  align bindings constants    group "));
    CHECK(has(run.out, "\nkernel saxpy\n"));
    const std::string saxpy = run.out.substr(run.out.find("\nkernel saxpy\n"));
    CHECK(has(saxpy.substr(0, saxpy.find("\n\n")), "      24      8        2         8        0 "));
    ToolRun json = run_tool("inspect --json", XGPU_TEST_KERNELS_FILE);
    CHECK(json.exit_code == 0);
    CHECK(has(json.out, "\"name\": \"saxpy\",\n          \"kernarg_size\": 24,"));
    CHECK(has(json.out, "\"layout\": {\n            \"binding_count\": 2,\n            \"constant_size\": 8\n          }"));
  }
  SUBCASE("a kernel without a declared layout") {
    Loaded file;
    std::vector<xe::EntryInput> inputs = file.inputs();
    // Hide the layout records of every entry: the kernels then declare none.
    for (xe::EntryInput& input : inputs) {
      xgpu_test::ElfLayout elf(input.code_object);
      const uint64_t name = elf.section_name_offset(elf.section_index(XGPU_KERNEL_LAYOUT_SECTION));
      input.code_object[name + 1] = 'y';
    }
    const std::string path = work_file("inspect-no-layout");
    xgpu_test::write_file(path, pack(inputs));
    ToolRun run = run_tool("inspect", path);
    CHECK(run.exit_code == 0);
    CHECK(has(run.out, "      24      8        -         -        0 "));
    ToolRun json = run_tool("inspect --json", path);
    CHECK(json.exit_code == 0);
    CHECK(has(json.out, "\"layout\": null"));
    CHECK_FALSE(has(json.out, "\"binding_count\""));
    std::remove(path.c_str());
  }
  SUBCASE("targets that disagree") {
    std::string host_isa;
    const std::string path = work_file("inspect-mismatch");
    xgpu_test::write_file(path, with_host_descriptor("saxpy", [](auto& d) { d.kernarg_size += 8; }, &host_isa));
    ToolRun run = run_tool("inspect", path);
    CHECK(run.exit_code == 1);
    CHECK(has(run.out, "\nkernel saxpy\n"));
    CHECK(has(run.out, "\nkernel tile_max\n"));
    CHECK(has(run.out, "\ncheck: kernel 'saxpy': kernarg size differs: "));
    ToolRun json = run_tool("inspect --json", path);
    CHECK(json.exit_code == 1);
    CHECK(has(json.out, "\"check\": \"kernel 'saxpy': kernarg size differs: "));
    CHECK(has(json.out, "\"name\": \"tile_max\""));
    CHECK(run_tool("check", path).exit_code == 1);
    std::remove(path.c_str());
  }
  SUBCASE("a code object that cannot be read") {
    Loaded file;
    std::vector<xe::EntryInput> inputs = file.inputs();
    xe::EntryInput& broken = inputs.back();
    broken.code_object[1] = 'X';  // ELF magic
    const std::string path = work_file("inspect-corrupt");
    xgpu_test::write_file(path, pack(inputs));
    ToolRun run = run_tool("inspect", path);
    CHECK(run.exit_code == 1);
    CHECK(has(run.out, broken.isa_name));
    CHECK(has(run.out, "error: not an ELF file (bad magic)"));
    CHECK(has(run.out, "\nkernel saxpy\n"));  // the readable targets are still listed
    CHECK(has(run.out, "\ncheck: " + broken.isa_name + ": not an ELF file (bad magic)\n"));
    ToolRun json = run_tool("inspect --json", path);
    CHECK(json.exit_code == 1);
    CHECK(has(json.out, "\"error\": \"not an ELF file (bad magic)\""));
    std::remove(path.c_str());
  }
  SUBCASE("a file that is not an executable") {
    const std::string path = work_file("inspect-truncated");
    std::vector<uint8_t> bytes = Loaded().bytes;
    bytes.resize(bytes.size() / 2);
    xgpu_test::write_file(path, bytes);
    CHECK(run_tool("inspect", path).exit_code == 1);
    std::remove(path.c_str());
  }
}
