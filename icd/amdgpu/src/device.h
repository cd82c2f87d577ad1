// Device: the logical device on one HSA agent - its queues, memory
// (sub-allocators per memory type), the pool of completion signals, the
// device library, and the lost state.
//
// Thread-safety: thread-safe. Immutable after creation except: `lost`
// (atomic), the signal pool (signal_mutex), the allocators (internally
// locked), the object names (names_mutex).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <condition_variable>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "block_allocator.h"
#include "fault_report.h"
#include "hsa_api.h"
#include "instance.h"
#include "seam.h"

namespace xgpu::amdgpu {

struct Queue;
struct Device;

// A pooled HSA signal put on the last packet of a submission (initial value
// 1, decremented by the packet processor when the submission completes).
// Referenced by the submission and by barrier packets of other queues that
// wait for it; back in the pool when the last reference goes.
struct CompletionSignal {
  hsa_signal_t signal{0};           // the HSA signal
  std::atomic<uint32_t> refs{0};    // submission + dependants
};

// A buffer: what the commands half sees (BufferInfo) plus where its memory is.
struct Buffer : BufferInfo {
  Device* device = nullptr;                 // owner
  uint32_t memory_type = 0;                 // index into the memory types
  bool host_visible = false;                // xgpuMapBuffer allowed
  BlockAllocator::Allocation allocation;    // its memory (not for an alloca)
  // Alloca buffers only (is_alloca); guarded by the pool's mutex.
  struct MemoryPool* pool = nullptr;        // pool it comes from; nullptr once the pool was destroyed
  struct PoolBlock* pool_block = nullptr;   // block holding its range while committed
  uint64_t pool_offset = 0;                 // offset of its range in pool_block, bytes
  uint64_t pool_size = 0;                   // bytes of its range (size aligned up)
  bool alloca_committed = false;            // range taken and not yet returned
  bool dealloca_issued = false;             // its dealloca was issued (range returned or never taken)
  const Queue* release_queue = nullptr;     // queue whose dealloca returned the range (tagged)
  uint64_t release_ticket = 0;              // that dealloca's release ticket; 0 = none
  std::atomic<uint32_t> refs{0};            // alloca submission + handle; deleted at 0 (atomic)
  std::atomic<bool> dealloca_submitted{false};  // xgpuQueueDealloca was called (atomic)
};

struct Device {
  XgpuLoaderData loader_data;                        // loader's word (must be first)
  PhysicalDevice* physical = nullptr;                // the agent
  Instance* instance = nullptr;                      // owner of the physical device
  const Runtime* runtime = nullptr;                  // HSA runtime
  const HsaApi* hsa = nullptr;                       // == &runtime->hsa
  hsa_agent_t agent{0};                              // == physical->agent
  std::vector<std::unique_ptr<Queue>> queues;        // family 0, in index order
  uint32_t queue_families = 0;                       // bit f: created with queues of family f
  DeviceLibrary* library = nullptr;                  // builtin kernels (commands half)
  std::vector<std::unique_ptr<BlockAllocator>> allocators;  // one per memory type
  std::atomic<bool> lost_claimed{false};             // the first device_mark_lost call won (reports)
  std::atomic<bool> lost{false};                     // a queue failed: no more work (set after the report)
  std::mutex signal_mutex;                           // guards the signal pool
  std::vector<CompletionSignal*> free_signals;       // ready for reuse
  std::vector<CompletionSignal*> all_signals;        // every signal created (for destroy)
  mutable std::mutex names_mutex;                    // guards object_names
  mutable std::unordered_map<uint64_t, std::string> object_names;  // handle -> xgpuSetObjectName name
  mutable std::mutex live_mutex;                     // guards live_handles
  mutable std::unordered_set<const void*> live_handles;  // children not yet destroyed (device_track_handle)
  uint64_t watchdog_ms = 0;                          // XGPU_AMDGPU_WATCHDOG_MS; 0 = off
  std::thread watchdog;                              // checks the queues every watchdog_period_ms
  std::mutex watchdog_mutex;                         // guards watchdog_stop
  std::condition_variable watchdog_wake;             // wakes the watchdog to stop
  bool watchdog_stop = false;                        // destroy asks the watchdog to end
  // Fault reports (fault_report.h): guarded by fault_mutex.
  std::mutex fault_mutex;
  std::unique_ptr<FaultReport> fault;                // the first fault, hang or loss
  bool fault_event_valid = false;                    // HSA_AMD_GPU_MEMORY_FAULT_EVENT not yet reported
  uint64_t fault_event_address = 0;                  // its address
  uint32_t fault_event_reasons = 0;                  // its HSA_AMD_MEMORY_FAULT_* bits
  AddressBook address_book;                          // live and recently freed allocations
  uint64_t print_buffer_size = 0;                    // bytes of each submission's print buffer
                                                     // (XgpuDeviceCreateInfo::printBufferSize)
  bool lazy_completion = false;                      // completion handlers registered on demand (queue.cpp;
                                                     // needs signal loads and wait-any; off with
                                                     // XGPU_AMDGPU_EAGER_COMPLETION=1)
};

// Default of XGPU_AMDGPU_WATCHDOG_MS: how long a queue may run one operation
// without completing anything before the device is declared lost (as
// amdgpu's compute lockup timeout).
inline constexpr uint64_t kDefaultWatchdogMs = 60'000;
// How long xgpuDestroyDevice waits for work still running before it
// abandons it (the device is then lost and what the work uses is leaked).
inline constexpr uint64_t kDestroyDrainMs = 2'000;
// Bytes of a submission's print buffer when XgpuDeviceCreateInfo::
// printBufferSize is 0 (header included).
inline constexpr uint64_t kDefaultPrintBufferSize = 1ull << 20;

// Marks the device lost (first reason wins), fails everything pending and in
// flight on its queues with XGPU_ERROR_DEVICE_LOST.
// The message lists the device and `objects`.
void device_mark_lost(Device* device, const std::string& reason, std::initializer_list<ReportObject> objects = {});
// Reports `message` (severity ERROR, ID `id`: a rule's XGPU-VUID-... or a
// msgid:: constant, seam.h) with `result` appended, and returns `result`
// (for `return device_fail(...)`).
XgpuResult device_fail(const Device* device, XgpuResult result, const char* id, const std::string& message);
// `function` was called after the device was lost: reports it
// (msgid::kCallOnLostDevice) and returns XGPU_ERROR_DEVICE_LOST.
XgpuResult device_fail_lost(const Device* device, const char* function);

// Completion signals (value reset to 1 on acquire).
XgpuResult device_acquire_completion_signal(Device* device, CompletionSignal** out_signal,
                                            std::string* out_error);
void completion_signal_retain(CompletionSignal* signal);
void completion_signal_release(Device* device, CompletionSignal* signal);

// Raw HSA allocation from a memory type's pool (access granted to the agent).
XgpuResult device_allocate_from_type(Device* device, uint32_t memory_type, uint64_t size,
                                     void** out_ptr, std::string* out_error);

// Entry points.
XgpuResult device_create(XgpuPhysicalDevice physical_device, const XgpuDeviceCreateInfo* info,
                         const XgpuAllocationCallbacks* allocator, XgpuDevice* out_device);
void device_destroy(XgpuDevice device, const XgpuAllocationCallbacks* allocator);
void device_get_queue(XgpuDevice device, uint32_t family, uint32_t index, XgpuQueue* out_queue);
XgpuResult device_wait_idle(XgpuDevice device);
XgpuResult device_set_object_name(XgpuDevice device, const XgpuDebugObjectNameInfo* info);

XgpuResult buffer_create(XgpuDevice device, const XgpuBufferCreateInfo* info,
                         const XgpuAllocationCallbacks* allocator, XgpuBuffer* out_buffer);
void buffer_destroy(XgpuDevice device, XgpuBuffer buffer, const XgpuAllocationCallbacks* allocator);
XgpuResult buffer_map(XgpuDevice device, XgpuBuffer buffer, XgpuDeviceSize offset, XgpuDeviceSize size,
                      void** out_data);
void buffer_unmap(XgpuDevice device, XgpuBuffer buffer);
XgpuDeviceAddress buffer_device_address(XgpuDevice device, XgpuBuffer buffer);
// Statistics of a memory type's sub-allocator (tests, xgpuinfo).
BlockAllocator::Stats device_allocator_stats(Device* device, uint32_t memory_type);

}  // namespace xgpu::amdgpu
