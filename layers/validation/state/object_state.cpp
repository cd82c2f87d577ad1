#include "state_tracker.h"

#include <cstring>
#include <mutex>

#include "../chassis/object_map.h"
#include "../kernels/kernel_metadata.h"

namespace xgpu_validation {

void StateTracker::PostRecordGetDeviceQueue(CallContext&, XgpuDevice, uint32_t queueFamilyIndex, uint32_t,
                                            XgpuQueue* pQueue) {
  if (!IsUsablePointer(pQueue) || *pQueue == XGPU_NULL_HANDLE) return;
  ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_QUEUE, reinterpret_cast<uintptr_t>(*pQueue));
  // A queue retrieved again keeps its family: no store, so no race with its users.
  if (record != nullptr && record->queue_family != queueFamilyIndex) record->queue_family = queueFamilyIndex;
}

void StateTracker::PostRecordCreateBuffer(CallContext&, XgpuDevice, const XgpuBufferCreateInfo* pCreateInfo,
                                          const XgpuAllocationCallbacks*, XgpuBuffer* pBuffer, XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pBuffer) || !IsUsablePointer(pCreateInfo)) return;
  ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(*pBuffer));
  if (record == nullptr) return;
  record->buffer_size = pCreateInfo->size;
  record->buffer_usage = pCreateInfo->usage;
  record->memory_type = pCreateInfo->memoryTypeIndex;
  record->queue_allocated = false;
}

void StateTracker::PostRecordMapBuffer(CallContext&, XgpuDevice, XgpuBuffer buffer, XgpuDeviceSize offset,
                                       XgpuDeviceSize size, void** ppData, XgpuResult result) {
  if (result < 0) return;
  if (ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(buffer))) {
    if (IsUsablePointer(ppData) && offset < record->buffer_size) {
      record->mapped_offset.store(offset, std::memory_order_relaxed);
      record->mapped_size.store(size == XGPU_WHOLE_SIZE ? record->buffer_size - offset : size,
                                std::memory_order_relaxed);
      record->mapped_data.store(static_cast<uint8_t*>(*ppData), std::memory_order_release);
    }
    record->mapped.store(true, std::memory_order_relaxed);
  }
}

void StateTracker::PostRecordUnmapBuffer(CallContext&, XgpuDevice, XgpuBuffer buffer) {
  if (ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(buffer))) {
    record->mapped_data.store(nullptr, std::memory_order_release);
    record->mapped.store(false, std::memory_order_relaxed);
  }
}

void StateTracker::PostRecordCreateMemoryPool(CallContext&, XgpuDevice, const XgpuMemoryPoolCreateInfo* pCreateInfo,
                                              const XgpuAllocationCallbacks*, XgpuMemoryPool* pMemoryPool,
                                              XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pMemoryPool) || !IsUsablePointer(pCreateInfo)) return;
  if (ObjectRecord* record =
          Objects().Find(XGPU_OBJECT_TYPE_MEMORY_POOL, reinterpret_cast<uintptr_t>(*pMemoryPool))) {
    record->memory_type = pCreateInfo->memoryTypeIndex;
  }
}

void StateTracker::PostRecordCreateExecutable(CallContext& ctx, XgpuDevice, const XgpuExecutableCreateInfo* pCreateInfo,
                                              const XgpuAllocationCallbacks*, XgpuExecutable* pExecutable,
                                              XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pExecutable) || !IsUsablePointer(pCreateInfo) || ctx.device == nullptr) return;
  ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_EXECUTABLE, reinterpret_cast<uintptr_t>(*pExecutable));
  if (record == nullptr) return;
  const char* isa = ctx.device->properties.isaName;
  record->kernels = pCreateInfo->pCode != nullptr
                        ? ReadExecutableKernels(pCreateInfo->pCode, pCreateInfo->codeSize, isa)
                        : ReadExecutableKernelsFromFile(pCreateInfo->pFilePath, isa);
}

void StateTracker::PostRecordCreatePipeline(CallContext& ctx, XgpuDevice device, const XgpuPipelineCreateInfo*,
                                            const XgpuAllocationCallbacks*, XgpuPipeline* pPipeline,
                                            XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pPipeline) || ctx.device == nullptr) return;
  ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_PIPELINE, reinterpret_cast<uintptr_t>(*pPipeline));
  if (record == nullptr) return;
  XgpuPipelineProperties properties = {};
  ctx.DeviceTable().GetPipelineProperties(device, *pPipeline, &properties);
  record->layout.binding_count = properties.bindingCount;
  record->layout.constant_size = properties.constantSize;
  for (int d = 0; d < 3; ++d) record->layout.workgroup_size[d] = properties.workgroupSize[d];
  record->layout.static_memory = properties.staticWorkgroupMemorySize;
  record->layout.binding_unknown = 0;
  for (uint32_t i = 0; i < XGPU_MAX_PIPELINE_BINDINGS; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    const XgpuBindingAccessFlags access = properties.bindingAccess[i];
    if (i >= properties.bindingCount) continue;
    if (access & XGPU_BINDING_ACCESS_UNKNOWN_BIT) record->layout.binding_unknown |= bit;
    if (access & XGPU_BINDING_ACCESS_READ_BIT) record->layout.binding_reads |= bit;
    if (access & XGPU_BINDING_ACCESS_WRITE_BIT) record->layout.binding_writes |= bit;
    if (access & XGPU_BINDING_ACCESS_ATOMIC_BIT) record->layout.binding_atomics |= bit;
  }
}

void StateTracker::PostRecordCreateCommandBuffer(CallContext&, XgpuDevice,
                                                 const XgpuCommandBufferCreateInfo* pCreateInfo,
                                                 const XgpuAllocationCallbacks*, XgpuCommandBuffer* pCommandBuffer,
                                                 XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pCommandBuffer) || !IsUsablePointer(pCreateInfo)) return;
  if (ObjectRecord* record =
          Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, reinterpret_cast<uintptr_t>(*pCommandBuffer))) {
    record->queue_family = pCreateInfo->queueFamilyIndex;
  }
}

void StateTracker::PostRecordQueueAlloca(CallContext&, XgpuQueue, const XgpuSemaphoreList*,
                                         const XgpuSemaphoreList*, XgpuMemoryPool memoryPool, XgpuDeviceSize size,
                                         XgpuBufferUsageFlags usage, XgpuBuffer* pBuffer, XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pBuffer)) return;
  ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(*pBuffer));
  if (record == nullptr) return;
  record->buffer_size = size;
  record->buffer_usage = usage;
  record->queue_allocated = true;
  if (const ObjectRecord* pool =
          Objects().Find(XGPU_OBJECT_TYPE_MEMORY_POOL, reinterpret_cast<uintptr_t>(memoryPool))) {
    record->memory_type = pool->memory_type;
  }
}

void StateTracker::PostRecordSetObjectName(CallContext& ctx, XgpuDevice device,
                                           const XgpuDebugObjectNameInfo* pNameInfo, XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pNameInfo)) return;
  ObjectRecord* record = Objects().Find(pNameInfo->objectType, pNameInfo->objectHandle);
  if (record == nullptr) return;
  std::lock_guard lock(NamesMutex());
  record->name = pNameInfo->pObjectName ? pNameInfo->pObjectName : "";
}

}  // namespace xgpu_validation
