#include "device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <new>

#include "common.h"
#include "executable.h"
#include "host_memory.h"
#include "memory_pool.h"
#include "queue.h"
#include "trace.h"
#include "generated/vuid_ids.h"

namespace xgpu::amdgpu {

// --- seam: runtime -> commands ---------------------------------------------

const HsaApi& device_hsa(const Device* device) { return *device->hsa; }
hsa_agent_t device_agent(const Device* device) { return device->agent; }
const XgpuPhysicalDeviceLimits& device_limits(const Device* device) {
  return device->physical->properties.limits;
}
const DeviceLibrary* device_library(const Device* device) { return device->library; }
Device* device_from_handle(XgpuDevice device) { return reinterpret_cast<Device*>(device); }
BufferInfo* buffer_info(XgpuBuffer buffer) { return from_handle<Buffer>(buffer); }

void device_report(const Device* device, XgpuDebugMessageSeverityFlagBits severity, const char* id,
                   const std::string& message, std::initializer_list<ReportObject> objects) {
  if (!device) {
    instance_report(nullptr, severity, id, message);
    return;
  }
  DeviceReporter(device, objects).report(severity, id, message);
}

DeviceReporter::DeviceReporter(const Device* device, std::initializer_list<ReportObject> objects) : device_(device) {
  names_.reserve(objects.size() + 1);
  infos_.reserve(objects.size() + 1);
  auto add = [&](XgpuObjectType type, uint64_t handle) {
    names_.push_back(device_object_name(device, handle));
    infos_.push_back(XgpuDebugObjectInfo{type, handle, nullptr});
  };
  add(XGPU_OBJECT_TYPE_DEVICE, uint64_t(reinterpret_cast<uintptr_t>(device)));
  for (const ReportObject& object : objects)
    if (object.handle) add(object.type, object.handle);
  for (size_t i = 0; i < infos_.size(); ++i) infos_[i].pObjectName = names_[i].empty() ? nullptr : names_[i].c_str();
}

void DeviceReporter::report(XgpuDebugMessageSeverityFlagBits severity, const char* id,
                            const std::string& message) const {
  instance_report(device_->instance, severity, id, message, infos_.data(), uint32_t(infos_.size()));
}

std::string device_object_name(const Device* device, uint64_t handle) {
  std::lock_guard<std::mutex> lock(device->names_mutex);
  auto it = device->object_names.find(handle);
  return it == device->object_names.end() ? std::string() : it->second;
}

void device_forget_object_name(const Device* device, uint64_t handle) {
  std::lock_guard<std::mutex> lock(device->names_mutex);
  device->object_names.erase(handle);
}

void device_track_handle(const Device* device, const void* handle) {
  std::lock_guard<std::mutex> lock(device->live_mutex);
  device->live_handles.insert(handle);
}

bool device_release_handle(const Device* device, const void* handle, const char* vuid, const char* where,
                           bool keep_name) {
  bool live = false;
  {
    std::lock_guard<std::mutex> lock(device->live_mutex);
    live = device->live_handles.erase(handle) != 0;
  }
  if (live) {
    if (!keep_name) device_forget_object_name(device, uint64_t(reinterpret_cast<uintptr_t>(handle)));
    return true;
  }
  char value[32];
  std::snprintf(value, sizeof(value), "%p", handle);
  device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, vuid,
                std::string(where) + " (" + value +
                    ") is not a live object of this device: it was destroyed already or never created from it; "
                    "nothing was destroyed");
  return false;
}
bool device_handle_live(const Device* device, const void* handle, const char* vuid, const char* where) {
  {
    std::lock_guard<std::mutex> lock(device->live_mutex);
    if (device->live_handles.count(handle) != 0) return true;
  }
  char value[32];
  std::snprintf(value, sizeof(value), "%p", handle);
  device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, vuid,
                std::string(where) + " (" + value +
                    ") is not a live object of this device: it was destroyed (or deallocated) already or never "
                    "created from it");
  return false;
}
bool device_is_lost(const Device* device) { return device && device->lost.load(); }
XgpuMemoryPropertyFlags buffer_memory_properties(const BufferInfo* info, uint32_t* out_memory_type) {
  const auto* buffer = static_cast<const Buffer*>(info);
  *out_memory_type = buffer->memory_type;
  return buffer->device->physical->memory_types[buffer->memory_type].flags;
}

XgpuResult device_fail(const Device* device, XgpuResult result, const char* id, const std::string& message) {
  device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, id, message + " (" + result_name(result) + ")");
  return result;
}

XgpuResult device_fail_lost(const Device* device, const char* function) {
  return device_fail(device, XGPU_ERROR_DEVICE_LOST, msgid::kCallOnLostDevice,
                     std::string(function) + ": the device is lost");
}

XgpuResult device_allocate_from_type(Device* device, uint32_t memory_type, uint64_t size,
                                     void** out_ptr, std::string* out_error) {
  const MemoryTypeInfo& type = device->physical->memory_types[memory_type];
  const HsaApi& hsa = *device->hsa;
  *out_ptr = nullptr;
  XgpuResult result = hsa.hsa_amd_memory_pool_allocate_checked(out_error, type.pool, size, 0u, out_ptr);
  if (result != XGPU_SUCCESS) {
    if (out_error) *out_error += " (" + std::to_string(size) + " bytes from memory type " +
                                 std::to_string(memory_type) + ")";
    return result == XGPU_ERROR_INVALID_ARGUMENT ? XGPU_ERROR_OUT_OF_DEVICE_MEMORY : result;
  }
  if (type.needs_access_grant && hsa.hsa_amd_agents_allow_access) {
    result = hsa.hsa_amd_agents_allow_access_checked(out_error, 1u, &device->agent, nullptr,
                                                     static_cast<const void*>(*out_ptr));
    if (result != XGPU_SUCCESS) {
      hsa.hsa_amd_memory_pool_free(*out_ptr);
      *out_ptr = nullptr;
      return result;
    }
  }
  return XGPU_SUCCESS;
}

XgpuResult device_allocate(Device* device, MemoryKind kind, uint64_t size, void** out_ptr) {
  int type = -1;
  switch (kind) {
    case MemoryKind::kKernarg: type = device->physical->kernarg_type; break;
    case MemoryKind::kDeviceLocal: type = device->physical->device_local_type; break;
    case MemoryKind::kHostCoherent: type = device->physical->host_coherent_type; break;
  }
  if (type < 0) {
    *out_ptr = nullptr;
    return device_fail(device, XGPU_ERROR_OUT_OF_DEVICE_MEMORY, msgid::kOutOfDeviceMemory,
                       "device_allocate: the agent has no memory pool of the requested kind");
  }
  std::string error;
  XgpuResult result = device_allocate_from_type(device, uint32_t(type), size, out_ptr, &error);
  if (result != XGPU_SUCCESS) return device_fail(device, result, msgid::failure(result), "device_allocate: " + error);
  return XGPU_SUCCESS;
}

void device_free(Device* device, void* ptr) {
  if (!ptr) return;
  std::string error;
  if (device->hsa->hsa_amd_memory_pool_free_checked(&error, ptr) != XGPU_SUCCESS)
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kHsaCallFailed,
                  "freeing device memory failed (the memory may stay reserved): " + error);
}

// --- completion signals --------------------------------------------------

XgpuResult device_acquire_completion_signal(Device* device, CompletionSignal** out_signal,
                                            std::string* out_error) {
  CompletionSignal* signal = nullptr;
  {
    std::lock_guard<std::mutex> lock(device->signal_mutex);
    if (!device->free_signals.empty()) {
      signal = device->free_signals.back();
      device->free_signals.pop_back();
    }
  }
  if (!signal) {
    // Host memory running out is a result here, not an exception: the
    // caller fails the submission it was issuing (an exception would leave
    // it accepted and never retired).
    std::unique_ptr<CompletionSignal> fresh(new (std::nothrow) CompletionSignal());
    if (!fresh) {
      *out_error = "out of host memory for a completion signal";
      return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    XgpuResult result = device->hsa->hsa_signal_create_checked(out_error, hsa_signal_value_t(1), 0u,
                                                               nullptr, &fresh->signal);
    if (result != XGPU_SUCCESS) return result;
    bool listed = false;
    {
      std::lock_guard<std::mutex> lock(device->signal_mutex);
      try {
        device->all_signals.push_back(fresh.get());
        listed = true;
      } catch (const std::bad_alloc&) {
      }
    }
    if (!listed) {
      device->hsa->hsa_signal_destroy(fresh->signal);
      *out_error = "out of host memory for a completion signal";
      return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    signal = fresh.release();
  }
  // Optional entry point: a release store is as good (only slower).
  if (device->hsa->hsa_signal_store_relaxed)
    device->hsa->hsa_signal_store_relaxed(signal->signal, 1);
  else
    device->hsa->hsa_signal_store_screlease(signal->signal, 1);
  signal->refs.store(1, std::memory_order_relaxed);
  *out_signal = signal;
  return XGPU_SUCCESS;
}

void completion_signal_retain(CompletionSignal* signal) {
  signal->refs.fetch_add(1, std::memory_order_relaxed);
}

void completion_signal_release(Device* device, CompletionSignal* signal) {
  if (signal->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // A lost device's packets may still decrement the signal later: never reuse it.
  if (device->lost) return;
  std::lock_guard<std::mutex> lock(device->signal_mutex);
  device->free_signals.push_back(signal);
}

// --- lost ------------------------------------------------------------------

void device_mark_lost(Device* device, const std::string& reason, std::initializer_list<ReportObject> objects) {
  bool expected = false;
  if (!device->lost_claimed.compare_exchange_strong(expected, true)) return;
  // Report before anything can observe the loss (a failed semaphore, a call
  // returning XGPU_ERROR_DEVICE_LOST), so the message is there when it is
  // seen. Without host memory for it, the device is lost all the same.
  try {
    fault_note_loss(device, reason);
    trace_device_lost(device, reason.c_str());
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kDeviceLost,
                  "device lost: " + reason + " (every later call returns XGPU_ERROR_DEVICE_LOST)", objects);
  } catch (const std::exception&) {
  }
  device->lost.store(true);
  for (auto& queue : device->queues) queue_fail_all(queue.get(), XGPU_ERROR_DEVICE_LOST);
  wake_held_submissions();
}

// --- watchdog --------------------------------------------------------------

// XGPU_AMDGPU_WATCHDOG_MS: unset = kDefaultWatchdogMs, 0 = off, else ms.
uint64_t watchdog_setting(const Device* device) {
  const char* text = std::getenv("XGPU_AMDGPU_WATCHDOG_MS");
  if (!text || !*text) return kDefaultWatchdogMs;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0') {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kUnsupported,
                  std::string("XGPU_AMDGPU_WATCHDOG_MS=\"") + text +
                      "\" is not a number of milliseconds: the watchdog keeps its default " +
                      std::to_string(kDefaultWatchdogMs) + " ms");
    return kDefaultWatchdogMs;
  }
  return value;
}

// A thread that cannot start (no memory for its stack, a thread limit) fails
// the device's creation with XGPU_ERROR_OUT_OF_HOST_MEMORY.
XgpuResult start_watchdog(Device* device) {
  device->watchdog_ms = watchdog_setting(device);
  if (device->watchdog_ms == 0) return XGPU_SUCCESS;
  const uint64_t period_ms = std::clamp<uint64_t>(device->watchdog_ms / 4, 5, 1000);
  try {
    device->watchdog = std::thread([device, period_ms] {
    std::unique_lock<std::mutex> lock(device->watchdog_mutex);
    while (!device->watchdog_stop) {
      device->watchdog_wake.wait_for(lock, std::chrono::milliseconds(period_ms));
      if (device->watchdog_stop || device->lost.load()) continue;
      lock.unlock();
      for (auto& queue : device->queues) {
        // The safety net of on-demand completion handlers (queue.cpp): work
        // in flight at a tick is retired by a handler even when no host
        // thread ever waits for it.
        queue_watch_inflight(queue.get());
        std::string reason;
        if (!queue_watchdog_expired(queue.get(), device->watchdog_ms, &reason)) continue;
        // The hung operation is abandoned: the runtime stops the queue (and
        // a CPU runtime the kernel running on it), so nothing of it keeps
        // running into xgpuDestroyDevice or the runtime's shutdown.
        if (device->hsa->hsa_queue_inactivate) device->hsa->hsa_queue_inactivate(queue->aql);
        device_mark_lost(device, reason, {{XGPU_OBJECT_TYPE_QUEUE, uint64_t(reinterpret_cast<uintptr_t>(queue.get()))}});
        break;
      }
      lock.lock();
    }
  });
  } catch (const std::exception& e) {  // std::system_error, or std::bad_alloc for the thread's state
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kOutOfHostMemory,
                  std::string("xgpuCreateDevice: starting the watchdog thread failed (") + e.what() +
                      "): XGPU_ERROR_OUT_OF_HOST_MEMORY");
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
  return XGPU_SUCCESS;
}

void stop_watchdog(Device* device) {
  if (!device->watchdog.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(device->watchdog_mutex);
    device->watchdog_stop = true;
  }
  device->watchdog_wake.notify_all();
  device->watchdog.join();
}

// --- device ----------------------------------------------------------------

XgpuResult device_create(XgpuPhysicalDevice physical_handle, const XgpuDeviceCreateInfo* info,
                         const XgpuAllocationCallbacks* allocator, XgpuDevice* out_device) {
  auto* physical = reinterpret_cast<PhysicalDevice*>(physical_handle);
  if (!physical || !info || !out_device) return XGPU_ERROR_INVALID_ARGUMENT;
  *out_device = nullptr;
  HostPtr<Device> device(host_new<Device>(allocator));
  if (!device) return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  xgpuSetLoaderMagicValue(device.get());
  device->physical = physical;
  device->instance = physical->instance;
  device->runtime = physical->instance->runtime;
  device->hsa = &device->runtime->hsa;
  device->agent = physical->agent;

  if (info->printBufferSize != 0 &&
      (info->printBufferSize < XGPU_MIN_PRINT_BUFFER_SIZE || info->printBufferSize > XGPU_MAX_PRINT_BUFFER_SIZE ||
       info->printBufferSize % 8 != 0))
    return device_fail(device.get(), XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreateDevice_pCreateInfo_printBufferSize,
                       "xgpuCreateDevice: pCreateInfo->printBufferSize " + std::to_string(info->printBufferSize) +
                           " is not 0 or a multiple of 8 from XGPU_MIN_PRINT_BUFFER_SIZE (4096) to "
                           "XGPU_MAX_PRINT_BUFFER_SIZE (1073741824)");
  device->print_buffer_size = info->printBufferSize ? info->printBufferSize : kDefaultPrintBufferSize;

  uint32_t queue_count = 0;
  for (uint32_t i = 0; i < info->queueCreateInfoCount; ++i) {
    const XgpuDeviceQueueCreateInfo& q = info->pQueueCreateInfos[i];
    if (q.queueFamilyIndex >= kQueueFamilyCount)
      return device_fail(device.get(), XGPU_ERROR_INVALID_ARGUMENT,
                         vuid::xgpuCreateDevice_pCreateInfo_pQueueCreateInfos_queueFamilyIndex,
                         "xgpuCreateDevice: pCreateInfo->pQueueCreateInfos[" + std::to_string(i) +
                             "].queueFamilyIndex " + std::to_string(q.queueFamilyIndex) +
                             " is not a family (the device has " + std::to_string(kQueueFamilyCount) + ")");
    if (q.queueCount == 0 || q.queueCount > kQueuesPerFamily)
      return device_fail(device.get(), XGPU_ERROR_INVALID_ARGUMENT,
                         vuid::xgpuCreateDevice_pCreateInfo_pQueueCreateInfos_queueCount,
                         "xgpuCreateDevice: pCreateInfo->pQueueCreateInfos[" + std::to_string(i) + "].queueCount " +
                             std::to_string(q.queueCount) + " is not in [1, the family's queueCount " +
                             std::to_string(kQueuesPerFamily) + "]");
    queue_count = std::max(queue_count, q.queueCount);
    device->queue_families |= 1u << q.queueFamilyIndex;
  }

  for (uint32_t t = 0; t < physical->memory_types.size(); ++t) {
    Device* d = device.get();
    device->allocators.push_back(std::make_unique<BlockAllocator>(
        [d, t](uint64_t size, void** out_ptr, std::string* out_error) {
          return device_allocate_from_type(d, t, size, out_ptr, out_error);
        },
        [d](void* ptr) { device_free(d, ptr); }));
  }

  for (uint32_t i = 0; i < queue_count; ++i) {
    Queue* queue = nullptr;
    std::string error;
    XgpuResult result = queue_create(device.get(), i, &queue, &error);
    if (result != XGPU_SUCCESS) {
      device_destroy(reinterpret_cast<XgpuDevice>(device.release()), nullptr);
      instance_report(physical->instance, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::failure(result),
                      "xgpuCreateDevice: queue " + std::to_string(i) + ": " + error);
      return result;
    }
    device->queues.emplace_back(queue);
  }

  {
    const char* eager = std::getenv("XGPU_AMDGPU_EAGER_COMPLETION");
    device->lazy_completion = device->hsa->hsa_signal_load_scacquire && device->hsa->hsa_amd_signal_wait_any &&
                              !(eager && std::strcmp(eager, "1") == 0);
  }
  // Memory-fault events of the agent reach this device's reports (without
  // host memory for the entry, a fault is reported without its address).
  try {
    fault_register_device(device.get());
  } catch (const std::bad_alloc&) {
  }
  XgpuResult result = device_library_load(device.get(), &device->library);
  if (result == XGPU_SUCCESS) {
    result = start_watchdog(device.get());
    if (result != XGPU_SUCCESS) {
      device_destroy(reinterpret_cast<XgpuDevice>(device.release()), nullptr);
      return result;
    }
  }
  if (result != XGPU_SUCCESS) {
    device_report(device.get(), XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kDeviceLibrary,
                  std::string("xgpuCreateDevice: loading the device library failed (") +
                      result_name(result) + ")");
    device->library = nullptr;
    device_destroy(reinterpret_cast<XgpuDevice>(device.release()), nullptr);
    return result;
  }
  *out_device = reinterpret_cast<XgpuDevice>(device.release());
  return XGPU_SUCCESS;
}

void device_destroy(XgpuDevice handle, const XgpuAllocationCallbacks* allocator) {
  Device* device = device_from_handle(handle);
  if (!device) return;
  stop_watchdog(device);
  // Finish (or, when lost, fail) everything, bounded: work that does not
  // finish within kDestroyDrainMs (a hung kernel) is abandoned - the device
  // is lost and what that work uses is leaked rather than freed under it.
  constexpr uint64_t kNsPerMs = 1'000'000;
  for (auto& queue : device->queues) {
    if (queue_wait_idle_internal(queue.get(), kDestroyDrainMs * kNsPerMs) == XGPU_SUCCESS) continue;
    size_t held = 0;
    {
      std::lock_guard<std::mutex> lock(queue->mutex);
      held = queue->pending.size();
    }
    if (held != 0 && !device->lost.load())
      device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kHeldSubmissions,
                    "xgpuDestroyDevice: queue " + std::to_string(queue->index) + " still holds " + std::to_string(held) +
                        " operation(s) after " + std::to_string(kDestroyDrainMs) +
                        " ms, waiting for semaphore payloads never signalled: they are dropped (not run; their "
                        "signal semaphores fail with XGPU_ERROR_DEVICE_LOST)",
                    {{XGPU_OBJECT_TYPE_QUEUE, uint64_t(reinterpret_cast<uintptr_t>(queue.get()))}});
    if (!queue->broken && !queue->errored && queue_hsa_busy(queue.get())) {
      queue->broken = true;
      if (device->hsa->hsa_queue_inactivate) device->hsa->hsa_queue_inactivate(queue->aql);
      device_mark_lost(device,
                       "xgpuDestroyDevice: queue " + std::to_string(queue->index) + " still runs work after " +
                           std::to_string(kDestroyDrainMs) + " ms: it is abandoned",
                       {{XGPU_OBJECT_TYPE_QUEUE, uint64_t(reinterpret_cast<uintptr_t>(queue.get()))}});
    }
    queue_fail_all(queue.get(), XGPU_ERROR_DEVICE_LOST);
    queue_wait_idle_internal(queue.get(), kDestroyDrainMs * kNsPerMs);
  }
  for (auto& queue : device->queues) queue_destroy(queue.get());
  bool abandoned = false;
  for (auto& queue : device->queues) abandoned = abandoned || queue->abandoned;
  if (abandoned) {
    // A dispatch still runs: its queue, packets (completion signals), code
    // (builtin kernels), memory and the device object its callbacks name
    // stay as they are (leaked; queue_destroy reported it).
    return;
  }
  if (device->library) device_library_destroy(device, device->library);
  device->library = nullptr;
  device->queues.clear();
  trace_device_destroyed(device);
  // The runtime's async-handler thread may still be returning from the last
  // completion callbacks; let it finish before the signals go away.
  if (device->hsa->hsa_amd_async_function) {
    std::promise<void> flushed;
    auto future = flushed.get_future();
    if (device->hsa->hsa_amd_async_function(
            [](void* arg) { static_cast<std::promise<void>*>(arg)->set_value(); }, &flushed) ==
        HSA_STATUS_SUCCESS) {
      future.wait_for(std::chrono::seconds(5));
    }
  }
  for (CompletionSignal* signal : device->all_signals) {
    std::string error;
    if (device->hsa->hsa_signal_destroy_checked(&error, signal->signal) != XGPU_SUCCESS)
      device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kHsaCallFailed,
                    "xgpuDestroyDevice: destroying a completion signal failed: " + error);
    delete signal;
  }
  device->all_signals.clear();
  device->free_signals.clear();
  device->allocators.clear();
  fault_unregister_device(device);
  host_delete_handle(device);
}

bool device_has_queue_family(const Device* device, uint32_t family) {
  return family < kQueueFamilyCount && (device->queue_families & (1u << family)) != 0;
}

void device_get_queue(XgpuDevice handle, uint32_t family, uint32_t index, XgpuQueue* out_queue) {
  Device* device = device_from_handle(handle);
  if (!device || !out_queue) return;
  if (family >= kQueueFamilyCount || index >= device->queues.size()) {
    device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                family >= kQueueFamilyCount ? vuid::xgpuGetDeviceQueue_queueFamilyIndex
                                            : vuid::xgpuGetDeviceQueue_queueIndex,
                "xgpuGetDeviceQueue: queue (family " + std::to_string(family) + ", index " +
                    std::to_string(index) + ") was not created (the device has " +
                    std::to_string(device->queues.size()) + " queues in family 0)");
    *out_queue = nullptr;
    return;
  }
  *out_queue = reinterpret_cast<XgpuQueue>(device->queues[index].get());
}

XgpuResult device_wait_idle(XgpuDevice handle) {
  Device* device = device_from_handle(handle);
  if (!device) return XGPU_ERROR_INVALID_ARGUMENT;
  TraceHostCall trace_call(device, "xgpuDeviceWaitIdle", nullptr, nullptr, 0, false);
  // Waits in slices, so that a loss while it waits is seen: once the device
  // is lost each queue gets kDestroyDrainMs more, then what it still runs
  // (a kernel that never ends, with the watchdog off) is stopped - the
  // runtime inactivates the queue, as the watchdog does - and the loss is
  // returned: a lost device's wait is bounded.
  constexpr auto kSlice = std::chrono::milliseconds(100);
  for (auto& queue : device->queues) {
    std::chrono::steady_clock::time_point deadline{};
    bool bounded = false;
    for (;;) {
      if (!bounded && device->lost.load()) {
        bounded = true;
        deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kDestroyDrainMs);
      }
      // A broken queue's work never completes (queue.h): after a loss there
      // is nothing to wait for on it.
      if (bounded && queue->broken.load()) break;
      auto slice = std::chrono::duration_cast<std::chrono::nanoseconds>(kSlice);
      if (bounded)
        slice = std::min(slice, std::max(std::chrono::nanoseconds(0), deadline - std::chrono::steady_clock::now()));
      const XgpuResult result = queue_wait_idle_internal(queue.get(), uint64_t(slice.count()));
      if (result == XGPU_SUCCESS) break;
      if (result != XGPU_TIMEOUT) return result;
      if (bounded && std::chrono::steady_clock::now() >= deadline) {
        if (!queue->broken.exchange(true) && device->hsa->hsa_queue_inactivate)
          device->hsa->hsa_queue_inactivate(queue->aql);
        device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kDeviceLost,
                      "xgpuDeviceWaitIdle: queue " + std::to_string(queue->index) + " still ran work " +
                          std::to_string(kDestroyDrainMs) +
                          " ms after the device was lost: its HSA queue is stopped and the work abandoned",
                      {{XGPU_OBJECT_TYPE_QUEUE, uint64_t(reinterpret_cast<uintptr_t>(queue.get()))}});
        break;
      }
    }
  }
  return device->lost ? XGPU_ERROR_DEVICE_LOST : XGPU_SUCCESS;
}

XgpuResult device_set_object_name(XgpuDevice handle, const XgpuDebugObjectNameInfo* info) {
  Device* device = device_from_handle(handle);
  if (!device || !info) return XGPU_ERROR_INVALID_ARGUMENT;
  if (info->objectHandle == 0)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuSetObjectName_pNameInfo_objectHandle,
                       "xgpuSetObjectName: pNameInfo->objectHandle is null");
  std::lock_guard<std::mutex> lock(device->names_mutex);
  if (info->pObjectName) {
    device->object_names[info->objectHandle] = info->pObjectName;
  } else {
    device->object_names.erase(info->objectHandle);
  }
  return XGPU_SUCCESS;
}

// --- buffers -----------------------------------------------------------------

XgpuResult buffer_create(XgpuDevice handle, const XgpuBufferCreateInfo* info,
                         const XgpuAllocationCallbacks* allocator, XgpuBuffer* out_buffer) {
  Device* device = device_from_handle(handle);
  if (!device || !info || !out_buffer) return XGPU_ERROR_INVALID_ARGUMENT;
  *out_buffer = nullptr;
  if (device->lost) return device_fail_lost(device, "xgpuCreateBuffer");
  const auto& types = device->physical->memory_types;
  if (info->memoryTypeIndex >= types.size())
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreateBuffer_pCreateInfo_memoryTypeIndex,
                       "xgpuCreateBuffer: pCreateInfo->memoryTypeIndex " + std::to_string(info->memoryTypeIndex) +
                           " is not a memory type (the device has " + std::to_string(types.size()) + ")");
  if (info->size == 0)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreateBuffer_pCreateInfo_size,
                       "xgpuCreateBuffer: pCreateInfo->size is 0 (must be at least 1)");
  const uint64_t max_size = device->physical->properties.limits.maxBufferSize;
  if (info->size > max_size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreateBuffer_pCreateInfo_size,
                       "xgpuCreateBuffer: pCreateInfo->size " + std::to_string(info->size) +
                           " exceeds limits.maxBufferSize " + std::to_string(max_size));
  HostPtr<Buffer> buffer(host_new<Buffer>(allocator));
  if (!buffer)
    return device_fail(device, XGPU_ERROR_OUT_OF_HOST_MEMORY, msgid::kOutOfHostMemory,
                       "xgpuCreateBuffer: allocating the object's host memory failed");
  buffer->device = device;
  buffer->size = info->size;
  buffer->usage = info->usage;
  buffer->memory_type = info->memoryTypeIndex;
  buffer->host_visible = types[info->memoryTypeIndex].flags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  std::string error;
  XgpuResult result =
      device->allocators[info->memoryTypeIndex]->allocate(info->size, &buffer->allocation, &error);
  if (result != XGPU_SUCCESS) return device_fail(device, result, msgid::failure(result), "xgpuCreateBuffer: " + error);
  buffer->device_address.store(reinterpret_cast<uint64_t>(buffer->allocation.ptr), std::memory_order_release);
  device_track_handle(device, buffer.get());
  fault_note_allocation(device, buffer.get(), reinterpret_cast<uint64_t>(buffer->allocation.ptr));
  *out_buffer = to_handle<XgpuBuffer>(buffer.release());
  return XGPU_SUCCESS;
}

void buffer_destroy(XgpuDevice handle, XgpuBuffer buffer_handle, const XgpuAllocationCallbacks* allocator) {
  Device* device = device_from_handle(handle);
  auto* buffer = from_handle<Buffer>(buffer_handle);
  if (!device || !buffer) return;
  if (!device_release_handle(device, buffer, vuid::xgpuDestroyBuffer_buffer_parameter, "xgpuDestroyBuffer: buffer")) return;
  if (buffer->is_alloca) {
    // An alloca buffer is released by xgpuQueueDealloca; destroying the
    // handle (invalid usage, reported) returns its memory now and drops the
    // handle's reference.
    memory_pool_release_alloca(buffer);
    return;
  }
  fault_note_free(device, buffer, reinterpret_cast<uint64_t>(buffer->allocation.ptr));
  device->allocators[buffer->memory_type]->free(buffer->allocation);
  host_delete_handle(buffer);
}

XgpuResult buffer_map(XgpuDevice handle, XgpuBuffer buffer_handle, XgpuDeviceSize offset,
                      XgpuDeviceSize size, void** out_data) {
  Device* device = device_from_handle(handle);
  auto* buffer = from_handle<Buffer>(buffer_handle);
  if (!device || !buffer || !out_data) return XGPU_ERROR_INVALID_ARGUMENT;
  if (device->lost) return device_fail_lost(device, "xgpuMapBuffer");
  if (!buffer->host_visible)
    return device_fail(device, XGPU_ERROR_MEMORY_MAP_FAILED, msgid::kMemoryMapFailed,
                       "xgpuMapBuffer: the buffer's memory type " + std::to_string(buffer->memory_type) +
                           " is not HOST_VISIBLE");
  const uint64_t address = buffer->device_address.load(std::memory_order_acquire);
  if (address == 0)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuMapBuffer_buffer_committed,
                       "xgpuMapBuffer: the alloca buffer's allocation has not committed yet");
  if (offset >= buffer->size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuMapBuffer_offset,
                       "xgpuMapBuffer: offset " + std::to_string(offset) + " is not less than the buffer's size (" +
                           std::to_string(buffer->size) + " bytes)");
  if (size != XGPU_WHOLE_SIZE && (size == 0 || size > buffer->size - offset))
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuMapBuffer_size,
                       "xgpuMapBuffer: size " + std::to_string(size) + " at offset " + std::to_string(offset) +
                           " is 0 or exceeds the buffer's " + std::to_string(buffer->size) + " bytes");
  *out_data = reinterpret_cast<uint8_t*>(address) + offset;
  return XGPU_SUCCESS;
}

void buffer_unmap(XgpuDevice, XgpuBuffer) {}

XgpuDeviceAddress buffer_device_address(XgpuDevice handle, XgpuBuffer buffer_handle) {
  auto* buffer = from_handle<Buffer>(buffer_handle);
  if (!buffer) return 0;
  const uint64_t address = buffer->device_address.load(std::memory_order_acquire);
  if (!buffer->is_alloca) return address;
  // A queue allocation has an address only between its commit and its
  // dealloca (api.md): outside, the call breaks the rule and gets 0.
  const char* what = buffer->dealloca_submitted.load(std::memory_order_acquire)
                         ? "its dealloca was submitted already"
                     : address == 0 ? "its alloca has not committed yet (wait for one of the alloca's signal "
                                      "semaphores first)"
                                    : nullptr;
  if (!what) return address;
  device_report(buffer->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                vuid::xgpuGetBufferDeviceAddress_buffer_committed,
                std::string("xgpuGetBufferDeviceAddress: buffer is a queue allocation and ") + what + "; returns 0",
                {{XGPU_OBJECT_TYPE_BUFFER, uint64_t(reinterpret_cast<uintptr_t>(buffer_handle))}});
  return 0;
}

BlockAllocator::Stats device_allocator_stats(Device* device, uint32_t memory_type) {
  return device->allocators[memory_type]->stats();
}

}  // namespace xgpu::amdgpu
