// The terminators: the element of the instance chain below the last layer.
// They fan instance-level calls out to every driver and route physical-device
// calls to the owning driver (spec/loader.md, "The chain").
#include <algorithm>
#include <cstring>
#include <new>

#include "loader.h"

namespace xgpu_loader {
namespace {

struct BaseStructure {
  XgpuStructureType sType;
  const BaseStructure* pNext;
};

std::string DriverName(const Driver& driver) { return "driver " + driver.library.path; }

bool HasMagic(const void* object) { return xgpuValidLoaderMagicValue(object) != 0; }

const char* kMagicAdvice = "(the driver must call xgpuSetLoaderMagicValue on every dispatchable object it creates)";

// Fills instance->physical_devices from every driver, once.
void EnumerateDrivers(Instance* instance) {
  for (auto& driver : instance->drivers) {
    if (!driver->handle) continue;
    auto enumerate = driver->table.EnumeratePhysicalDevices;
    if (!enumerate) {
      Log(instance, Level::kError, "XGPU-LOADER-unsupported-command",
          DriverName(*driver) + " provides no xgpuEnumeratePhysicalDevices; its devices are not listed");
      continue;
    }
    uint32_t count = 0;
    XgpuResult result = enumerate(driver->handle, &count, nullptr);
    std::vector<XgpuPhysicalDevice> handles(count);
    if (result >= 0 && count) result = enumerate(driver->handle, &count, handles.data());
    if (result < 0) {
      Log(instance, Level::kError, "XGPU-LOADER-driver-call-failed",
          DriverName(*driver) + ": xgpuEnumeratePhysicalDevices returned " + std::to_string(result) +
              "; its devices are not listed");
      continue;
    }
    handles.resize(std::min<size_t>(count, handles.size()));
    for (XgpuPhysicalDevice handle : handles) {
      if (!handle) {
        Log(instance, Level::kError, "XGPU-LOADER-driver-call-failed",
            DriverName(*driver) + ": xgpuEnumeratePhysicalDevices returned a NULL device; skipped");
        continue;
      }
      if (!HasMagic(handle)) {
        Log(instance, Level::kError, "XGPU-LOADER-driver-missing-magic",
            DriverName(*driver) + ": an XgpuPhysicalDevice does not start with XGPU_ICD_LOADER_MAGIC " +
                kMagicAdvice + "; skipped");
        continue;
      }
      auto physical = std::make_unique<PhysicalDevice>();
      physical->dispatch = &instance->table;
      physical->instance = instance;
      physical->driver = driver.get();
      physical->handle = handle;
      instance->physical_devices.push_back(std::move(physical));
    }
  }
  Log(instance, Level::kDebug, "XGPU-LOADER-physical-devices",
      std::to_string(instance->physical_devices.size()) + " physical device(s) from " +
          std::to_string(instance->drivers.size()) + " driver(s)");
}

void DestroyDriverMessengers(Messenger* messenger, const XgpuAllocationCallbacks* allocator) {
  for (auto& [driver, handle] : messenger->driver_handles) {
    if (driver->handle && driver->table.DestroyDebugMessenger) {
      driver->table.DestroyDebugMessenger(driver->handle, handle, allocator);
    }
  }
  messenger->driver_handles.clear();
}

}  // namespace

thread_local Device* t_creating_device = nullptr;

const void* SkipLoaderStructures(const void* next, XgpuStructureType loader_type) {
  auto* s = static_cast<const BaseStructure*>(next);
  while (s && s->sType == loader_type) s = s->pNext;
  return s;
}

#include "../generated/terminators.inc"

PFN_xgpuVoidFunction XGPU_API_CALL term_GetInstanceProcAddr(XgpuInstance instance, const char* pName) {
  return pName ? TerminatorProcAddr(pName) : nullptr;
}

XgpuResult XGPU_API_CALL term_CreateInstance(const XgpuInstanceCreateInfo* pCreateInfo,
                                             const XgpuAllocationCallbacks* pAllocator, XgpuInstance* pInstance) {
  Instance* instance = t_creating_instance;
  if (!instance || !pCreateInfo || !pInstance) {
    Log(instance, Level::kError, "XGPU-LOADER-terminator-misuse",
        "the terminator's xgpuCreateInstance was called outside xgpuCreateInstance or with NULL arguments (a layer "
        "must call down on the thread that called it)");
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  // Drivers see the application's create info without layers or loader links.
  XgpuInstanceCreateInfo info = *pCreateInfo;
  info.pNext = SkipLoaderStructures(pCreateInfo->pNext, XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  info.enabledLayerCount = 0;
  info.ppEnabledLayerNames = nullptr;
  for (auto it = instance->drivers.begin(); it != instance->drivers.end();) {
    Driver& driver = **it;
    XgpuInstance handle = nullptr;
    XgpuResult result = driver.globals.CreateInstance(&info, pAllocator, &handle);
    std::string problem;
    if (result < 0) {
      problem = "xgpuCreateInstance returned " + std::to_string(result);
    } else if (!handle) {
      problem = "xgpuCreateInstance returned no instance";
    } else if (!HasMagic(handle)) {
      problem = std::string("its XgpuInstance does not start with XGPU_ICD_LOADER_MAGIC ") + kMagicAdvice;
      auto destroy = reinterpret_cast<PFN_xgpuDestroyInstance>(
          driver.get_instance_proc_addr(handle, "xgpuDestroyInstance"));
      if (destroy) destroy(handle, pAllocator);
    }
    if (!problem.empty()) {
      Log(instance, Level::kError, result < 0 ? "XGPU-LOADER-driver-call-failed" : "XGPU-LOADER-driver-missing-magic",
          DriverName(driver) + " (manifest " + driver.manifest.path + ") skipped: " + problem);
      it = instance->drivers.erase(it);
      continue;
    }
    driver.handle = handle;
    xgpuInitInstanceDispatchTable(&driver.table, driver.get_instance_proc_addr, handle);
    driver.get_device_proc_addr =
        reinterpret_cast<PFN_xgpuGetDeviceProcAddr>(driver.get_instance_proc_addr(handle, "xgpuGetDeviceProcAddr"));
    ++it;
  }
  *pInstance = reinterpret_cast<XgpuInstance>(instance);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL term_DestroyInstance(XgpuInstance instance, const XgpuAllocationCallbacks* pAllocator) {
  Instance* inst = InstanceFromHandle(instance);
  {
    std::lock_guard<std::mutex> lock(inst->mutex);
    for (Messenger* m : inst->messengers) DestroyDriverMessengers(m, pAllocator);
  }
  for (auto& driver : inst->drivers) {
    if (driver->handle && driver->table.DestroyInstance) driver->table.DestroyInstance(driver->handle, pAllocator);
    driver->handle = nullptr;
  }
}

XgpuResult XGPU_API_CALL term_EnumeratePhysicalDevices(XgpuInstance instance, uint32_t* pPhysicalDeviceCount,
                                                       XgpuPhysicalDevice* pPhysicalDevices) {
  Instance* inst = InstanceFromHandle(instance);
  try {
    std::lock_guard<std::mutex> lock(inst->devices_mutex);
    if (!inst->physical_devices_ready) {
      inst->physical_devices_ready = true;
      EnumerateDrivers(inst);
    }
    const uint32_t total = static_cast<uint32_t>(inst->physical_devices.size());
    if (!pPhysicalDevices) {
      *pPhysicalDeviceCount = total;
      return XGPU_SUCCESS;
    }
    uint32_t count = std::min(*pPhysicalDeviceCount, total);
    for (uint32_t i = 0; i < count; ++i) {
      pPhysicalDevices[i] = reinterpret_cast<XgpuPhysicalDevice>(inst->physical_devices[i].get());
    }
    *pPhysicalDeviceCount = count;
    return count < total ? XGPU_INCOMPLETE : XGPU_SUCCESS;
  } catch (const std::bad_alloc&) {
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
}

XgpuResult XGPU_API_CALL term_CreateDebugMessenger(XgpuInstance instance,
                                                   const XgpuDebugMessengerCreateInfo* pCreateInfo,
                                                   const XgpuAllocationCallbacks* pAllocator,
                                                   XgpuDebugMessenger* pMessenger) {
  Instance* inst = InstanceFromHandle(instance);
  Messenger* messenger = NewRecord<Messenger>(pAllocator);
  if (!messenger) return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  messenger->info = {pCreateInfo->messageSeverity, pCreateInfo->messageType, pCreateInfo->pfnUserCallback,
                     pCreateInfo->pUserData};
  try {
    for (auto& driver : inst->drivers) {
      if (!driver->handle || !driver->table.CreateDebugMessenger) continue;
      XgpuDebugMessenger handle = XGPU_NULL_HANDLE;
      XgpuResult result = driver->table.CreateDebugMessenger(driver->handle, pCreateInfo, pAllocator, &handle);
      if (result < 0) {
        Log(inst, Level::kWarn, "XGPU-LOADER-driver-call-failed",
            DriverName(*driver) + ": xgpuCreateDebugMessenger returned " + std::to_string(result) +
                "; the driver's messages will not reach this messenger");
        continue;
      }
      messenger->driver_handles.push_back({driver.get(), handle});
    }
    std::lock_guard<std::mutex> lock(inst->mutex);
    inst->messengers.push_back(messenger);
  } catch (const std::bad_alloc&) {
    DestroyDriverMessengers(messenger, pAllocator);
    DeleteRecord(messenger);
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
  *pMessenger = reinterpret_cast<XgpuDebugMessenger>(messenger);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL term_DestroyDebugMessenger(XgpuInstance instance, XgpuDebugMessenger messenger,
                                              const XgpuAllocationCallbacks* pAllocator) {
  Instance* inst = InstanceFromHandle(instance);
  auto* m = reinterpret_cast<Messenger*>(messenger);
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(inst->mutex);
    auto it = std::find(inst->messengers.begin(), inst->messengers.end(), m);
    if (it != inst->messengers.end()) {
      inst->messengers.erase(it);
      found = true;
    }
  }
  if (!found) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_INSTANCE, instance, "xgpuDestroyDebugMessenger",
                          "XGPU-VUID-xgpuDestroyDebugMessenger-messenger-parameter",
                          "messenger is not a live messenger of this instance");
    return;
  }
  DestroyDriverMessengers(m, pAllocator);
  DeleteRecord(m);
}

void XGPU_API_CALL term_SubmitDebugMessage(XgpuInstance instance, XgpuDebugMessageSeverityFlagBits messageSeverity,
                                           XgpuDebugMessageTypeFlags messageTypes,
                                           const XgpuDebugMessageData* pMessageData) {
  // Delivered to the application's messengers once, here; drivers are not
  // asked to deliver it again.
  const Instance* inst = InstanceFromHandle(instance);
  std::vector<MessengerInfo> infos;
  {
    std::lock_guard<std::mutex> lock(inst->mutex);
    for (const Messenger* m : inst->messengers) infos.push_back(m->info);
  }
  Deliver(infos, messageSeverity, messageTypes, pMessageData);
}

XgpuResult XGPU_API_CALL term_CreateDevice(XgpuPhysicalDevice physicalDevice, const XgpuDeviceCreateInfo* pCreateInfo,
                                           const XgpuAllocationCallbacks* pAllocator, XgpuDevice* pDevice) {
  Device* device = t_creating_device;
  PhysicalDevice* physical = UnwrapPhysicalDevice(physicalDevice);
  if (!device || !physical || !pCreateInfo || !pDevice) {
    Log(physical ? physical->instance : nullptr, Level::kError, "XGPU-LOADER-terminator-misuse",
        "the terminator's xgpuCreateDevice was called outside xgpuCreateDevice or with NULL arguments (a layer must "
        "call down on the thread that called it)");
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  Driver& driver = *physical->driver;
  if (!driver.table.CreateDevice) {
    ReportUnsupported(XGPU_OBJECT_TYPE_PHYSICAL_DEVICE, physicalDevice, "xgpuCreateDevice");
    return XGPU_ERROR_FEATURE_NOT_PRESENT;
  }
  XgpuDeviceCreateInfo info = *pCreateInfo;
  info.pNext = SkipLoaderStructures(pCreateInfo->pNext, XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  XgpuDevice handle = nullptr;
  XgpuResult result = driver.table.CreateDevice(physical->handle, &info, pAllocator, &handle);
  if (result < 0) return result;
  if (!handle || !HasMagic(handle)) {
    Log(physical->instance, Level::kError, "XGPU-LOADER-driver-missing-magic",
        DriverName(driver) + ": xgpuCreateDevice returned " +
            (handle ? std::string("an XgpuDevice that does not start with XGPU_ICD_LOADER_MAGIC ") + kMagicAdvice
                    : std::string("no device")) +
            "; xgpuCreateDevice fails with XGPU_ERROR_INCOMPATIBLE_DRIVER");
    if (handle && driver.get_device_proc_addr) {
      auto destroy =
          reinterpret_cast<PFN_xgpuDestroyDevice>(driver.get_device_proc_addr(handle, "xgpuDestroyDevice"));
      if (destroy) destroy(handle, pAllocator);
    }
    return XGPU_ERROR_INCOMPATIBLE_DRIVER;
  }
  device->driver = &driver;
  device->handle = handle;
  // From here on layers can key on the device's first word.
  *reinterpret_cast<void**>(handle) = &device->table;
  *pDevice = handle;
  return result;
}

PFN_xgpuVoidFunction XGPU_API_CALL term_GetDeviceProcAddr(XgpuDevice device, const char* pName) {
  if (!device || !pName) return nullptr;
  if (std::strcmp(pName, "xgpuGetDeviceProcAddr") == 0) return reinterpret_cast<PFN_xgpuVoidFunction>(term_GetDeviceProcAddr);
  const Device* d = DeviceFromHandle(device);
  if (!d->driver || !d->driver->get_device_proc_addr) return nullptr;
  return d->driver->get_device_proc_addr(device, pName);
}

}  // namespace xgpu_loader
