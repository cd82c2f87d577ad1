// The test kernels' executable, built by xgpu_add_kernels: one AMDGPU code
// object per configured processor, one host code object per level, and
// metadata that agrees across them.
#include <doctest/doctest.h>

#include <elf.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <xgpu/host_kernel.h>

#include "kernels/test_kernels.h"
#include "xgpu_executable.h"

namespace xe = xgpu::executable;

namespace {

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

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

struct Loaded {
  std::vector<uint8_t> bytes = read_file(XGPU_TEST_KERNELS_FILE);
  xe::Executable executable;
  Loaded() {
    xe::Status status = xe::Executable::parse(bytes, &executable);
    REQUIRE_MESSAGE(status.ok(), status.message());
  }
};

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
  }
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

TEST_CASE("the check reports a kernarg size that differs between targets") {
  Loaded file;
  // Rebuild the executable with one host descriptor's kernarg size patched.
  std::vector<xe::EntryInput> inputs;
  const xe::Entry* host = nullptr;
  for (const xe::Entry& e : file.executable.entries()) {
    inputs.push_back({std::string(e.isa_name), e.kind, std::vector<uint8_t>(e.code_object.begin(), e.code_object.end())});
    if (e.kind == XGPU_EXECUTABLE_ENTRY_KIND_HOST && !host) host = &e;
  }
  REQUIRE(host != nullptr);
  xe::EntryInput& patched = inputs[static_cast<size_t>(host - file.executable.entries().data())];
  xe::CodeObjectInfo before;
  REQUIRE(xe::read_code_object(patched.kind, patched.code_object, &before).ok());
  // Find the descriptor whose kernarg_size we change: the first XGHK record
  // that is a kernel descriptor (abi_version follows the magic).
  size_t patched_count = 0;
  for (size_t at = 0; at + sizeof(xgpu_host_kernel_descriptor_t) <= patched.code_object.size(); at += 8) {
    xgpu_host_kernel_descriptor_t d;
    std::memcpy(&d, patched.code_object.data() + at, sizeof(d));
    if (d.magic != XGPU_HOST_KERNEL_MAGIC || d.abi_version != XGPU_HOST_KERNEL_ABI_VERSION) continue;
    if (d.kernarg_size != sizeof(saxpy_args_t) || d.group_segment_size != 0) continue;
    d.kernarg_size += 8;
    std::memcpy(patched.code_object.data() + at, &d, sizeof(d));
    ++patched_count;
    break;
  }
  REQUIRE(patched_count == 1);
  std::vector<uint8_t> bytes;
  REQUIRE(xe::write(inputs, &bytes).ok());
  xe::Executable executable;
  REQUIRE(xe::Executable::parse(bytes, &executable).ok());
  xe::Status status = xe::check(executable);
  REQUIRE_FALSE(status.ok());
  CHECK(status.message().find("kernarg size differs: ") != std::string::npos);
  CHECK(status.message().find(std::to_string(sizeof(saxpy_args_t) + 8) + " bytes on " + std::string(host->isa_name)) !=
        std::string::npos);
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
                              " has fill, group_atomics, histogram, ids, poly_clamp, reduce, reverse, saxpy, scam, "
                              "tile_max") != std::string::npos);
}
