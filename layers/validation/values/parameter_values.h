// ParameterValues: the explicit value, limit, range, alignment, usage,
// mapping, queue-capability and queue-allocation-kind rules of the commands
// that do not record
// (api.md 4-12, 15: devices and queues, buffers, mapping, memory pools,
// semaphore counts, executables, pipelines, command buffers, queue transfers,
// queue-ordered allocation, debug messengers and messages), checked against
// the arguments and the device's properties (LayerDevice::properties, memory,
// families). It also keeps what other checks read in the object records:
// a buffer's size, usage, memory type, whether it is queue-allocated or
// mapped; a memory pool's memory type; a pipeline's layout; a command
// buffer's and a queue's queue family.
//
// Thread-safe as the API: records change only in calls that create or
// externally synchronize their object (a buffer's mapped flag is atomic).
#ifndef XGPU_LAYERS_VALIDATION_VALUES_PARAMETER_VALUES_H_
#define XGPU_LAYERS_VALIDATION_VALUES_PARAMETER_VALUES_H_

#include "../chassis/hooks.h"

namespace xgpu_validation {

class ParameterValues : public HookDefaults {
 public:
  bool ValidateCreateInstance(CallContext& ctx, const XgpuInstanceCreateInfo* pCreateInfo,
                              const XgpuAllocationCallbacks* pAllocator, XgpuInstance* pInstance) const;
  bool ValidateCreateDebugMessenger(CallContext& ctx, XgpuInstance instance,
                                    const XgpuDebugMessengerCreateInfo* pCreateInfo,
                                    const XgpuAllocationCallbacks* pAllocator, XgpuDebugMessenger* pMessenger) const;
  bool ValidateSubmitDebugMessage(CallContext& ctx, XgpuInstance instance,
                                  XgpuDebugMessageSeverityFlagBits messageSeverity,
                                  XgpuDebugMessageTypeFlags messageTypes,
                                  const XgpuDebugMessageData* pMessageData) const;
  bool ValidateCreateDevice(CallContext& ctx, XgpuPhysicalDevice physicalDevice, const XgpuDeviceCreateInfo* pCreateInfo,
                            const XgpuAllocationCallbacks* pAllocator, XgpuDevice* pDevice) const;
  bool ValidateGetDeviceQueue(CallContext& ctx, XgpuDevice device, uint32_t queueFamilyIndex, uint32_t queueIndex,
                              XgpuQueue* pQueue) const;

  bool ValidateCreateBuffer(CallContext& ctx, XgpuDevice device, const XgpuBufferCreateInfo* pCreateInfo,
                            const XgpuAllocationCallbacks* pAllocator, XgpuBuffer* pBuffer) const;
  bool ValidateDestroyBuffer(CallContext& ctx, XgpuDevice device, XgpuBuffer buffer,
                             const XgpuAllocationCallbacks* pAllocator) const;
  bool ValidateMapBuffer(CallContext& ctx, XgpuDevice device, XgpuBuffer buffer, XgpuDeviceSize offset,
                         XgpuDeviceSize size, void** ppData) const;
  bool ValidateUnmapBuffer(CallContext& ctx, XgpuDevice device, XgpuBuffer buffer) const;

  bool ValidateCreateMemoryPool(CallContext& ctx, XgpuDevice device, const XgpuMemoryPoolCreateInfo* pCreateInfo,
                                const XgpuAllocationCallbacks* pAllocator, XgpuMemoryPool* pMemoryPool) const;

  bool ValidateWaitSemaphores(CallContext& ctx, XgpuDevice device, const XgpuSemaphoreWaitInfo* pWaitInfo,
                              uint64_t timeout) const;
  bool ValidateFailSemaphore(CallContext& ctx, XgpuDevice device, XgpuSemaphore semaphore, XgpuResult status) const;

  bool ValidateCreateExecutable(CallContext& ctx, XgpuDevice device, const XgpuExecutableCreateInfo* pCreateInfo,
                                const XgpuAllocationCallbacks* pAllocator, XgpuExecutable* pExecutable) const;
  bool ValidateCreatePipeline(CallContext& ctx, XgpuDevice device, const XgpuPipelineCreateInfo* pCreateInfo,
                              const XgpuAllocationCallbacks* pAllocator, XgpuPipeline* pPipeline) const;
  bool ValidateCreateCommandBuffer(CallContext& ctx, XgpuDevice device, const XgpuCommandBufferCreateInfo* pCreateInfo,
                                   const XgpuAllocationCallbacks* pAllocator, XgpuCommandBuffer* pCommandBuffer) const;

  bool ValidateQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                           const XgpuSubmitInfo* pSubmits) const;
  bool ValidateQueueFillBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                               const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer dstBuffer,
                               XgpuDeviceSize dstOffset, XgpuDeviceSize size, const void* pPattern,
                               uint32_t patternSize) const;
  bool ValidateQueueCopyBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                               const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer srcBuffer,
                               XgpuDeviceSize srcOffset, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset,
                               XgpuDeviceSize size) const;
  bool ValidateQueueAlloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                           const XgpuSemaphoreList* pSignalSemaphores, XgpuMemoryPool memoryPool, XgpuDeviceSize size,
                           XgpuBufferUsageFlags usage, XgpuBuffer* pBuffer) const;
  bool ValidateQueueDealloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                             const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer buffer) const;

  // Allocation callbacks at destroy compatible with the creation's (api.md
  // 1.3: NULL for NULL, callbacks for callbacks); allocators.cpp. A device or
  // instance is still destroyed, with its creation's callbacks.
  bool ValidateDestroyInstance(CallContext& ctx, XgpuInstance instance, const XgpuAllocationCallbacks* pAllocator) const;
  bool ValidateDestroyDebugMessenger(CallContext& ctx, XgpuInstance instance, XgpuDebugMessenger messenger,
                                     const XgpuAllocationCallbacks* pAllocator) const;
  bool ValidateDestroyDevice(CallContext& ctx, XgpuDevice device, const XgpuAllocationCallbacks* pAllocator) const;
  bool ValidateDestroyMemoryPool(CallContext& ctx, XgpuDevice device, XgpuMemoryPool memoryPool,
                                 const XgpuAllocationCallbacks* pAllocator) const;
  bool ValidateDestroySemaphore(CallContext& ctx, XgpuDevice device, XgpuSemaphore semaphore,
                                const XgpuAllocationCallbacks* pAllocator) const;
  bool ValidateDestroyExecutable(CallContext& ctx, XgpuDevice device, XgpuExecutable executable,
                                 const XgpuAllocationCallbacks* pAllocator) const;
  bool ValidateDestroyPipeline(CallContext& ctx, XgpuDevice device, XgpuPipeline pipeline,
                               const XgpuAllocationCallbacks* pAllocator) const;
  bool ValidateDestroyCommandBuffer(CallContext& ctx, XgpuDevice device, XgpuCommandBuffer commandBuffer,
                                    const XgpuAllocationCallbacks* pAllocator) const;
};

// The allocator rule of a destroy: `record` (created with or without
// callbacks) destroyed with pAllocator. Returns whether to skip.
bool CheckAllocator(CallContext& ctx, Vuid vuid, const ObjectRecord* record, const XgpuAllocationCallbacks* pAllocator);

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_VALUES_PARAMETER_VALUES_H_
