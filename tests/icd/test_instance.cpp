// Instance and physical devices (hsa-cpu's own properties where it is the
// runtime; the rest on every runtime).
#include <dlfcn.h>
#include <hsa/hsa.h>

#include <climits>
#include <cmath>
#include <cstring>

#include "icd_test_util.h"
#include "xgpu/xgpu_dispatch_table.h"

using namespace icdtest;

TEST_CASE("physical device properties (on hsa-cpu in detail, with one agent and two agents)") {
  Env env(1, 1);
  XgpuPhysicalDeviceProperties first{};
  api().GetPhysicalDeviceProperties(env.physical_devices[0], &first);
  const bool hsa_cpu = runs_on_hsa_cpu(first);
  const char* agents_env = std::getenv("HSA_CPU_AGENTS");
  if (hsa_cpu) {
    const uint32_t expected = agents_env ? uint32_t(std::atoi(agents_env)) : 1u;
    CHECK(env.physical_devices.size() == expected);
  }
  for (XgpuPhysicalDevice physical : env.physical_devices) {
    XgpuPhysicalDeviceProperties p{};
    api().GetPhysicalDeviceProperties(physical, &p);
    INFO("runtime " << p.runtimeName << ", device " << p.deviceName);
    // Every runtime.
    CHECK(std::strlen(p.deviceName) > 0);
    CHECK(std::strlen(p.isaName) > 0);
    CHECK(std::string(p.driverName) == "xgpu-amdgpu");
    CHECK(std::string(p.runtimeName).find("(HSA 1.") != std::string::npos);
    CHECK(p.limits.wavefrontSize >= 1);
    CHECK(p.limits.computeUnitCount >= 1);
    CHECK(p.limits.maxWorkgroupInvocations >= 256);
    for (int i = 0; i < 3; ++i) {
      CHECK(p.limits.maxWorkgroupSize[i] >= 1);
      CHECK(p.limits.maxWorkgroupCount[i] >= 65535);
    }
    CHECK(p.limits.maxWorkgroupMemorySize >= 16384);
    CHECK(p.limits.maxBufferSize > 0);
    CHECK(p.limits.timestampPeriod > 0.0f);
    // hsa-cpu's own agent.
    if (hsa_cpu) {
      CHECK(p.deviceType == XGPU_PHYSICAL_DEVICE_TYPE_CPU);
      CHECK(p.vendorId == 0);
      CHECK(std::string(p.isaName).rfind("x86_64", 0) == 0);
      CHECK(std::string(p.runtimeName).find("libxgpu-hsa-cpu.so") != std::string::npos);
    }

    XgpuPhysicalDeviceMemoryProperties memory{};
    api().GetPhysicalDeviceMemoryProperties(physical, &memory);
    REQUIRE(memory.memoryTypeCount >= 2);
    bool device_local = false, coherent = false, kernarg = false;
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
      const XgpuMemoryPropertyFlags f = memory.memoryTypes[i].propertyFlags;
      CHECK(memory.memoryTypes[i].heapIndex < memory.memoryHeapCount);
      // hsa-cpu memory is host memory: every type is host-visible.
      if (hsa_cpu) CHECK((f & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0);
      device_local |= (f & XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
      coherent |= (f & XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
      kernarg |= (f & XGPU_MEMORY_PROPERTY_KERNARG_BIT) != 0;
      // A device-local type lives on a device-local heap.
      const bool heap_local =
          (memory.memoryHeaps[memory.memoryTypes[i].heapIndex].flags & XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0;
      if (f & XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) CHECK(heap_local);
    }
    // hsa-cpu's pools are all the agent's system memory: one heap, not one
    // per pool (which would count the same memory several times).
    if (hsa_cpu) {
      CHECK(memory.memoryHeapCount == 1);
      CHECK((memory.memoryHeaps[0].flags & XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0);
    }
    CHECK(device_local);
    CHECK(coherent);
    CHECK(kernarg);

    uint32_t families = 0;
    api().GetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
    REQUIRE(families == 1);
    XgpuQueueFamilyProperties family{};
    api().GetPhysicalDeviceQueueFamilyProperties(physical, &families, &family);
    CHECK(family.queueFlags == (XGPU_QUEUE_COMPUTE_BIT | XGPU_QUEUE_TRANSFER_BIT));
    CHECK(family.queueCount >= 2);
  }
}

TEST_CASE("enumeration reports XGPU_INCOMPLETE when the array is short") {
  Env env(1, 1);
  if (env.physical_devices.size() < 2) return;
  uint32_t count = 1;
  XgpuPhysicalDevice one = nullptr;
  CHECK(api().EnumeratePhysicalDevices(env.instance, &count, &one) == XGPU_INCOMPLETE);
  CHECK(count == 1);
  CHECK(one == env.physical_devices[0]);
}

TEST_CASE("two instances share the runtime; devices on both agents") {
  Env a(1, 1);
  Env b(uint32_t(a.physical_devices.size()), 1);
  CHECK(b.devices.size() == a.physical_devices.size());
}

// Every slot of a generated dispatch table (all function pointers) is set.
template <typename Table>
void check_every_entry_set(const Table& table, const char* level) {
  constexpr size_t kCount = sizeof(Table) / sizeof(PFN_xgpuVoidFunction);
  static_assert(kCount * sizeof(PFN_xgpuVoidFunction) == sizeof(Table));
  for (size_t i = 0; i < kCount; ++i) {
    PFN_xgpuVoidFunction entry = nullptr;
    std::memcpy(&entry, reinterpret_cast<const char*>(&table) + i * sizeof(entry), sizeof(entry));
    CHECK_MESSAGE((entry != nullptr), level << " dispatch table entry " << i << " is not provided");
  }
}

TEST_CASE("the driver provides every entry point of the registry") {
  icdtest::Env env(1, 1);
  XgpuInstanceDispatchTable instance_table{};
  xgpuInitInstanceDispatchTable(&instance_table, api().get_instance_proc_addr, env.instance);
  check_every_entry_set(instance_table, "instance");
  XgpuDeviceDispatchTable device_table{};
  xgpuInitDeviceDispatchTable(&device_table, api().GetDeviceProcAddr, env.devices[0]);
  check_every_entry_set(device_table, "device");
  // Names outside the API are not answered.
  CHECK((api().GetDeviceProcAddr(env.devices[0], "xgpuNoSuchFunction") == nullptr));
  CHECK((api().get_instance_proc_addr(env.instance, "xgpuNoSuchFunction") == nullptr));
}

// What the driver derives from the runtime, checked against the runtime
// itself (the one the driver loads, opened directly; its hsa_init is
// reference-counted with the driver's).
TEST_CASE("timestampPeriod is the agent's timestamp counter period; runtimeName is the canonical path") {
  Env env(1, 1);
  const HsaCpuFrequencies frequencies = read_hsa_cpu_frequencies(test_runtime_library());

  XgpuPhysicalDeviceProperties p{};
  api().GetPhysicalDeviceProperties(env.physical_devices[0], &p);
  const bool answered = frequencies.agent != 0;
  if (runs_on_hsa_cpu(p)) CHECK(answered);  // hsa-cpu answers it (the TSC frequency); other runtimes may not
  const double expected = 1e9 / double(answered ? frequencies.agent : frequencies.system);
  INFO("agent frequency " << frequencies.agent << " Hz, system " << frequencies.system << " Hz, timestampPeriod "
                          << p.limits.timestampPeriod);
  CHECK(std::fabs(p.limits.timestampPeriod - expected) <= expected * 1e-6);

  char canonical[PATH_MAX];
  REQUIRE(realpath(test_runtime_library(), canonical) != nullptr);
  CHECK(std::string(p.runtimeName).rfind(std::string(canonical) + " (HSA 1.", 0) == 0);
}
