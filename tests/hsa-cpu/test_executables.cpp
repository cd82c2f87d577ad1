// hsa-cpu executables: loading host code objects from memory and from a
// file, symbol queries, refusal of foreign ISAs, and bad handles.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <set>

#include <xgpu/host_kernel.h>

#include "hsa_test_util.h"

using namespace hsa_test;

namespace {

int open_fds() {
  int count = 0;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (readdir(dir) != nullptr) ++count;
    closedir(dir);
  }
  return count;
}

hsa_status_t load(hsa_agent_t agent, const std::vector<char>& bytes, hsa_executable_t* out_exec,
                  hsa_code_object_reader_t* out_reader) {
  REQUIRE(hsa_code_object_reader_create_from_memory(bytes.data(), bytes.size(), out_reader) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                    out_exec) == HSA_STATUS_SUCCESS);
  return hsa_executable_load_agent_code_object(*out_exec, agent, *out_reader, nullptr, nullptr);
}

std::string symbol_name(hsa_executable_symbol_t symbol) {
  uint32_t length = 0;
  hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &length);
  std::string name(length, '\0');
  hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name.data());
  return name;
}

}  // namespace

TEST_SUITE("executables") {

TEST_CASE("load from memory: symbols and their info") {
  Runtime rt;
  const int fds_before = open_fds();
  Kernels kernels(rt.agent);
  CHECK(open_fds() == fds_before);  // the memfd is closed after dlopen

  std::set<std::string> names;
  CHECK(hsa_executable_iterate_agent_symbols(
            kernels.executable, rt.agent,
            [](hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t symbol, void* data) {
              static_cast<std::set<std::string>*>(data)->insert(symbol_name(symbol));
              return HSA_STATUS_SUCCESS;
            },
            &names) == HSA_STATUS_SUCCESS);
  CHECK(names == std::set<std::string>{"empty.kd", "busy.kd", "write_ids.kd", "wg_reduce.kd", "group_probe.kd",
                                       "thread_id.kd", "group_where.kd", "gate.kd", "snapshot.kd", "group_owner.kd", "fault.kd", "fault_fiber.kd",
                                       "fault_runs.kd", "fault_runs_whole.kd", "fault_line.kd", "fault_line_fiber.kd",
                                       "test_variable"});
  int count = 0;
  CHECK(hsa_executable_iterate_symbols(
            kernels.executable,
            [](hsa_executable_t, hsa_executable_symbol_t, void* data) {
              ++*static_cast<int*>(data);
              return HSA_STATUS_INFO_BREAK;
            },
            &count) == HSA_STATUS_INFO_BREAK);
  CHECK(count == 1);

  // Both the bare name and the descriptor name resolve to the same kernel.
  hsa_executable_symbol_t bare, kd;
  REQUIRE(hsa_executable_get_symbol_by_name(kernels.executable, "wg_reduce", &rt.agent, &bare) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_executable_get_symbol_by_name(kernels.executable, "wg_reduce.kd", &rt.agent, &kd) ==
          HSA_STATUS_SUCCESS);
  CHECK(bare.handle == kd.handle);
  hsa_symbol_kind_t kind;
  CHECK(hsa_executable_symbol_get_info(kd, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) == HSA_STATUS_SUCCESS);
  CHECK(kind == HSA_SYMBOL_KIND_KERNEL);
  uint64_t object = 0;
  CHECK(hsa_executable_symbol_get_info(kd, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object) == HSA_STATUS_SUCCESS);
  const auto* descriptor = reinterpret_cast<const xgpu_host_kernel_descriptor_t*>(object);
  CHECK(descriptor->magic == XGPU_HOST_KERNEL_MAGIC);
  CHECK(std::string(descriptor->name) == "wg_reduce");
  CHECK((descriptor->flags & XGPU_HOST_KERNEL_FLAG_USES_BARRIERS) != 0);
  uint32_t kernarg_size = 0, kernarg_align = 0, group = 99, priv = 99;
  CHECK(hsa_executable_symbol_get_info(kd, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kernarg_size) ==
        HSA_STATUS_SUCCESS);
  CHECK(hsa_executable_symbol_get_info(kd, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT,
                                       &kernarg_align) == HSA_STATUS_SUCCESS);
  CHECK(hsa_executable_symbol_get_info(kd, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &group) ==
        HSA_STATUS_SUCCESS);
  CHECK(hsa_executable_symbol_get_info(kd, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &priv) ==
        HSA_STATUS_SUCCESS);
  CHECK(kernarg_size == 2 * sizeof(void*));
  CHECK(kernarg_align == alignof(void*));
  CHECK(group == 0);
  CHECK(priv == 0);
  bool dynamic = true;
  CHECK(hsa_executable_symbol_get_info(kd, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK, &dynamic) ==
        HSA_STATUS_SUCCESS);
  CHECK_FALSE(dynamic);
  hsa_agent_t owner{};
  CHECK(hsa_executable_symbol_get_info(kd, HSA_EXECUTABLE_SYMBOL_INFO_AGENT, &owner) == HSA_STATUS_SUCCESS);
  CHECK(owner.handle == rt.agent.handle);
  hsa_symbol_linkage_t linkage;
  CHECK(hsa_executable_symbol_get_info(kd, HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE, &linkage) == HSA_STATUS_SUCCESS);
  CHECK(hsa_executable_symbol_get_info(kd, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &object) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_executable_symbol_t group_kd;
  REQUIRE(hsa_executable_get_symbol_by_name(kernels.executable, "group_probe", &rt.agent, &group_kd) ==
          HSA_STATUS_SUCCESS);
  CHECK(hsa_executable_symbol_get_info(group_kd, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &group) ==
        HSA_STATUS_SUCCESS);
  CHECK(group == 256);

  // A variable symbol.
  hsa_executable_symbol_t variable;
  REQUIRE(hsa_executable_get_symbol_by_name(kernels.executable, "test_variable", &rt.agent, &variable) ==
          HSA_STATUS_SUCCESS);
  CHECK(hsa_executable_symbol_get_info(variable, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) == HSA_STATUS_SUCCESS);
  CHECK(kind == HSA_SYMBOL_KIND_VARIABLE);
  uint64_t address = 0;
  CHECK(hsa_executable_symbol_get_info(variable, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &address) ==
        HSA_STATUS_SUCCESS);
  CHECK(*reinterpret_cast<const uint32_t*>(address) == 7);

  hsa_executable_symbol_t missing;
  CHECK(hsa_executable_get_symbol_by_name(kernels.executable, "nope", &rt.agent, &missing) ==
        HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  hsa_executable_state_t state;
  CHECK(hsa_executable_get_info(kernels.executable, HSA_EXECUTABLE_INFO_STATE, &state) == HSA_STATUS_SUCCESS);
  CHECK(state == HSA_EXECUTABLE_STATE_FROZEN);
  uint32_t validation = 1;
  CHECK(hsa_executable_validate(kernels.executable, &validation) == HSA_STATUS_SUCCESS);
  CHECK(validation == 0);
  // A frozen executable takes no more code objects.
  CHECK(hsa_executable_load_agent_code_object(kernels.executable, rt.agent, kernels.reader, nullptr, nullptr) ==
        HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
}

TEST_CASE("load from a file; the same object twice loads twice") {
  Runtime rt;
  const int fd = open(HSA_CPU_TEST_KERNELS, O_RDONLY);
  REQUIRE(fd >= 0);
  hsa_code_object_reader_t reader;
  REQUIRE(hsa_code_object_reader_create_from_file(fd, &reader) == HSA_STATUS_SUCCESS);
  close(fd);
  hsa_executable_t exec;
  REQUIRE(hsa_executable_create(HSA_PROFILE_FULL, HSA_EXECUTABLE_STATE_UNFROZEN, nullptr, &exec) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_executable_load_agent_code_object(exec, rt.agent, reader, nullptr, nullptr) == HSA_STATUS_SUCCESS);
  Kernels other(rt.agent);
  hsa_executable_symbol_t a, b;
  REQUIRE(hsa_executable_get_symbol_by_name(exec, "test_variable", &rt.agent, &a) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_executable_get_symbol_by_name(other.executable, "test_variable", &rt.agent, &b) == HSA_STATUS_SUCCESS);
  uint64_t address_a = 0, address_b = 0;
  hsa_executable_symbol_get_info(a, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &address_a);
  hsa_executable_symbol_get_info(b, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &address_b);
  CHECK(address_a != address_b);  // two instances, not one shared mapping
  CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
  CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
  CHECK(hsa_code_object_reader_create_from_file(-1, &reader) == HSA_STATUS_ERROR_INVALID_FILE);
}

TEST_CASE("foreign code objects are refused with INVALID_ISA") {
  Runtime rt;
  hsa_executable_t exec;
  hsa_code_object_reader_t reader;
  SUBCASE("an amdgcn code object") {
    const std::vector<char> bytes = read_file(HSA_CPU_TEST_AMDGCN);
    REQUIRE(bytes.size() > 64);
    CHECK(load(rt.agent, bytes, &exec, &reader) == HSA_STATUS_ERROR_INVALID_ISA);
  }
  SUBCASE("garbage") {
    const std::vector<char> bytes(4096, 'x');
    CHECK(load(rt.agent, bytes, &exec, &reader) == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  }
  SUBCASE("a truncated host object") {
    std::vector<char> bytes = read_file(HSA_CPU_TEST_KERNELS);
    bytes.resize(200);
    CHECK(load(rt.agent, bytes, &exec, &reader) != HSA_STATUS_SUCCESS);
  }
  CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
  CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
}

TEST_CASE("a host object for a level the agent lacks is refused") {
  ScopedEnv cap("HSA_CPU_ISA", "x86-64-v3");
  Runtime rt;
  if (!__builtin_cpu_supports("x86-64-v3")) return;  // the cap needs a v3 host
  hsa_executable_t exec;
  hsa_code_object_reader_t reader;
  CHECK(load(rt.agent, read_file(HSA_CPU_TEST_KERNELS_V4), &exec, &reader) == HSA_STATUS_ERROR_INVALID_ISA);
  CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
  CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
  // The baseline object is accepted by the same agent.
  Kernels kernels(rt.agent);
}

TEST_CASE("the reason a code object is refused is logged (HSA_CPU_LOG)") {
  ScopedEnv cap("HSA_CPU_ISA", "x86-64-v3");
  ScopedEnv log("HSA_CPU_LOG", "1");
  Runtime rt;  // reads HSA_CPU_LOG
  hsa_executable_t exec;
  hsa_code_object_reader_t reader;
  hsa_status_t status = HSA_STATUS_SUCCESS;
  const std::string amdgcn = capture_stderr([&] {
    status = load(rt.agent, read_file(HSA_CPU_TEST_AMDGCN), &exec, &reader);
  });
  CHECK(status == HSA_STATUS_ERROR_INVALID_ISA);
  INFO("stderr: " << amdgcn);
  CHECK(amdgcn.find("hsa-cpu: code object refused: it is an amdgcn code object (EM_AMDGPU") != std::string::npos);
  CHECK(amdgcn.find("this agent runs host ISA x86_64-unknown-linux-gnu--x86-64") != std::string::npos);
  CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
  CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
  if (__builtin_cpu_supports("x86-64-v3")) {  // the cap needs a v3 host
    const std::string v4 = capture_stderr([&] {
      status = load(rt.agent, read_file(HSA_CPU_TEST_KERNELS_V4), &exec, &reader);
    });
    CHECK(status == HSA_STATUS_ERROR_INVALID_ISA);
    INFO("stderr: " << v4);
    CHECK(v4.find("hsa-cpu: code object refused: built for ISA 'x86_64-unknown-linux-gnu--x86-64-v4'; "
                  "agent 0 runs: x86_64-unknown-linux-gnu--x86-64-v3, ") != std::string::npos);
    CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
    CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
  }
}

TEST_CASE("nothing is logged without HSA_CPU_LOG") {
  ScopedEnv quiet("HSA_CPU_LOG", nullptr);
  Runtime rt;
  hsa_executable_t exec;
  hsa_code_object_reader_t reader;
  hsa_status_t status = HSA_STATUS_SUCCESS;
  const std::string text = capture_stderr([&] {
    status = load(rt.agent, read_file(HSA_CPU_TEST_AMDGCN), &exec, &reader);
  });
  CHECK(status == HSA_STATUS_ERROR_INVALID_ISA);
  CHECK(text.empty());
  CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
  CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
}

TEST_CASE("HSA 1.2 §2.8 executables: UNFROZEN and FROZEN are both valid initial states") {
  Runtime rt;
  const std::vector<char> bytes = read_file(HSA_CPU_TEST_KERNELS);
  hsa_code_object_reader_t reader;
  REQUIRE(hsa_code_object_reader_create_from_memory(bytes.data(), bytes.size(), &reader) == HSA_STATUS_SUCCESS);
  for (hsa_executable_state_t initial : {HSA_EXECUTABLE_STATE_UNFROZEN, HSA_EXECUTABLE_STATE_FROZEN}) {
    CAPTURE(initial);
    hsa_executable_t exec{};
    REQUIRE(hsa_executable_create(HSA_PROFILE_FULL, initial, nullptr, &exec) == HSA_STATUS_SUCCESS);
    hsa_executable_state_t state{};
    CHECK(hsa_executable_get_info(exec, HSA_EXECUTABLE_INFO_STATE, &state) == HSA_STATUS_SUCCESS);
    CHECK(state == initial);
    // A frozen executable is valid but takes no code object.
    CHECK(hsa_executable_load_agent_code_object(exec, rt.agent, reader, nullptr, nullptr) ==
          (initial == HSA_EXECUTABLE_STATE_FROZEN ? HSA_STATUS_ERROR_FROZEN_EXECUTABLE : HSA_STATUS_SUCCESS));
    CHECK(hsa_executable_freeze(exec, nullptr) ==
          (initial == HSA_EXECUTABLE_STATE_FROZEN ? HSA_STATUS_ERROR_FROZEN_EXECUTABLE : HSA_STATUS_SUCCESS));
    CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
  }
  // Anything else is INVALID_ARGUMENT, and creates nothing.
  hsa_executable_t exec{0x5a5a};
  CHECK(hsa_executable_create(HSA_PROFILE_FULL, static_cast<hsa_executable_state_t>(2), nullptr, &exec) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(exec.handle == 0x5a5a);
  // The _alt form has no state argument: its executables start UNFROZEN.
  REQUIRE(hsa_executable_create_alt(HSA_PROFILE_BASE, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR, nullptr, &exec) ==
          HSA_STATUS_SUCCESS);
  hsa_executable_state_t state{};
  CHECK(hsa_executable_get_info(exec, HSA_EXECUTABLE_INFO_STATE, &state) == HSA_STATUS_SUCCESS);
  CHECK(state == HSA_EXECUTABLE_STATE_UNFROZEN);
  CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
  CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
}

TEST_CASE("bad handles and arguments") {
  Runtime rt;
  hsa_executable_t bogus{0x1234};
  CHECK(hsa_executable_destroy(bogus) == HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  CHECK(hsa_executable_freeze(bogus, nullptr) == HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  CHECK(hsa_code_object_reader_destroy(hsa_code_object_reader_t{0x99}) ==
        HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  hsa_executable_symbol_t symbol{0x77};
  uint32_t v;
  CHECK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &v) ==
        HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
  hsa_code_object_reader_t reader;
  CHECK(hsa_code_object_reader_create_from_memory(nullptr, 10, &reader) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_executable_t exec;
  REQUIRE(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exec) ==
          HSA_STATUS_SUCCESS);
  CHECK(hsa_executable_load_agent_code_object(exec, rt.agent, hsa_code_object_reader_t{5}, nullptr, nullptr) ==
        HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
}

}  // TEST_SUITE
