// The hand-written device-level entry points: xgpuCreateDevice (the device
// chain), xgpuDestroyDevice, xgpuGetDeviceProcAddr, and adopting the
// dispatchable objects a driver creates under a device.
#include <cstring>
#include <new>
#include <string>

#include "loader.h"

namespace xgpu_loader {
namespace {

XgpuResult XGPU_API_CALL SetDeviceLoaderData(XgpuDevice device, void* object) {
  if (!device || !object) return XGPU_ERROR_INVALID_ARGUMENT;
  *static_cast<void**>(object) = *reinterpret_cast<void**>(device);
  return XGPU_SUCCESS;
}

XgpuResult CreateDevice(XgpuPhysicalDevice physicalDevice, const XgpuDeviceCreateInfo* pCreateInfo,
                        const XgpuAllocationCallbacks* pAllocator, XgpuDevice* pDevice) {
  if (pDevice) *pDevice = nullptr;
  struct Problem {
    const char* vuid;  // the rule broken
    const char* what;  // what is wrong
  };
  const Problem problem =
      !physicalDevice ? Problem{"XGPU-VUID-xgpuCreateDevice-physicalDevice-parameter", "physicalDevice is NULL"}
      : !pCreateInfo  ? Problem{"XGPU-VUID-xgpuCreateDevice-pCreateInfo-parameter", "pCreateInfo is NULL"}
      : !pDevice      ? Problem{"XGPU-VUID-xgpuCreateDevice-pDevice-parameter", "pDevice is NULL"}
      : pCreateInfo->sType != XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO
          ? Problem{"XGPU-VUID-xgpuCreateDevice-pCreateInfo-sType",
                    "pCreateInfo->sType is not XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO"}
          : Problem{nullptr, nullptr};
  if (problem.what) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_PHYSICAL_DEVICE, physicalDevice, "xgpuCreateDevice", problem.vuid,
                          problem.what);
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  PhysicalDevice* physical = UnwrapPhysicalDevice(physicalDevice);
  Instance* instance = physical->instance;
  Device* device = new Device{};
  device->instance = instance;

  // The device chain mirrors the instance's layers.
  const auto& layers = instance->layers;
  const size_t n = layers.size();
  std::vector<XgpuLayerDeviceLink> links(n);
  for (size_t i = 0; i < n; ++i) {
    links[i].pNext = i + 1 < n ? &links[i + 1] : nullptr;
    links[i].pfnNextGetInstanceProcAddr = i + 1 < n ? layers[i + 1]->get_instance_proc_addr : term_GetInstanceProcAddr;
    links[i].pfnNextGetDeviceProcAddr = i + 1 < n ? layers[i + 1]->get_device_proc_addr : term_GetDeviceProcAddr;
  }
  XgpuLayerDeviceCreateInfo data_callback = {};
  data_callback.sType = XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO;
  data_callback.pNext = pCreateInfo->pNext;
  data_callback.function = XGPU_LOADER_DATA_CALLBACK;
  data_callback.u.pfnSetDeviceLoaderData = SetDeviceLoaderData;
  XgpuLayerDeviceCreateInfo link_info = {};
  link_info.sType = XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO;
  link_info.pNext = &data_callback;
  link_info.function = XGPU_LAYER_LINK_INFO;
  link_info.u.pLayerInfo = n ? links.data() : nullptr;
  XgpuDeviceCreateInfo chained = *pCreateInfo;
  chained.pNext = &link_info;

  PFN_xgpuCreateDevice top_create = n ? reinterpret_cast<PFN_xgpuCreateDevice>(layers[0]->get_instance_proc_addr(
                                            reinterpret_cast<XgpuInstance>(instance), "xgpuCreateDevice"))
                                      : term_CreateDevice;
  device->top_get_device_proc_addr = n ? layers[0]->get_device_proc_addr : term_GetDeviceProcAddr;
  if (!top_create) {
    Log(instance, Level::kError, "XGPU-LOADER-unsupported-command",
        "xgpuCreateDevice: layer " + layers[0]->manifest.name + " returns no xgpuCreateDevice");
    delete device;
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  XgpuDevice created = nullptr;
  t_creating_device = device;
  XgpuResult result = top_create(physicalDevice, &chained, pAllocator, &created);
  t_creating_device = nullptr;
  if (result < 0 || !created) {
    delete device;
    return result < 0 ? result : XGPU_ERROR_INITIALIZATION_FAILED;
  }
  xgpuInitDeviceDispatchTable(&device->table, device->top_get_device_proc_addr, created);
  FillUnsupportedDeviceEntries(&device->table);
  *pDevice = created;
  return result;
}

}  // namespace

bool AdoptDeviceChild(XgpuDevice device, void** object, XgpuObjectType type, const char* command) {
  if (!*object) return true;
  void* device_word = *reinterpret_cast<void**>(device);
  void** object_word = static_cast<void**>(*object);
  if (*object_word == device_word) return true;  // a layer already set it (pfnSetDeviceLoaderData)
  if (!xgpuValidLoaderMagicValue(*object)) {
    Log(InstanceOf(XGPU_OBJECT_TYPE_DEVICE, device), Level::kError, "XGPU-LOADER-driver-missing-magic",
        std::string(command) + ": the driver returned an object of type " + std::to_string(type) +
            " that does not start with XGPU_ICD_LOADER_MAGIC (the driver must call xgpuSetLoaderMagicValue on "
            "every dispatchable object it creates); the handle is replaced by NULL");
    *object = nullptr;
    return false;
  }
  *object_word = device_word;
  // A command buffer at the address of one destroyed earlier starts clean.
  if (type == XGPU_OBJECT_TYPE_COMMAND_BUFFER) ForgetRecording(static_cast<XgpuCommandBuffer>(*object));
  return true;
}

}  // namespace xgpu_loader

using namespace xgpu_loader;

XGPU_LOADER_EXPORT XgpuResult XGPU_API_CALL xgpuCreateDevice(XgpuPhysicalDevice physicalDevice,
                                                             const XgpuDeviceCreateInfo* pCreateInfo,
                                                             const XgpuAllocationCallbacks* pAllocator,
                                                             XgpuDevice* pDevice) {
  try {
    return CreateDevice(physicalDevice, pCreateInfo, pAllocator, pDevice);
  } catch (const std::bad_alloc&) {
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
}

XGPU_LOADER_EXPORT void XGPU_API_CALL xgpuDestroyDevice(XgpuDevice device, const XgpuAllocationCallbacks* pAllocator) {
  if (!device) return;
  Device* d = DeviceFromHandle(device);
  d->table.DestroyDevice(device, pAllocator);
  delete d;
}

XGPU_LOADER_EXPORT PFN_xgpuVoidFunction XGPU_API_CALL xgpuGetDeviceProcAddr(XgpuDevice device, const char* pName) {
  if (!device || !pName) return nullptr;
  // Commands the loader must see answer with libxgpu's own entry point.
  if (PFN_xgpuVoidFunction own = LookupDeviceLoaderFunction(pName)) return own;
  // Every other device-level command: the top of the device chain, directly.
  const Device* d = DeviceFromHandle(device);
  if (PFN_xgpuVoidFunction top = xgpuLookupDeviceDispatchTable(&d->table, pName)) return top;
  // Global and instance-level commands are not device functions.
  if (LookupExported(pName)) return nullptr;
  // Not an API command: a layer or the driver may provide it.
  return d->top_get_device_proc_addr(device, pName);
}
