// HSA runtime selection and HSA error reporting of the AMDGPU driver, through
// the loader. Each test case sets the environment it needs (XGPU_HSA_LIBRARY,
// the shim's XGPU_HSA_SHIM_*) before creating an instance and reads the
// driver's messages from a messenger chained on the instance create info.
// ctest runs every test case in its own process (tests/icd/CMakeLists.txt):
// the HSA runtime is process-wide.
//
// The shim (hsa_shim.cpp, XGPU_ICD_TEST_HSA_SHIM) is hsa-cpu with chosen
// calls failing; hsa-cpu itself (XGPU_ICD_TEST_HSA_LIBRARY) is also opened
// directly to learn what the driver should have derived from it.
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <string>

#include "icd_test_util.h"

using namespace icdtest;

namespace {

constexpr const char* kRocrLibrary = "libhsa-runtime64.so.1";  // the driver's second candidate
constexpr double kNanosecondsPerSecond = 1e9;

std::string real_path(const std::string& path) {
  char resolved[PATH_MAX];
  REQUIRE_MESSAGE(realpath(path.c_str(), resolved) != nullptr, path);
  return resolved;
}

// hsa-cpu installed beside the driver, as the driver's third candidate.
std::string hsa_cpu_beside_driver() {
  const std::string driver = real_path(XGPU_ICD_TEST_DRIVER);
  return real_path(driver.substr(0, driver.rfind('/') + 1) + "libxgpu-hsa-cpu.so");
}

// One instance creation with every driver message captured.
struct Attempt {
  MessageLog log;                                 // every severity, every type
  XgpuInstance instance = nullptr;                // created instance, or nullptr
  XgpuResult result = XGPU_ERROR_UNKNOWN;         // xgpuCreateInstance's result
  std::vector<XgpuPhysicalDevice> devices;        // its physical devices

  Attempt() {
    init_api();
    XgpuDebugMessengerCreateInfo messenger{};
    messenger.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
    messenger.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_VERBOSE_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT |
                                XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;
    messenger.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
    messenger.pfnUserCallback = &MessageLog::callback;
    messenger.pUserData = &log;
    XgpuInstanceCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pNext = &messenger;
    result = api().CreateInstance(&info, nullptr, &instance);
    if (result != XGPU_SUCCESS) return;
    load_instance_functions(instance);
    uint32_t count = 0;
    REQUIRE(api().EnumeratePhysicalDevices(instance, &count, nullptr) == XGPU_SUCCESS);
    devices.resize(count);
    REQUIRE(api().EnumeratePhysicalDevices(instance, &count, devices.data()) == XGPU_SUCCESS);
  }
  ~Attempt() {
    if (instance) api().DestroyInstance(instance, nullptr);
  }
  XgpuPhysicalDeviceProperties properties(size_t i) const {
    XgpuPhysicalDeviceProperties p{};
    api().GetPhysicalDeviceProperties(devices[i], &p);
    return p;
  }
  // Position of the first message containing `needle`, or SIZE_MAX.
  size_t position(const std::string& needle) {
    std::lock_guard<std::mutex> lock(log.mutex);
    for (size_t i = 0; i < log.messages.size(); ++i)
      if (log.messages[i].find(needle) != std::string::npos) return i;
    return SIZE_MAX;
  }
};

// After the candidates before it were skipped (asserted by the caller), the
// driver goes on to ROCR and then to hsa-cpu beside it. Without a GPU, ROCR
// is skipped with a reason; with one, it is used.
void expect_rocr_then_hsa_cpu(Attempt& attempt, size_t after) {
  const size_t rocr_skipped = attempt.position(std::string("skipping HSA runtime ") + kRocrLibrary + ": ");
  if (rocr_skipped == SIZE_MAX) {
    CHECK(attempt.log.contains("using HSA runtime "));
    MESSAGE("ROCR has a kernel-dispatch agent here: the hsa-cpu fallback is not reached");
    return;
  }
  CHECK(rocr_skipped > after);
  const std::string beside = hsa_cpu_beside_driver();
  const size_t used = attempt.position("using HSA runtime " + beside + " (HSA ");
  CHECK(used != SIZE_MAX);
  CHECK(used > rocr_skipped);
  REQUIRE(attempt.result == XGPU_SUCCESS);
  REQUIRE(!attempt.devices.empty());
  CHECK(std::string(attempt.properties(0).runtimeName).rfind(beside + " (HSA ", 0) == 0);
}

void use_shim(const char* fail = nullptr, const char* count = nullptr) {
  setenv("XGPU_HSA_LIBRARY", XGPU_ICD_TEST_HSA_SHIM, 1);
  if (fail) setenv("XGPU_HSA_SHIM_FAIL", fail, 1); else unsetenv("XGPU_HSA_SHIM_FAIL");
  if (count) setenv("XGPU_HSA_SHIM_FAIL_COUNT", count, 1); else unsetenv("XGPU_HSA_SHIM_FAIL_COUNT");
}

std::string fail_spec(const char* call, uint32_t attribute) { return std::string(call) + ":" + std::to_string(attribute); }


}  // namespace

// --- runtime search order and skipping ---------------------------------------

TEST_CASE("runtime search: a bad XGPU_HSA_LIBRARY path is reported and skipped") {
  setenv("XGPU_HSA_LIBRARY", "/nonexistent/libhsa-missing.so", 1);
  Attempt attempt;
  INFO(attempt.log.all());
  const size_t skipped = attempt.position(
      "skipping HSA runtime /nonexistent/libhsa-missing.so: dlopen(/nonexistent/libhsa-missing.so) failed: ");
  REQUIRE(skipped != SIZE_MAX);
  expect_rocr_then_hsa_cpu(attempt, skipped);
}

TEST_CASE("runtime search: a runtime whose hsa_init fails is skipped with the HSA call and status") {
  use_shim("hsa_init");
  setenv("XGPU_HSA_SHIM_FAIL_STATUS", std::to_string(HSA_STATUS_ERROR_OUT_OF_RESOURCES).c_str(), 1);
  Attempt attempt;
  INFO(attempt.log.all());
  const std::string shim = real_path(XGPU_ICD_TEST_HSA_SHIM);
  const size_t skipped = attempt.position(std::string("skipping HSA runtime ") + XGPU_ICD_TEST_HSA_SHIM + ": " + shim +
                                          ": hsa_init failed: HSA_STATUS_ERROR_OUT_OF_RESOURCES");
  REQUIRE(skipped != SIZE_MAX);
  expect_rocr_then_hsa_cpu(attempt, skipped);
}

TEST_CASE("runtime search: a runtime without a kernel-dispatch agent is skipped, saying so") {
  use_shim();
  setenv("XGPU_HSA_SHIM_NO_KERNEL_DISPATCH", "1", 1);
  Attempt attempt;
  INFO(attempt.log.all());
  const std::string shim = real_path(XGPU_ICD_TEST_HSA_SHIM);
  const size_t skipped = attempt.position(
      shim + ": hsa_init succeeded but the runtime has no kernel-dispatch agent (");
  REQUIRE(skipped != SIZE_MAX);
  // hsa-cpu was initialized through the shim and shut down again; the
  // fallback initializes it afresh.
  expect_rocr_then_hsa_cpu(attempt, skipped);
}

TEST_CASE("runtime search: without XGPU_HSA_LIBRARY, ROCR is tried, then hsa-cpu beside the driver") {
  init_api();  // (sets a default XGPU_HSA_LIBRARY for the other suites)
  unsetenv("XGPU_HSA_LIBRARY");
  Attempt attempt;
  INFO(attempt.log.all());
  CHECK(attempt.position("skipping HSA runtime /") == SIZE_MAX);  // no earlier candidate
  expect_rocr_then_hsa_cpu(attempt, 0);
}

TEST_CASE("runtime search: a runtime that works is used, runtimeName its canonical path") {
  // A path with "." and ".." components and the shim passing every call.
  const std::string shim = real_path(XGPU_ICD_TEST_HSA_SHIM);
  const std::string dir = shim.substr(0, shim.rfind('/'));
  const std::string winding = dir + "/./../" + dir.substr(dir.rfind('/') + 1) + shim.substr(shim.rfind('/'));
  use_shim();
  setenv("XGPU_HSA_LIBRARY", winding.c_str(), 1);
  Attempt attempt;
  INFO(attempt.log.all());
  REQUIRE(attempt.result == XGPU_SUCCESS);
  CHECK(attempt.log.contains("using HSA runtime " + shim + " (HSA "));
  REQUIRE(!attempt.devices.empty());
  CHECK(std::string(attempt.properties(0).runtimeName).rfind(shim + " (HSA ", 0) == 0);
}

// --- HSA errors become messages naming the call and the status ----------------

TEST_CASE("HSA errors: a failing required agent query skips that agent, naming the call and status") {
  setenv("HSA_CPU_AGENTS", "2", 1);
  SUBCASE("hsa_agent_get_info") {
    use_shim(fail_spec("hsa_agent_get_info", HSA_AGENT_INFO_WAVEFRONT_SIZE).c_str(), "1");
    Attempt attempt;
    INFO(attempt.log.all());
    REQUIRE(attempt.result == XGPU_SUCCESS);
    CHECK(attempt.devices.size() == 1);
    CHECK(attempt.log.contains("skipping kernel-dispatch agent 0 of "));
    CHECK(attempt.log.contains(
        "hsa_agent_get_info(HSA_AGENT_INFO_WAVEFRONT_SIZE) failed: HSA_STATUS_ERROR: a generic error occurred."));
  }
  SUBCASE("hsa_amd_memory_pool_get_info") {
    use_shim(fail_spec("hsa_amd_memory_pool_get_info", HSA_AMD_MEMORY_POOL_INFO_SEGMENT).c_str(), "1");
    Attempt attempt;
    INFO(attempt.log.all());
    REQUIRE(attempt.result == XGPU_SUCCESS);
    CHECK(attempt.devices.size() == 1);
    CHECK(attempt.log.contains("hsa_amd_memory_pool_get_info(HSA_AMD_MEMORY_POOL_INFO_SEGMENT) failed: HSA_STATUS_ERROR"));
  }
  SUBCASE("hsa_isa_get_info_alt") {
    use_shim(fail_spec("hsa_isa_get_info_alt", HSA_ISA_INFO_NAME).c_str(), "1");
    Attempt attempt;
    INFO(attempt.log.all());
    REQUIRE(attempt.result == XGPU_SUCCESS);
    CHECK(attempt.devices.size() == 1);
    CHECK(attempt.log.contains("hsa_isa_get_info_alt(HSA_ISA_INFO_NAME) failed: HSA_STATUS_ERROR"));
  }
  SUBCASE("every agent failing fails instance creation") {
    use_shim(fail_spec("hsa_agent_get_info", HSA_AGENT_INFO_QUEUE_MAX_SIZE).c_str());
    Attempt attempt;
    INFO(attempt.log.all());
    CHECK(attempt.log.contains("hsa_agent_get_info(HSA_AGENT_INFO_QUEUE_MAX_SIZE) failed: HSA_STATUS_ERROR"));
    CHECK(attempt.log.contains("every kernel-dispatch agent of "));
#if defined(XGPU_ICD_TEST_WITH_LOADER)
    // The loader skips the driver and creates the instance without it.
    CHECK(attempt.devices.empty());
    CHECK(attempt.log.contains("skipped: xgpuCreateInstance returned"));
#else
    CHECK(attempt.result == XGPU_ERROR_INITIALIZATION_FAILED);
#endif
  }
}

TEST_CASE("HSA errors: a failing system query skips the runtime, naming the call and status") {
  use_shim(fail_spec("hsa_system_get_info", HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY).c_str());
  Attempt attempt;
  INFO(attempt.log.all());
  const size_t skipped = attempt.position(
      "hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY) failed: HSA_STATUS_ERROR: a generic error occurred.");
  REQUIRE(skipped != SIZE_MAX);
  expect_rocr_then_hsa_cpu(attempt, skipped);
}

TEST_CASE("HSA errors: optional AMD attributes fall back (compute units, timestamp frequency)") {
  const HsaCpuFrequencies frequencies = read_hsa_cpu_frequencies();
  REQUIRE(frequencies.system > 0);
  SUBCASE("HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT -> 1") {
    use_shim(fail_spec("hsa_agent_get_info", HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT).c_str());
    Attempt attempt;
    INFO(attempt.log.all());
    REQUIRE(attempt.result == XGPU_SUCCESS);
    REQUIRE(!attempt.devices.empty());
    CHECK(attempt.properties(0).limits.computeUnitCount == 1);
  }
  SUBCASE("HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY -> the system timestamp frequency") {
    use_shim(fail_spec("hsa_agent_get_info", kAmdAgentInfoTimestampFrequency).c_str());
    Attempt attempt;
    INFO(attempt.log.all());
    REQUIRE(attempt.result == XGPU_SUCCESS);
    REQUIRE(!attempt.devices.empty());
    const double expected = kNanosecondsPerSecond / double(frequencies.system);
    CHECK(std::fabs(attempt.properties(0).limits.timestampPeriod - expected) <= expected * 1e-6);
  }
}

TEST_CASE("HSA errors: symbol queries and executable destruction name the failing call and status") {
  use_shim();
  Env env(1, 1);
  XgpuExecutableCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  info.pFilePath = XGPU_ICD_TEST_KERNELS;
  XgpuExecutable executable = nullptr;
  setenv("XGPU_HSA_SHIM_FAIL",
         fail_spec("hsa_executable_symbol_get_info", HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE).c_str(), 1);
  CHECK(api().CreateExecutable(env.device(), &info, nullptr, &executable) != XGPU_SUCCESS);
  CHECK(executable == nullptr);
  CHECK(env.log.contains("xgpuCreateExecutable: loading the "));
  CHECK(env.log.contains(
      "hsa_executable_symbol_get_info(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE) failed: "
      "HSA_STATUS_ERROR: a generic error occurred."));

  unsetenv("XGPU_HSA_SHIM_FAIL");
  REQUIRE(api().CreateExecutable(env.device(), &info, nullptr, &executable) == XGPU_SUCCESS);
  setenv("XGPU_HSA_SHIM_FAIL", "hsa_executable_destroy", 1);
  api().DestroyExecutable(env.device(), executable, nullptr);
  unsetenv("XGPU_HSA_SHIM_FAIL");
  INFO(env.log.all());
  CHECK(env.log.contains("hsa_executable_destroy failed: HSA_STATUS_ERROR: a generic error occurred."));
}

// --- what a physical device is ------------------------------------------------

// deviceType and vendorId come from the agent's HSA_AGENT_INFO_DEVICE and
// HSA_AGENT_INFO_VENDOR_NAME, whatever runtime library answers: a CPU agent
// (hsa-cpu's, or ROCR's own "AMD" one) is a CPU device without PCI ids
// (api.md 5), a GPU agent a GPU with its vendor's PCI id.
TEST_CASE("physical devices: deviceType and vendorId come from the agent's HSA properties") {
  struct Case {
    const char* agent;              // XGPU_HSA_SHIM_AGENT (nullptr: hsa-cpu's own answers)
    XgpuPhysicalDeviceType type;    // expected deviceType
    uint32_t vendor;                // expected vendorId
  };
  const Case cases[] = {
      {nullptr, XGPU_PHYSICAL_DEVICE_TYPE_CPU, 0},
      {"CPU:AMD", XGPU_PHYSICAL_DEVICE_TYPE_CPU, 0},
      {"GPU:AMD", XGPU_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 0x1002},
      {"GPU:NVIDIA", XGPU_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 0x10DE},
      {"GPU:Acme", XGPU_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 0},
  };
  for (const Case& c : cases) {
    use_shim();
    if (c.agent) setenv("XGPU_HSA_SHIM_AGENT", c.agent, 1); else unsetenv("XGPU_HSA_SHIM_AGENT");
    Attempt attempt;
    INFO(std::string(c.agent ? c.agent : "hsa-cpu as it is"));
    INFO(attempt.log.all());
    REQUIRE(attempt.result == XGPU_SUCCESS);
    REQUIRE(!attempt.devices.empty());
    const XgpuPhysicalDeviceProperties p = attempt.properties(0);
    CHECK(p.deviceType == c.type);
    CHECK(p.vendorId == c.vendor);
    if (c.type == XGPU_PHYSICAL_DEVICE_TYPE_CPU) CHECK(p.deviceId == 0);
  }
  unsetenv("XGPU_HSA_SHIM_AGENT");
}
