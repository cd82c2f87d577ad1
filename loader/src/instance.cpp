// The hand-written global and instance-level entry points: instance creation
// (layer and driver loading, the instance chain), destruction, layer
// enumeration, xgpuGetInstanceProcAddr and the messenger trampolines.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "loader.h"

namespace xgpu_loader {
namespace {

struct BaseStructure {
  XgpuStructureType sType;
  const BaseStructure* pNext;
};

// A layer somebody asked for, before it is loaded.
struct LayerRequest {
  std::string name;        // layer name
  std::string enabled_by;  // "XGPU_INSTANCE_LAYERS" or "application"
};

XgpuResult XGPU_API_CALL SetInstanceLoaderData(XgpuInstance instance, void* object) {
  if (!instance || !object) return XGPU_ERROR_INVALID_ARGUMENT;
  *static_cast<void**>(object) = *reinterpret_cast<void**>(instance);
  return XGPU_SUCCESS;
}

// Collects the messengers chained on XgpuInstanceCreateInfo::pNext.
void CollectCreateMessengers(const XgpuInstanceCreateInfo* info, Instance* instance) {
  for (auto* s = static_cast<const BaseStructure*>(info->pNext); s; s = s->pNext) {
    if (s->sType != XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO) continue;
    auto* m = reinterpret_cast<const XgpuDebugMessengerCreateInfo*>(s);
    instance->create_messengers.push_back({m->messageSeverity, m->messageType, m->pfnUserCallback, m->pUserData});
  }
}

// Loads and negotiates one layer; on failure out_error says why.
bool LoadLayer(Layer* layer, std::string* out_error) {
  std::string error;
  if (!layer->library.Open(layer->manifest.library, &error)) {
    *out_error = "its library " + layer->manifest.library + " could not be loaded: " + error;
    return false;
  }
  auto negotiate = reinterpret_cast<PFN_xgpuNegotiateLoaderLayerInterfaceVersion>(
      dlsym(layer->library.handle, layer->manifest.negotiate_symbol.c_str()));
  if (!negotiate) {
    *out_error = layer->library.path + " does not export " + layer->manifest.negotiate_symbol;
    return false;
  }
  XgpuNegotiateLayerInterface iface = {};
  iface.loaderLayerInterfaceVersion = XGPU_CURRENT_LOADER_LAYER_INTERFACE_VERSION;
  XgpuResult result = negotiate(&iface);
  if (result != XGPU_SUCCESS) {
    *out_error = layer->manifest.negotiate_symbol + " refused interface version " +
                 std::to_string(XGPU_CURRENT_LOADER_LAYER_INTERFACE_VERSION) + " (returned " + std::to_string(result) +
                 ")";
    return false;
  }
  if (iface.loaderLayerInterfaceVersion < XGPU_MIN_LOADER_LAYER_INTERFACE_VERSION ||
      iface.loaderLayerInterfaceVersion > XGPU_CURRENT_LOADER_LAYER_INTERFACE_VERSION) {
    *out_error = "it chose interface version " + std::to_string(iface.loaderLayerInterfaceVersion) +
                 "; this loader speaks " + std::to_string(XGPU_MIN_LOADER_LAYER_INTERFACE_VERSION) + " to " +
                 std::to_string(XGPU_CURRENT_LOADER_LAYER_INTERFACE_VERSION);
    return false;
  }
  if (!iface.pfnGetInstanceProcAddr || !iface.pfnGetDeviceProcAddr) {
    *out_error = "its negotiation left pfnGetInstanceProcAddr or pfnGetDeviceProcAddr NULL";
    return false;
  }
  layer->interface_version = iface.loaderLayerInterfaceVersion;
  layer->get_instance_proc_addr = iface.pfnGetInstanceProcAddr;
  layer->get_device_proc_addr = iface.pfnGetDeviceProcAddr;
  return true;
}

// Resolves XGPU_INSTANCE_LAYERS + the application's list into instance->layers.
XgpuResult EnableLayers(Instance* instance, const XgpuInstanceCreateInfo* info) {
  std::vector<LayerRequest> requests;
  const char* env = std::getenv("XGPU_INSTANCE_LAYERS");
  std::string env_value = env ? env : "";
  size_t start = 0;
  while (start <= env_value.size()) {
    size_t end = env_value.find(':', start);
    if (end == std::string::npos) end = env_value.size();
    if (end > start) requests.push_back({env_value.substr(start, end - start), "XGPU_INSTANCE_LAYERS"});
    start = end + 1;
  }
  for (uint32_t i = 0; i < info->enabledLayerCount; ++i) {
    requests.push_back({info->ppEnabledLayerNames[i], "application"});
  }
  if (requests.empty()) return XGPU_SUCCESS;

  std::vector<LayerManifest> found = FindLayers(instance);
  for (const LayerRequest& request : requests) {
    const bool by_app = request.enabled_by == "application";
    bool duplicate = std::any_of(instance->layers.begin(), instance->layers.end(),
                                 [&](const auto& l) { return l->manifest.name == request.name; });
    if (duplicate) {
      Log(instance, Level::kDebug, "XGPU-LOADER-layer-duplicate",
          "layer " + request.name + " (" + request.enabled_by + ") is already enabled; the first position counts");
      continue;
    }
    auto manifest = std::find_if(found.begin(), found.end(), [&](const auto& m) { return m.name == request.name; });
    if (manifest == found.end()) {
      std::string text = "layer " + request.name + " requested by " + request.enabled_by +
                         " was not found: no valid layer manifest names it";
      if (by_app) {
        Log(instance, Level::kError, "XGPU-LOADER-layer-not-present", text + "; xgpuCreateInstance fails with XGPU_ERROR_LAYER_NOT_PRESENT");
        return XGPU_ERROR_LAYER_NOT_PRESENT;
      }
      Log(instance, Level::kError, "XGPU-LOADER-layer-not-present", text + "; skipped");
      continue;
    }
    std::string disabled = LayerDisabledReason(*manifest);
    if (!disabled.empty()) {
      Log(instance, Level::kWarn, "XGPU-LOADER-layer-disabled",
          "layer " + request.name + " requested by " + request.enabled_by + " is disabled: " + disabled + "; skipped");
      continue;
    }
    auto layer = std::make_unique<Layer>();
    layer->manifest = *manifest;
    layer->enabled_by = request.enabled_by;
    std::string error;
    if (!LoadLayer(layer.get(), &error)) {
      std::string text = "layer " + request.name + " (manifest " + manifest->path + ", requested by " +
                         request.enabled_by + ") cannot be used: " + error;
      if (by_app) {
        Log(instance, Level::kError, "XGPU-LOADER-layer-load-failed", text + "; xgpuCreateInstance fails with XGPU_ERROR_LAYER_NOT_PRESENT");
        return XGPU_ERROR_LAYER_NOT_PRESENT;
      }
      Log(instance, Level::kError, "XGPU-LOADER-layer-load-failed", text + "; skipped");
      continue;
    }
    instance->layers.push_back(std::move(layer));
  }
  return XGPU_SUCCESS;
}

// Loads and negotiates one driver; on failure out_error says why.
bool LoadDriver(Driver* driver, const std::vector<std::unique_ptr<Driver>>& loaded, std::string* out_error) {
  if (XGPU_API_VERSION_MAJOR(driver->manifest.api_version) != XGPU_API_VERSION_MAJOR(XGPU_API_VERSION_1_0)) {
    *out_error = "it implements API " + VersionString(driver->manifest.api_version) + "; this loader needs 1.x";
    return false;
  }
  std::string error;
  if (!driver->library.Open(driver->manifest.library, &error)) {
    *out_error = "its library " + driver->manifest.library + " could not be loaded: " + error;
    return false;
  }
  for (const auto& other : loaded) {
    if (other->library.handle == driver->library.handle) {
      *out_error = "its library " + driver->library.path + " is already loaded through " + other->manifest.path;
      return false;
    }
  }
  auto negotiate = reinterpret_cast<PFN_xgpu_icdNegotiateLoaderICDInterfaceVersion>(
      dlsym(driver->library.handle, XGPU_ICD_NEGOTIATE_SYMBOL));
  if (!negotiate) {
    *out_error = driver->library.path + " does not export " XGPU_ICD_NEGOTIATE_SYMBOL;
    return false;
  }
  uint32_t version = XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION;
  XgpuResult result = negotiate(&version);
  if (result != XGPU_SUCCESS) {
    *out_error = "it refused interface version " + std::to_string(XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION) +
                 " (" XGPU_ICD_NEGOTIATE_SYMBOL " returned " + std::to_string(result) + ")";
    return false;
  }
  if (version < XGPU_MIN_LOADER_ICD_INTERFACE_VERSION || version > XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION) {
    *out_error = "it chose interface version " + std::to_string(version) + "; this loader speaks " +
                 std::to_string(XGPU_MIN_LOADER_ICD_INTERFACE_VERSION) + " to " +
                 std::to_string(XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION);
    return false;
  }
  driver->interface_version = version;
  driver->get_instance_proc_addr = reinterpret_cast<PFN_xgpu_icdGetInstanceProcAddr>(
      dlsym(driver->library.handle, XGPU_ICD_GET_INSTANCE_PROC_ADDR_SYMBOL));
  if (!driver->get_instance_proc_addr) {
    *out_error = driver->library.path + " does not export " XGPU_ICD_GET_INSTANCE_PROC_ADDR_SYMBOL;
    return false;
  }
  InitDriverGlobalTable(&driver->globals, driver->get_instance_proc_addr, nullptr);
  if (!driver->globals.CreateInstance) {
    *out_error = XGPU_ICD_GET_INSTANCE_PROC_ADDR_SYMBOL "(NULL, \"xgpuCreateInstance\") returned NULL";
    return false;
  }
  return true;
}

void LoadDrivers(Instance* instance) {
  for (const std::string& file : DriverManifestFiles(instance)) {
    auto driver = std::make_unique<Driver>();
    std::string error;
    if (!ParseDriverManifest(file, &driver->manifest, &error)) {
      Log(instance, Level::kError, "XGPU-LOADER-manifest-invalid", "driver manifest " + file + " " + error + "; skipped");
      continue;
    }
    if (!LoadDriver(driver.get(), instance->drivers, &error)) {
      Log(instance, Level::kError, "XGPU-LOADER-driver-load-failed",
          "driver " + driver->manifest.library_path + " (manifest " + file + ") skipped: " + error);
      continue;
    }
    Log(instance, Level::kDebug, "XGPU-LOADER-driver-loaded",
        "driver " + driver->library.path + " loaded (manifest " + file + ", interface version " +
            std::to_string(driver->interface_version) + ")");
    instance->drivers.push_back(std::move(driver));
  }
  if (instance->drivers.empty()) {
    Log(instance, Level::kInfo, "XGPU-LOADER-no-driver",
        "no usable driver: xgpuEnumeratePhysicalDevices will report 0 devices");
  }
}

void LogChain(const Instance* instance) {
  if (!StderrEnabled(Level::kInfo) && instance->create_messengers.empty()) return;
  std::string text = "instance chain:\n  application";
  for (const auto& layer : instance->layers) {
    text += "\n  -> layer " + layer->manifest.name + " (enabled by " + layer->enabled_by + ")";
    text += "\n       manifest: " + layer->manifest.path;
    text += "\n       library: " + layer->library.path + " (interface version " +
            std::to_string(layer->interface_version) + ")";
  }
  text += "\n  -> loader terminator";
  if (instance->drivers.empty()) text += "\n  -> no driver";
  for (size_t i = 0; i < instance->drivers.size(); ++i) {
    const Driver& d = *instance->drivers[i];
    text += "\n  -> driver " + std::to_string(i);
    text += "\n       manifest: " + d.manifest.path;
    text += "\n       library: " + d.library.path + " (interface version " + std::to_string(d.interface_version) +
            ", api version " + VersionString(d.manifest.api_version) + ")";
  }
  Log(instance, Level::kInfo, "XGPU-LOADER-chain", text);
}

void DestroyInstanceObject(Instance* instance) {
  for (Messenger* m : instance->messengers) DeleteRecord(m);
  instance->messengers.clear();
  instance->physical_devices.clear();
  instance->drivers.clear();  // dlclose
  instance->layers.clear();   // dlclose
  DeleteRecord(instance);
}

XgpuResult CreateInstance(const XgpuInstanceCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator,
                          XgpuInstance* pInstance) {
  if (!pInstance) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_UNKNOWN, nullptr, "xgpuCreateInstance",
                          "XGPU-VUID-xgpuCreateInstance-pInstance-parameter", "pInstance is NULL");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  *pInstance = nullptr;
  if (!pCreateInfo) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_UNKNOWN, nullptr, "xgpuCreateInstance",
                          "XGPU-VUID-xgpuCreateInstance-pCreateInfo-parameter", "pCreateInfo is NULL");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  std::unique_ptr<Instance, void (*)(Instance*)> instance(NewRecord<Instance>(pAllocator), DestroyInstanceObject);
  if (!instance) return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  CollectCreateMessengers(pCreateInfo, instance.get());
  if (pCreateInfo->sType != XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO) {
    Log(instance.get(), Level::kError, "XGPU-VUID-xgpuCreateInstance-pCreateInfo-sType",
        "xgpuCreateInstance: pCreateInfo->sType is " + std::to_string(pCreateInfo->sType) +
            ", not XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (pCreateInfo->enabledLayerCount && !pCreateInfo->ppEnabledLayerNames) {
    Log(instance.get(), Level::kError, "XGPU-VUID-xgpuCreateInstance-pCreateInfo-ppEnabledLayerNames-parameter",
        "xgpuCreateInstance: ppEnabledLayerNames is NULL but enabledLayerCount is " +
            std::to_string(pCreateInfo->enabledLayerCount));
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  for (uint32_t i = 0; i < pCreateInfo->enabledLayerCount; ++i) {
    if (!pCreateInfo->ppEnabledLayerNames[i]) {
      Log(instance.get(), Level::kError, "XGPU-VUID-xgpuCreateInstance-pCreateInfo-ppEnabledLayerNames-parameter",
          "xgpuCreateInstance: ppEnabledLayerNames[" + std::to_string(i) + "] is NULL");
      return XGPU_ERROR_INVALID_ARGUMENT;
    }
  }
  if (const XgpuApplicationInfo* app = pCreateInfo->pApplicationInfo) {
    if (app->apiVersion != 0 &&
        (XGPU_API_VERSION_VARIANT(app->apiVersion) != 0 || XGPU_API_VERSION_MAJOR(app->apiVersion) != 1)) {
      Log(instance.get(), Level::kError, "XGPU-VUID-xgpuCreateInstance-pCreateInfo-pApplicationInfo-apiVersion",
          "xgpuCreateInstance: the application asks for API " + VersionString(app->apiVersion) +
              "; this loader implements 1.x (returns XGPU_ERROR_INCOMPATIBLE_DRIVER)");
      return XGPU_ERROR_INCOMPATIBLE_DRIVER;
    }
  }

  XgpuResult result = EnableLayers(instance.get(), pCreateInfo);
  if (result != XGPU_SUCCESS) return result;
  LoadDrivers(instance.get());

  // The chain: application -> layers[0] -> ... -> terminator -> drivers.
  const size_t n = instance->layers.size();
  std::vector<XgpuLayerInstanceLink> links(n);
  for (size_t i = 0; i < n; ++i) {
    links[i].pNext = i + 1 < n ? &links[i + 1] : nullptr;
    links[i].pfnNextGetInstanceProcAddr =
        i + 1 < n ? instance->layers[i + 1]->get_instance_proc_addr : term_GetInstanceProcAddr;
  }
  XgpuLayerInstanceCreateInfo data_callback = {};
  data_callback.sType = XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO;
  data_callback.pNext = pCreateInfo->pNext;
  data_callback.function = XGPU_LOADER_DATA_CALLBACK;
  data_callback.u.pfnSetInstanceLoaderData = SetInstanceLoaderData;
  XgpuLayerInstanceCreateInfo link_info = {};
  link_info.sType = XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO;
  link_info.pNext = &data_callback;
  link_info.function = XGPU_LAYER_LINK_INFO;
  link_info.u.pLayerInfo = n ? links.data() : nullptr;
  XgpuInstanceCreateInfo chained = *pCreateInfo;
  chained.pNext = &link_info;

  instance->top_get_instance_proc_addr = n ? instance->layers[0]->get_instance_proc_addr : term_GetInstanceProcAddr;
  auto top_create = reinterpret_cast<PFN_xgpuCreateInstance>(
      instance->top_get_instance_proc_addr(nullptr, "xgpuCreateInstance"));
  if (!top_create) {
    Log(instance.get(), Level::kError, "XGPU-LOADER-layer-load-failed",
        "layer " + instance->layers[0]->manifest.name + " returns no xgpuCreateInstance");
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  XgpuInstance created = nullptr;
  t_creating_instance = instance.get();
  result = top_create(&chained, pAllocator, &created);
  t_creating_instance = nullptr;
  if (result < 0) {
    Log(instance.get(), Level::kError, "XGPU-LOADER-create-failed",
        "xgpuCreateInstance: the chain returned " + std::to_string(result));
    // Drivers whose instance was created are destroyed by the terminator's
    // state; destroy them here when a layer failed after calling down.
    for (auto& d : instance->drivers) {
      if (d->handle && d->table.DestroyInstance) d->table.DestroyInstance(d->handle, pAllocator);
    }
    return result;
  }
  xgpuInitInstanceDispatchTable(&instance->table, instance->top_get_instance_proc_addr,
                                reinterpret_cast<XgpuInstance>(instance.get()));
  FillUnsupportedInstanceEntries(&instance->table);
  LogChain(instance.get());
  instance->in_create_or_destroy = false;
  RegisterInstance(instance.get());
  *pInstance = reinterpret_cast<XgpuInstance>(instance.release());
  return result;
}

}  // namespace

thread_local Instance* t_creating_instance = nullptr;

}  // namespace xgpu_loader

using namespace xgpu_loader;

XGPU_LOADER_EXPORT XgpuResult XGPU_API_CALL xgpuCreateInstance(const XgpuInstanceCreateInfo* pCreateInfo,
                                                               const XgpuAllocationCallbacks* pAllocator,
                                                               XgpuInstance* pInstance) {
  try {
    return CreateInstance(pCreateInfo, pAllocator, pInstance);
  } catch (const std::bad_alloc&) {
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
}

XGPU_LOADER_EXPORT void XGPU_API_CALL xgpuDestroyInstance(XgpuInstance instance,
                                                          const XgpuAllocationCallbacks* pAllocator) {
  if (!instance) return;
  Instance* inst = InstanceFromHandle(instance);
  UnregisterInstance(inst);
  inst->in_create_or_destroy = true;
  inst->table.DestroyInstance(instance, pAllocator);
  DestroyInstanceObject(inst);
}

XGPU_LOADER_EXPORT XgpuResult XGPU_API_CALL xgpuEnumerateInstanceVersion(uint32_t* pApiVersion) {
  if (!pApiVersion) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_UNKNOWN, nullptr, "xgpuEnumerateInstanceVersion",
                          "XGPU-VUID-xgpuEnumerateInstanceVersion-pApiVersion-parameter", "pApiVersion is NULL");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  *pApiVersion = XGPU_HEADER_VERSION_COMPLETE;
  return XGPU_SUCCESS;
}

XGPU_LOADER_EXPORT XgpuResult XGPU_API_CALL xgpuEnumerateInstanceLayerProperties(uint32_t* pPropertyCount,
                                                                                 XgpuLayerProperties* pProperties) {
  if (!pPropertyCount) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_UNKNOWN, nullptr, "xgpuEnumerateInstanceLayerProperties",
                          "XGPU-VUID-xgpuEnumerateInstanceLayerProperties-pPropertyCount-parameter",
                          "pPropertyCount is NULL");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  try {
    std::vector<LayerManifest> layers = FindLayers(nullptr);
    layers.erase(std::remove_if(layers.begin(), layers.end(),
                                [](const LayerManifest& l) { return !LayerDisabledReason(l).empty(); }),
                 layers.end());
    if (!pProperties) {
      *pPropertyCount = static_cast<uint32_t>(layers.size());
      return XGPU_SUCCESS;
    }
    uint32_t count = std::min<uint32_t>(*pPropertyCount, static_cast<uint32_t>(layers.size()));
    for (uint32_t i = 0; i < count; ++i) {
      XgpuLayerProperties& p = pProperties[i];
      std::memset(&p, 0, sizeof(p));
      std::memcpy(p.layerName, layers[i].name.c_str(), layers[i].name.size());
      std::memcpy(p.description, layers[i].description.c_str(), layers[i].description.size());
      p.specVersion = layers[i].api_version;
      p.implementationVersion = layers[i].implementation_version;
    }
    *pPropertyCount = count;
    return count < layers.size() ? XGPU_INCOMPLETE : XGPU_SUCCESS;
  } catch (const std::bad_alloc&) {
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
}

XGPU_LOADER_EXPORT PFN_xgpuVoidFunction XGPU_API_CALL xgpuGetInstanceProcAddr(XgpuInstance instance,
                                                                             const char* pName) {
  if (!pName) return nullptr;
  if (PFN_xgpuVoidFunction global = LookupGlobal(pName)) return global;
  if (!instance) return nullptr;
  if (PFN_xgpuVoidFunction exported = LookupExported(pName)) return exported;
  // Not an API command: a layer may provide it.
  return InstanceFromHandle(instance)->top_get_instance_proc_addr(instance, pName);
}

XGPU_LOADER_EXPORT XgpuResult XGPU_API_CALL xgpuEnumeratePhysicalDevices(XgpuInstance instance,
                                                                         uint32_t* pPhysicalDeviceCount,
                                                                         XgpuPhysicalDevice* pPhysicalDevices) {
  if (!instance) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_INSTANCE, nullptr, "xgpuEnumeratePhysicalDevices",
                          "XGPU-VUID-xgpuEnumeratePhysicalDevices-instance-parameter", "instance is NULL");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (!pPhysicalDeviceCount) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_INSTANCE, instance, "xgpuEnumeratePhysicalDevices",
                          "XGPU-VUID-xgpuEnumeratePhysicalDevices-pPhysicalDeviceCount-parameter",
                          "pPhysicalDeviceCount is NULL");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  return InstanceDispatch(instance)->EnumeratePhysicalDevices(instance, pPhysicalDeviceCount, pPhysicalDevices);
}

XGPU_LOADER_EXPORT XgpuResult XGPU_API_CALL xgpuCreateDebugMessenger(XgpuInstance instance,
                                                                     const XgpuDebugMessengerCreateInfo* pCreateInfo,
                                                                     const XgpuAllocationCallbacks* pAllocator,
                                                                     XgpuDebugMessenger* pMessenger) {
  if (pMessenger) *pMessenger = XGPU_NULL_HANDLE;
  struct Problem {
    const char* vuid;  // the rule broken
    const char* what;  // what is wrong
  };
  const Problem problem =
      !instance ? Problem{"XGPU-VUID-xgpuCreateDebugMessenger-instance-parameter", "instance is NULL"}
      : !pCreateInfo ? Problem{"XGPU-VUID-xgpuCreateDebugMessenger-pCreateInfo-parameter", "pCreateInfo is NULL"}
      : !pMessenger  ? Problem{"XGPU-VUID-xgpuCreateDebugMessenger-pMessenger-parameter", "pMessenger is NULL"}
      : pCreateInfo->sType != XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO
          ? Problem{"XGPU-VUID-xgpuCreateDebugMessenger-pCreateInfo-sType",
                    "pCreateInfo->sType is not XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO"}
      : !pCreateInfo->pfnUserCallback
          ? Problem{"XGPU-VUID-xgpuCreateDebugMessenger-pCreateInfo-pfnUserCallback-parameter",
                    "pCreateInfo->pfnUserCallback is NULL"}
          : Problem{nullptr, nullptr};
  if (problem.what) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_INSTANCE, instance, "xgpuCreateDebugMessenger", problem.vuid, problem.what);
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  return InstanceDispatch(instance)->CreateDebugMessenger(instance, pCreateInfo, pAllocator, pMessenger);
}

XGPU_LOADER_EXPORT void XGPU_API_CALL xgpuDestroyDebugMessenger(XgpuInstance instance, XgpuDebugMessenger messenger,
                                                                const XgpuAllocationCallbacks* pAllocator) {
  if (!instance) {
    if (messenger)
      ReportInvalidArgument(XGPU_OBJECT_TYPE_INSTANCE, nullptr, "xgpuDestroyDebugMessenger",
                            "XGPU-VUID-xgpuDestroyDebugMessenger-instance-parameter", "instance is NULL");
    return;
  }
  if (!messenger) return;
  InstanceDispatch(instance)->DestroyDebugMessenger(instance, messenger, pAllocator);
}

XGPU_LOADER_EXPORT void XGPU_API_CALL xgpuSubmitDebugMessage(XgpuInstance instance,
                                                             XgpuDebugMessageSeverityFlagBits messageSeverity,
                                                             XgpuDebugMessageTypeFlags messageTypes,
                                                             const XgpuDebugMessageData* pMessageData) {
  if (!instance) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_INSTANCE, nullptr, "xgpuSubmitDebugMessage",
                          "XGPU-VUID-xgpuSubmitDebugMessage-instance-parameter", "instance is NULL");
    return;
  }
  if (!pMessageData) {
    ReportInvalidArgument(XGPU_OBJECT_TYPE_INSTANCE, instance, "xgpuSubmitDebugMessage",
                          "XGPU-VUID-xgpuSubmitDebugMessage-pMessageData-parameter", "pMessageData is NULL");
    return;
  }
  InstanceDispatch(instance)->SubmitDebugMessage(instance, messageSeverity, messageTypes, pMessageData);
}
