// The loader's messages: XGPU_LOADER_DEBUG on stderr (including the resolved
// chain) and debug messengers (the loader's own, drivers' and
// xgpuSubmitDebugMessage).
#include <doctest/doctest.h>

#include "loader_test_util.h"

using namespace loader_test;

namespace {

size_t Find(const std::string& text, const std::string& what, size_t from = 0) {
  size_t at = text.find(what, from);
  CHECK_MESSAGE(at != std::string::npos, "missing: ", what);
  return at == std::string::npos ? from : at;
}

}  // namespace

TEST_CASE("XGPU_LOADER_DEBUG=all prints the chain: application, layers (why, manifest, library), drivers") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  TestDriver b(XGPU_TEST_DRIVER_B);
  TestLayer la(XGPU_TEST_LAYER_A);
  TestLayer lb(XGPU_TEST_LAYER_B);
  const std::string root = env.dir.path();
  WriteFile(root + "/drivers/1.json", DriverManifest(a.path()));
  WriteFile(root + "/drivers/2.json", DriverManifest(b.path(), "1.0.3"));
  WriteFile(root + "/layers/a.json", LayerManifest("XGPU_LAYER_test_a", la.path()));
  WriteFile(root + "/layers/b.json", LayerManifest("XGPU_LAYER_test_b", lb.path()));
  env.env.Set("XGPU_INSTANCE_LAYERS", "XGPU_LAYER_test_b");
  std::string level;
  SUBCASE("all") { level = "all"; }
  SUBCASE("info") { level = "info"; }
  env.env.Set("XGPU_LOADER_DEBUG", level);
  std::vector<const char*> layers = {"XGPU_LAYER_test_a"};
  XgpuInstanceCreateInfo info = InstanceInfo(&layers);
  XgpuInstance instance;
  StderrCapture err;
  REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  std::string out = err.Stop();
  xgpuDestroyInstance(instance, nullptr);
  const std::string p = "xgpu loader: info: ";
  size_t at = Find(out, p + "instance chain:\n");
  at = Find(out, p + "  application\n", at);
  at = Find(out, p + "  -> layer XGPU_LAYER_test_b (enabled by XGPU_INSTANCE_LAYERS)\n", at);
  at = Find(out, p + "       manifest: " + root + "/layers/b.json\n", at);
  at = Find(out, p + "       library: " + lb.path() + " (interface version 1)\n", at);
  at = Find(out, p + "  -> layer XGPU_LAYER_test_a (enabled by application)\n", at);
  at = Find(out, p + "       manifest: " + root + "/layers/a.json\n", at);
  at = Find(out, p + "       library: " + la.path() + " (interface version 1)\n", at);
  at = Find(out, p + "  -> loader terminator\n", at);
  at = Find(out, p + "  -> driver 0\n", at);
  at = Find(out, p + "       manifest: " + root + "/drivers/1.json\n", at);
  at = Find(out, p + "       library: " + a.path() + " (interface version 1, api version 1.0.0)\n", at);
  at = Find(out, p + "  -> driver 1\n", at);
  at = Find(out, p + "       manifest: " + root + "/drivers/2.json\n", at);
  Find(out, p + "       library: " + b.path() + " (interface version 1, api version 1.0.3)\n", at);
  CHECK((out.find("xgpu loader: debug: ") != std::string::npos) == (level == "all"));
}

TEST_CASE("XGPU_LOADER_DEBUG levels: errors by default, none silences, unknown levels are reported") {
  LoaderEnv env;
  WriteFile(env.dir.path() + "/drivers/bad.json", "not json");
  auto run = [] {
    XgpuInstanceCreateInfo info = InstanceInfo();
    XgpuInstance instance;
    StderrCapture err;
    REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
    xgpuDestroyInstance(instance, nullptr);
    return err.Stop();
  };
  SUBCASE("unset: errors only") {
    std::string out = run();
    CHECK(out.find("xgpu loader: error: driver manifest " + env.dir.path() + "/drivers/bad.json is not valid JSON") !=
          std::string::npos);
    CHECK(out.find("instance chain") == std::string::npos);
  }
  SUBCASE("none") {
    env.env.Set("XGPU_LOADER_DEBUG", "none");
    CHECK(run().empty());
  }
  SUBCASE("warn includes error, not info") {
    env.env.Set("XGPU_LOADER_DEBUG", "warn");
    std::string out = run();
    CHECK(out.find("xgpu loader: error: ") != std::string::npos);
    CHECK(out.find("xgpu loader: info: ") == std::string::npos);
  }
  SUBCASE("unknown level") {
    env.env.Set("XGPU_LOADER_DEBUG", "error,loud");
    CHECK(run().find("XGPU_LOADER_DEBUG: unknown level 'loud'") != std::string::npos);
  }
  SUBCASE("no driver at info level says so") {
    env.env.Set("XGPU_LOADER_DEBUG", "info");
    std::string out = run();
    CHECK(out.find("no usable driver: xgpuEnumeratePhysicalDevices will report 0 devices") != std::string::npos);
    CHECK(out.find("  -> no driver") != std::string::npos);
  }
}

TEST_CASE("a messenger chained on XgpuInstanceCreateInfo receives the loader's messages during creation") {
  LoaderEnv env;
  env.env.Set("XGPU_LOADER_DEBUG", "none");
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  WriteFile(env.dir.path() + "/drivers/bad.json", "{}");
  MessageLog log;
  XgpuDebugMessengerCreateInfo messenger = log.Info();
  XgpuInstanceCreateInfo info = InstanceInfo(nullptr, &messenger);
  XgpuInstance instance;
  REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  CHECK(log.Count("XGPU-LOADER-manifest-invalid") == 1);
  CHECK(log.Count("XGPU-LOADER-chain") == 1);
  // The driver sees the application's messenger in the chain, without the loader's links.
  CHECK(a->sawApplicationMessenger == 1);
  CHECK(a->sawLoaderStructure == 0);
  for (const auto& e : log.entries) {
    if (e.id == "XGPU-LOADER-manifest-invalid") {
      CHECK(e.severity == XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT);
      CHECK(e.text.find("bad.json has no \"file_format_version\"") != std::string::npos);
    }
  }
  // After creation it is no longer called.
  size_t before = log.entries.size();
  XgpuDevice device = nullptr;
  CHECK(xgpuCreateDevice(nullptr, nullptr, nullptr, &device) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(log.entries.size() == before);
  xgpuDestroyInstance(instance, nullptr);
}

TEST_CASE("debug messengers: created in every driver, driver and loader messages delivered, submit delivered once") {
  LoaderEnv env;
  env.env.Set("XGPU_LOADER_DEBUG", "none");
  TestDriver a(XGPU_TEST_DRIVER_A);
  TestDriver b(XGPU_TEST_DRIVER_B);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  WriteFile(env.dir.path() + "/drivers/b.json", DriverManifest(b.path()));
  a->emitMessageOnCreateDevice = 1;
  XgpuInstanceCreateInfo info = InstanceInfo();
  XgpuInstance instance;
  REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  MessageLog log;
  XgpuDebugMessengerCreateInfo mi = log.Info();
  XgpuDebugMessenger messenger = XGPU_NULL_HANDLE;
  REQUIRE(xgpuCreateDebugMessenger(instance, &mi, nullptr, &messenger) == XGPU_SUCCESS);
  CHECK(a->createMessengerCalls == 1);
  CHECK(b->createMessengerCalls == 1);

  // A driver reports to the application.
  uint32_t count = 2;
  XgpuPhysicalDevice pds[2];
  REQUIRE(xgpuEnumeratePhysicalDevices(instance, &count, pds) == XGPU_SUCCESS);
  XgpuDeviceCreateInfo di = {XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO, nullptr, 0, 0, nullptr};
  XgpuDevice device;
  REQUIRE(xgpuCreateDevice(pds[0], &di, nullptr, &device) == XGPU_SUCCESS);
  CHECK(log.Count("TEST-DRIVER-create-device") == 1);

  // The loader reports to the application (a NULL argument at a trampoline),
  // with the VUID of the implicit rule the argument breaks.
  CHECK(xgpuCreateBuffer(device, nullptr, nullptr, nullptr) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(log.Count("XGPU-VUID-xgpuCreateBuffer-pCreateInfo-parameter") == 1);
  xgpuDestroyDevice(device, nullptr);

  // xgpuSubmitDebugMessage reaches each messenger once.
  XgpuDebugMessageData data = {};
  data.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA;
  data.pMessageIdName = "APP-message";
  data.pMessage = "hello";
  xgpuSubmitDebugMessage(instance, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT, &data);
  CHECK(log.Count("APP-message") == 1);
  // Severity filter.
  MessageLog errors_only;
  XgpuDebugMessengerCreateInfo ei = errors_only.Info(XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT);
  XgpuDebugMessenger errors_messenger;
  REQUIRE(xgpuCreateDebugMessenger(instance, &ei, nullptr, &errors_messenger) == XGPU_SUCCESS);
  xgpuSubmitDebugMessage(instance, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT, &data);
  CHECK(errors_only.entries.empty());
  CHECK(log.Count("APP-message") == 2);

  xgpuDestroyDebugMessenger(instance, messenger, nullptr);
  CHECK(a->destroyMessengerCalls == 1);
  CHECK(b->destroyMessengerCalls == 1);
  xgpuSubmitDebugMessage(instance, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT, &data);
  CHECK(log.Count("APP-message") == 2);
  // Invalid create infos.
  XgpuDebugMessengerCreateInfo bad = log.Info();
  bad.pfnUserCallback = nullptr;
  XgpuDebugMessenger out;
  CHECK(xgpuCreateDebugMessenger(instance, &bad, nullptr, &out) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(out == XGPU_NULL_HANDLE);
  // A messenger still alive at xgpuDestroyInstance is destroyed with it.
  xgpuDestroyInstance(instance, nullptr);
  CHECK(a->destroyMessengerCalls == 2);
}

TEST_CASE("the loader's NULL-argument checks carry the implicit rule's VUID and reach the messengers") {
  LoaderEnv env;
  env.env.Set("XGPU_LOADER_DEBUG", "none");
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  // The formula of api.md 1.5, checked against its own example.
  REQUIRE(Fnv1a("XGPU-VUID-xgpuCmdDispatchIndirect-flags") == -1187414737);

  XgpuInstanceCreateInfo info = InstanceInfo();
  XgpuInstance first = nullptr, second = nullptr;
  REQUIRE(xgpuCreateInstance(&info, nullptr, &first) == XGPU_SUCCESS);
  REQUIRE(xgpuCreateInstance(&info, nullptr, &second) == XGPU_SUCCESS);
  MessageLog first_log, second_log;
  XgpuDebugMessengerCreateInfo first_info = first_log.Info(), second_info = second_log.Info();
  XgpuDebugMessenger first_messenger = XGPU_NULL_HANDLE, second_messenger = XGPU_NULL_HANDLE;
  REQUIRE(xgpuCreateDebugMessenger(first, &first_info, nullptr, &first_messenger) == XGPU_SUCCESS);
  REQUIRE(xgpuCreateDebugMessenger(second, &second_info, nullptr, &second_messenger) == XGPU_SUCCESS);
  uint32_t count = 1;
  XgpuPhysicalDevice physical = nullptr;
  REQUIRE(xgpuEnumeratePhysicalDevices(first, &count, &physical) == XGPU_SUCCESS);
  REQUIRE(count == 1);

  // A NULL pointer with a valid handle: the handle's instance only.
  xgpuGetPhysicalDeviceProperties(physical, nullptr);
  const char* kProperties = "XGPU-VUID-xgpuGetPhysicalDeviceProperties-pProperties-parameter";
  const MessageLog::Entry* entry = first_log.Find(kProperties);
  REQUIRE(entry != nullptr);
  CHECK(entry->severity == XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT);
  CHECK(entry->types == XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT);
  CHECK(entry->number == Fnv1a(kProperties));
  CHECK(entry->text.find("xgpuGetPhysicalDeviceProperties: pProperties is NULL") == 0);
  CHECK(second_log.Count(kProperties) == 0);

  // A NULL dispatchable handle: no instance to ask, so every live instance hears it.
  XgpuPhysicalDeviceProperties properties = {};
  xgpuGetPhysicalDeviceProperties(nullptr, &properties);
  const char* kPhysicalDevice = "XGPU-VUID-xgpuGetPhysicalDeviceProperties-physicalDevice-parameter";
  CHECK(first_log.Count(kPhysicalDevice) == 1);
  REQUIRE(second_log.Count(kPhysicalDevice) == 1);
  entry = second_log.Find(kPhysicalDevice);
  CHECK(entry->types == XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT);
  CHECK(entry->number == Fnv1a(kPhysicalDevice));
  CHECK(entry->text.find("xgpuGetPhysicalDeviceProperties: physicalDevice is NULL") == 0);
  // Device-level trampolines and the hand-written global commands too.
  xgpuCmdDispatch(nullptr, 1, 1, 1);
  CHECK(second_log.Count("XGPU-VUID-xgpuCmdDispatch-commandBuffer-parameter") == 1);
  XgpuInstance none = reinterpret_cast<XgpuInstance>(1);
  CHECK(xgpuCreateInstance(nullptr, nullptr, &none) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(none == nullptr);
  CHECK(first_log.Count("XGPU-VUID-xgpuCreateInstance-pCreateInfo-parameter") == 1);
  CHECK(second_log.Count("XGPU-VUID-xgpuCreateInstance-pCreateInfo-parameter") == 1);
  CHECK(xgpuEnumeratePhysicalDevices(nullptr, &count, nullptr) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(second_log.Count("XGPU-VUID-xgpuEnumeratePhysicalDevices-instance-parameter") == 1);
  // A rule the loader checks in a create info: the VUID, not a loader ID.
  XgpuApplicationInfo app = {XGPU_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "t", 0, nullptr, 0,
                             XGPU_MAKE_API_VERSION(0, 2, 0, 0)};
  MessageLog creation_log;
  XgpuDebugMessengerCreateInfo creation_info = creation_log.Info();
  XgpuInstanceCreateInfo bad = InstanceInfo(nullptr, &creation_info);
  bad.pApplicationInfo = &app;
  CHECK(xgpuCreateInstance(&bad, nullptr, &none) == XGPU_ERROR_INCOMPATIBLE_DRIVER);
  CHECK(creation_log.Count("XGPU-VUID-xgpuCreateInstance-pCreateInfo-pApplicationInfo-apiVersion") == 1);
  // None of these errors is a loader event.
  for (const MessageLog* log : {&first_log, &second_log})
    for (const MessageLog::Entry& e : log->entries)
      if (e.severity == XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT) CHECK_MESSAGE(e.id.rfind("XGPU-VUID-", 0) == 0, e.id);

  // A destroyed instance no longer hears NULL-handle messages.
  xgpuDestroyDebugMessenger(second, second_messenger, nullptr);
  xgpuDestroyInstance(second, nullptr);
  const size_t second_before = second_log.entries.size();
  xgpuGetPhysicalDeviceProperties(nullptr, &properties);
  CHECK(first_log.Count(kPhysicalDevice) == 2);
  CHECK(second_log.entries.size() == second_before);
  xgpuDestroyDebugMessenger(first, first_messenger, nullptr);
  xgpuDestroyInstance(first, nullptr);
}
