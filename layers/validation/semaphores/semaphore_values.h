// SemaphoreValues: the payload rules of timeline semaphores (api.md 9, 15;
// categories semaphore_value, semaphore_list and the signal-list unique rule
// of vuids.json). A semaphore's payloads only grow: every signal, from the
// host (xgpuSignalSemaphore) or in a queue operation's signal list, must be
// greater than every payload signalled or queued before it, and a host signal
// must also stay below the payloads queue operations will still signal. No
// semaphore appears twice in one signal list. The queue operations other
// than xgpuQueueSubmit report their lists' mistakes with their own
// -semaphores rule. A semaphore used with a device other than its own needs
// a physical device with the same driverName and runtimeName (the -device
// rules of xgpuSignalSemaphore, xgpuWaitSemaphores and xgpuQueueSubmit, and
// the -semaphores rules of the other queue operations).
//
// The layer remembers, per semaphore, the largest payload it was created with,
// signalled or queued to be signalled, and the payloads queued; a host signal
// asks the semaphore's current value down the chain.
//
// Thread-safe: one mutex over the per-semaphore state, taken by semaphore
// creation and destruction, host signals and queue operations.
#ifndef XGPU_LAYERS_VALIDATION_SEMAPHORES_SEMAPHORE_VALUES_H_
#define XGPU_LAYERS_VALIDATION_SEMAPHORES_SEMAPHORE_VALUES_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "../chassis/hooks.h"

namespace xgpu_validation {

class SemaphoreValues : public HookDefaults {
 public:
  void PostRecordCreateSemaphore(CallContext& ctx, XgpuDevice device, const XgpuSemaphoreCreateInfo* pCreateInfo,
                                 const XgpuAllocationCallbacks* pAllocator, XgpuSemaphore* pSemaphore,
                                 XgpuResult result);
  void PostRecordDestroySemaphore(CallContext& ctx, XgpuDevice device, XgpuSemaphore semaphore,
                                  const XgpuAllocationCallbacks* pAllocator);
  bool ValidateSignalSemaphore(CallContext& ctx, XgpuDevice device, const XgpuSemaphoreSignalInfo* pSignalInfo) const;
  void PostRecordSignalSemaphore(CallContext& ctx, XgpuDevice device, const XgpuSemaphoreSignalInfo* pSignalInfo,
                                 XgpuResult result);

  bool ValidateWaitSemaphores(CallContext& ctx, XgpuDevice device, const XgpuSemaphoreWaitInfo* pWaitInfo,
                              uint64_t timeout) const;
  bool ValidateQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                           const XgpuSubmitInfo* pSubmits) const;
  void PostRecordQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount, const XgpuSubmitInfo* pSubmits,
                             XgpuResult result);
  bool ValidateQueueFillBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                               const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer dstBuffer,
                               XgpuDeviceSize dstOffset, XgpuDeviceSize size, const void* pPattern,
                               uint32_t patternSize) const;
  void PostRecordQueueFillBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                 const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer dstBuffer,
                                 XgpuDeviceSize dstOffset, XgpuDeviceSize size, const void* pPattern,
                                 uint32_t patternSize, XgpuResult result);
  bool ValidateQueueCopyBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                               const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer srcBuffer,
                               XgpuDeviceSize srcOffset, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset,
                               XgpuDeviceSize size) const;
  void PostRecordQueueCopyBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                 const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer srcBuffer,
                                 XgpuDeviceSize srcOffset, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset,
                                 XgpuDeviceSize size, XgpuResult result);
  bool ValidateQueueAlloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                           const XgpuSemaphoreList* pSignalSemaphores, XgpuMemoryPool memoryPool, XgpuDeviceSize size,
                           XgpuBufferUsageFlags usage, XgpuBuffer* pBuffer) const;
  void PostRecordQueueAlloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                             const XgpuSemaphoreList* pSignalSemaphores, XgpuMemoryPool memoryPool,
                             XgpuDeviceSize size, XgpuBufferUsageFlags usage, XgpuBuffer* pBuffer, XgpuResult result);
  bool ValidateQueueDealloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                             const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer buffer) const;
  void PostRecordQueueDealloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                               const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer buffer, XgpuResult result);

 private:
  struct State {
    uint64_t largest = 0;         // largest payload created with, signalled or queued
    std::vector<uint64_t> queued;  // payloads queue operations signal (pruned at host signals)
  };
  // The signal list `field` of a queue operation: unique semaphores, payloads
  // above `largest` (updated in `seen`, for later lists of the same call).
  bool CheckSignalList(CallContext& ctx, const XgpuSemaphoreList* list, const char* field, uint64_t i,
                       Vuid unique_vuid, Vuid value_vuid, std::map<uint64_t, uint64_t>* seen) const;
  // A queue operation's lists: semaphores of its device's driver and runtime, then the signal list.
  bool CheckOperation(CallContext& ctx, const XgpuSemaphoreList* wait, const XgpuSemaphoreList* signal,
                      Vuid vuid) const;
  void Queued(const XgpuSemaphoreList* list);

  mutable std::mutex mutex_;
  std::map<uint64_t, State> states_;
};

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_SEMAPHORES_SEMAPHORE_VALUES_H_
