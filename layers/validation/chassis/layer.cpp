// The chassis: negotiation with the loader, the layer's proc-addr functions,
// the calls down the chain that are written by hand (chain links, instance
// and device data, messengers, the recording-error state), and the generated
// intercepts (generated/chassis.inc).
#include <cstdio>
#include <cstring>

#include "xgpu/xgpu_layer.h"
#include "entry_guard.h"
#include "layer.h"
#include "object_map.h"
#include "../command_buffer_state/command_buffer_state.h"
#include "../hazards/hazards.h"
#include "../kernels/gpu_assisted.h"
#include "../object_tracker/object_tracker.h"
#include "../pending/pending_work.h"
#include "../recording/recording_validation.h"
#include "../semaphores/semaphore_values.h"
#include "../state/state_tracker.h"
#include "../stateless/stateless_validation.h"
#include "../thread_safety/thread_safety.h"
#include "../values/parameter_values.h"

#define XGPU_VALIDATION_EXPORT extern "C" __attribute__((visibility("default")))

namespace xgpu_validation {
namespace {

// The validation objects, in the order the chassis calls them; the state
// tracker's record hooks run right after the object tracker's
// (spec/gen/vlayer_gen.py, STATE_OBJECT).
StatelessValidation g_stateless;
ObjectTracker g_object_tracker;
StateTracker g_state;
CommandBufferState g_command_buffer_state;
ParameterValues g_parameter_values;
RecordingValidation g_recording;
SyncHazards g_hazards;
PendingWork g_pending;
SemaphoreValues g_semaphores;

enum class TableKind { kGlobal, kInstance, kDevice };
struct InterceptEntry {
  const char* name;              // xgpu<Command>
  PFN_xgpuVoidFunction function; // the intercept
  TableKind table;               // the dispatch table the next element provides it in
};
const InterceptEntry* LookupIntercept(const char* name);

template <typename T>
T* FindLink(const void* next, XgpuStructureType type) {
  struct Base {
    XgpuStructureType sType;
    const Base* pNext;
  };
  for (auto* s = static_cast<const Base*>(next); IsUsablePointer(s); s = s->pNext) {
    auto* info = reinterpret_cast<const T*>(s);
    if (s->sType == type && info->function == XGPU_LAYER_LINK_INFO) return const_cast<T*>(info);
  }
  return nullptr;
}

XgpuResult DownCreateInstance(CallContext& ctx, const XgpuInstanceCreateInfo* pCreateInfo,
                              const XgpuAllocationCallbacks* pAllocator, XgpuInstance* pInstance) {
  // Only a muted rule lets unusable pointers through to here.
  if (!IsUsablePointer(pCreateInfo) || !IsUsablePointer(pInstance)) return XGPU_ERROR_INVALID_ARGUMENT;
  auto* link = FindLink<XgpuLayerInstanceCreateInfo>(pCreateInfo->pNext, XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (link == nullptr || link->u.pLayerInfo == nullptr) {
    std::fputs("xgpu validation: error: xgpuCreateInstance was called without the loader's chain link (the layer "
               "must be loaded by the loader)\n", stderr);
    *pInstance = XGPU_NULL_HANDLE;
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  PFN_xgpuGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;  // the next layer's link
  auto next_create = reinterpret_cast<PFN_xgpuCreateInstance>(next_gipa(nullptr, "xgpuCreateInstance"));
  if (next_create == nullptr) {
    *pInstance = XGPU_NULL_HANDLE;
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  // The settings structure is read by the layer alone, so its rules are checked here.
  if (ValidateValidationSettings(ctx, pCreateInfo)) {
    *pInstance = XGPU_NULL_HANDLE;
    return ctx.Failure();
  }
  auto instance = std::make_unique<LayerInstance>();
  instance->settings = Settings::Resolve(FindValidationSettings(pCreateInfo->pNext));
  if (instance->settings.sync_hazards) g_sync_hazards_seen.store(true, std::memory_order_relaxed);
  instance->counts = std::make_unique<std::atomic<uint32_t>[]>(kVuidCount);
  XgpuResult result = next_create(pCreateInfo, pAllocator, pInstance);
  if (result < 0) return result;
  instance->handle = *pInstance;
  instance->next_get_instance_proc_addr = next_gipa;
  xgpuInitInstanceDispatchTable(&instance->next, next_gipa, *pInstance);
  // A messenger chained to the create info hears creation and destruction only (api.md 4).
  struct Base {
    XgpuStructureType sType;
    const Base* pNext;
  };
  for (auto* s = static_cast<const Base*>(pCreateInfo->pNext); IsUsablePointer(s); s = s->pNext) {
    if (s->sType != XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO) continue;
    auto* info = reinterpret_cast<const XgpuDebugMessengerCreateInfo*>(s);
    instance->chained_messengers.push_back(
        {XGPU_NULL_HANDLE, info->messageSeverity, info->messageType, info->pfnUserCallback, info->pUserData});
  }
  // The settings in force, as an INFO message to the messengers that hear creation.
  const std::string settings_text = "xgpu validation: " + SettingsText(instance->settings);
  XgpuDebugMessageData settings_message = {};
  settings_message.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA;
  settings_message.pMessageIdName = kSettingsMessageId;
  settings_message.messageIdNumber = MessageIdNumber(kSettingsMessageId);
  settings_message.pMessage = settings_text.c_str();
  for (const MessengerInfo& m : instance->chained_messengers) {
    if ((m.severities & XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT) && (m.types & XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT) &&
        m.callback != nullptr) {
      m.callback(XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT, XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT, &settings_message,
                 m.user_data);
    }
  }
  ctx.creation->new_instance = instance.get();
  ctx.instance = instance.get();
  AddLiveInstance(instance.release());
  return result;
}

void DownDestroyInstance(CallContext& ctx, XgpuInstance instance, const XgpuAllocationCallbacks* pAllocator) {
  LayerInstance* data = ctx.instance;
  if (data == nullptr) return;
  data->next.DestroyInstance(instance, ctx.creation->destroy_with_creation_allocator ? ctx.creation->creation_allocator : pAllocator);
  RemoveLiveInstance(data);
  delete data;
}

PFN_xgpuVoidFunction DownGetInstanceProcAddr(CallContext& ctx, XgpuInstance instance, const char* pName) {
  if (pName == nullptr) return nullptr;
  const InterceptEntry* entry = LookupIntercept(pName);
  LayerInstance* data = ctx.instance;
  if (entry != nullptr) {
    // Offered when the element below provides the command (or, without an
    // instance, always: layers above ask GetInstanceProcAddr(NULL, ...)).
    if (data == nullptr || entry->table == TableKind::kGlobal) return entry->function;
    return data->next_get_instance_proc_addr(instance, pName) != nullptr ? entry->function : nullptr;
  }
  return data != nullptr ? data->next_get_instance_proc_addr(instance, pName) : nullptr;
}

// DownCreateDevice's part after the call down: the LayerDevice (set as
// ctx.creation->new_device) and the object tracker's records of the device and its
// queues. Throws std::bad_alloc, having kept nothing.
void DownCreateDeviceRecords(CallContext& ctx, XgpuPhysicalDevice physicalDevice,
                             const XgpuDeviceCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator,
                             XgpuDevice* pDevice, PFN_xgpuGetDeviceProcAddr next_gdpa);

XgpuResult DownCreateDevice(CallContext& ctx, XgpuPhysicalDevice physicalDevice,
                            const XgpuDeviceCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator,
                            XgpuDevice* pDevice) {
  if (!IsUsablePointer(pCreateInfo) || !IsUsablePointer(pDevice)) return XGPU_ERROR_INVALID_ARGUMENT;
  auto* link = FindLink<XgpuLayerDeviceCreateInfo>(pCreateInfo->pNext, XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (link == nullptr || link->u.pLayerInfo == nullptr || ctx.instance == nullptr) {
    std::fputs("xgpu validation: error: xgpuCreateDevice was called without the loader's chain link (the layer "
               "must be loaded by the loader)\n", stderr);
    *pDevice = XGPU_NULL_HANDLE;
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  PFN_xgpuGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_xgpuGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto next_create = reinterpret_cast<PFN_xgpuCreateDevice>(next_gipa(ctx.instance->handle, "xgpuCreateDevice"));
  if (next_create == nullptr) {
    *pDevice = XGPU_NULL_HANDLE;
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  XgpuResult result = next_create(physicalDevice, pCreateInfo, pAllocator, pDevice);
  if (result < 0) return result;
  // The layer's records of the device and its queues: without host memory
  // for them the device is destroyed again and the creation fails (a queue
  // without a record would be refused as an unknown handle later).
  try {
    DownCreateDeviceRecords(ctx, physicalDevice, pCreateInfo, pAllocator, pDevice, next_gdpa);
  } catch (const std::bad_alloc&) {
    if (auto destroy = reinterpret_cast<PFN_xgpuDestroyDevice>(next_gdpa(*pDevice, "xgpuDestroyDevice")))
      destroy(*pDevice, pAllocator);
    *pDevice = XGPU_NULL_HANDLE;
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
  return result;
}

void DownCreateDeviceRecords(CallContext& ctx, XgpuPhysicalDevice physicalDevice,
                             const XgpuDeviceCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator,
                             XgpuDevice* pDevice, PFN_xgpuGetDeviceProcAddr next_gdpa) {
  auto device = std::make_unique<LayerDevice>();
  device->handle = *pDevice;
  device->instance = ctx.instance;
  device->next_get_device_proc_addr = next_gdpa;
  xgpuInitDeviceDispatchTable(&device->next, next_gdpa, *pDevice);
  // What the value, limit and capability rules compare against.
  device->physical_device = physicalDevice;
  const XgpuInstanceDispatchTable& table = ctx.instance->next;
  table.GetPhysicalDeviceProperties(physicalDevice, &device->properties);
  table.GetPhysicalDeviceMemoryProperties(physicalDevice, &device->memory);
  uint32_t family_count = 0;
  table.GetPhysicalDeviceQueueFamilyProperties(physicalDevice, &family_count, nullptr);
  device->families.resize(family_count);
  table.GetPhysicalDeviceQueueFamilyProperties(physicalDevice, &family_count, device->families.data());
  device->families.resize(family_count);
  device->queue_counts.assign(family_count, 0);
  for (uint32_t i = 0; i < pCreateInfo->queueCreateInfoCount; ++i) {
    const XgpuDeviceQueueCreateInfo& queue = pCreateInfo->pQueueCreateInfos[i];
    if (queue.queueFamilyIndex < family_count) device->queue_counts[queue.queueFamilyIndex] = queue.queueCount;
  }
  ctx.creation->new_device = device.get();
  try {
    StateTracker::TrackCreatedDevice(ctx, *pDevice, pAllocator);
  } catch (const std::bad_alloc&) {
    ctx.creation->new_device = nullptr;
    throw;
  }
  device.release();
}

void DownDestroyDevice(CallContext& ctx, XgpuDevice device, const XgpuAllocationCallbacks* pAllocator) {
  LayerDevice* data = ctx.device;
  if (data == nullptr) return;
  data->next.DestroyDevice(device, ctx.creation->destroy_with_creation_allocator ? ctx.creation->creation_allocator : pAllocator);
  delete data;
}

PFN_xgpuVoidFunction DownGetDeviceProcAddr(CallContext& ctx, XgpuDevice device, const char* pName) {
  LayerDevice* data = ctx.device;
  if (pName == nullptr || data == nullptr) return nullptr;
  if (const InterceptEntry* entry = LookupIntercept(pName)) {
    if (entry->table != TableKind::kDevice) return nullptr;  // not a device-level command
    return xgpuLookupDeviceDispatchTable(&data->next, pName) != nullptr ? entry->function : nullptr;
  }
  return data->next_get_device_proc_addr(device, pName);
}

XgpuResult DownCreateDebugMessenger(CallContext& ctx, XgpuInstance instance,
                                    const XgpuDebugMessengerCreateInfo* pCreateInfo,
                                    const XgpuAllocationCallbacks* pAllocator, XgpuDebugMessenger* pMessenger) {
  if (ctx.instance == nullptr) return ctx.Failure();
  XgpuResult result = ctx.InstanceTable().CreateDebugMessenger(instance, pCreateInfo, pAllocator, pMessenger);
  if (result < 0 || !IsUsablePointer(pCreateInfo) || !IsUsablePointer(pMessenger)) return result;
  std::lock_guard lock(ctx.instance->messenger_mutex);
  ctx.instance->messengers.push_back({*pMessenger, pCreateInfo->messageSeverity, pCreateInfo->messageType,
                                      pCreateInfo->pfnUserCallback, pCreateInfo->pUserData});
  return result;
}

void DownDestroyDebugMessenger(CallContext& ctx, XgpuInstance instance, XgpuDebugMessenger messenger,
                               const XgpuAllocationCallbacks* pAllocator) {
  if (ctx.instance == nullptr) return;
  {
    // Before the call down: once it returns, the callback is not called again (api.md 14).
    std::lock_guard lock(ctx.instance->messenger_mutex);
    auto& list = ctx.instance->messengers;
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (messenger != XGPU_NULL_HANDLE && it->handle == messenger) {
        list.erase(it);
        break;
      }
    }
  }
  ctx.InstanceTable().DestroyDebugMessenger(instance, messenger, pAllocator);
}

XgpuResult DownBeginCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                  const XgpuCommandBufferBeginInfo* pBeginInfo) {
  if (!ctx.CanCallDown()) return ctx.Failure();
  XgpuResult result = ctx.DeviceTable().BeginCommandBuffer(commandBuffer, pBeginInfo);
  // A new recording starts without recording errors.
  if (result >= 0) ctx.dispatch_record->recording_error.store(0, std::memory_order_relaxed);
  return result;
}

XgpuResult DownEndCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer) {
  if (!ctx.CanCallDown()) return ctx.Failure();
  // A recording command that failed a check recorded nothing: the recording
  // is incomplete, so it never reaches the driver's end (api.md 1.5). The
  // error stays until the next begin.
  if (int32_t error = ctx.dispatch_record->recording_error.load(std::memory_order_relaxed); error != 0) {
    return static_cast<XgpuResult>(error);
  }
  return ctx.DeviceTable().EndCommandBuffer(commandBuffer);
}

#include "../generated/chassis.inc"

const InterceptEntry* LookupIntercept(const char* name) {
  size_t lo = 0;
  size_t hi = sizeof(kIntercepts) / sizeof(kIntercepts[0]);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = std::strcmp(name, kIntercepts[mid].name);
    if (c == 0) return &kIntercepts[mid];
    if (c < 0) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return nullptr;
}

}  // namespace

void NoteRecordingException(XgpuCommandBuffer command_buffer) noexcept {
  ObjectRecord* record = nullptr;
  try {
    record = Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, uint64_t(reinterpret_cast<uintptr_t>(command_buffer)));
  } catch (const std::exception&) {
    return;
  }
  if (record == nullptr) return;
  int32_t expected = 0;
  record->recording_error.compare_exchange_strong(expected, XGPU_ERROR_OUT_OF_HOST_MEMORY, std::memory_order_relaxed);
}

bool DrainDevice(LayerDevice& device) {
  if (device.drain_done) return device.drained_idle;
  device.drain_done = true;
  const XgpuDeviceDispatchTable& next = device.next;
  auto wait_idle = [&] { return next.DeviceWaitIdle == nullptr || next.DeviceWaitIdle(device.handle) != XGPU_TIMEOUT; };
  if (next.GetDeviceQueue == nullptr || next.CreateSemaphore == nullptr || next.QueueSubmit == nullptr ||
      next.WaitSemaphores == nullptr || next.DestroySemaphore == nullptr) {
    device.drained_idle = wait_idle();
    return device.drained_idle;
  }
  std::vector<XgpuSemaphore> markers;
  bool lost = false, refused = false;
  for (uint32_t family = 0; family < device.queue_counts.size() && !lost; ++family) {
    for (uint32_t index = 0; index < device.queue_counts[family] && !lost; ++index) {
      XgpuQueue queue = nullptr;
      next.GetDeviceQueue(device.handle, family, index, &queue);
      if (queue == nullptr) continue;
      XgpuSemaphoreCreateInfo info = {};
      info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
      XgpuSemaphore marker = nullptr;
      XgpuResult result = next.CreateSemaphore(device.handle, &info, nullptr, &marker);
      if (result == XGPU_SUCCESS) {
        const uint64_t one = 1;
        XgpuSubmitInfo submit = {};
        submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
        submit.signalSemaphores = {1, &marker, &one};
        result = next.QueueSubmit(queue, 1, &submit);
        if (result == XGPU_SUCCESS) {
          markers.push_back(marker);
          continue;
        }
        next.DestroySemaphore(device.handle, marker, nullptr);
      }
      lost = result == XGPU_ERROR_DEVICE_LOST;
      refused = !lost;
    }
  }
  if (!lost && !markers.empty()) {
    const std::vector<uint64_t> ones(markers.size(), 1);
    XgpuSemaphoreWaitInfo wait = {};
    wait.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    wait.semaphoreCount = uint32_t(markers.size());
    wait.pSemaphores = markers.data();
    wait.pValues = ones.data();
    const XgpuResult result = next.WaitSemaphores(device.handle, &wait, kDestroyDrainNs);
    lost = result == XGPU_ERROR_DEVICE_LOST;
    device.drained_idle = result == XGPU_SUCCESS && !refused;
  }
  // (A marker still pending lives on in the driver until its submission ends.)
  for (XgpuSemaphore marker : markers) next.DestroySemaphore(device.handle, marker, nullptr);
  // Lost: what had not run was failed, what runs on its other queues ends.
  if (lost) device.drained_idle = wait_idle();
  return device.drained_idle;
}

}  // namespace xgpu_validation

XGPU_VALIDATION_EXPORT XgpuResult xgpuNegotiateLoaderLayerInterfaceVersion(XgpuNegotiateLayerInterface* pVersionStruct) {
  if (pVersionStruct == nullptr || pVersionStruct->loaderLayerInterfaceVersion < XGPU_MIN_LOADER_LAYER_INTERFACE_VERSION) {
    return XGPU_ERROR_INCOMPATIBLE_DRIVER;
  }
  pVersionStruct->loaderLayerInterfaceVersion = XGPU_CURRENT_LOADER_LAYER_INTERFACE_VERSION;
  pVersionStruct->pfnGetInstanceProcAddr = xgpu_validation::InterceptGetInstanceProcAddr;
  pVersionStruct->pfnGetDeviceProcAddr = xgpu_validation::InterceptGetDeviceProcAddr;
  return XGPU_SUCCESS;
}
