// A small layer for the loader tests. Built twice with a different
// TEST_LAYER_ID; configured through test_layer.h.
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "test_layer.h"
#include "xgpu/xgpu_dispatch_table.h"
#include "xgpu/xgpu_icd.h"
#include "xgpu/xgpu_layer.h"

#define TEST_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

XgpuTestLayerControl g_control;
std::mutex g_mutex;
// Next element's tables, keyed by the dispatch key (the handle's first word).
std::map<void*, XgpuInstanceDispatchTable> g_instances;
std::map<void*, XgpuDeviceDispatchTable> g_devices;
std::map<void*, PFN_xgpuGetInstanceProcAddr> g_instance_gipa;

void* Key(const void* handle) { return *static_cast<void* const*>(handle); }

template <typename T>
T* FindLink(const void* next, XgpuStructureType type, XgpuLayerFunction function) {
  struct Base {
    XgpuStructureType sType;
    const Base* pNext;
  };
  for (auto* s = static_cast<const Base*>(next); s; s = s->pNext) {
    auto* info = reinterpret_cast<const T*>(s);
    if (s->sType == type && info->function == function) return const_cast<T*>(info);
  }
  return nullptr;
}

XgpuInstanceDispatchTable NextInstance(const void* handle) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_instances.at(Key(handle));
}
XgpuDeviceDispatchTable NextDevice(const void* handle) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_devices.at(Key(handle));
}

XgpuResult XGPU_API_CALL CreateInstance(const XgpuInstanceCreateInfo* info, const XgpuAllocationCallbacks* allocator,
                                        XgpuInstance* out) {
  g_control.createInstanceCalls++;
  auto* link = FindLink<XgpuLayerInstanceCreateInfo>(info->pNext, XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO,
                                                     XGPU_LAYER_LINK_INFO);
  if (!link || !link->u.pLayerInfo) return XGPU_ERROR_INITIALIZATION_FAILED;
  if (FindLink<XgpuLayerInstanceCreateInfo>(info->pNext, XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO,
                                            XGPU_LOADER_DATA_CALLBACK)) {
    g_control.sawInstanceDataCallback = 1;
  }
  PFN_xgpuGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;  // advance for the next layer
  auto next_create = reinterpret_cast<PFN_xgpuCreateInstance>(next_gipa(nullptr, "xgpuCreateInstance"));
  XgpuResult result = next_create(info, allocator, out);
  if (result < 0) return result;
  XgpuInstanceDispatchTable table;
  xgpuInitInstanceDispatchTable(&table, next_gipa, *out);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_instances[Key(*out)] = table;
  g_instance_gipa[Key(*out)] = next_gipa;
  return result;
}

void XGPU_API_CALL DestroyInstance(XgpuInstance instance, const XgpuAllocationCallbacks* allocator) {
  g_control.destroyInstanceCalls++;
  void* key = Key(instance);  // the object is gone after the call down
  XgpuInstanceDispatchTable next = NextInstance(instance);
  next.DestroyInstance(instance, allocator);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_instances.erase(key);
  g_instance_gipa.erase(key);
}

void XGPU_API_CALL GetPhysicalDeviceProperties(XgpuPhysicalDevice physical, XgpuPhysicalDeviceProperties* out) {
  g_control.propertiesCalls++;
  NextInstance(physical).GetPhysicalDeviceProperties(physical, out);
  size_t len = std::strlen(out->deviceName);
  std::snprintf(out->deviceName + len, sizeof(out->deviceName) - len, "+%s", TEST_LAYER_ID);
}

XgpuResult XGPU_API_CALL CreateDevice(XgpuPhysicalDevice physical, const XgpuDeviceCreateInfo* info,
                                      const XgpuAllocationCallbacks* allocator, XgpuDevice* out) {
  g_control.createDeviceCalls++;
  auto* link = FindLink<XgpuLayerDeviceCreateInfo>(info->pNext, XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO,
                                                   XGPU_LAYER_LINK_INFO);
  if (!link || !link->u.pLayerInfo) return XGPU_ERROR_INITIALIZATION_FAILED;
  if (FindLink<XgpuLayerDeviceCreateInfo>(info->pNext, XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO,
                                          XGPU_LOADER_DATA_CALLBACK)) {
    g_control.sawDeviceDataCallback = 1;
  }
  PFN_xgpuGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_xgpuGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto next_create = reinterpret_cast<PFN_xgpuCreateDevice>(next_gipa(nullptr, "xgpuCreateDevice"));
  XgpuResult result = next_create(physical, info, allocator, out);
  if (result < 0) return result;
  if (reinterpret_cast<uintptr_t>(Key(*out)) != XGPU_ICD_LOADER_MAGIC) g_control.deviceKeyedBeforeReturn = 1;
  XgpuDeviceDispatchTable table;
  xgpuInitDeviceDispatchTable(&table, next_gdpa, *out);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_devices[Key(*out)] = table;
  return result;
}

void XGPU_API_CALL DestroyDevice(XgpuDevice device, const XgpuAllocationCallbacks* allocator) {
  g_control.destroyDeviceCalls++;
  void* key = Key(device);  // the object is gone after the call down
  XgpuDeviceDispatchTable next = NextDevice(device);
  next.DestroyDevice(device, allocator);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_devices.erase(key);
}

XgpuResult XGPU_API_CALL CreateBuffer(XgpuDevice device, const XgpuBufferCreateInfo* info,
                                      const XgpuAllocationCallbacks* allocator, XgpuBuffer* out) {
  g_control.createBufferCalls++;
  return NextDevice(device).CreateBuffer(device, info, allocator, out);
}

PFN_xgpuVoidFunction XGPU_API_CALL GetInstanceProcAddr(XgpuInstance instance, const char* name);
PFN_xgpuVoidFunction XGPU_API_CALL GetDeviceProcAddr(XgpuDevice device, const char* name);

#define ENTRY(fn)                                                                   \
  if (std::strcmp(name, "xgpu" #fn) == 0) {                                         \
    return reinterpret_cast<PFN_xgpuVoidFunction>(fn);                              \
  }

PFN_xgpuVoidFunction OwnInstanceFunction(const char* name) {
  ENTRY(GetInstanceProcAddr)
  ENTRY(CreateInstance)
  ENTRY(DestroyInstance)
  ENTRY(GetPhysicalDeviceProperties)
  ENTRY(CreateDevice)
  return nullptr;
}

PFN_xgpuVoidFunction OwnDeviceFunction(const char* name) {
  ENTRY(GetDeviceProcAddr)
  ENTRY(DestroyDevice)
  ENTRY(CreateBuffer)
  return nullptr;
}

PFN_xgpuVoidFunction XGPU_API_CALL GetInstanceProcAddr(XgpuInstance instance, const char* name) {
  if (PFN_xgpuVoidFunction own = OwnInstanceFunction(name)) return own;
  if (!instance) return nullptr;
  // The next layer's lookup is called without holding g_mutex: it takes
  // its own, and two layers stacked in both orders would otherwise take
  // the two locks in both orders.
  PFN_xgpuGetInstanceProcAddr next_gipa;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_instances.find(Key(instance));
    if (it == g_instances.end()) return nullptr;
    if (PFN_xgpuVoidFunction next = xgpuLookupInstanceDispatchTable(&it->second, name)) return next;
    next_gipa = g_instance_gipa[Key(instance)];
  }
  return next_gipa(instance, name);
}

PFN_xgpuVoidFunction XGPU_API_CALL GetDeviceProcAddr(XgpuDevice device, const char* name) {
  if (PFN_xgpuVoidFunction own = OwnDeviceFunction(name)) return own;
  PFN_xgpuGetDeviceProcAddr next_gdpa;
  {
    std::lock_guard<std::mutex> lock(g_mutex);  // not held across the next layer (see above)
    auto it = g_devices.find(Key(device));
    if (it == g_devices.end()) return nullptr;
    if (PFN_xgpuVoidFunction next = xgpuLookupDeviceDispatchTable(&it->second, name)) return next;
    next_gdpa = it->second.GetDeviceProcAddr;
  }
  return next_gdpa(device, name);
}

XgpuResult Negotiate(XgpuNegotiateLayerInterface* iface) {
  if (g_control.negotiateResult != XGPU_SUCCESS) return g_control.negotiateResult;
  if (g_control.negotiateVersion) iface->loaderLayerInterfaceVersion = g_control.negotiateVersion;
  iface->pfnGetInstanceProcAddr = GetInstanceProcAddr;
  iface->pfnGetDeviceProcAddr = g_control.omitDeviceProcAddr ? nullptr : GetDeviceProcAddr;
  return XGPU_SUCCESS;
}

void Reset() {
  g_control = {};
  g_control.negotiateResult = XGPU_SUCCESS;
}

struct ResetAtLoad {
  ResetAtLoad() { Reset(); }
} g_reset_at_load;

}  // namespace

TEST_EXPORT XgpuResult xgpuNegotiateLoaderLayerInterfaceVersion(XgpuNegotiateLayerInterface* iface) {
  g_control.negotiateCalls++;
  return Negotiate(iface);
}

// The same negotiation under another name, for manifests' "functions".
TEST_EXPORT XgpuResult test_layer_renamed_negotiate(XgpuNegotiateLayerInterface* iface) {
  g_control.customNegotiateCalls++;
  return Negotiate(iface);
}

TEST_EXPORT XgpuTestLayerControl* xgpu_test_layer_control(void) { return &g_control; }
TEST_EXPORT void xgpu_test_layer_reset(void) { Reset(); }
TEST_EXPORT PFN_xgpuVoidFunction xgpu_test_layer_function(const char* name) {
  PFN_xgpuVoidFunction f = OwnDeviceFunction(name);
  return f ? f : OwnInstanceFunction(name);
}
