// PendingWork: which queue operations are still pending as the host has
// observed them (api.md 2: a queue is in order; an operation has completed
// once the host saw one of its signal payloads reached, or its queue or
// device idle), and the rules on pending work (categories in_use and the
// pending command_buffer_state rules of vuids.json): beginning or destroying
// a pending command buffer; destroying a buffer, pipeline or semaphore a
// pending operation uses; destroying a device with pending work (reported,
// then the layer waits for the device, at most kDestroyDrainNs, before
// destroying it); submitting a command buffer whose recording uses a
// destroyed buffer or pipeline.
//
// Each queue operation gets a sequence number on its queue; every object it
// uses remembers, per queue, the last one. Observations: xgpuQueueWaitIdle,
// xgpuDeviceWaitIdle (also when they return XGPU_ERROR_DEVICE_LOST: they do
// once nothing runs), a successful xgpuWaitSemaphores (each semaphore's
// payload; with XGPU_SEMAPHORE_WAIT_ANY_BIT the values are asked down the
// chain), xgpuGetSemaphoreValue; a wait or value query that returns
// XGPU_ERROR_DEVICE_LOST: the operations that would signal its semaphores
// failed, seen by the host (api.md 1.8, 6.1). Completion follows waits: an operation seen
// complete had each payload it waited on reached, so whatever signalled those
// payloads (on another queue, or a queue of another device) completed too, and
// so on down the chain.
//
// Tracking at submit is a costly check: it runs only while the instance's
// settings.costly_checks is set (without it, nothing is reported as pending).
//
// Thread-safe: all state is behind one mutex, taken by queue operations,
// waits and destroys (never by recording commands).
#ifndef XGPU_LAYERS_VALIDATION_PENDING_PENDING_WORK_H_
#define XGPU_LAYERS_VALIDATION_PENDING_PENDING_WORK_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../chassis/hooks.h"

namespace xgpu_validation {

class PendingWork : public HookDefaults {
 public:
  bool ValidateBeginCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                  const XgpuCommandBufferBeginInfo* pBeginInfo) const;
  bool ValidateDestroyCommandBuffer(CallContext& ctx, XgpuDevice device, XgpuCommandBuffer commandBuffer,
                                    const XgpuAllocationCallbacks* pAllocator) const;
  void PostRecordDestroyCommandBuffer(CallContext& ctx, XgpuDevice device, XgpuCommandBuffer commandBuffer,
                                      const XgpuAllocationCallbacks* pAllocator);
  bool ValidateDestroyBuffer(CallContext& ctx, XgpuDevice device, XgpuBuffer buffer,
                             const XgpuAllocationCallbacks* pAllocator) const;
  void PostRecordDestroyBuffer(CallContext& ctx, XgpuDevice device, XgpuBuffer buffer,
                               const XgpuAllocationCallbacks* pAllocator);
  bool ValidateDestroyPipeline(CallContext& ctx, XgpuDevice device, XgpuPipeline pipeline,
                               const XgpuAllocationCallbacks* pAllocator) const;
  void PostRecordDestroyPipeline(CallContext& ctx, XgpuDevice device, XgpuPipeline pipeline,
                                 const XgpuAllocationCallbacks* pAllocator);
  bool ValidateDestroySemaphore(CallContext& ctx, XgpuDevice device, XgpuSemaphore semaphore,
                                const XgpuAllocationCallbacks* pAllocator) const;
  void PostRecordDestroySemaphore(CallContext& ctx, XgpuDevice device, XgpuSemaphore semaphore,
                                  const XgpuAllocationCallbacks* pAllocator);
  bool ValidateDestroyDevice(CallContext& ctx, XgpuDevice device, const XgpuAllocationCallbacks* pAllocator) const;
  void PreRecordDestroyDevice(CallContext& ctx, XgpuDevice device, const XgpuAllocationCallbacks* pAllocator);

  bool ValidateQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                           const XgpuSubmitInfo* pSubmits) const;
  void PostRecordQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount, const XgpuSubmitInfo* pSubmits,
                             XgpuResult result);
  void PostRecordQueueFillBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                 const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer dstBuffer,
                                 XgpuDeviceSize dstOffset, XgpuDeviceSize size, const void* pPattern,
                                 uint32_t patternSize, XgpuResult result);
  void PostRecordQueueCopyBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                 const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer srcBuffer,
                                 XgpuDeviceSize srcOffset, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset,
                                 XgpuDeviceSize size, XgpuResult result);
  void PostRecordQueueAlloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                             const XgpuSemaphoreList* pSignalSemaphores, XgpuMemoryPool memoryPool,
                             XgpuDeviceSize size, XgpuBufferUsageFlags usage, XgpuBuffer* pBuffer, XgpuResult result);
  void PostRecordQueueDealloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                               const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer buffer, XgpuResult result);

  // Queue-ordered allocation (api.md 10): a queue-allocated buffer is used
  // only once its alloca has committed (an operation on the alloca's queue,
  // or one waiting on an alloca signal payload; the host: once it saw the
  // alloca complete), deallocated only after the operations of other queues
  // that use it (its dealloca waits on a payload they signal), and its pool
  // destroyed only when no allocation is alive and every dealloca completed.
  bool ValidateMapBuffer(CallContext& ctx, XgpuDevice device, XgpuBuffer buffer, XgpuDeviceSize offset,
                         XgpuDeviceSize size, void** ppData) const;
  bool ValidateGetBufferDeviceAddress(CallContext& ctx, XgpuDevice device, XgpuBuffer buffer) const;
  bool ValidateQueueFillBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                               const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer dstBuffer,
                               XgpuDeviceSize dstOffset, XgpuDeviceSize size, const void* pPattern,
                               uint32_t patternSize) const;
  bool ValidateQueueCopyBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                               const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer srcBuffer,
                               XgpuDeviceSize srcOffset, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset,
                               XgpuDeviceSize size) const;
  bool ValidateQueueDealloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                             const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer buffer) const;
  bool ValidateDestroyMemoryPool(CallContext& ctx, XgpuDevice device, XgpuMemoryPool memoryPool,
                                 const XgpuAllocationCallbacks* pAllocator) const;
  void PostRecordDestroyMemoryPool(CallContext& ctx, XgpuDevice device, XgpuMemoryPool memoryPool,
                                   const XgpuAllocationCallbacks* pAllocator);

  void PostRecordQueueWaitIdle(CallContext& ctx, XgpuQueue queue, XgpuResult result);
  void PostRecordDeviceWaitIdle(CallContext& ctx, XgpuDevice device, XgpuResult result);
  void PostRecordWaitSemaphores(CallContext& ctx, XgpuDevice device, const XgpuSemaphoreWaitInfo* pWaitInfo,
                                uint64_t timeout, XgpuResult result);
  void PostRecordGetSemaphoreValue(CallContext& ctx, XgpuDevice device, XgpuSemaphore semaphore, uint64_t* pValue,
                                   XgpuResult result);

  // A certain deadlock (deadlock/deadlock.cpp): a wait with no time limit
  // that nothing pending can satisfy, on the only thread that has ever called
  // into the layer. A warning: the wait still goes down the chain.
  bool ValidateWaitSemaphores(CallContext& ctx, XgpuDevice device, const XgpuSemaphoreWaitInfo* pWaitInfo,
                              uint64_t timeout) const;

 private:
  using Key = std::pair<XgpuObjectType, uint64_t>;  // (type, handle)
  using Payloads = std::vector<std::pair<uint64_t, uint64_t>>;  // (semaphore, payload)
  struct Op {
    uint64_t seq;      // its number on its queue
    Payloads signals;  // what it signals
    Payloads waits;    // what it waited on
  };
  struct Queue {
    const LayerDevice* device = nullptr;  // its device
    uint64_t submitted = 0;               // operations queued
    uint64_t completed = 0;               // operations the host saw completed (in queue order)
    std::deque<Op> signalling;            // pending operations with a signal or wait list, oldest first
  };
  struct Alloca {
    uint64_t pool;                                       // its memory pool
    uint64_t queue;                                      // the queue of its alloca
    uint64_t seq;                                        // the alloca's number there
    std::vector<std::pair<uint64_t, uint64_t>> signals;  // the alloca's signal list
  };
  struct Dealloca {
    uint64_t pool;   // the pool it returns memory to
    uint64_t queue;  // its queue
    uint64_t seq;    // its number there
  };
  struct Use {
    uint64_t queue;  // the queue
    uint64_t seq;    // the last operation on it that uses the object
  };

  // Whether (type, handle) is used by an operation not yet seen completed; its queue and number.
  bool PendingLocked(const Key& key, Use* use) const;
  bool Pending(XgpuObjectType type, uint64_t handle, Use* use) const;
  // Starts an operation on `queue` using `objects`; returns its number.
  uint64_t AddOpLocked(const CallContext& ctx, uint64_t queue, const std::vector<Key>& objects,
                       const XgpuSemaphoreList* wait, const XgpuSemaphoreList* signal);
  // The host saw `semaphore` reach `value`: every operation that signals a
  // payload up to it completed, with what its queue ran before it and what
  // those operations waited for, transitively.
  void ObserveLocked(uint64_t semaphore, uint64_t value);
  // `q` completed its operations up to `seq`; adds the payloads they waited on to `reached`.
  static void CompleteLocked(Queue& q, uint64_t seq, Payloads* reached);
  // Observes each payload of `reached` (and what follows from it).
  void ObserveAllLocked(Payloads* reached);
  // Drops the deallocas seen complete.
  void PruneLocked();
  void Forget(XgpuObjectType type, uint64_t handle);
  bool CheckInUse(CallContext& ctx, Vuid vuid, const char* field, XgpuObjectType type, uint64_t handle) const;
  static bool Enabled(const CallContext& ctx) { return ctx.instance != nullptr && ctx.instance->settings.costly_checks; }

  // Whether the queue-allocated `buffer` (if it is one) is committed for an
  // operation on `queue` waiting on `wait`; else reports `vuid` on `field`.
  bool CheckStaticCounts(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                         const XgpuSubmitInfo* pSubmits) const;
  bool CheckCommitted(CallContext& ctx, Vuid vuid, const Field& field, uint64_t buffer, uint64_t queue,
                      const XgpuSemaphoreList* wait) const;
  bool CheckHostCommitted(CallContext& ctx, Vuid vuid, XgpuBuffer buffer) const;

  // Cross-queue hazards (cross_queue.cpp; with the synchronization-hazard
  // warnings on): a queue operation's accesses of buffer bytes against the
  // pending accesses of other queues that no semaphore chain orders before
  // it.
 public:
  // Which operation and command made an access (a message is composed
  // from it only when a hazard is reported).
  struct AccessOrigin {
    const char* function = "";    // xgpuQueueSubmit, xgpuQueueFillBuffer, xgpuQueueCopyBuffer
    uint32_t submit_index = 0;    // xgpuQueueSubmit: pSubmits[i]
    uint64_t command_buffer = 0;  // xgpuQueueSubmit: its command buffer
    uint32_t command = 0;         // the command's index in the recording
    Command what{};               // the recording command
    const char* field = "";       // its reference ("pSrc", "binding")
    int32_t field_index = -1;     // the binding's index, else -1
  };
  struct BufferAccess {
    uint64_t buffer = 0;
    uint64_t begin = 0, end = 0;  // bytes [begin, end)
    bool write = false;           // writes (or updates atomically); else reads
    AccessOrigin origin;
  };
  static std::string OriginText(const AccessOrigin& origin, bool write, uint64_t buffer);
  // A submission's accesses (its recording's hazard log, resolved through
  // its table), or a queue fill's or copy's.
  static void SubmissionAccesses(const XgpuSubmitInfo& submit, uint32_t index, std::vector<BufferAccess>* out);
  static BufferAccess QueueTransferAccess(XgpuBuffer buffer, uint64_t offset, uint64_t size, bool write,
                                          const char* function);

 private:
  struct QueueAccesses {            // the last pending read and write of one buffer by one queue
    uint64_t read_seq = 0, write_seq = 0;
    uint64_t read_begin = 0, read_end = 0, write_begin = 0, write_end = 0;
    AccessOrigin read_origin, write_origin;
  };
  // Reports each access of `accesses` (an operation about to be queued on
  // `queue`, waiting on `wait`) that conflicts with a pending access of
  // another queue not ordered before it.
  bool CheckCrossQueue(CallContext& ctx, uint64_t queue, const XgpuSemaphoreList* wait,
                       const std::vector<BufferAccess>& accesses) const;
  // Whether an operation waiting on `waits` runs after operation `seq` of
  // `queue` completed: some wait is met only by a signal of that queue at or
  // after it, or of an operation ordered after it (followed `depth` deep).
  bool OrderedAfterLocked(const Payloads& waits, uint64_t queue, uint64_t seq, unsigned depth) const;
  void RecordAccessesLocked(uint64_t queue, uint64_t seq, const std::vector<BufferAccess>& accesses);
  static bool Hazards(const CallContext& ctx) {
    return Enabled(ctx) && ctx.instance->settings.sync_hazards;
  }
  std::map<uint64_t, std::map<uint64_t, QueueAccesses>> cross_;  // buffer -> queue -> its last accesses

  mutable std::mutex mutex_;
  std::map<uint64_t, Alloca> allocas_;     // live queue-allocated buffers
  std::atomic<size_t> alloca_count_{0};    // allocas_.size(), published after each change (read without the lock)
  std::vector<Dealloca> deallocas_;        // deallocas not yet seen complete
  std::vector<Key> scratch_;               // a submission's objects (PostRecordQueueSubmit)
  std::map<uint64_t, Queue> queues_;
  struct KeyHash {
    size_t operator()(const Key& key) const {
      const uint64_t h = (key.second ^ static_cast<uint64_t>(key.first)) * 0x9E3779B97F4A7C15ull;
      return static_cast<size_t>(h ^ (h >> 32));
    }
  };
  std::unordered_map<Key, std::vector<Use>, KeyHash> uses_;  // looked up per object at every submit
  // The last operation's objects and where each one's Use of that queue is
  // (AddOpLocked): an application submits the same command buffer with the
  // same bindings, call after call, and an operation with the same objects on
  // the same queue updates those Uses without a lookup. The places stay valid
  // while no key leaves uses_ and no queue leaves queues_ (both bump
  // `epoch_`): a map's values do not move, and no Use leaves its vector.
  struct LastOp {
    uint64_t queue = 0;
    uint64_t epoch = 0;
    Queue* q = nullptr;
    std::vector<Key> objects;
    std::vector<std::pair<std::vector<Use>*, size_t>> places;
  };
  LastOp last_op_;
  uint64_t epoch_ = 1;
};

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_PENDING_PENDING_WORK_H_
