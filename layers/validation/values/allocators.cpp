// The allocator category of vuids.json: an object is destroyed with callbacks
// compatible with those it was created with (api.md 1.3). The layer can only
// tell NULL from callbacks: NULL for NULL, callbacks for callbacks.
#include "../chassis/object_map.h"
#include "parameter_values.h"

namespace xgpu_validation {

bool CheckAllocator(CallContext& ctx, Vuid vuid, const ObjectRecord* record,
                    const XgpuAllocationCallbacks* pAllocator) {
  if (record == nullptr || (pAllocator != nullptr) == record->has_allocator) return false;
  // Unusable callbacks, or an object of another device or instance: the implicit rules report them.
  if (pAllocator != nullptr && (!IsUsablePointer(pAllocator) || pAllocator->pfnAllocation == nullptr ||
                                pAllocator->pfnReallocation == nullptr || pAllocator->pfnFree == nullptr)) {
    return false;
  }
  if (record->device != nullptr ? record->device != ctx.device : record->instance != ctx.instance) return false;
  return ctx.Report(vuid, Field{"pAllocator"},
                    std::string(pAllocator != nullptr ? "callbacks" : "NULL") + ", but " + Describe(record) +
                        " was created with " + (record->has_allocator ? "callbacks" : "NULL"),
                    {{record->type, record->handle}});
}

namespace {

template <typename Handle>
const ObjectRecord* Find(XgpuObjectType type, Handle handle) {
  return Objects().Find(type, reinterpret_cast<uintptr_t>(handle));
}

// A device or instance: reported, then destroyed with its creation's callbacks.
bool CheckDestroyAllocator(CallContext& ctx, Vuid vuid, const XgpuAllocationCallbacks* pAllocator) {
  const ObjectRecord* record = ctx.dispatch_record;
  if (CheckAllocator(ctx, vuid, record, pAllocator) && ctx.creation != nullptr) {
    ctx.creation->destroy_with_creation_allocator = true;
    if (record->has_allocator) {
      ctx.creation->creation_allocator_copy = record->allocator;
      ctx.creation->creation_allocator = &ctx.creation->creation_allocator_copy;
    }
  }
  return false;
}

}  // namespace

bool ParameterValues::ValidateDestroyInstance(CallContext& ctx, XgpuInstance,
                                              const XgpuAllocationCallbacks* pAllocator) const {
  return CheckDestroyAllocator(ctx, Vuid::xgpuDestroyInstance_pAllocator_compatible, pAllocator);
}

bool ParameterValues::ValidateDestroyDevice(CallContext& ctx, XgpuDevice,
                                            const XgpuAllocationCallbacks* pAllocator) const {
  return CheckDestroyAllocator(ctx, Vuid::xgpuDestroyDevice_pAllocator_compatible, pAllocator);
}

bool ParameterValues::ValidateDestroyDebugMessenger(CallContext& ctx, XgpuInstance, XgpuDebugMessenger messenger,
                                                    const XgpuAllocationCallbacks* pAllocator) const {
  return CheckAllocator(ctx, Vuid::xgpuDestroyDebugMessenger_pAllocator_compatible,
                        Find(XGPU_OBJECT_TYPE_DEBUG_MESSENGER, messenger), pAllocator);
}

bool ParameterValues::ValidateDestroyMemoryPool(CallContext& ctx, XgpuDevice, XgpuMemoryPool memoryPool,
                                                const XgpuAllocationCallbacks* pAllocator) const {
  return CheckAllocator(ctx, Vuid::xgpuDestroyMemoryPool_pAllocator_compatible,
                        Find(XGPU_OBJECT_TYPE_MEMORY_POOL, memoryPool), pAllocator);
}

bool ParameterValues::ValidateDestroySemaphore(CallContext& ctx, XgpuDevice, XgpuSemaphore semaphore,
                                               const XgpuAllocationCallbacks* pAllocator) const {
  return CheckAllocator(ctx, Vuid::xgpuDestroySemaphore_pAllocator_compatible,
                        Find(XGPU_OBJECT_TYPE_SEMAPHORE, semaphore), pAllocator);
}

bool ParameterValues::ValidateDestroyExecutable(CallContext& ctx, XgpuDevice, XgpuExecutable executable,
                                                const XgpuAllocationCallbacks* pAllocator) const {
  return CheckAllocator(ctx, Vuid::xgpuDestroyExecutable_pAllocator_compatible,
                        Find(XGPU_OBJECT_TYPE_EXECUTABLE, executable), pAllocator);
}

bool ParameterValues::ValidateDestroyPipeline(CallContext& ctx, XgpuDevice, XgpuPipeline pipeline,
                                              const XgpuAllocationCallbacks* pAllocator) const {
  return CheckAllocator(ctx, Vuid::xgpuDestroyPipeline_pAllocator_compatible,
                        Find(XGPU_OBJECT_TYPE_PIPELINE, pipeline), pAllocator);
}

bool ParameterValues::ValidateDestroyCommandBuffer(CallContext& ctx, XgpuDevice, XgpuCommandBuffer commandBuffer,
                                                   const XgpuAllocationCallbacks* pAllocator) const {
  return CheckAllocator(ctx, Vuid::xgpuDestroyCommandBuffer_pAllocator_compatible,
                        Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, commandBuffer), pAllocator);
}

}  // namespace xgpu_validation
