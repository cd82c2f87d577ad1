// Driver discovery, manifests, negotiation and dispatch, through the real
// libxgpu and the test drivers.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "loader_test_util.h"
#include "xgpu/xgpu_icd.h"

using namespace loader_test;

namespace {

std::vector<XgpuPhysicalDevice> PhysicalDevices(XgpuInstance instance) {
  uint32_t count = 0;
  REQUIRE(xgpuEnumeratePhysicalDevices(instance, &count, nullptr) == XGPU_SUCCESS);
  std::vector<XgpuPhysicalDevice> devices(count);
  if (count) REQUIRE(xgpuEnumeratePhysicalDevices(instance, &count, devices.data()) == XGPU_SUCCESS);
  return devices;
}

std::string DeviceName(XgpuPhysicalDevice pd) {
  XgpuPhysicalDeviceProperties props;
  xgpuGetPhysicalDeviceProperties(pd, &props);
  return props.deviceName;
}

std::vector<std::string> DeviceNames(XgpuInstance instance) {
  std::vector<std::string> names;
  for (XgpuPhysicalDevice pd : PhysicalDevices(instance)) names.push_back(DeviceName(pd));
  return names;
}

// Creates an instance with the default create info, or fails the test.
struct Instance {
  explicit Instance(const XgpuInstanceCreateInfo& info) { REQUIRE(xgpuCreateInstance(&info, nullptr, &handle) == XGPU_SUCCESS); }
  Instance() : Instance(InstanceInfo()) {}
  ~Instance() { xgpuDestroyInstance(handle, nullptr); }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  XgpuInstance handle = nullptr;
};

struct Device {
  explicit Device(XgpuPhysicalDevice pd) {
    XgpuDeviceQueueCreateInfo queue = {XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, 1};
    XgpuDeviceCreateInfo info = {XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO, nullptr, 0, 1, &queue};
    result = xgpuCreateDevice(pd, &info, nullptr, &handle);
  }
  ~Device() { xgpuDestroyDevice(handle, nullptr); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  XgpuResult result;
  XgpuDevice handle = nullptr;
};

XgpuResult CreateBuffer(XgpuDevice device, XgpuBuffer* out) {
  XgpuBufferCreateInfo info = {XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, 256, XGPU_BUFFER_USAGE_STORAGE_BIT, 0};
  return xgpuCreateBuffer(device, &info, nullptr, out);
}

// A private copy of libxgpu under <prefix>/lib, so that "the folder next to
// libxgpu" is <prefix>/share/xgpu/... and belongs to the test.
class LoaderCopy {
 public:
  explicit LoaderCopy(const std::string& prefix) {
    fs::create_directories(prefix + "/lib");
    std::string path = prefix + "/lib/libxgpu.so.1";
    fs::copy_file(XGPU_LOADER_LIBRARY, path);
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(handle_ != nullptr);
    gipa_ = reinterpret_cast<PFN_xgpuGetInstanceProcAddr>(dlsym(handle_, "xgpuGetInstanceProcAddr"));
    REQUIRE(static_cast<bool>(gipa_));
  }
  ~LoaderCopy() { dlclose(handle_); }
  LoaderCopy(const LoaderCopy&) = delete;
  LoaderCopy& operator=(const LoaderCopy&) = delete;

  // Names of the test drivers' devices ("test device ...") an instance of
  // this copy sees, in enumeration order.
  std::vector<std::string> TestDeviceNames() const {
    auto create = reinterpret_cast<PFN_xgpuCreateInstance>(gipa_(nullptr, "xgpuCreateInstance"));
    XgpuInstanceCreateInfo info = InstanceInfo();
    XgpuInstance instance = nullptr;
    REQUIRE(create(&info, nullptr, &instance) == XGPU_SUCCESS);
    auto enumerate = reinterpret_cast<PFN_xgpuEnumeratePhysicalDevices>(gipa_(instance, "xgpuEnumeratePhysicalDevices"));
    auto props = reinterpret_cast<PFN_xgpuGetPhysicalDeviceProperties>(gipa_(instance, "xgpuGetPhysicalDeviceProperties"));
    auto destroy = reinterpret_cast<PFN_xgpuDestroyInstance>(gipa_(instance, "xgpuDestroyInstance"));
    uint32_t count = 0;
    enumerate(instance, &count, nullptr);
    std::vector<XgpuPhysicalDevice> devices(count);
    enumerate(instance, &count, devices.data());
    std::vector<std::string> names;
    for (XgpuPhysicalDevice pd : devices) {
      XgpuPhysicalDeviceProperties p;
      props(pd, &p);
      if (std::strncmp(p.deviceName, "test device", 11) == 0) names.push_back(p.deviceName);
    }
    destroy(instance, nullptr);
    return names;
  }

 private:
  void* handle_ = nullptr;
  PFN_xgpuGetInstanceProcAddr gipa_ = nullptr;
};

}  // namespace

TEST_CASE("no driver: instance creation succeeds and enumerates no physical devices") {
  LoaderEnv env;
  Instance instance;
  CHECK(PhysicalDevices(instance.handle).empty());
}

TEST_CASE("one driver: properties, device, queue, command buffer and buffer reach it") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  Instance instance;
  CHECK(a->negotiateCalls == 1);
  CHECK(a->createInstanceCalls == 1);
  CHECK(a->sawLoaderStructure == 0);
  auto devices = PhysicalDevices(instance.handle);
  REQUIRE(devices.size() == 1);
  CHECK(DeviceName(devices[0]) == "test device A0");
  // Physical devices are the loader's: stable handles, not the driver's objects.
  CHECK(PhysicalDevices(instance.handle)[0] == devices[0]);
  CHECK_FALSE(xgpuValidLoaderMagicValue(devices[0]));

  XgpuPhysicalDeviceMemoryProperties memory;
  xgpuGetPhysicalDeviceMemoryProperties(devices[0], &memory);
  CHECK(memory.memoryHeapCount == 1);
  uint32_t families = 0;
  xgpuGetPhysicalDeviceQueueFamilyProperties(devices[0], &families, nullptr);
  CHECK(families == 1);

  {
    Device device(devices[0]);
    REQUIRE(device.result == XGPU_SUCCESS);
    CHECK(a->createDeviceCalls == 1);
    CHECK(a->sawLoaderStructure == 0);
    XgpuBuffer buffer = XGPU_NULL_HANDLE;
    CHECK(CreateBuffer(device.handle, &buffer) == XGPU_SUCCESS);
    CHECK(buffer != XGPU_NULL_HANDLE);
    CHECK(a->createBufferCalls == 1);
    xgpuDestroyBuffer(device.handle, buffer, nullptr);

    XgpuQueue queue = nullptr;
    xgpuGetDeviceQueue(device.handle, 0, 0, &queue);
    REQUIRE(queue != nullptr);
    // The loader replaced the magic with its device table.
    CHECK(*reinterpret_cast<void**>(queue) == *reinterpret_cast<void**>(device.handle));
    CHECK(xgpuQueueSubmit(queue, 0, nullptr) == XGPU_SUCCESS);
    CHECK(a->queueSubmitCalls == 1);

    XgpuCommandBufferCreateInfo cbi = {XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO, nullptr, 0, 0};
    XgpuCommandBuffer cb = nullptr;
    REQUIRE(xgpuCreateCommandBuffer(device.handle, &cbi, nullptr, &cb) == XGPU_SUCCESS);
    xgpuCmdDispatch(cb, 1, 1, 1);
    CHECK(a->cmdDispatchCalls == 1);
    xgpuDestroyCommandBuffer(device.handle, cb, nullptr);
    CHECK(xgpuDeviceWaitIdle(device.handle) == XGPU_SUCCESS);
  }
  CHECK(a->destroyDeviceCalls == 1);
}

TEST_CASE("destroying the instance destroys the driver's instance") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  { Instance instance; }
  CHECK(a->destroyInstanceCalls == 1);
  xgpuDestroyInstance(nullptr, nullptr);  // no-op
}

TEST_CASE("two drivers at once: physical devices from both, calls routed to the owner") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  TestDriver b(XGPU_TEST_DRIVER_B);
  a->physicalDeviceCount = 2;
  WriteFile(env.dir.path() + "/drivers/1_a.json", DriverManifest(a.path()));
  WriteFile(env.dir.path() + "/drivers/2_b.json", DriverManifest(b.path()));
  Instance instance;
  auto devices = PhysicalDevices(instance.handle);
  REQUIRE(devices.size() == 3);
  CHECK(DeviceNames(instance.handle) == std::vector<std::string>{"test device A0", "test device A1", "test device B0"});
  Device device(devices[2]);
  REQUIRE(device.result == XGPU_SUCCESS);
  CHECK(a->createDeviceCalls == 0);
  CHECK(b->createDeviceCalls == 1);
  XgpuBuffer buffer;
  CHECK(CreateBuffer(device.handle, &buffer) == XGPU_SUCCESS);
  CHECK(a->createBufferCalls == 0);
  CHECK(b->createBufferCalls == 1);
}

TEST_CASE("xgpuEnumeratePhysicalDevices: XGPU_INCOMPLETE when the array is short") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  a->physicalDeviceCount = 3;
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  Instance instance;
  uint32_t count = 2;
  XgpuPhysicalDevice two[2];
  CHECK(xgpuEnumeratePhysicalDevices(instance.handle, &count, two) == XGPU_INCOMPLETE);
  CHECK(count == 2);
}

TEST_CASE("XGPU_DRIVER_FILES: files and folders, colon-separated, in order; folders sorted by file name") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  TestDriver b(XGPU_TEST_DRIVER_B);
  TestDriver c(XGPU_TEST_DRIVER_C);
  WriteFile(env.dir.path() + "/one/z_b.json", DriverManifest(b.path()));
  WriteFile(env.dir.path() + "/one/y_a.json", DriverManifest(a.path()));
  WriteFile(env.dir.path() + "/two/c.json", DriverManifest(c.path()));
  env.env.Set("XGPU_DRIVER_FILES", env.dir.path() + "/two/c.json:" + env.dir.path() + "/one");
  Instance instance;
  CHECK(DeviceNames(instance.handle) == std::vector<std::string>{"test device C0", "test device A0", "test device B0"});
}

TEST_CASE("library_path: relative to the manifest's folder, absolute, or a bare name") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  SUBCASE("relative") {
    fs::create_directories(env.dir.path() + "/drivers/sub");
    fs::create_symlink(a.path(), env.dir.path() + "/drivers/sub/libdriver.so");
    WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest("sub/libdriver.so"));
  }
  SUBCASE("absolute") { WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path())); }
  SUBCASE("bare name (dlopen's search finds the already-loaded library by its soname)") {
    WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(fs::path(a.path()).filename().string()));
  }
  Instance instance;
  CHECK(DeviceNames(instance.handle) == std::vector<std::string>{"test device A0"});
}

TEST_CASE("bad driver manifests are skipped with a specific message; the good one still loads") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/drivers/0_good.json", DriverManifest(a.path()));
  struct Case {
    const char* what;      // the defect
    std::string text;      // manifest contents
    const char* expected;  // part of the message
  };
  const std::string lib = a.path();
  const Case cases[] = {
      {"not JSON", "{\"file_format_version\": ", "is not valid JSON"},
      {"not an object", "[1, 2]", "is not a JSON object"},
      {"no file_format_version", "{\"ICD\": {}}", "has no \"file_format_version\""},
      {"file_format_version not a string", "{\"file_format_version\": 1, \"ICD\": {}}",
       "\"file_format_version\" must be a string"},
      {"file_format_version malformed", "{\"file_format_version\": \"1.0\", \"ICD\": {}}",
       "\"1.0\" is not a version"},
      {"unknown major", "{\"file_format_version\": \"2.0.0\", \"ICD\": {}}", "has an unknown major version"},
      {"no ICD", "{\"file_format_version\": \"1.0.0\"}", "has no \"ICD\" object"},
      {"ICD not an object", "{\"file_format_version\": \"1.0.0\", \"ICD\": \"x\"}", "\"ICD\" must be an object"},
      {"no library_path", "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"api_version\": \"1.0.0\"}}",
       "\"ICD\" has no \"library_path\""},
      {"library_path a number",
       "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": 5, \"api_version\": \"1.0.0\"}}",
       "\"ICD.library_path\" must be a string, not number"},
      {"empty library_path",
       "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"\", \"api_version\": \"1.0.0\"}}",
       "\"ICD.library_path\" is empty"},
      {"no api_version", "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + lib + "\"}}",
       "\"ICD\" has no \"api_version\""},
      {"api_version malformed", DriverManifest(lib, "one.0.0"), "\"ICD.api_version\": \"one.0.0\" is not a version"},
      {"api_version out of range", DriverManifest(lib, "1.5000.0"), "is not a version"},
      {"api_version major 2", DriverManifest(lib, "2.0.0"), "it implements API 2.0.0; this loader needs 1.x"},
      {"missing library", DriverManifest("/nonexistent/libxgpu_nothing.so"),
       "its library /nonexistent/libxgpu_nothing.so could not be loaded"},
      {"missing bare-name library", DriverManifest("libxgpu_no_such_driver.so"),
       "its library libxgpu_no_such_driver.so could not be loaded"},
      {"nested too deep", "{\"file_format_version\": \"1.0.0\", \"x\": " + std::string(17, '[') + std::string(17, ']') +
                              ", \"ICD\": {}}",
       "nests deeper than 16 levels"},
      {"nested 100000 deep", std::string(100000, '[') + std::string(100000, ']'), "nests deeper than 16 levels"},
      {"a later duplicate key wins", "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + lib +
                                         "\", \"api_version\": \"1.0.0\", \"api_version\": \"x\"}}",
       "\"ICD.api_version\": \"x\" is not a version"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    WriteFile(env.dir.path() + "/drivers/1_bad.json", c.text);
    StderrCapture err;
    Instance instance;
    std::string out = err.Stop();
    CHECK(out.find(c.expected) != std::string::npos);
    CHECK(out.find("1_bad.json") != std::string::npos);
    CHECK(out.find("xgpu loader: error: ") != std::string::npos);
    CHECK(DeviceNames(instance.handle) == std::vector<std::string>{"test device A0"});
  }
}

TEST_CASE("a library that is not a driver is skipped") {
  LoaderEnv env;
  TestDriver nosym(XGPU_TEST_DRIVER_NOSYM);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(nosym.path()));
  StderrCapture err;
  Instance instance;
  CHECK(err.Stop().find("does not export xgpu_icdNegotiateLoaderICDInterfaceVersion") != std::string::npos);
  CHECK(PhysicalDevices(instance.handle).empty());
}

TEST_CASE("a driver that negotiates but gives no xgpuCreateInstance is skipped") {
  LoaderEnv env;
  std::string expected;
  SUBCASE("xgpu_icdGetInstanceProcAddr not exported") {
    TestDriver nogipa(XGPU_TEST_DRIVER_NOGIPA);
    WriteFile(env.dir.path() + "/drivers/g.json", DriverManifest(nogipa.path()));
    StderrCapture err;
    Instance instance;
    std::string out = err.Stop();
    CHECK(nogipa->negotiateCalls == 1);
    CHECK(nogipa->createInstanceCalls == 0);
    CHECK(out.find("xgpu loader: error: driver " + nogipa.path() + " (manifest " + env.dir.path() +
                   "/drivers/g.json) skipped: " + fs::canonical(nogipa.path()).string() +
                   " does not export xgpu_icdGetInstanceProcAddr") != std::string::npos);
    CHECK(PhysicalDevices(instance.handle).empty());
  }
  SUBCASE("xgpu_icdGetInstanceProcAddr(NULL, \"xgpuCreateInstance\") is NULL") {
    TestDriver a(XGPU_TEST_DRIVER_A);
    a->hideGlobalCreateInstance = 1;
    WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
    StderrCapture err;
    Instance instance;
    CHECK(err.Stop().find("xgpu_icdGetInstanceProcAddr(NULL, \"xgpuCreateInstance\") returned NULL") !=
          std::string::npos);
    CHECK(a->createInstanceCalls == 0);
    CHECK(PhysicalDevices(instance.handle).empty());
  }
}

TEST_CASE("library_path bare name: found through LD_LIBRARY_PATH by a fresh process") {
  LoaderEnv env;
  // A name no process has loaded: only the dynamic linker's search finds it.
  const std::string libdir = env.dir.Dir("ld_library_path");
  const std::string library = libdir + "/libxgpu_test_fresh_driver.so";
  fs::copy_file(XGPU_TEST_DRIVER_B, library);
  WriteFile(env.dir.path() + "/drivers/fresh.json", DriverManifest("libxgpu_test_fresh_driver.so"));
  env.env.Set("XGPU_LOADER_DEBUG", "info");
  const char* inherited = std::getenv("LD_LIBRARY_PATH");
  SUBCASE("in LD_LIBRARY_PATH: loaded from there") {
    env.env.Set("LD_LIBRARY_PATH", libdir + (inherited && *inherited ? std::string(":") + inherited : ""));
    ProcessResult child = RunProcess(XGPU_LOADER_PROBE);
    CHECK(child.exit_code == 0);
    CHECK(child.out == "test device B0\n");
    CHECK(child.err.find("library: " + fs::canonical(library).string() + " (interface version 1") != std::string::npos);
  }
  SUBCASE("not in the search: the driver is skipped with dlopen's error") {
    ProcessResult child = RunProcess(XGPU_LOADER_PROBE);
    CHECK(child.exit_code == 0);
    CHECK(child.out == "");
    CHECK(child.err.find("xgpu loader: error: driver libxgpu_test_fresh_driver.so (manifest " + env.dir.path() +
                         "/drivers/fresh.json) skipped: its library libxgpu_test_fresh_driver.so could not be "
                         "loaded") != std::string::npos);
  }
}

TEST_CASE("a *.json name in a searched folder that is not a readable file is an error, never dropped silently") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  const std::string drivers = env.dir.path() + "/drivers";
  WriteFile(drivers + "/0_good.json", DriverManifest(a.path()));
  std::string name;
  std::string expected;
  SUBCASE("dangling symbolic link") {
    name = "dangling.json";
    fs::create_symlink(env.dir.path() + "/gone.json", drivers + "/" + name);
    expected = "is a dangling symbolic link (its target " + env.dir.path() + "/gone.json does not exist)";
  }
  SUBCASE("symbolic link loop") {
    name = "loop.json";
    fs::create_symlink("loop.json", drivers + "/" + name);
    expected = "is a symbolic link loop (";
  }
  SUBCASE("folder named *.json") {
    name = "folder.json";
    fs::create_directories(drivers + "/" + name);
    // Folders are not searched recursively: a manifest inside is not read.
    TestDriver b(XGPU_TEST_DRIVER_B);
    WriteFile(drivers + "/" + name + "/b.json", DriverManifest(b.path()));
    expected = "is a folder, not a file (folders are not searched recursively)";
  }
  SUBCASE("FIFO") {
    name = "fifo.json";
    REQUIRE(mkfifo((drivers + "/" + name).c_str(), 0600) == 0);
    expected = "is not a regular file";
  }
  StderrCapture err;
  Instance instance;
  std::string out = err.Stop();
  CHECK(out.find("xgpu loader: error: manifest " + drivers + "/" + name + " (XGPU_DRIVER_FILES) " + expected) !=
        std::string::npos);
  CHECK(DeviceNames(instance.handle) == std::vector<std::string>{"test device A0"});
}

TEST_CASE("a symbolic link to a manifest in a searched folder is the manifest") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/elsewhere/a.json", DriverManifest(a.path()));
  fs::create_symlink(env.dir.path() + "/elsewhere/a.json", env.dir.path() + "/drivers/link.json");
  StderrCapture err;
  Instance instance;
  CHECK(err.Stop().find("error") == std::string::npos);
  CHECK(DeviceNames(instance.handle) == std::vector<std::string>{"test device A0"});
}

TEST_CASE("an explicit entry that is a dangling symbolic link says so") {
  LoaderEnv env;
  fs::create_symlink(env.dir.path() + "/gone.json", env.dir.path() + "/link.json");
  env.env.Set("XGPU_DRIVER_FILES", env.dir.path() + "/link.json");
  StderrCapture err;
  Instance instance;
  CHECK(err.Stop().find("xgpu loader: error: XGPU_DRIVER_FILES: " + env.dir.path() +
                        "/link.json is neither a manifest file nor a folder (it is a dangling symbolic link (its "
                        "target " + env.dir.path() + "/gone.json does not exist)); ignored") != std::string::npos);
  CHECK(PhysicalDevices(instance.handle).empty());
}

TEST_CASE("a searched folder that cannot be listed is an error message") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  StderrCapture err;
  XgpuInstance instance = nullptr;
  {
    // opendir fails with EMFILE (also for root, whom permissions do not stop):
    // every descriptor below the lowest free one is in use, and the limit
    // forbids a higher one.
    int lowest_free = open("/dev/null", O_RDONLY);
    REQUIRE(lowest_free >= 0);
    close(lowest_free);
    rlimit saved;
    REQUIRE(getrlimit(RLIMIT_NOFILE, &saved) == 0);
    rlimit tight = saved;
    tight.rlim_cur = static_cast<rlim_t>(lowest_free);
    REQUIRE(setrlimit(RLIMIT_NOFILE, &tight) == 0);
    XgpuInstanceCreateInfo info = InstanceInfo();
    XgpuResult result = xgpuCreateInstance(&info, nullptr, &instance);
    setrlimit(RLIMIT_NOFILE, &saved);
    REQUIRE(result == XGPU_SUCCESS);
  }
  std::string out = err.Stop();
  CHECK(out.find("xgpu loader: error: searching " + env.dir.path() + "/drivers (XGPU_DRIVER_FILES): the folder cannot "
                 "be read: " + std::strerror(EMFILE) + "; its manifests are skipped") != std::string::npos);
  CHECK(PhysicalDevices(instance).empty());
  CHECK(a->negotiateCalls == 0);
  xgpuDestroyInstance(instance, nullptr);
}

TEST_CASE("a driver refusing negotiation or instance creation is skipped") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  std::string expected;
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  SUBCASE("negotiation returns an error") {
    a->negotiateResult = XGPU_ERROR_INCOMPATIBLE_DRIVER;
    expected = "it refused interface version 1 (xgpu_icdNegotiateLoaderICDInterfaceVersion returned -9)";
  }
  SUBCASE("negotiation picks an unknown version") {
    a->negotiateVersion = 7;
    expected = "it chose interface version 7; this loader speaks 1 to 1";
  }
  SUBCASE("xgpuCreateInstance fails") {
    a->createInstanceResult = XGPU_ERROR_INITIALIZATION_FAILED;
    expected = "xgpuCreateInstance returned -3";
  }
  StderrCapture err;
  Instance instance;
  std::string out = err.Stop();
  CHECK(out.find(expected) != std::string::npos);
  CHECK(PhysicalDevices(instance.handle).empty());
}

TEST_CASE("a driver that does not set XGPU_ICD_LOADER_MAGIC gets an error, not a crash") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  SUBCASE("instance") {
    a->skipMagic = XGPU_TEST_SKIP_MAGIC_INSTANCE;
    StderrCapture err;
    Instance instance;
    CHECK(err.Stop().find("its XgpuInstance does not start with XGPU_ICD_LOADER_MAGIC") != std::string::npos);
    CHECK(PhysicalDevices(instance.handle).empty());
    CHECK(a->destroyInstanceCalls == 1);
  }
  SUBCASE("physical device") {
    a->skipMagic = XGPU_TEST_SKIP_MAGIC_PHYSICAL_DEVICE;
    Instance instance;
    StderrCapture err;
    CHECK(PhysicalDevices(instance.handle).empty());
    CHECK(err.Stop().find("an XgpuPhysicalDevice does not start with XGPU_ICD_LOADER_MAGIC") != std::string::npos);
  }
  SUBCASE("device") {
    a->skipMagic = XGPU_TEST_SKIP_MAGIC_DEVICE;
    Instance instance;
    StderrCapture err;
    Device device(PhysicalDevices(instance.handle)[0]);
    CHECK(device.result == XGPU_ERROR_INCOMPATIBLE_DRIVER);
    CHECK(device.handle == nullptr);
    CHECK(err.Stop().find("an XgpuDevice that does not start with XGPU_ICD_LOADER_MAGIC") != std::string::npos);
    CHECK(a->destroyDeviceCalls == 1);
  }
  SUBCASE("queue and command buffer") {
    a->skipMagic = XGPU_TEST_SKIP_MAGIC_QUEUE | XGPU_TEST_SKIP_MAGIC_COMMAND_BUFFER;
    Instance instance;
    Device device(PhysicalDevices(instance.handle)[0]);
    REQUIRE(device.result == XGPU_SUCCESS);
    StderrCapture err;
    XgpuQueue queue = reinterpret_cast<XgpuQueue>(1);
    xgpuGetDeviceQueue(device.handle, 0, 0, &queue);
    CHECK(queue == nullptr);
    XgpuCommandBufferCreateInfo cbi = {XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO, nullptr, 0, 0};
    XgpuCommandBuffer cb = reinterpret_cast<XgpuCommandBuffer>(1);
    CHECK(xgpuCreateCommandBuffer(device.handle, &cbi, nullptr, &cb) == XGPU_ERROR_INCOMPATIBLE_DRIVER);
    CHECK(cb == nullptr);
    std::string out = err.Stop();
    CHECK(out.find("xgpuGetDeviceQueue: the driver returned an object of type 4 that does not start with "
                   "XGPU_ICD_LOADER_MAGIC") != std::string::npos);
    CHECK(out.find("xgpuCreateCommandBuffer: the driver returned an object of type 5") != std::string::npos);
  }
}

TEST_CASE("NULL arguments at the trampolines: XGPU_ERROR_INVALID_ARGUMENT or nothing, never a crash") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  StderrCapture err;
  XgpuInstance out_instance = reinterpret_cast<XgpuInstance>(1);
  CHECK(xgpuCreateInstance(nullptr, nullptr, &out_instance) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(out_instance == nullptr);
  XgpuInstanceCreateInfo info = InstanceInfo();
  CHECK(xgpuCreateInstance(&info, nullptr, nullptr) == XGPU_ERROR_INVALID_ARGUMENT);
  info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  CHECK(xgpuCreateInstance(&info, nullptr, &out_instance) == XGPU_ERROR_INVALID_ARGUMENT);
  info = InstanceInfo();
  info.enabledLayerCount = 1;
  CHECK(xgpuCreateInstance(&info, nullptr, &out_instance) == XGPU_ERROR_INVALID_ARGUMENT);
  XgpuApplicationInfo app = {XGPU_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "t", 0, nullptr, 0,
                             XGPU_MAKE_API_VERSION(0, 2, 0, 0)};
  info = InstanceInfo();
  info.pApplicationInfo = &app;
  CHECK(xgpuCreateInstance(&info, nullptr, &out_instance) == XGPU_ERROR_INCOMPATIBLE_DRIVER);
  CHECK(xgpuEnumerateInstanceVersion(nullptr) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(xgpuEnumerateInstanceLayerProperties(nullptr, nullptr) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(xgpuEnumeratePhysicalDevices(nullptr, nullptr, nullptr) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(xgpuCreateDevice(nullptr, nullptr, nullptr, nullptr) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(xgpuCreateBuffer(nullptr, nullptr, nullptr, nullptr) == XGPU_ERROR_INVALID_ARGUMENT);
  xgpuCmdDispatch(nullptr, 1, 1, 1);
  XgpuQueue queue = reinterpret_cast<XgpuQueue>(1);
  xgpuGetDeviceQueue(nullptr, 0, 0, &queue);
  CHECK(queue == nullptr);
  CHECK(xgpuGetBufferDeviceAddress(nullptr, XGPU_NULL_HANDLE) == 0);
  {
    Instance instance;
    auto devices = PhysicalDevices(instance.handle);
    CHECK(xgpuEnumeratePhysicalDevices(instance.handle, nullptr, nullptr) == XGPU_ERROR_INVALID_ARGUMENT);
    xgpuGetPhysicalDeviceProperties(devices[0], nullptr);
    XgpuDevice device_out = reinterpret_cast<XgpuDevice>(1);
    CHECK(xgpuCreateDevice(devices[0], nullptr, nullptr, &device_out) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(device_out == nullptr);
    Device device(devices[0]);
    XgpuBuffer buffer = reinterpret_cast<XgpuBuffer>(1);
    CHECK(xgpuCreateBuffer(device.handle, nullptr, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(buffer == XGPU_NULL_HANDLE);
    XgpuQueue q;
    xgpuGetDeviceQueue(device.handle, 0, 0, &q);
    CHECK(xgpuQueueSubmit(q, 1, nullptr) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(a->queueSubmitCalls == 0);
  }
  std::string out = err.Stop();
  CHECK(out.find("xgpuCreateInstance: pCreateInfo is NULL") != std::string::npos);
  CHECK(out.find("xgpuCreateInstance: pCreateInfo->sType is 3, not XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO") !=
        std::string::npos);
  CHECK(out.find("xgpuCreateInstance: ppEnabledLayerNames is NULL but enabledLayerCount is 1") != std::string::npos);
  CHECK(out.find("the application asks for API 2.0.0") != std::string::npos);
  CHECK(out.find("xgpuCreateBuffer: pCreateInfo is NULL") != std::string::npos);
  CHECK(out.find("xgpuQueueSubmit: pSubmits is NULL but submitCount is not 0") != std::string::npos);
  CHECK(out.find("xgpuCmdDispatch: commandBuffer is NULL") != std::string::npos);
}

TEST_CASE("a command the driver does not provide reports and fails instead of crashing") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  Instance instance;
  Device device(PhysicalDevices(instance.handle)[0]);
  StderrCapture err;
  XgpuMemoryPoolCreateInfo info = {XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO, nullptr, 0, 0, 0, 0, 0};
  XgpuMemoryPool pool;
  CHECK(xgpuCreateMemoryPool(device.handle, &info, nullptr, &pool) == XGPU_ERROR_FEATURE_NOT_PRESENT);
  CHECK(xgpuGetBufferDeviceAddress(device.handle, XGPU_NULL_HANDLE) == 0);
  CHECK(err.Stop().find("xgpuCreateMemoryPool: not provided by the driver or layer below the loader") !=
        std::string::npos);
}

TEST_CASE("xgpuGetInstanceProcAddr and xgpuGetDeviceProcAddr") {
  LoaderEnv env;
  TestDriver a(XGPU_TEST_DRIVER_A);
  WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(a.path()));
  // Global names without an instance; nothing else.
  CHECK(xgpuGetInstanceProcAddr(nullptr, "xgpuCreateInstance") == reinterpret_cast<PFN_xgpuVoidFunction>(xgpuCreateInstance));
  CHECK(xgpuGetInstanceProcAddr(nullptr, "xgpuGetInstanceProcAddr") ==
        reinterpret_cast<PFN_xgpuVoidFunction>(xgpuGetInstanceProcAddr));
  CHECK(xgpuGetInstanceProcAddr(nullptr, "xgpuCreateBuffer") == nullptr);
  CHECK(xgpuGetInstanceProcAddr(nullptr, nullptr) == nullptr);
  Instance instance;
  // With an instance: the trampolines, for every level.
  CHECK(xgpuGetInstanceProcAddr(instance.handle, "xgpuCreateBuffer") ==
        reinterpret_cast<PFN_xgpuVoidFunction>(xgpuCreateBuffer));
  CHECK(xgpuGetInstanceProcAddr(instance.handle, "xgpuEnumeratePhysicalDevices") ==
        reinterpret_cast<PFN_xgpuVoidFunction>(xgpuEnumeratePhysicalDevices));
  CHECK(xgpuGetInstanceProcAddr(instance.handle, "xgpuNoSuchFunction") == nullptr);
  Device device(PhysicalDevices(instance.handle)[0]);
  // Device functions come straight from the driver...
  CHECK(xgpuGetDeviceProcAddr(device.handle, "xgpuCreateBuffer") == a.Function("xgpuCreateBuffer"));
  CHECK(xgpuGetDeviceProcAddr(device.handle, "xgpuCmdDispatch") == a.Function("xgpuCmdDispatch"));
  CHECK(xgpuGetDeviceProcAddr(device.handle, "xgpuQueueSubmit") == a.Function("xgpuQueueSubmit"));
  // ...except where the loader must see the call.
  CHECK(xgpuGetDeviceProcAddr(device.handle, "xgpuCreateCommandBuffer") ==
        reinterpret_cast<PFN_xgpuVoidFunction>(xgpuCreateCommandBuffer));
  CHECK(xgpuGetDeviceProcAddr(device.handle, "xgpuGetDeviceQueue") ==
        reinterpret_cast<PFN_xgpuVoidFunction>(xgpuGetDeviceQueue));
  CHECK(xgpuGetDeviceProcAddr(device.handle, "xgpuDestroyDevice") ==
        reinterpret_cast<PFN_xgpuVoidFunction>(xgpuDestroyDevice));
  CHECK(xgpuGetDeviceProcAddr(device.handle, "xgpuCreateInstance") == nullptr);
  CHECK(xgpuGetDeviceProcAddr(device.handle, "xgpuGetPhysicalDeviceProperties") == nullptr);
  CHECK(xgpuGetDeviceProcAddr(device.handle, "xgpuNoSuchFunction") == nullptr);
  // Calling the direct pointer reaches the driver.
  auto create = reinterpret_cast<PFN_xgpuCreateBuffer>(xgpuGetDeviceProcAddr(device.handle, "xgpuCreateBuffer"));
  XgpuBufferCreateInfo info = {XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, 64, 0, 0};
  XgpuBuffer buffer;
  CHECK(create(device.handle, &info, nullptr, &buffer) == XGPU_SUCCESS);
  CHECK(a->createBufferCalls == 1);
  uint32_t version = 0;
  CHECK(xgpuEnumerateInstanceVersion(&version) == XGPU_SUCCESS);
  CHECK(version == XGPU_HEADER_VERSION_COMPLETE);
}

TEST_CASE("search order: XGPU_ADD_DRIVER_FILES, XDG config, /etc, XDG data, next to libxgpu") {
  LoaderEnv env;
  env.env.Set("XGPU_DRIVER_FILES", std::nullopt);
  TestDriver a(XGPU_TEST_DRIVER_A);
  TestDriver b(XGPU_TEST_DRIVER_B);
  TestDriver c(XGPU_TEST_DRIVER_C);
  const std::string root = env.dir.path();
  env.env.Set("XDG_CONFIG_DIRS", root + "/cfg1:" + root + "/cfg2");
  env.env.Set("XDG_DATA_DIRS", root + "/data1:" + root + "/data2");
  LoaderCopy loader(root + "/prefix");

  SUBCASE("each folder is searched, in order") {
    WriteFile(root + "/prefix/share/xgpu/icd.d/c.json", DriverManifest(c.path()));
    WriteFile(root + "/data2/xgpu/icd.d/b.json", DriverManifest(b.path()));
    WriteFile(root + "/xdg/config_home/xgpu/icd.d/a.json", DriverManifest(a.path()));
    env.env.Set("XGPU_LOADER_DEBUG", "debug");
    StderrCapture err;
    CHECK(loader.TestDeviceNames() == std::vector<std::string>{"test device A0", "test device B0", "test device C0"});
    std::string out = err.Stop();
    const std::string real_root = fs::canonical(root).string();
    const std::string folders[] = {
        root + "/xdg/config_home/xgpu/icd.d (XDG_CONFIG_HOME)",
        root + "/cfg1/xgpu/icd.d (XDG_CONFIG_DIRS)",
        root + "/cfg2/xgpu/icd.d (XDG_CONFIG_DIRS)",
        "/etc/xgpu/icd.d (system configuration)",
        root + "/xdg/data_home/xgpu/icd.d (XDG_DATA_HOME)",
        root + "/data1/xgpu/icd.d (XDG_DATA_DIRS)",
        root + "/data2/xgpu/icd.d (XDG_DATA_DIRS)",
        real_root + "/prefix/share/xgpu/icd.d (next to libxgpu)"};
    size_t last = 0;
    for (const std::string& folder : folders) {
      CAPTURE(folder);
      size_t at = out.find("searching " + folder);
      REQUIRE(at != std::string::npos);
      CHECK(at >= last);
      last = at;
    }
  }
  SUBCASE("XGPU_ADD_DRIVER_FILES comes first") {
    WriteFile(root + "/xdg/config_home/xgpu/icd.d/a.json", DriverManifest(a.path()));
    WriteFile(root + "/added/b.json", DriverManifest(b.path()));
    env.env.Set("XGPU_ADD_DRIVER_FILES", root + "/added/b.json");
    CHECK(loader.TestDeviceNames() == std::vector<std::string>{"test device B0", "test device A0"});
  }
  SUBCASE("XGPU_ADD_DRIVER_FILES with a folder: its manifests in name order, before the standard folders") {
    WriteFile(root + "/xdg/config_home/xgpu/icd.d/c.json", DriverManifest(c.path()));
    WriteFile(root + "/added/2_a.json", DriverManifest(a.path()));
    WriteFile(root + "/added/1_b.json", DriverManifest(b.path()));
    env.env.Set("XGPU_ADD_DRIVER_FILES", root + "/added");
    CHECK(loader.TestDeviceNames() == std::vector<std::string>{"test device B0", "test device A0", "test device C0"});
  }
  SUBCASE("XGPU_ADD_DRIVER_FILES with several entries: in the variable's order") {
    WriteFile(root + "/x/c.json", DriverManifest(c.path()));
    WriteFile(root + "/y/a.json", DriverManifest(a.path()));
    WriteFile(root + "/z/b.json", DriverManifest(b.path()));
    env.env.Set("XGPU_ADD_DRIVER_FILES", root + "/x/c.json:" + root + "/y::" + root + "/z/b.json");
    CHECK(loader.TestDeviceNames() == std::vector<std::string>{"test device C0", "test device A0", "test device B0"});
  }
  SUBCASE("XGPU_DRIVER_FILES replaces the search and wins over XGPU_ADD_DRIVER_FILES") {
    WriteFile(root + "/xdg/config_home/xgpu/icd.d/a.json", DriverManifest(a.path()));
    WriteFile(root + "/added/b.json", DriverManifest(b.path()));
    WriteFile(root + "/only/c.json", DriverManifest(c.path()));
    env.env.Set("XGPU_ADD_DRIVER_FILES", root + "/added/b.json");
    env.env.Set("XGPU_DRIVER_FILES", root + "/only");
    StderrCapture err;
    env.env.Set("XGPU_LOADER_DEBUG", "warn");
    CHECK(loader.TestDeviceNames() == std::vector<std::string>{"test device C0"});
    CHECK(err.Stop().find("XGPU_ADD_DRIVER_FILES is ignored because XGPU_DRIVER_FILES replaces the search") !=
          std::string::npos);
  }
  SUBCASE("defaults: $HOME/.config when unset, $HOME/.local/share when relative (a relative XDG path is ignored)") {
    env.env.Set("XDG_CONFIG_HOME", std::nullopt);
    // A relative path that does name a folder (from the working directory):
    // ignored all the same.
    const std::string relative = fs::relative(root + "/relative", fs::current_path()).string();
    REQUIRE(relative[0] != '/');
    env.env.Set("XDG_DATA_HOME", relative);
    WriteFile(root + "/home/.config/xgpu/icd.d/a.json", DriverManifest(a.path()));
    WriteFile(root + "/home/.local/share/xgpu/icd.d/b.json", DriverManifest(b.path()));
    WriteFile(root + "/relative/xgpu/icd.d/c.json", DriverManifest(c.path()));
    REQUIRE(fs::exists(relative + "/xgpu/icd.d/c.json"));
    CHECK(loader.TestDeviceNames() == std::vector<std::string>{"test device A0", "test device B0"});
  }
  SUBCASE("XDG_CONFIG_DIRS with only relative entries: its default /etc/xdg") {
    env.env.Set("XDG_CONFIG_DIRS", "relative:also/relative");
    env.env.Set("XGPU_LOADER_DEBUG", "debug");
    StderrCapture err;
    loader.TestDeviceNames();
    std::string out = err.Stop();
    CHECK(out.find("XDG_CONFIG_DIRS entry also/relative ignored: XDG paths must be absolute") != std::string::npos);
    CHECK(out.find("searching /etc/xdg/xgpu/icd.d (XDG_CONFIG_DIRS default)") != std::string::npos);
  }
  SUBCASE("HOME and XDG_*_HOME unset: those folders are skipped") {
    env.env.Set("HOME", std::nullopt);
    env.env.Set("XDG_CONFIG_HOME", std::nullopt);
    env.env.Set("XDG_DATA_HOME", std::nullopt);
    WriteFile(root + "/data1/xgpu/icd.d/a.json", DriverManifest(a.path()));
    env.env.Set("XGPU_LOADER_DEBUG", "debug");
    StderrCapture err;
    CHECK(loader.TestDeviceNames() == std::vector<std::string>{"test device A0"});
    std::string out = err.Stop();
    CHECK(out.find("XDG_CONFIG_HOME") == std::string::npos);
    CHECK(out.find("XDG_DATA_HOME") == std::string::npos);
  }
  SUBCASE("the same manifest reached twice, or the same library twice, loads once") {
    WriteFile(root + "/cfg1/xgpu/icd.d/a.json", DriverManifest(a.path()));
    WriteFile(root + "/cfg2/xgpu/icd.d/a_again.json", DriverManifest(a.path()));
    env.env.Set("XGPU_ADD_DRIVER_FILES", root + "/cfg1/xgpu/icd.d/a.json");
    env.env.Set("XGPU_LOADER_DEBUG", "all");
    StderrCapture err;
    CHECK(loader.TestDeviceNames() == std::vector<std::string>{"test device A0"});
    std::string out = err.Stop();
    CHECK(out.find("already found; skipped") != std::string::npos);
    CHECK(out.find("is already loaded through") != std::string::npos);
  }
  SUBCASE("an XGPU_DRIVER_FILES entry that does not exist is an error message") {
    env.env.Set("XGPU_DRIVER_FILES", root + "/missing.json");
    StderrCapture err;
    CHECK(loader.TestDeviceNames().empty());
    CHECK(err.Stop().find("XGPU_DRIVER_FILES: " + root + "/missing.json is neither a manifest file nor a folder") !=
          std::string::npos);
  }
}
