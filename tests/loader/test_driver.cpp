// A small driver (ICD) for the loader tests. Built several times with a
// different TEST_DRIVER_ID; configured through test_driver.h.
#include <cstdio>
#include <cstring>
#include <vector>

#include "test_driver.h"
#include "xgpu/xgpu_icd.h"

#define TEST_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

XgpuTestDriverControl g_control;

struct Dispatchable {
  uintptr_t loader_word;  // XGPU_ICD_LOADER_MAGIC, then the loader's table
};

void InitDispatchable(void* object, uint32_t skip_bit) {
  if (g_control.skipMagic & skip_bit) {
    static_cast<Dispatchable*>(object)->loader_word = 0xBADu;
  } else {
    xgpuSetLoaderMagicValue(object);
  }
}

struct MessengerRecord {
  XgpuDebugMessengerCreateInfo info;  // the app's messenger as passed down
};

struct TestPhysicalDevice;
struct TestInstance : Dispatchable {
  std::vector<TestPhysicalDevice*> physical_devices;  // owned
  std::vector<MessengerRecord*> messengers;           // live messengers
};
struct TestPhysicalDevice : Dispatchable {
  TestInstance* instance;  // owner
  uint32_t index;          // position in the instance's list
};
struct TestQueue : Dispatchable {};
struct TestDevice : Dispatchable {
  TestPhysicalDevice* physical;  // parent
  TestQueue queue;               // the one queue
};
struct TestCommandBuffer : Dispatchable {};

void CheckChain(const void* next) {
  struct Base {
    XgpuStructureType sType;
    const Base* pNext;
  };
  for (auto* s = static_cast<const Base*>(next); s; s = s->pNext) {
    if (s->sType == XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO ||
        s->sType == XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO) {
      g_control.sawLoaderStructure = 1;
    }
    if (s->sType == XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO) g_control.sawApplicationMessenger = 1;
  }
}

XgpuResult XGPU_API_CALL CreateInstance(const XgpuInstanceCreateInfo* info, const XgpuAllocationCallbacks*,
                                        XgpuInstance* out) {
  g_control.createInstanceCalls++;
  CheckChain(info->pNext);
  if (info->enabledLayerCount) g_control.sawLayerNames = 1;
  if (g_control.createInstanceResult != XGPU_SUCCESS) return g_control.createInstanceResult;
  auto* instance = new TestInstance;
  InitDispatchable(instance, XGPU_TEST_SKIP_MAGIC_INSTANCE);
  for (uint32_t i = 0; i < g_control.physicalDeviceCount; ++i) {
    auto* pd = new TestPhysicalDevice;
    InitDispatchable(pd, XGPU_TEST_SKIP_MAGIC_PHYSICAL_DEVICE);
    pd->instance = instance;
    pd->index = i;
    instance->physical_devices.push_back(pd);
  }
  *out = reinterpret_cast<XgpuInstance>(instance);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyInstance(XgpuInstance handle, const XgpuAllocationCallbacks*) {
  g_control.destroyInstanceCalls++;
  auto* instance = reinterpret_cast<TestInstance*>(handle);
  for (auto* pd : instance->physical_devices) delete pd;
  for (auto* m : instance->messengers) delete m;
  delete instance;
}

XgpuResult XGPU_API_CALL EnumeratePhysicalDevices(XgpuInstance handle, uint32_t* count, XgpuPhysicalDevice* out) {
  auto* instance = reinterpret_cast<TestInstance*>(handle);
  uint32_t total = static_cast<uint32_t>(instance->physical_devices.size());
  if (!out) {
    *count = total;
    return XGPU_SUCCESS;
  }
  uint32_t n = *count < total ? *count : total;
  for (uint32_t i = 0; i < n; ++i) out[i] = reinterpret_cast<XgpuPhysicalDevice>(instance->physical_devices[i]);
  *count = n;
  return n < total ? XGPU_INCOMPLETE : XGPU_SUCCESS;
}

XgpuResult XGPU_API_CALL CreateDebugMessenger(XgpuInstance handle, const XgpuDebugMessengerCreateInfo* info,
                                              const XgpuAllocationCallbacks*, XgpuDebugMessenger* out) {
  g_control.createMessengerCalls++;
  auto* instance = reinterpret_cast<TestInstance*>(handle);
  auto* record = new MessengerRecord{*info};
  instance->messengers.push_back(record);
  *out = reinterpret_cast<XgpuDebugMessenger>(record);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyDebugMessenger(XgpuInstance handle, XgpuDebugMessenger messenger,
                                         const XgpuAllocationCallbacks*) {
  g_control.destroyMessengerCalls++;
  auto* instance = reinterpret_cast<TestInstance*>(handle);
  auto* record = reinterpret_cast<MessengerRecord*>(messenger);
  for (auto it = instance->messengers.begin(); it != instance->messengers.end(); ++it) {
    if (*it == record) {
      instance->messengers.erase(it);
      break;
    }
  }
  delete record;
}

void XGPU_API_CALL GetPhysicalDeviceProperties(XgpuPhysicalDevice handle, XgpuPhysicalDeviceProperties* out) {
  auto* pd = reinterpret_cast<TestPhysicalDevice*>(handle);
  std::memset(out, 0, sizeof(*out));
  out->apiVersion = XGPU_API_VERSION_1_0;
  out->driverVersion = 7;
  out->deviceType = XGPU_PHYSICAL_DEVICE_TYPE_OTHER;
  std::snprintf(out->deviceName, sizeof(out->deviceName), "test device %s%u", TEST_DRIVER_ID, pd->index);
  std::snprintf(out->isaName, sizeof(out->isaName), "test-isa-%s", TEST_DRIVER_ID);
  std::snprintf(out->driverName, sizeof(out->driverName), "xgpu test driver %s", TEST_DRIVER_ID);
  std::snprintf(out->runtimeName, sizeof(out->runtimeName), "none");
  out->limits.maxWorkgroupSize[0] = 256;
  out->limits.wavefrontSize = 1;
}

void XGPU_API_CALL GetPhysicalDeviceMemoryProperties(XgpuPhysicalDevice, XgpuPhysicalDeviceMemoryProperties* out) {
  std::memset(out, 0, sizeof(*out));
  out->memoryHeapCount = 1;
  out->memoryHeaps[0] = {1u << 20, XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT};
  out->memoryTypeCount = 1;
  out->memoryTypes[0] = {XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0};
}

void XGPU_API_CALL GetPhysicalDeviceQueueFamilyProperties(XgpuPhysicalDevice, uint32_t* count,
                                                          XgpuQueueFamilyProperties* out) {
  if (!out) {
    *count = 1;
    return;
  }
  if (*count >= 1) {
    out[0] = {XGPU_QUEUE_COMPUTE_BIT | XGPU_QUEUE_TRANSFER_BIT, 1, 64};
    *count = 1;
  }
}

XgpuResult XGPU_API_CALL CreateDevice(XgpuPhysicalDevice handle, const XgpuDeviceCreateInfo* info,
                                      const XgpuAllocationCallbacks*, XgpuDevice* out) {
  g_control.createDeviceCalls++;
  CheckChain(info->pNext);
  auto* pd = reinterpret_cast<TestPhysicalDevice*>(handle);
  auto* device = new TestDevice;
  InitDispatchable(device, XGPU_TEST_SKIP_MAGIC_DEVICE);
  InitDispatchable(&device->queue, XGPU_TEST_SKIP_MAGIC_QUEUE);
  device->physical = pd;
  if (g_control.emitMessageOnCreateDevice) {
    XgpuDebugMessageData data = {};
    data.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA;
    data.pMessageIdName = "TEST-DRIVER-create-device";
    data.pMessage = "test driver " TEST_DRIVER_ID " created a device";
    for (auto* m : pd->instance->messengers) {
      if (m->info.messageSeverity & XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT) {
        m->info.pfnUserCallback(XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT, XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT, &data,
                                m->info.pUserData);
      }
    }
  }
  *out = reinterpret_cast<XgpuDevice>(device);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyDevice(XgpuDevice handle, const XgpuAllocationCallbacks*) {
  g_control.destroyDeviceCalls++;
  delete reinterpret_cast<TestDevice*>(handle);
}

void XGPU_API_CALL GetDeviceQueue(XgpuDevice handle, uint32_t family, uint32_t index, XgpuQueue* out) {
  auto* device = reinterpret_cast<TestDevice*>(handle);
  *out = (family == 0 && index == 0) ? reinterpret_cast<XgpuQueue>(&device->queue) : nullptr;
}

XgpuResult XGPU_API_CALL CreateBuffer(XgpuDevice, const XgpuBufferCreateInfo*, const XgpuAllocationCallbacks*,
                                      XgpuBuffer* out) {
  g_control.createBufferCalls++;
  *out = reinterpret_cast<XgpuBuffer>(static_cast<uintptr_t>(0x1000 + g_control.createBufferCalls));
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyBuffer(XgpuDevice, XgpuBuffer, const XgpuAllocationCallbacks*) {}

XgpuResult XGPU_API_CALL CreateCommandBuffer(XgpuDevice, const XgpuCommandBufferCreateInfo*,
                                             const XgpuAllocationCallbacks*, XgpuCommandBuffer* out) {
  auto* cb = new TestCommandBuffer;
  InitDispatchable(cb, XGPU_TEST_SKIP_MAGIC_COMMAND_BUFFER);
  *out = reinterpret_cast<XgpuCommandBuffer>(cb);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyCommandBuffer(XgpuDevice, XgpuCommandBuffer cb, const XgpuAllocationCallbacks*) {
  delete reinterpret_cast<TestCommandBuffer*>(cb);
}

XgpuResult XGPU_API_CALL BeginCommandBuffer(XgpuCommandBuffer, const XgpuCommandBufferBeginInfo*) {
  return XGPU_SUCCESS;
}
XgpuResult XGPU_API_CALL EndCommandBuffer(XgpuCommandBuffer) { return XGPU_SUCCESS; }
void XGPU_API_CALL CmdDispatch(XgpuCommandBuffer, uint32_t, uint32_t, uint32_t) { g_control.cmdDispatchCalls++; }
XgpuResult XGPU_API_CALL QueueSubmit(XgpuQueue, uint32_t, const XgpuSubmitInfo*) {
  g_control.queueSubmitCalls++;
  return XGPU_SUCCESS;
}
XgpuResult XGPU_API_CALL DeviceWaitIdle(XgpuDevice) { return XGPU_SUCCESS; }

PFN_xgpuVoidFunction XGPU_API_CALL GetDeviceProcAddr(XgpuDevice, const char* name);

struct Entry {
  const char* name;
  PFN_xgpuVoidFunction function;
};
#define ENTRY(fn) {"xgpu" #fn, reinterpret_cast<PFN_xgpuVoidFunction>(fn)}
// Deliberately missing: memory pools, semaphores, executables, pipelines and
// most commands, so tests see the loader's stubs.
const Entry kInstanceEntries[] = {
    ENTRY(CreateInstance), ENTRY(DestroyInstance), ENTRY(EnumeratePhysicalDevices), ENTRY(CreateDebugMessenger),
    ENTRY(DestroyDebugMessenger), ENTRY(GetPhysicalDeviceProperties), ENTRY(GetPhysicalDeviceMemoryProperties),
    ENTRY(GetPhysicalDeviceQueueFamilyProperties), ENTRY(CreateDevice), ENTRY(GetDeviceProcAddr),
};
const Entry kDeviceEntries[] = {
    ENTRY(GetDeviceProcAddr),   ENTRY(DestroyDevice),      ENTRY(GetDeviceQueue),       ENTRY(CreateBuffer),
    ENTRY(DestroyBuffer),       ENTRY(CreateCommandBuffer), ENTRY(DestroyCommandBuffer), ENTRY(BeginCommandBuffer),
    ENTRY(EndCommandBuffer),    ENTRY(CmdDispatch),        ENTRY(QueueSubmit),          ENTRY(DeviceWaitIdle),
};

template <size_t N>
PFN_xgpuVoidFunction Find(const Entry (&entries)[N], const char* name) {
  for (const Entry& e : entries) {
    if (std::strcmp(e.name, name) == 0) return e.function;
  }
  return nullptr;
}

PFN_xgpuVoidFunction XGPU_API_CALL GetDeviceProcAddr(XgpuDevice, const char* name) {
  return Find(kDeviceEntries, name);
}

void Reset() {
  g_control = {};
  g_control.negotiateResult = XGPU_SUCCESS;
  g_control.physicalDeviceCount = 1;
  g_control.createInstanceResult = XGPU_SUCCESS;
}

struct ResetAtLoad {
  ResetAtLoad() { Reset(); }
} g_reset_at_load;

}  // namespace

#if TEST_DRIVER_EXPORT_NEGOTIATE
TEST_EXPORT XgpuResult xgpu_icdNegotiateLoaderICDInterfaceVersion(uint32_t* pSupportedVersion) {
  g_control.negotiateCalls++;
  if (g_control.negotiateResult != XGPU_SUCCESS) return g_control.negotiateResult;
  if (g_control.negotiateVersion) *pSupportedVersion = g_control.negotiateVersion;
  return XGPU_SUCCESS;
}
#endif

#if TEST_DRIVER_EXPORT_GET_INSTANCE_PROC_ADDR
TEST_EXPORT PFN_xgpuVoidFunction xgpu_icdGetInstanceProcAddr(XgpuInstance instance, const char* pName) {
  if (!instance) {
    return std::strcmp(pName, "xgpuCreateInstance") == 0 && !g_control.hideGlobalCreateInstance
               ? reinterpret_cast<PFN_xgpuVoidFunction>(CreateInstance)
               : nullptr;
  }
  return Find(kInstanceEntries, pName);
}
#endif

TEST_EXPORT XgpuTestDriverControl* xgpu_test_driver_control(void) { return &g_control; }
TEST_EXPORT void xgpu_test_driver_reset(void) { Reset(); }
// The driver's own function for an API name, for comparing with what the
// loader hands out.
TEST_EXPORT PFN_xgpuVoidFunction xgpu_test_driver_function(const char* name) {
  PFN_xgpuVoidFunction f = Find(kDeviceEntries, name);
  return f ? f : Find(kInstanceEntries, name);
}
