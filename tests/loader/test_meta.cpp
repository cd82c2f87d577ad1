// The meta-loader (xgpu_meta.h): loading libxgpu at run time, instance- and
// device-level loading, and device functions that skip the trampolines. This
// executable does not link libxgpu.
#include "xgpu/xgpu_meta.h"

#include <doctest/doctest.h>

#include "loader_test_util.h"

using namespace loader_test;

namespace {

// libxgpu's own export of name, for comparing with what the meta-loader holds.
PFN_xgpuVoidFunction Export(const char* name) {
  void* library = dlopen(XGPU_LOADER_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(library != nullptr);
  auto f = reinterpret_cast<PFN_xgpuVoidFunction>(dlsym(library, name));
  dlclose(library);
  return f;
}

template <typename F>
PFN_xgpuVoidFunction Fn(F f) {
  return reinterpret_cast<PFN_xgpuVoidFunction>(f);
}

struct MetaEnv {
  MetaEnv() : driver(XGPU_TEST_DRIVER_A), layer(XGPU_TEST_LAYER_A) {
    WriteFile(env.dir.path() + "/drivers/a.json", DriverManifest(driver.path()));
    WriteFile(env.dir.path() + "/layers/a.json", LayerManifest("XGPU_LAYER_test_a", layer.path()));
    env.env.Set("XGPU_META_LOADER_LIBRARY", XGPU_LOADER_LIBRARY);
  }
  ~MetaEnv() { xgpumetaFinalize(); }
  LoaderEnv env;
  TestDriver driver;
  TestLayer layer;
};

XgpuDevice MakeDevice(XgpuInstance instance) {
  uint32_t count = 1;
  XgpuPhysicalDevice pd = nullptr;
  REQUIRE(xgpuEnumeratePhysicalDevices(instance, &count, &pd) == XGPU_SUCCESS);
  XgpuDeviceCreateInfo info = {XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO, nullptr, 0, 0, nullptr};
  XgpuDevice device = nullptr;
  REQUIRE(xgpuCreateDevice(pd, &info, nullptr, &device) == XGPU_SUCCESS);
  return device;
}

}  // namespace

TEST_CASE("meta-loader: device functions come straight from the driver after xgpumetaLoadDevice") {
  MetaEnv t;
  REQUIRE(xgpumetaInitialize() == XGPU_SUCCESS);
  CHECK(std::string(xgpumetaInitializeError()).empty());
  CHECK(xgpumetaGetInstanceVersion() == XGPU_HEADER_VERSION_COMPLETE);
  CHECK(Fn(xgpuCreateBuffer) == nullptr);  // not loaded before an instance
  XgpuInstanceCreateInfo info = InstanceInfo();
  XgpuInstance instance;
  REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  xgpumetaLoadInstance(instance);
  CHECK(xgpumetaGetLoadedInstance() == instance);
  // Before xgpumetaLoadDevice: libxgpu's trampolines.
  CHECK(Fn(xgpuCreateBuffer) == Export("xgpuCreateBuffer"));
  XgpuDevice device = MakeDevice(instance);
  xgpumetaLoadDevice(device);
  CHECK(xgpumetaGetLoadedDevice() == device);
  // After: the driver's own functions, no trampoline.
  CHECK(Fn(xgpuCreateBuffer) == t.driver.Function("xgpuCreateBuffer"));
  CHECK(Fn(xgpuCmdDispatch) == t.driver.Function("xgpuCmdDispatch"));
  CHECK(Fn(xgpuQueueSubmit) == t.driver.Function("xgpuQueueSubmit"));
  // Calls the loader must see stay on libxgpu.
  CHECK(Fn(xgpuCreateCommandBuffer) == Export("xgpuCreateCommandBuffer"));
  CHECK(Fn(xgpuDestroyDevice) == Export("xgpuDestroyDevice"));
  XgpuBufferCreateInfo bi = {XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, 64, 0, 0};
  XgpuBuffer buffer;
  CHECK(xgpuCreateBuffer(device, &bi, nullptr, &buffer) == XGPU_SUCCESS);
  CHECK(t.driver->createBufferCalls == 1);
  XgpuCommandBufferCreateInfo ci = {XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO, nullptr, 0, 0};
  XgpuCommandBuffer cb;
  REQUIRE(xgpuCreateCommandBuffer(device, &ci, nullptr, &cb) == XGPU_SUCCESS);
  xgpuCmdDispatch(cb, 1, 1, 1);
  CHECK(t.driver->cmdDispatchCalls == 1);
  xgpuDestroyCommandBuffer(device, cb, nullptr);
  // The table form for several devices.
  XgpuDeviceDispatchTable table;
  xgpumetaLoadDeviceTable(&table, device);
  CHECK(Fn(table.CreateBuffer) == t.driver.Function("xgpuCreateBuffer"));
  xgpuDestroyDevice(device, nullptr);
  xgpuDestroyInstance(instance, nullptr);
  xgpumetaFinalize();
  CHECK(Fn(xgpuCreateInstance) == nullptr);
  CHECK(xgpumetaGetLoadedInstance() == nullptr);
}

TEST_CASE("meta-loader: with a layer, device functions the layer intercepts come from the layer") {
  MetaEnv t;
  REQUIRE(xgpumetaInitialize() == XGPU_SUCCESS);
  std::vector<const char*> layers = {"XGPU_LAYER_test_a"};
  XgpuInstanceCreateInfo info = InstanceInfo(&layers);
  XgpuInstance instance;
  REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  xgpumetaLoadInstance(instance);
  XgpuDevice device = MakeDevice(instance);
  xgpumetaLoadDevice(device);
  CHECK(Fn(xgpuCreateBuffer) == t.layer.Function("xgpuCreateBuffer"));
  CHECK(Fn(xgpuCmdDispatch) == t.driver.Function("xgpuCmdDispatch"));
  XgpuBufferCreateInfo bi = {XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, 64, 0, 0};
  XgpuBuffer buffer;
  CHECK(xgpuCreateBuffer(device, &bi, nullptr, &buffer) == XGPU_SUCCESS);
  CHECK(t.layer->createBufferCalls == 1);
  CHECK(t.driver->createBufferCalls == 1);
  xgpuDestroyDevice(device, nullptr);
  xgpuDestroyInstance(instance, nullptr);
}

TEST_CASE("meta-loader: initialization failures and a custom xgpuGetInstanceProcAddr") {
  MetaEnv t;
  SUBCASE("missing library") {
    t.env.env.Set("XGPU_META_LOADER_LIBRARY", t.env.dir.path() + "/libxgpu_missing.so.1");
    CHECK(xgpumetaInitialize() == XGPU_ERROR_INITIALIZATION_FAILED);
    CHECK(std::string(xgpumetaInitializeError()).find("cannot load " + t.env.dir.path() + "/libxgpu_missing.so.1") == 0);
    CHECK(Fn(xgpuCreateInstance) == nullptr);
  }
  SUBCASE("a library that is not libxgpu") {
    t.env.env.Set("XGPU_META_LOADER_LIBRARY", t.driver.path());
    CHECK(xgpumetaInitialize() == XGPU_ERROR_INITIALIZATION_FAILED);
    CHECK(std::string(xgpumetaInitializeError()).find("does not export xgpuGetInstanceProcAddr") != std::string::npos);
  }
  SUBCASE("the default name through the dynamic linker's search") {
    t.env.env.Set("XGPU_META_LOADER_LIBRARY", std::nullopt);
    REQUIRE(xgpumetaInitialize() == XGPU_SUCCESS);
    CHECK(Fn(xgpuCreateInstance) != nullptr);
  }
  SUBCASE("custom") {
    void* library = dlopen(XGPU_LOADER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(library != nullptr);
    xgpumetaInitializeCustom(reinterpret_cast<PFN_xgpuGetInstanceProcAddr>(dlsym(library, "xgpuGetInstanceProcAddr")));
    XgpuInstanceCreateInfo info = InstanceInfo();
    XgpuInstance instance;
    REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
    xgpumetaLoadInstance(instance);
    uint32_t count = 0;
    CHECK(xgpuEnumeratePhysicalDevices(instance, &count, nullptr) == XGPU_SUCCESS);
    CHECK(count == 1);
    xgpuDestroyInstance(instance, nullptr);
    xgpumetaFinalize();
    dlclose(library);
  }
}
