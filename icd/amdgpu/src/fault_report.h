// Device-fault reports: what the driver says when a kernel faults or hangs,
// and keeps for xgpuGetDeviceFaultInfo.
//
// When a queue fails, the report names the queue, the submission (its order
// on the queue), the command buffer and its debug name, the command (index,
// API function, kernel, the debug labels open around it), and for a memory
// fault the address and what it falls in: a live buffer and the offset, the
// nearest buffer ("12 bytes past the end of buffer 'particles'"), a buffer or
// queue allocation freed before, or no allocation. Where the runtime tells
// more (hsa-cpu's hsa_cpu_queue_get_kernel_fault), also whether the access
// was a read or a write, the workgroup and the kernel's source file, line and
// column. A hang found by the watchdog names the command that was running and
// how long it ran.
//
// Where the facts come from:
//  - the address: HSA_AMD_GPU_MEMORY_FAULT_EVENT, which every runtime
//    delivers through hsa_amd_register_system_event_handler (ROCR, hsa-cpu,
//    hsa-cuda); the driver registers one handler per runtime and routes the
//    event to the devices of its agent;
//  - the packet: hsa-cpu's extension names the faulting packet; elsewhere the
//    last packet the queue started (its read index minus one);
//  - packet -> submission -> command: each issued submission records the
//    packet ids it occupies; the command buffer's program maps a packet
//    offset to its command (commands_describe_packet);
//  - what an address falls in: the device's address book of live buffers and
//    queue allocations, and of the last kFreedRanges freed ones.
//
// Thread-safety: thread-safe; the address book and the report are guarded by
// Device::fault_mutex (taken after Queue::mutex and MemoryPool::mutex, never
// before them).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include <hsa/hsa.h>

#include "xgpu/xgpu.h"

namespace xgpu::amdgpu {

struct Device;
struct Buffer;
struct Queue;
struct Submission;

// Freed allocations the address book remembers (the most recent ones).
inline constexpr size_t kFreedRanges = 64;

// One allocation in the address book.
struct AddressRange {
  uint64_t handle = 0;         // the XgpuBuffer
  uint64_t size = 0;           // bytes
  bool alloca = false;         // a queue allocation (xgpuQueueAlloca)
  std::string name;            // debug name when freed (freed ranges only)
  uint64_t base = 0;           // first byte (freed ranges only; the key for live ones)
};

struct AddressBook {
  std::map<uint64_t, AddressRange> live;  // base address -> allocation
  std::deque<AddressRange> freed;         // most recent last, at most kFreedRanges
};

// What the first fault or hang of a device was (xgpuGetDeviceFaultInfo).
struct FaultReport {
  XgpuDeviceFaultKind kind = XGPU_DEVICE_FAULT_KIND_NONE;
  std::string description;          // the whole report, as the device-lost message says it
  uint32_t queue_index = UINT32_MAX;
  uint64_t submission = 0;          // 1-based order of acceptance on its queue; 0 unknown
  uint64_t command_buffer = 0;      // XgpuCommandBuffer, 0 when none
  std::string command_buffer_name;
  uint32_t command_index = UINT32_MAX;
  std::string command;              // "xgpuCmdDispatch", ...
  std::string labels;               // "'frame' > 'physics'"
  std::string kernel;
  bool address_valid = false;
  uint64_t address = 0;
  XgpuDeviceFaultAccess access = XGPU_DEVICE_FAULT_ACCESS_UNKNOWN;
  XgpuDeviceFaultAddressRelation relation = XGPU_DEVICE_FAULT_ADDRESS_RELATION_UNKNOWN;
  uint64_t buffer = 0;              // the buffer the address falls in or is nearest to
  std::string buffer_name;
  uint64_t buffer_offset = 0;       // INSIDE: offset; PAST_END: bytes past the end; BEFORE_START: bytes before
  uint64_t buffer_size = 0;
  bool buffer_alloca = false;       // the buffer is a queue allocation
  uint32_t workgroup_id[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
  std::string source_file;
  uint32_t source_line = 0;
  uint32_t source_column = 0;
  std::string function;             // the symbol the faulting instruction is in
  uint64_t run_time_ns = 0;         // HANG: how long the command ran
};

// The address book (called where allocations appear and go).
void fault_note_allocation(Device* device, const Buffer* buffer, uint64_t base);
void fault_note_free(Device* device, const Buffer* buffer, uint64_t base);

// The queue's error callback: builds the report of a failed queue (memory
// fault or another queue error) and returns the reason for device_mark_lost.
// Keeps the report for xgpuGetDeviceFaultInfo (the first one wins).
std::string fault_report_queue_error(Queue* queue, hsa_status_t status, const std::string& status_text,
                                     const hsa_queue_t* source, uint64_t* out_command_buffer);
// The watchdog: the report of a hang on `queue` (its lock held; `front` the
// submission that runs), `ran_ms` ms without progress.
std::string fault_report_hang(Queue* queue, const Submission* front, uint64_t ran_ms, uint64_t timeout_ms);

// Any other loss (device_mark_lost): kept unless a fault or hang was first.
void fault_note_loss(Device* device, const std::string& reason);

// Registers the driver's system event handler with a runtime (once per
// runtime: a second registration the runtime refuses is harmless).
void fault_register_event_handler(const struct HsaApi& hsa);
// Devices the event handler routes HSA_AMD_GPU_MEMORY_FAULT_EVENT to.
void fault_register_device(Device* device);
void fault_unregister_device(Device* device);

// xgpuGetDeviceFaultInfo.
XgpuResult device_get_fault_info(XgpuDevice device, XgpuDeviceFaultInfo* out_info);

}  // namespace xgpu::amdgpu
