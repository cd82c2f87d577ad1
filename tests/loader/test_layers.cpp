// Layers: discovery, enabling (application, XGPU_INSTANCE_LAYERS), disabling,
// negotiation, chaining and interception, through the real libxgpu.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "loader_test_util.h"

using namespace loader_test;

namespace {

const char* const kLayerA = "XGPU_LAYER_test_a";
const char* const kLayerB = "XGPU_LAYER_test_b";

// A test environment with driver A and manifests for layers A and B.
struct LayerEnv {
  LayerEnv() : driver(XGPU_TEST_DRIVER_A), layer_a(XGPU_TEST_LAYER_A), layer_b(XGPU_TEST_LAYER_B) {
    WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(driver.path()));
    WriteFile(LayerPath("a.json"), LayerManifest(kLayerA, layer_a.path(), "", "layer A for tests"));
    WriteFile(LayerPath("b.json"), LayerManifest(kLayerB, layer_b.path(), "", "layer B for tests"));
  }
  std::string LayerPath(const std::string& file) const { return env.dir.path() + "/layers/" + file; }
  LoaderEnv env;
  TestDriver driver;
  TestLayer layer_a;
  TestLayer layer_b;
};

XgpuResult Create(std::vector<const char*> layers, XgpuInstance* out, const void* next = nullptr) {
  XgpuInstanceCreateInfo info = InstanceInfo(&layers, next);
  return xgpuCreateInstance(&info, nullptr, out);
}

XgpuPhysicalDevice FirstDevice(XgpuInstance instance) {
  uint32_t count = 1;
  XgpuPhysicalDevice pd = nullptr;
  xgpuEnumeratePhysicalDevices(instance, &count, &pd);
  REQUIRE(pd != nullptr);
  return pd;
}

std::string FirstDeviceName(XgpuInstance instance) {
  XgpuPhysicalDeviceProperties props;
  xgpuGetPhysicalDeviceProperties(FirstDevice(instance), &props);
  return props.deviceName;
}

XgpuDevice CreateDevice(XgpuInstance instance) {
  XgpuDeviceQueueCreateInfo queue = {XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, 1};
  XgpuDeviceCreateInfo info = {XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO, nullptr, 0, 1, &queue};
  XgpuDevice device = nullptr;
  REQUIRE(xgpuCreateDevice(FirstDevice(instance), &info, nullptr, &device) == XGPU_SUCCESS);
  return device;
}

// The description of the layer the loader lists under name; "" when none.
std::string ListedDescription(const char* name) {
  uint32_t count = 0;
  REQUIRE(xgpuEnumerateInstanceLayerProperties(&count, nullptr) == XGPU_SUCCESS);
  std::vector<XgpuLayerProperties> props(count);
  if (count) REQUIRE(xgpuEnumerateInstanceLayerProperties(&count, props.data()) == XGPU_SUCCESS);
  for (const XgpuLayerProperties& p : props) {
    if (std::strcmp(p.layerName, name) == 0) return p.description;
  }
  return "";
}

XgpuResult CreateBuffer(XgpuDevice device) {
  XgpuBufferCreateInfo info = {XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, 256, 0, 0};
  XgpuBuffer buffer;
  return xgpuCreateBuffer(device, &info, nullptr, &buffer);
}

}  // namespace

TEST_CASE("an application layer intercepts calls and passes them down") {
  LayerEnv t;
  XgpuInstance instance;
  REQUIRE(Create({kLayerA}, &instance) == XGPU_SUCCESS);
  CHECK(t.layer_a->negotiateCalls == 1);
  CHECK(t.layer_a->createInstanceCalls == 1);
  CHECK(t.layer_a->sawInstanceDataCallback == 1);
  CHECK(t.driver->createInstanceCalls == 1);
  CHECK(t.driver->sawLoaderStructure == 0);
  CHECK(t.driver->sawLayerNames == 0);
  CHECK(FirstDeviceName(instance) == "test device A0+A");

  XgpuDevice device = CreateDevice(instance);
  CHECK(t.layer_a->createDeviceCalls == 1);
  CHECK(t.layer_a->sawDeviceDataCallback == 1);
  CHECK(t.layer_a->deviceKeyedBeforeReturn == 1);
  CHECK(t.driver->createDeviceCalls == 1);
  CHECK(CreateBuffer(device) == XGPU_SUCCESS);
  CHECK(t.layer_a->createBufferCalls == 1);
  CHECK(t.driver->createBufferCalls == 1);
  // xgpuGetDeviceProcAddr hands out the layer's function for what it
  // intercepts and the driver's for the rest.
  CHECK(xgpuGetDeviceProcAddr(device, "xgpuCreateBuffer") == t.layer_a.Function("xgpuCreateBuffer"));
  CHECK(xgpuGetDeviceProcAddr(device, "xgpuCmdDispatch") == t.driver.Function("xgpuCmdDispatch"));
  // Queues keep working through the layer (xgpuGetDeviceQueue passes through it).
  XgpuQueue queue = nullptr;
  xgpuGetDeviceQueue(device, 0, 0, &queue);
  REQUIRE(queue != nullptr);
  CHECK(xgpuQueueSubmit(queue, 0, nullptr) == XGPU_SUCCESS);
  CHECK(t.driver->queueSubmitCalls == 1);
  xgpuDestroyDevice(device, nullptr);
  CHECK(t.layer_a->destroyDeviceCalls == 1);
  CHECK(t.driver->destroyDeviceCalls == 1);
  xgpuDestroyInstance(instance, nullptr);
  CHECK(t.layer_a->destroyInstanceCalls == 1);
  CHECK(t.driver->destroyInstanceCalls == 1);
}

TEST_CASE("layer order: XGPU_INSTANCE_LAYERS first (next to the application), then the application's list") {
  LayerEnv t;
  XgpuInstance instance;
  SUBCASE("application order") {
    REQUIRE(Create({kLayerB, kLayerA}, &instance) == XGPU_SUCCESS);
    // B is next to the application: A appends first on the way back up.
    CHECK(FirstDeviceName(instance) == "test device A0+A+B");
  }
  SUBCASE("environment before application") {
    t.env.env.Set("XGPU_INSTANCE_LAYERS", kLayerA);
    REQUIRE(Create({kLayerB}, &instance) == XGPU_SUCCESS);
    CHECK(FirstDeviceName(instance) == "test device A0+B+A");
  }
  SUBCASE("a layer named twice is enabled once, at its first position") {
    t.env.env.Set("XGPU_INSTANCE_LAYERS", std::string(kLayerB) + ":" + kLayerA + ":" + kLayerB);
    REQUIRE(Create({kLayerA}, &instance) == XGPU_SUCCESS);
    CHECK(FirstDeviceName(instance) == "test device A0+A+B");
    CHECK(t.layer_a->createInstanceCalls == 1);
  }
  XgpuDevice device = CreateDevice(instance);
  CHECK(CreateBuffer(device) == XGPU_SUCCESS);
  CHECK(t.layer_a->createBufferCalls == 1);
  CHECK(t.layer_b->createBufferCalls == 1);
  CHECK(t.driver->createBufferCalls == 1);
  xgpuDestroyDevice(device, nullptr);
  xgpuDestroyInstance(instance, nullptr);
}

TEST_CASE("a missing application layer fails xgpuCreateInstance with XGPU_ERROR_LAYER_NOT_PRESENT") {
  LayerEnv t;
  XgpuInstance instance = reinterpret_cast<XgpuInstance>(1);
  StderrCapture err;
  CHECK(Create({kLayerA, "XGPU_LAYER_nonexistent"}, &instance) == XGPU_ERROR_LAYER_NOT_PRESENT);
  CHECK(instance == nullptr);
  std::string out = err.Stop();
  CHECK(out.find("layer XGPU_LAYER_nonexistent requested by application was not found") != std::string::npos);
  CHECK(t.driver->createInstanceCalls == 0);
}

TEST_CASE("a missing XGPU_INSTANCE_LAYERS layer is an error message and is skipped") {
  LayerEnv t;
  t.env.env.Set("XGPU_INSTANCE_LAYERS", "XGPU_LAYER_nonexistent");
  XgpuInstance instance;
  StderrCapture err;
  REQUIRE(Create({}, &instance) == XGPU_SUCCESS);
  CHECK(err.Stop().find("layer XGPU_LAYER_nonexistent requested by XGPU_INSTANCE_LAYERS was not found: no valid layer "
                        "manifest names it; skipped") != std::string::npos);
  xgpuDestroyInstance(instance, nullptr);
}

TEST_CASE("a layer that cannot be loaded or negotiated fails with XGPU_ERROR_LAYER_NOT_PRESENT") {
  LayerEnv t;
  std::string expected;
  SUBCASE("missing library") {
    WriteFile(t.LayerPath("a.json"), LayerManifest(kLayerA, "/nonexistent/libxgpu_layer.so"));
    expected = "its library /nonexistent/libxgpu_layer.so could not be loaded";
  }
  SUBCASE("no negotiate function") {
    WriteFile(t.LayerPath("a.json"), LayerManifest(kLayerA, t.driver.path()));
    expected = "does not export xgpuNegotiateLoaderLayerInterfaceVersion";
  }
  SUBCASE("negotiation refused") {
    t.layer_a->negotiateResult = XGPU_ERROR_INCOMPATIBLE_DRIVER;
    expected = "xgpuNegotiateLoaderLayerInterfaceVersion refused interface version 1 (returned -9)";
  }
  SUBCASE("unknown interface version") {
    t.layer_a->negotiateVersion = 9;
    expected = "it chose interface version 9; this loader speaks 1 to 1";
  }
  SUBCASE("no device proc addr") {
    t.layer_a->omitDeviceProcAddr = 1;
    expected = "its negotiation left pfnGetInstanceProcAddr or pfnGetDeviceProcAddr NULL";
  }
  XgpuInstance instance;
  StderrCapture err;
  CHECK(Create({kLayerA}, &instance) == XGPU_ERROR_LAYER_NOT_PRESENT);
  std::string out = err.Stop();
  CHECK(out.find("layer XGPU_LAYER_test_a (manifest " + t.LayerPath("a.json")) != std::string::npos);
  CHECK(out.find(expected) != std::string::npos);
}

TEST_CASE("\"functions\" renames the negotiate function") {
  LayerEnv t;
  WriteFile(t.LayerPath("a.json"),
            LayerManifest(kLayerA, t.layer_a.path(),
                          ", \"functions\": {\"xgpuNegotiateLoaderLayerInterfaceVersion\": \"test_layer_renamed_negotiate\"}"));
  XgpuInstance instance;
  REQUIRE(Create({kLayerA}, &instance) == XGPU_SUCCESS);
  CHECK(t.layer_a->customNegotiateCalls == 1);
  CHECK(t.layer_a->negotiateCalls == 0);
  xgpuDestroyInstance(instance, nullptr);
}

TEST_CASE("XGPU_LOADER_LAYERS_DISABLE and disable_environment skip even requested layers, with a warning") {
  LayerEnv t;
  std::string reason;
  SUBCASE("exact name") {
    t.env.env.Set("XGPU_LOADER_LAYERS_DISABLE", kLayerA);
    reason = "XGPU_LOADER_LAYERS_DISABLE=XGPU_LAYER_test_a matches it";
  }
  SUBCASE("glob among several") {
    t.env.env.Set("XGPU_LOADER_LAYERS_DISABLE", "XGPU_LAYER_other,*test_a");
    reason = "XGPU_LOADER_LAYERS_DISABLE=XGPU_LAYER_other,*test_a matches it";
  }
  SUBCASE("~all~") {
    t.env.env.Set("XGPU_LOADER_LAYERS_DISABLE", "~all~");
    reason = "XGPU_LOADER_LAYERS_DISABLE=~all~ matches it";
  }
  SUBCASE("the manifest's disable_environment") {
    WriteFile(t.LayerPath("a.json"),
              LayerManifest(kLayerA, t.layer_a.path(), ", \"disable_environment\": {\"XGPU_TEST_DISABLE_A\": \"1\"}"));
    t.env.env.Set("XGPU_TEST_DISABLE_A", "1");
    reason = "its manifest's disable_environment XGPU_TEST_DISABLE_A=1 is set";
  }
  XgpuInstance instance;
  StderrCapture err;
  t.env.env.Set("XGPU_LOADER_DEBUG", "warn");
  REQUIRE(Create({kLayerA}, &instance) == XGPU_SUCCESS);
  CHECK(err.Stop().find("layer XGPU_LAYER_test_a requested by application is disabled: " + reason + "; skipped") !=
        std::string::npos);
  CHECK(t.layer_a->createInstanceCalls == 0);
  CHECK(FirstDeviceName(instance) == "test device A0");
  xgpuDestroyInstance(instance, nullptr);
  // Disabled layers are not listed either.
  uint32_t count = 0;
  CHECK(xgpuEnumerateInstanceLayerProperties(&count, nullptr) == XGPU_SUCCESS);
  CHECK(count == (reason.find("~all~") != std::string::npos ? 0u : 1u));
}

TEST_CASE("XGPU_LOADER_LAYERS_DISABLE also skips layers enabled through XGPU_INSTANCE_LAYERS") {
  LayerEnv t;
  t.env.env.Set("XGPU_INSTANCE_LAYERS", std::string(kLayerA) + ":" + kLayerB);
  t.env.env.Set("XGPU_LOADER_DEBUG", "warn");
  std::string device_name;
  std::vector<std::string> disabled;
  SUBCASE("one of them, by glob") {
    t.env.env.Set("XGPU_LOADER_LAYERS_DISABLE", "*test_a");
    device_name = "test device A0+B";
    disabled = {"layer XGPU_LAYER_test_a requested by XGPU_INSTANCE_LAYERS is disabled: "
                "XGPU_LOADER_LAYERS_DISABLE=*test_a matches it; skipped"};
  }
  SUBCASE("~all~") {
    t.env.env.Set("XGPU_LOADER_LAYERS_DISABLE", "~all~");
    device_name = "test device A0";
    disabled = {"layer XGPU_LAYER_test_a requested by XGPU_INSTANCE_LAYERS is disabled: "
                "XGPU_LOADER_LAYERS_DISABLE=~all~ matches it; skipped",
                "layer XGPU_LAYER_test_b requested by XGPU_INSTANCE_LAYERS is disabled: "
                "XGPU_LOADER_LAYERS_DISABLE=~all~ matches it; skipped"};
  }
  XgpuInstance instance;
  StderrCapture err;
  REQUIRE(Create({}, &instance) == XGPU_SUCCESS);
  std::string out = err.Stop();
  for (const std::string& message : disabled) CHECK(out.find("xgpu loader: warn: " + message) != std::string::npos);
  CHECK(t.layer_a->createInstanceCalls == 0);
  CHECK(t.layer_b->createInstanceCalls == (device_name == "test device A0" ? 0u : 1u));
  CHECK(FirstDeviceName(instance) == device_name);
  xgpuDestroyInstance(instance, nullptr);
}

TEST_CASE("layer library_path: relative to the manifest's folder, absolute, or a bare name") {
  LayerEnv t;
  SUBCASE("relative") {
    fs::create_directories(t.env.dir.path() + "/layers/sub");
    fs::create_symlink(t.layer_a.path(), t.env.dir.path() + "/layers/sub/liblayer.so");
    WriteFile(t.LayerPath("a.json"), LayerManifest(kLayerA, "sub/liblayer.so"));
  }
  SUBCASE("relative, through ..") {
    fs::create_directories(t.env.dir.path() + "/libs");
    fs::create_symlink(t.layer_a.path(), t.env.dir.path() + "/libs/liblayer.so");
    WriteFile(t.LayerPath("a.json"), LayerManifest(kLayerA, "../libs/liblayer.so"));
  }
  SUBCASE("absolute") { WriteFile(t.LayerPath("a.json"), LayerManifest(kLayerA, t.layer_a.path())); }
  SUBCASE("bare name (dlopen's search finds the already-loaded library by its soname)") {
    WriteFile(t.LayerPath("a.json"), LayerManifest(kLayerA, fs::path(t.layer_a.path()).filename().string()));
  }
  t.env.env.Set("XGPU_LOADER_DEBUG", "info");
  XgpuInstance instance;
  StderrCapture err;
  REQUIRE(Create({kLayerA}, &instance) == XGPU_SUCCESS);
  // The test's own copy of the library: the same one the loader loaded.
  CHECK(t.layer_a->createInstanceCalls == 1);
  CHECK(err.Stop().find("library: " + fs::canonical(t.layer_a.path()).string() + " (interface version 1)") !=
        std::string::npos);
  CHECK(FirstDeviceName(instance) == "test device A0+A");
  xgpuDestroyInstance(instance, nullptr);
}

TEST_CASE("layer library_path bare name: found through LD_LIBRARY_PATH by a fresh process") {
  LayerEnv t;
  // A name no process has loaded: only the dynamic linker's search finds it.
  const std::string libdir = t.env.dir.Dir("ld_library_path");
  const std::string library = libdir + "/libxgpu_test_fresh_layer.so";
  fs::copy_file(XGPU_TEST_LAYER_B, library);
  WriteFile(t.LayerPath("b.json"), LayerManifest(kLayerB, "libxgpu_test_fresh_layer.so"));
  t.env.env.Set("XGPU_LOADER_DEBUG", "info");
  const char* inherited = std::getenv("LD_LIBRARY_PATH");
  SUBCASE("in LD_LIBRARY_PATH: loaded from there") {
    t.env.env.Set("LD_LIBRARY_PATH", libdir + (inherited && *inherited ? std::string(":") + inherited : ""));
    ProcessResult child = RunProcess(XGPU_LOADER_PROBE, {kLayerB});
    CHECK(child.exit_code == 0);
    CHECK(child.out == "test device A0+B\n");
    CHECK(child.err.find("library: " + fs::canonical(library).string() + " (interface version 1)") !=
          std::string::npos);
  }
  SUBCASE("not in the search: the requested layer is not present") {
    ProcessResult child = RunProcess(XGPU_LOADER_PROBE, {kLayerB});
    CHECK(child.exit_code == 1);
    CHECK(child.err.find("xgpuCreateInstance returned " + std::to_string(XGPU_ERROR_LAYER_NOT_PRESENT)) !=
          std::string::npos);
    CHECK(child.err.find("its library libxgpu_test_fresh_layer.so could not be loaded") != std::string::npos);
  }
}

TEST_CASE("xgpuEnumerateInstanceLayerProperties lists the layer manifests") {
  LayerEnv t;
  uint32_t count = 0;
  REQUIRE(xgpuEnumerateInstanceLayerProperties(&count, nullptr) == XGPU_SUCCESS);
  REQUIRE(count == 2);
  XgpuLayerProperties props[2];
  REQUIRE(xgpuEnumerateInstanceLayerProperties(&count, props) == XGPU_SUCCESS);
  CHECK(std::string(props[0].layerName) == kLayerA);
  CHECK(std::string(props[0].description) == "layer A for tests");
  CHECK(props[0].specVersion == XGPU_MAKE_API_VERSION(0, 1, 0, 0));
  CHECK(props[0].implementationVersion == 3);
  CHECK(std::string(props[1].layerName) == kLayerB);
  count = 1;
  CHECK(xgpuEnumerateInstanceLayerProperties(&count, props) == XGPU_INCOMPLETE);
  CHECK(count == 1);
  // No layer library was loaded to list them.
  CHECK(t.layer_a->negotiateCalls == 0);
}

TEST_CASE("layer search: XGPU_LAYER_PATH files and folders; duplicates keep the first") {
  LayerEnv t;
  WriteFile(t.env.dir.path() + "/other/a_again.json", LayerManifest(kLayerA, t.layer_a.path(), "", "second A"));
  t.env.env.Set("XGPU_LAYER_PATH", t.LayerPath("a.json") + ":" + t.env.dir.path() + "/other");
  uint32_t count = 0;
  t.env.env.Set("XGPU_LOADER_DEBUG", "warn");
  StderrCapture err;
  REQUIRE(xgpuEnumerateInstanceLayerProperties(&count, nullptr) == XGPU_SUCCESS);
  CHECK(count == 1);
  CHECK(err.Stop().find("layer XGPU_LAYER_test_a in " + t.env.dir.path() + "/other/a_again.json ignored: already found in " +
                        t.LayerPath("a.json")) != std::string::npos);
}

TEST_CASE("layer search without XGPU_LAYER_PATH: the XDG explicit_layer.d folders") {
  LayerEnv t;
  t.env.env.Set("XGPU_LAYER_PATH", std::nullopt);
  WriteFile(t.env.dir.path() + "/xdg/data_dir/xgpu/explicit_layer.d/b.json", LayerManifest(kLayerB, t.layer_b.path()));
  XgpuInstance instance;
  REQUIRE(Create({kLayerB}, &instance) == XGPU_SUCCESS);
  CHECK(FirstDeviceName(instance) == "test device A0+B");
  xgpuDestroyInstance(instance, nullptr);
}

TEST_CASE("layer search without XGPU_LAYER_PATH: config home, config dirs, data home, data dirs, in that order") {
  LayerEnv t;
  t.env.env.Set("XGPU_LAYER_PATH", std::nullopt);
  const std::string root = t.env.dir.path();
  // The same layer name in each folder: the first one found is listed.
  const std::pair<std::string, std::string> folders[] = {
      {root + "/xdg/config_home", "from XDG_CONFIG_HOME"},
      {root + "/xdg/config_dir", "from XDG_CONFIG_DIRS"},
      {root + "/xdg/data_home", "from XDG_DATA_HOME"},
      {root + "/xdg/data_dir", "from XDG_DATA_DIRS"},
  };
  for (const auto& [folder, description] : folders) {
    WriteFile(folder + "/xgpu/explicit_layer.d/a.json", LayerManifest(kLayerA, t.layer_a.path(), "", description));
  }
  for (const auto& [folder, description] : folders) {
    CHECK(ListedDescription(kLayerA) == description);
    fs::remove(folder + "/xgpu/explicit_layer.d/a.json");
  }
  CHECK(ListedDescription(kLayerA) == "");
}

TEST_CASE("layer search defaults: $HOME/.config and $HOME/.local/share") {
  LayerEnv t;
  t.env.env.Set("XGPU_LAYER_PATH", std::nullopt);
  const std::string root = t.env.dir.path();
  WriteFile(root + "/home/.local/share/xgpu/explicit_layer.d/a.json",
            LayerManifest(kLayerA, t.layer_a.path(), "", "from $HOME/.local/share"));
  SUBCASE("XDG_DATA_HOME unset") {
    t.env.env.Set("XDG_DATA_HOME", std::nullopt);
    CHECK(ListedDescription(kLayerA) == "from $HOME/.local/share");
  }
  SUBCASE("XDG_DATA_HOME empty") {
    t.env.env.Set("XDG_DATA_HOME", "");
    CHECK(ListedDescription(kLayerA) == "from $HOME/.local/share");
  }
  SUBCASE("XDG_DATA_HOME relative: ignored, as if unset") {
    // A relative path that does name a folder with a manifest (from the
    // working directory): ignored all the same.
    const std::string relative = fs::relative(root + "/relative", fs::current_path()).string();
    REQUIRE(relative[0] != '/');
    t.env.env.Set("XDG_DATA_HOME", relative);
    WriteFile(root + "/relative/xgpu/explicit_layer.d/a.json",
              LayerManifest(kLayerA, t.layer_a.path(), "", "from the relative XDG_DATA_HOME"));
    REQUIRE(fs::exists(relative + "/xgpu/explicit_layer.d/a.json"));
    t.env.env.Set("XGPU_LOADER_DEBUG", "debug");
    StderrCapture err;
    CHECK(ListedDescription(kLayerA) == "from $HOME/.local/share");
    CHECK(err.Stop().find("XDG_DATA_HOME=" + relative + " ignored: XDG paths must be absolute; its default is used") !=
          std::string::npos);
  }
  SUBCASE("XDG_CONFIG_HOME unset: $HOME/.config, before $HOME/.local/share") {
    t.env.env.Set("XDG_CONFIG_HOME", std::nullopt);
    t.env.env.Set("XDG_DATA_HOME", std::nullopt);
    WriteFile(root + "/home/.config/xgpu/explicit_layer.d/a.json",
              LayerManifest(kLayerA, t.layer_a.path(), "", "from $HOME/.config"));
    CHECK(ListedDescription(kLayerA) == "from $HOME/.config");
  }
  SUBCASE("XDG_DATA_HOME set: $HOME/.local/share is not searched") {
    CHECK(ListedDescription(kLayerA) == "");
  }
  // The layer found is usable, not only listed.
  if (!ListedDescription(kLayerA).empty()) {
    XgpuInstance instance;
    REQUIRE(Create({kLayerA}, &instance) == XGPU_SUCCESS);
    CHECK(FirstDeviceName(instance) == "test device A0+A");
    xgpuDestroyInstance(instance, nullptr);
  }
}

TEST_CASE("a *.json name in a standard layer folder that is not a file is an error message") {
  LayerEnv t;
  t.env.env.Set("XGPU_LAYER_PATH", std::nullopt);
  const std::string folder = t.env.dir.path() + "/xdg/data_dir/xgpu/explicit_layer.d";
  WriteFile(folder + "/b.json", LayerManifest(kLayerB, t.layer_b.path()));
  fs::create_symlink(t.env.dir.path() + "/gone.json", folder + "/a.json");
  StderrCapture err;
  CHECK(ListedDescription(kLayerB) == "test layer");
  CHECK(err.Stop().find("xgpu loader: error: manifest " + folder + "/a.json (XDG_DATA_DIRS) is a dangling symbolic "
                        "link (its target " + t.env.dir.path() + "/gone.json does not exist); skipped") !=
        std::string::npos);
}

TEST_CASE("bad layer manifests are skipped with a specific message") {
  LayerEnv t;
  const std::string lib = t.layer_a.path();
  struct Case {
    const char* what;      // the defect
    std::string text;      // manifest contents
    const char* expected;  // part of the message
  };
  const Case cases[] = {
      {"not JSON", "{", "is not valid JSON"},
      {"no layer", "{\"file_format_version\": \"1.0.0\"}", "has no \"layer\" object"},
      {"no name", "{\"file_format_version\": \"1.0.0\", \"layer\": {}}", "\"layer\" has no \"name\""},
      {"wrong type",
       "{\"file_format_version\": \"1.0.0\", \"layer\": {\"name\": \"XGPU_LAYER_test_a\", \"type\": \"INSTANCE\", "
       "\"library_path\": \"x\", \"api_version\": \"1.0.0\", \"implementation_version\": \"1\", \"description\": \"d\"}}",
       "\"layer.type\" is \"INSTANCE\"; the only layer type is \"GLOBAL\""},
      {"implementation_version not a number", LayerManifest(kLayerA, lib).replace(
           LayerManifest(kLayerA, lib).find("\"3\""), 3, "\"three\""),
       "\"layer.implementation_version\" \"three\" is not a decimal number"},
      {"description a number",
       "{\"file_format_version\": \"1.0.0\", \"layer\": {\"name\": \"XGPU_LAYER_test_a\", \"type\": \"GLOBAL\", "
       "\"library_path\": \"x\", \"api_version\": \"1.0.0\", \"implementation_version\": \"1\", \"description\": 5}}",
       "\"layer.description\" must be a string, not number"},
      {"unknown function", LayerManifest(kLayerA, lib, ", \"functions\": {\"xgpuOther\": \"f\"}"),
       "\"layer.functions\" names unknown function \"xgpuOther\""},
      {"disable_environment not an object", LayerManifest(kLayerA, lib, ", \"disable_environment\": [1]"),
       "\"layer.disable_environment\" must be an object"},
      {"api_version malformed", LayerManifest(kLayerA, lib).replace(LayerManifest(kLayerA, lib).find("\"1.0.0\", \"impl"), 7, "\"1.0.x\""),
       "\"layer.api_version\": \"1.0.x\" is not a version"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    WriteFile(t.LayerPath("a.json"), c.text);
    StderrCapture err;
    uint32_t count = 0;
    REQUIRE(xgpuEnumerateInstanceLayerProperties(&count, nullptr) == XGPU_SUCCESS);
    CHECK(count == 1);  // layer B only
    XgpuInstance instance;
    CHECK(Create({kLayerA}, &instance) == XGPU_ERROR_LAYER_NOT_PRESENT);
    std::string out = err.Stop();
    CHECK(out.find("layer manifest " + t.LayerPath("a.json") + " ") != std::string::npos);
    CHECK(out.find(c.expected) != std::string::npos);
  }
}
