#include "memory_pool.h"

#include "common.h"
#include "queue.h"

namespace xgpu::amdgpu {

XgpuResult memory_pool_alloca_commit(Buffer*) { return XGPU_ERROR_FEATURE_NOT_PRESENT; }
void memory_pool_dealloca_complete(Buffer*) {}
void memory_pool_release_alloca(Buffer*) {}

XgpuResult memory_pool_create(XgpuDevice handle, const XgpuMemoryPoolCreateInfo*, const XgpuAllocationCallbacks*,
                              XgpuMemoryPool* out_pool) {
  if (out_pool) *out_pool = nullptr;
  return device_fail(device_from_handle(handle), XGPU_ERROR_FEATURE_NOT_PRESENT,
                     "xgpuCreateMemoryPool: queue-ordered allocation is not implemented yet");
}
void memory_pool_destroy(XgpuDevice, XgpuMemoryPool, const XgpuAllocationCallbacks*) {}
void memory_pool_trim(XgpuDevice, XgpuMemoryPool) {}
void memory_pool_get_statistics(XgpuDevice, XgpuMemoryPool, XgpuMemoryPoolStatistics* out_statistics) {
  if (out_statistics) *out_statistics = XgpuMemoryPoolStatistics{};
}
XgpuResult queue_alloca(XgpuQueue handle, const XgpuSemaphoreList*, const XgpuSemaphoreList*, XgpuMemoryPool,
                        XgpuDeviceSize, XgpuBufferUsageFlags, XgpuBuffer* out_buffer) {
  if (out_buffer) *out_buffer = nullptr;
  auto* queue = reinterpret_cast<Queue*>(handle);
  return device_fail(queue ? queue->device : nullptr, XGPU_ERROR_FEATURE_NOT_PRESENT,
                     "xgpuQueueAlloca: queue-ordered allocation is not implemented yet");
}
XgpuResult queue_dealloca(XgpuQueue handle, const XgpuSemaphoreList*, const XgpuSemaphoreList*, XgpuBuffer) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  return device_fail(queue ? queue->device : nullptr, XGPU_ERROR_FEATURE_NOT_PRESENT,
                     "xgpuQueueDealloca: queue-ordered allocation is not implemented yet");
}

}  // namespace xgpu::amdgpu
