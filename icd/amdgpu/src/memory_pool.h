// Memory pools and queue-ordered allocation (xgpuQueueAlloca/Dealloca).
//
// Thread-safety: thread-safe (each pool has its own mutex). Lock order:
// Queue::mutex before MemoryPool::mutex.
#pragma once

#include "device.h"

namespace xgpu::amdgpu {

// Called by the queue when it reaches an alloca (under the queue lock):
// reserves the memory and publishes the buffer's address.
XgpuResult memory_pool_alloca_commit(Buffer* buffer);
// Called when a dealloca completed: the range returns to the pool.
void memory_pool_dealloca_complete(Buffer* buffer);
// xgpuDestroyBuffer of an alloca buffer that still holds memory.
void memory_pool_release_alloca(Buffer* buffer);

XgpuResult memory_pool_create(XgpuDevice device, const XgpuMemoryPoolCreateInfo* info,
                              const XgpuAllocationCallbacks* allocator, XgpuMemoryPool* out_pool);
void memory_pool_destroy(XgpuDevice device, XgpuMemoryPool pool, const XgpuAllocationCallbacks* allocator);
void memory_pool_trim(XgpuDevice device, XgpuMemoryPool pool);
void memory_pool_get_statistics(XgpuDevice device, XgpuMemoryPool pool, XgpuMemoryPoolStatistics* out_statistics);
XgpuResult queue_alloca(XgpuQueue queue, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                        XgpuMemoryPool pool, XgpuDeviceSize size, XgpuBufferUsageFlags usage, XgpuBuffer* out_buffer);
XgpuResult queue_dealloca(XgpuQueue queue, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                          XgpuBuffer buffer);

}  // namespace xgpu::amdgpu
