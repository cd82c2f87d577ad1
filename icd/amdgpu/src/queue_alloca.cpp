// Queue-ordered allocation (xgpuQueueAlloca, xgpuQueueDealloca): queue
// operations like a submission, whose commit and release run at issue and
// completion through the memory pool's interface (memory_pool.h).
#include <memory>
#include <string>

#include "common.h"
#include "memory_pool.h"
#include "queue.h"
#include "generated/vuid_ids.h"

namespace xgpu::amdgpu {
namespace {

const SemaphoreListArgument kQueueAllocaWaits{"xgpuQueueAlloca", "pWaitSemaphores",
                                              vuid::xgpuQueueAlloca_pWaitSemaphores_pSemaphores_parameter,
                                              vuid::xgpuQueueAlloca_pWaitSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueAllocaSignals{"xgpuQueueAlloca", "pSignalSemaphores",
                                                vuid::xgpuQueueAlloca_pSignalSemaphores_pSemaphores_parameter,
                                                vuid::xgpuQueueAlloca_pSignalSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueDeallocaWaits{"xgpuQueueDealloca", "pWaitSemaphores",
                                                vuid::xgpuQueueDealloca_pWaitSemaphores_pSemaphores_parameter,
                                                vuid::xgpuQueueDealloca_pWaitSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueDeallocaSignals{"xgpuQueueDealloca", "pSignalSemaphores",
                                                  vuid::xgpuQueueDealloca_pSignalSemaphores_pSemaphores_parameter,
                                                  vuid::xgpuQueueDealloca_pSignalSemaphores_pValues_parameter};

}  // namespace

XgpuResult queue_alloca(XgpuQueue handle, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                        XgpuMemoryPool pool_handle, XgpuDeviceSize size, XgpuBufferUsageFlags usage,
                        XgpuBuffer* out_buffer) {
  if (out_buffer) *out_buffer = nullptr;
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue || !out_buffer) return XGPU_ERROR_INVALID_ARGUMENT;
  Device* device = queue->device;
  if (device->lost) return device_fail_lost(device, "xgpuQueueAlloca");
  auto* pool = from_handle<MemoryPool>(pool_handle);
  if (!pool)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueAlloca_memoryPool_parameter,
                       "xgpuQueueAlloca: memoryPool is XGPU_NULL_HANDLE");
  if (memory_pool_device(pool) != device)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueAlloca_memoryPool_parent,
                       "xgpuQueueAlloca: " + memory_pool_name(pool) + " was created on another device than the queue's");
  const uint64_t max_size = device->physical->properties.limits.maxBufferSize;
  if (size == 0 || size > max_size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueAlloca_size,
                       "xgpuQueueAlloca: size " + std::to_string(size) + " is not in [1, limits.maxBufferSize " +
                           std::to_string(max_size) + "]");
  if (usage == 0)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                       vuid::xgpuQueueAlloca_usage, "xgpuQueueAlloca: usage is 0");
  auto s = std::make_unique<Submission>();
  s->queue = queue;
  s->kind = SubmissionKind::kAlloca;
  XgpuResult result = copy_semaphore_list(device, kQueueAllocaWaits, kNotASubmit, waits, &s->waits);
  if (result == XGPU_SUCCESS)
    result = copy_semaphore_list(device, kQueueAllocaSignals, kNotASubmit, signals, &s->signals);
  if (result == XGPU_SUCCESS)
    result = accept_signal_values(device, s.get(), "xgpuQueueAlloca", vuid::xgpuQueueAlloca_semaphores,
                                  kNotASubmit);
  if (result != XGPU_SUCCESS) return result;
  Buffer* buffer = memory_pool_new_alloca(pool, size, usage);
  if (!buffer)
    return device_fail(device, XGPU_ERROR_OUT_OF_HOST_MEMORY, msgid::kOutOfHostMemory,
                       "xgpuQueueAlloca: allocating the buffer's host memory failed");
  s->alloca_buffer = buffer;
  device_track_handle(device, buffer);
  *out_buffer = to_handle<XgpuBuffer>(buffer);
  queue_accept(queue, s.release());
  return XGPU_SUCCESS;
}

XgpuResult queue_dealloca(XgpuQueue handle, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                          XgpuBuffer buffer_handle) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  Device* device = queue->device;
  auto* buffer = from_handle<Buffer>(buffer_handle);
  // A handle deallocated (or destroyed) before is not touched: it may be freed.
  if (buffer && !device_release_handle(device, buffer, vuid::xgpuQueueDealloca_buffer_parameter,
                                          "xgpuQueueDealloca: buffer", /*keep_name=*/true))
    return XGPU_ERROR_INVALID_ARGUMENT;
  if (device->lost) {
    // Nothing runs any more: the handle (and any memory) is released now so
    // that a lost device leaks nothing.
    if (buffer && buffer->is_alloca && !buffer->dealloca_submitted.exchange(true, std::memory_order_acq_rel))
      memory_pool_dealloca_complete(buffer);
    return device_fail_lost(device, "xgpuQueueDealloca");
  }
  if (!buffer)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueDealloca_buffer_parameter,
                       "xgpuQueueDealloca: buffer is XGPU_NULL_HANDLE");
  if (!buffer->is_alloca) {
    device_track_handle(device, buffer);  // still a live xgpuCreateBuffer buffer
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueDealloca_buffer_queueAllocated,
                       "xgpuQueueDealloca: buffer was created by xgpuCreateBuffer, not xgpuQueueAlloca");
  }
  if (buffer->device != device)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueDealloca_buffer_parent,
                       "xgpuQueueDealloca: the buffer was allocated on another device than the queue's");
  if (buffer->dealloca_submitted.exchange(true, std::memory_order_acq_rel))
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueDealloca_buffer_queueAllocated,
                       "xgpuQueueDealloca: the buffer (" + std::to_string(buffer->size) +
                           " bytes) was already deallocated");
  auto s = std::make_unique<Submission>();
  s->queue = queue;
  s->kind = SubmissionKind::kDealloca;
  XgpuResult result = copy_semaphore_list(device, kQueueDeallocaWaits, kNotASubmit, waits, &s->waits);
  if (result == XGPU_SUCCESS)
    result = copy_semaphore_list(device, kQueueDeallocaSignals, kNotASubmit, signals, &s->signals);
  if (result == XGPU_SUCCESS)
    result = accept_signal_values(device, s.get(), "xgpuQueueDealloca", vuid::xgpuQueueDealloca_semaphores,
                                  kNotASubmit);
  if (result != XGPU_SUCCESS) {
    buffer->dealloca_submitted.store(false, std::memory_order_release);
    device_track_handle(device, buffer);  // refused: the handle stays live
    return result;
  }
  s->alloca_buffer = buffer;
  queue_accept(queue, s.release());
  return XGPU_SUCCESS;
}

}  // namespace xgpu::amdgpu
