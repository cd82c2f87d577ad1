#include "fault_report.h"

#include <dlfcn.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

#include "common.h"
#include "device.h"
#include "hsa_api.h"
#include "hsa_cpu_ext.h"
#include "queue.h"

namespace xgpu::amdgpu {
namespace {

// A buffer whose end (or start) is at most this far from a fault address is
// named as the nearest one ("12 bytes past the end of buffer 'x'").
constexpr uint64_t kNearestBufferDistance = 1ull << 20;


std::string quoted_or(const std::string& name, const char* unnamed) {
  return name.empty() ? std::string(unnamed) : "'" + name + "'";
}

// --- devices the system event handler routes to -----------------------------

struct EventRoute {
  std::mutex mutex;
  std::vector<Device*> devices;
};
EventRoute& route() {
  static auto* instance = new EventRoute();  // never destroyed: a runtime thread may call late
  return *instance;
}

// What a runtime said in HSA_AMD_GPU_MEMORY_FAULT_EVENT, kept per device
// until the queue error that follows reads it.
hsa_status_t on_system_event(const hsa_amd_event_t* event, void*) {
  if (!event || event->event_type != HSA_AMD_GPU_MEMORY_FAULT_EVENT) return HSA_STATUS_SUCCESS;
  const hsa_amd_gpu_memory_fault_info_t& info = event->memory_fault;
  EventRoute& r = route();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (Device* device : r.devices) {
    if (device->agent.handle != info.agent.handle) continue;
    std::lock_guard<std::mutex> fault_lock(device->fault_mutex);
    device->fault_event_valid = true;
    device->fault_event_address = info.virtual_address;
    device->fault_event_reasons = info.fault_reason_mask;
    // IMPRECISE with no address: the runtime cannot say where (hsa-cuda:
    // CUDA reports an illegal address without it).
    if (info.virtual_address == 0 && (info.fault_reason_mask & HSA_AMD_MEMORY_FAULT_IMPRECISE)) continue;
    // A runtime that reports the event after the queue error (ROCR's
    // threads do not order them): the report kept for the query learns
    // the address now.
    if (device->fault && !device->fault->address_valid) {
      device->fault->address_valid = true;
      device->fault->address = info.virtual_address;
    }
  }
  return HSA_STATUS_SUCCESS;
}

// hsa-cpu's account of a kernel fault (hsa_cpu_ext.h); null elsewhere.
hsa_cpu_queue_get_kernel_fault_fn_t kernel_fault_function(const HsaApi& hsa) {
  if (!hsa.library) return nullptr;
  return reinterpret_cast<hsa_cpu_queue_get_kernel_fault_fn_t>(
      dlsym(hsa.library, HSA_CPU_QUEUE_GET_KERNEL_FAULT_SYMBOL));
}

// --- what an address falls in -------------------------------------------------

// Fills relation/buffer fields of `report` for `address`. fault_mutex held.
void locate(const Device* device, uint64_t address, FaultReport* report) {
  const AddressBook& book = device->address_book;
  // Live: the allocation at or below the address, and the one above.
  auto above = book.live.upper_bound(address);
  const AddressRange* below_range = nullptr;
  uint64_t below_base = 0;
  if (above != book.live.begin()) {
    auto it = std::prev(above);
    below_range = &it->second;
    below_base = it->first;
    if (address - below_base < below_range->size) {
      report->relation = XGPU_DEVICE_FAULT_ADDRESS_RELATION_INSIDE;
      report->buffer = below_range->handle;
      report->buffer_offset = address - below_base;
      report->buffer_size = below_range->size;
      report->buffer_alloca = below_range->alloca;
      return;
    }
  }
  // Freed: the most recent first (an address reused since would have been
  // found live above).
  for (auto it = book.freed.rbegin(); it != book.freed.rend(); ++it) {
    if (address >= it->base && address - it->base < it->size) {
      report->relation = XGPU_DEVICE_FAULT_ADDRESS_RELATION_FREED;
      report->buffer = it->handle;
      report->buffer_name = it->name;
      report->buffer_offset = address - it->base;
      report->buffer_size = it->size;
      report->buffer_alloca = it->alloca;
      return;
    }
  }
  // The nearest live allocation within kNearestBufferDistance.
  uint64_t past = UINT64_MAX, before = UINT64_MAX;
  if (below_range) past = address - (below_base + below_range->size);
  if (above != book.live.end()) before = above->first - address;
  if (past <= before && past <= kNearestBufferDistance) {
    report->relation = XGPU_DEVICE_FAULT_ADDRESS_RELATION_PAST_END;
    report->buffer = below_range->handle;
    report->buffer_offset = past;
    report->buffer_size = below_range->size;
    report->buffer_alloca = below_range->alloca;
  } else if (before < past && before <= kNearestBufferDistance) {
    report->relation = XGPU_DEVICE_FAULT_ADDRESS_RELATION_BEFORE_START;
    report->buffer = above->second.handle;
    report->buffer_offset = before;
    report->buffer_size = above->second.size;
    report->buffer_alloca = above->second.alloca;
  } else {
    report->relation = XGPU_DEVICE_FAULT_ADDRESS_RELATION_NONE;
  }
}

// "buffer 'particles' (4096 bytes) at offset 16", "12 bytes past the end of ..."
std::string describe_location(const FaultReport& r) {
  const bool alloca = r.buffer_alloca;
  const std::string what = std::string(alloca ? "queue allocation " : "buffer ") +
                           quoted_or(r.buffer_name, "(unnamed)") + " (" +
                           hex(r.buffer) + ", " + std::to_string(r.buffer_size) + " bytes)";
  switch (r.relation) {
    case XGPU_DEVICE_FAULT_ADDRESS_RELATION_INSIDE:
      return "inside " + what + " at offset " + std::to_string(r.buffer_offset);
    case XGPU_DEVICE_FAULT_ADDRESS_RELATION_PAST_END:
      return std::to_string(r.buffer_offset) + " bytes past the end of " + what;
    case XGPU_DEVICE_FAULT_ADDRESS_RELATION_BEFORE_START:
      return std::to_string(r.buffer_offset) + " bytes before the start of " + what;
    case XGPU_DEVICE_FAULT_ADDRESS_RELATION_FREED:
      return "inside " + what + " at offset " + std::to_string(r.buffer_offset) + ", which was " +
             (alloca ? "deallocated (xgpuQueueDealloca)" : "destroyed (xgpuDestroyBuffer)") +
             " before: a use after free";
    case XGPU_DEVICE_FAULT_ADDRESS_RELATION_NONE:
      return "in no allocation of the device, none within 1 MiB";
    default:
      return "";
  }
}

const char* access_name(XgpuDeviceFaultAccess access) {
  switch (access) {
    case XGPU_DEVICE_FAULT_ACCESS_READ: return "read";
    case XGPU_DEVICE_FAULT_ACCESS_WRITE: return "write";
    case XGPU_DEVICE_FAULT_ACCESS_EXECUTE: return "instruction fetch";
    default: return "access";
  }
}

// The submission on `queue` whose packets hold `packet_id`: the oldest in
// flight when none does (a runtime that names no packet). Queue lock held.
const Submission* submission_at(const Queue* queue, uint64_t packet_id, bool have_packet) {
  for (const Submission* s : queue->inflight)
    if (have_packet && packet_id >= s->first_packet && packet_id < s->end_packet) return s;
  return queue->inflight.empty() ? nullptr : queue->inflight.front();
}

// Queue, submission, command buffer, command, kernel, labels. Queue lock held.
void describe_work(Queue* queue, uint64_t packet_id, bool have_packet, FaultReport* r) {
  r->queue_index = queue->index;
  const Submission* s = submission_at(queue, packet_id, have_packet);
  if (!s) return;
  r->submission = s->sequence;
  r->command = submission_kind_name(s->kind);
  if (!s->owns_command_buffer && s->command_buffer_handle) {
    r->command_buffer = uint64_t(reinterpret_cast<uintptr_t>(s->command_buffer_handle));
    r->command_buffer_name = device_object_name(queue->device, r->command_buffer);
  }
  if (s->kind != SubmissionKind::kCommands || !s->command_buffer) return;
  // Without the packet, the one in flight in this submission is the last
  // the queue started (read index - 1), when it is in this submission.
  if (!have_packet) return;
  if (packet_id < s->body_packet) return;  // a dependency barrier of the submission
  CommandAtPacket at;
  if (!commands_describe_packet(s->command_buffer, uint32_t(packet_id - s->body_packet), &at)) return;
  // An internal one-shot (xgpuQueueFillBuffer, xgpuQueueCopyBuffer) is the
  // operation itself: its one command is not a recording of the user's.
  if (s->owns_command_buffer) {
    r->kernel = at.kernel;
    return;
  }
  r->command_index = at.index;
  r->command = at.function;
  r->kernel = at.kernel;
  r->labels = at.labels;
}

// "queue 0, submission 3 (xgpuQueueSubmit of command buffer 'frame'), command 2 (xgpuCmdDispatch, kernel
// 'integrate', inside debug labels 'frame' > 'physics')"; submissions count every operation the queue
// accepted (Submission::sequence).
std::string describe_where(const FaultReport& r, bool with_queue = true) {
  std::string out = with_queue ? "queue " + std::to_string(r.queue_index) + ", " : std::string();
  if (r.submission) {
    out += "submission " + std::to_string(r.submission);
    if (r.command_buffer)
      out += r.command_buffer_name.empty() ? std::string(" (xgpuQueueSubmit of an unnamed command buffer)")
                                           : " (xgpuQueueSubmit of command buffer '" + r.command_buffer_name + "')";
    else if (!r.command.empty() && r.command_index == UINT32_MAX)
      out += " (" + r.command + ")";
  }
  if (r.command_index != UINT32_MAX) {
    out += ", command " + std::to_string(r.command_index) + " (" + r.command;
    if (!r.kernel.empty()) out += ", kernel '" + r.kernel + "'";
    if (!r.labels.empty()) out += ", inside debug labels " + r.labels;
    out += ")";
  } else if (!r.kernel.empty()) {
    out += ", kernel '" + r.kernel + "'";
  }
  return out;
}

void keep(Device* device, FaultReport&& report) {
  std::lock_guard<std::mutex> lock(device->fault_mutex);
  if (!device->fault) device->fault = std::make_unique<FaultReport>(std::move(report));
}

void copy_string(char* out, size_t size, const std::string& text) {
  const size_t n = std::min(size - 1, text.size());
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

}  // namespace

void fault_note_loss(Device* device, const std::string& reason) {
  FaultReport r;
  r.kind = XGPU_DEVICE_FAULT_KIND_OTHER;
  r.description = reason;
  keep(device, std::move(r));
}

// --- address book ------------------------------------------------------------------

void fault_note_allocation(Device* device, const Buffer* buffer, uint64_t base) {
  if (!base) return;
  AddressRange range;
  range.handle = uint64_t(reinterpret_cast<uintptr_t>(buffer));
  range.size = buffer->size;
  range.alloca = buffer->is_alloca;
  std::lock_guard<std::mutex> lock(device->fault_mutex);
  try {
    device->address_book.live[base] = range;
  } catch (const std::bad_alloc&) {
    // Host memory ran out: a fault in this buffer is reported without it.
  }
}

void fault_note_free(Device* device, const Buffer* buffer, uint64_t base) {
  if (!base) return;
  const uint64_t handle = uint64_t(reinterpret_cast<uintptr_t>(buffer));
  std::string name;
  try {
    name = device_object_name(device, handle);
  } catch (const std::bad_alloc&) {
  }
  std::lock_guard<std::mutex> lock(device->fault_mutex);
  AddressBook& book = device->address_book;
  auto it = book.live.find(base);
  if (it == book.live.end() || it->second.handle != handle) return;
  AddressRange range = it->second;
  book.live.erase(it);
  range.base = base;
  range.name = std::move(name);
  try {
    if (book.freed.size() == kFreedRanges) book.freed.pop_front();
    book.freed.push_back(std::move(range));
  } catch (const std::bad_alloc&) {
  }
}

// --- reports -------------------------------------------------------------------------

std::string fault_report_queue_error(Queue* queue, hsa_status_t status, const std::string& status_text,
                                     const hsa_queue_t* source, uint64_t* out_command_buffer) {
  Device* device = queue->device;
  const HsaApi& hsa = *device->hsa;
  FaultReport r;
  switch (static_cast<uint32_t>(status)) {  // ROCR's codes extend hsa_status_t
    case HSA_STATUS_ERROR_MEMORY_FAULT:
    case HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION:
      r.kind = XGPU_DEVICE_FAULT_KIND_MEMORY;
      break;
    case HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION:
    case HSA_STATUS_ERROR_EXCEPTION:
      r.kind = XGPU_DEVICE_FAULT_KIND_KERNEL;
      break;
    default:
      r.kind = XGPU_DEVICE_FAULT_KIND_QUEUE;
      break;
  }
  // The runtime's own account of the fault (hsa-cpu): the packet, the pc
  // and its source line.
  hsa_cpu_kernel_fault_t detail{};
  bool have_detail = false;
  if (hsa_cpu_queue_get_kernel_fault_fn_t get = kernel_fault_function(hsa))
    have_detail = get(source ? source : queue->aql, &detail) == HSA_STATUS_SUCCESS;
  uint64_t packet_id = 0;
  bool have_packet = false;
  bool address_unknown = false;  // the runtime said it cannot tell the address
  if (have_detail) {
    packet_id = detail.packet_id;
    have_packet = true;
  } else if (hsa.hsa_queue_load_read_index_scacquire) {
    // The last packet the queue started.
    const uint64_t read = hsa.hsa_queue_load_read_index_scacquire(queue->aql);
    if (read > 0) {
      packet_id = read - 1;
      have_packet = true;
    }
  }
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    describe_work(queue, packet_id, have_packet, &r);
  }
  *out_command_buffer = r.command_buffer;
  {
    std::lock_guard<std::mutex> lock(device->fault_mutex);
    if (device->fault_event_valid) {
      const bool unknown = device->fault_event_address == 0 &&
                           (device->fault_event_reasons & HSA_AMD_MEMORY_FAULT_IMPRECISE);
      if (!unknown) {
        r.address_valid = true;
        r.address = device->fault_event_address;
      }
      address_unknown = unknown;
      device->fault_event_valid = false;
    }
    if (have_detail && detail.signal != 0 && !r.address_valid &&
        r.kind == XGPU_DEVICE_FAULT_KIND_MEMORY) {
      r.address_valid = true;
      r.address = detail.address;
    }
    if (r.address_valid) locate(device, r.address, &r);
  }
  if (!r.buffer_name.empty() || r.buffer == 0) {
  } else {
    r.buffer_name = device_object_name(device, r.buffer);
  }
  if (have_detail) {
    switch (detail.access) {
      case HSA_CPU_FAULT_ACCESS_READ: r.access = XGPU_DEVICE_FAULT_ACCESS_READ; break;
      case HSA_CPU_FAULT_ACCESS_WRITE: r.access = XGPU_DEVICE_FAULT_ACCESS_WRITE; break;
      case HSA_CPU_FAULT_ACCESS_EXECUTE: r.access = XGPU_DEVICE_FAULT_ACCESS_EXECUTE; break;
      default: break;
    }
    for (int d = 0; d < 3; ++d) r.workgroup_id[d] = detail.workgroup_id[d];
    r.source_file = detail.file;
    r.source_line = detail.line;
    r.source_column = detail.column;
    r.function = detail.function;
  }

  // The message.
  std::string text;
  if (r.kind == XGPU_DEVICE_FAULT_KIND_MEMORY) {
    text = r.kernel.empty() ? std::string("a kernel") : "kernel '" + r.kernel + "'";
    text += r.address_valid ? std::string(" faulted on a ") + access_name(r.access) + " of address " + hex(r.address)
                            : std::string(" caused a memory fault") +
                                  (address_unknown ? " (the runtime does not report the faulting address)" : "");
    if (r.address_valid) text += " (" + describe_location(r) + ")";
  } else if (r.kind == XGPU_DEVICE_FAULT_KIND_KERNEL) {
    text = (r.kernel.empty() ? std::string("a kernel") : "kernel '" + r.kernel + "'") + " failed";
    if (have_detail && detail.description[0]) text += std::string(" (") + detail.description + ")";
  } else {
    // Another queue error: the runtime's words first, then the work.
    text = "HSA queue " + std::to_string(queue->index) + " reported " + status_text + ", while running " +
           describe_where(r, /*with_queue=*/false);
  }
  if (!r.source_file.empty()) {
    text += " at " + r.source_file + ":" + std::to_string(r.source_line);
    if (r.source_column) text += ":" + std::to_string(r.source_column);
    if (!r.function.empty()) text += " (in " + r.function + ")";
  }
  if (r.workgroup_id[0] != UINT32_MAX) {
    text += ", workgroup (" + std::to_string(r.workgroup_id[0]);
    if (have_detail && detail.workgroup_run > 1)
      text += ".." + std::to_string(r.workgroup_id[0] + detail.workgroup_run - 1);
    text += ", " + std::to_string(r.workgroup_id[1]) + ", " + std::to_string(r.workgroup_id[2]) + ")";
  }
  if (r.kind != XGPU_DEVICE_FAULT_KIND_QUEUE)
    text += "; " + describe_where(r) + "; HSA queue " + std::to_string(queue->index) + " reported " + status_text;
  r.description = text;
  keep(device, std::move(r));
  return text;
}

std::string fault_report_hang(Queue* queue, const Submission* front, uint64_t ran_ms, uint64_t timeout_ms) {
  Device* device = queue->device;
  const HsaApi& hsa = *device->hsa;
  FaultReport r;
  r.kind = XGPU_DEVICE_FAULT_KIND_HANG;
  r.run_time_ns = ran_ms * 1'000'000ull;
  // The command running is the last one the queue started: the packet
  // before the read index once the queue moved past the submission's first
  // packet (a packet processor advances the index as it launches a dispatch),
  // else the first (one that runs a dispatch before it advances the index).
  uint64_t packet_id = 0;
  bool have_packet = false;
  if (hsa.hsa_queue_load_read_index_scacquire) {
    const uint64_t read = hsa.hsa_queue_load_read_index_scacquire(queue->aql);
    packet_id = read > front->first_packet ? std::min(read, front->end_packet) - 1 : front->first_packet;
    have_packet = true;
  }
  describe_work(queue, packet_id, have_packet, &r);
  std::string text = "queue " + std::to_string(queue->index) + ": the watchdog found ";
  text += describe_where(r, /*with_queue=*/false);
  text += " running for " + std::to_string(ran_ms) + " ms, longer than its " + std::to_string(timeout_ms) +
          " ms (XGPU_AMDGPU_WATCHDOG_MS): a hung dispatch";
  r.description = text;
  keep(device, std::move(r));
  return text;
}

// --- registration --------------------------------------------------------------------

void fault_register_event_handler(const HsaApi& hsa) {
  if (hsa.hsa_amd_register_system_event_handler) hsa.hsa_amd_register_system_event_handler(&on_system_event, nullptr);
}

void fault_register_device(Device* device) {
  EventRoute& r = route();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.devices.push_back(device);
}

void fault_unregister_device(Device* device) {
  EventRoute& r = route();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.devices.erase(std::remove(r.devices.begin(), r.devices.end(), device), r.devices.end());
}

// --- the query --------------------------------------------------------------------------

XgpuResult device_get_fault_info(XgpuDevice handle, XgpuDeviceFaultInfo* out) {
  Device* device = device_from_handle(handle);
  if (!device || !out) return XGPU_ERROR_INVALID_ARGUMENT;
  *out = XgpuDeviceFaultInfo{};
  out->queueIndex = UINT32_MAX;
  out->commandIndex = UINT32_MAX;
  for (int d = 0; d < 3; ++d) out->workgroupId[d] = UINT32_MAX;
  if (!device->lost.load()) return XGPU_NOT_READY;
  std::lock_guard<std::mutex> lock(device->fault_mutex);
  if (!device->fault) {  // lost without words (no host memory for them)
    out->kind = XGPU_DEVICE_FAULT_KIND_OTHER;
    return XGPU_SUCCESS;
  }
  const FaultReport& r = *device->fault;
  out->kind = r.kind;
  out->queueIndex = r.queue_index;
  out->submissionIndex = r.submission;
  out->commandBufferHandle = r.command_buffer;
  copy_string(out->commandBufferName, sizeof(out->commandBufferName), r.command_buffer_name);
  out->commandIndex = r.command_index;
  copy_string(out->command, sizeof(out->command), r.command);
  copy_string(out->labels, sizeof(out->labels), r.labels);
  copy_string(out->kernelName, sizeof(out->kernelName), r.kernel);
  out->addressValid = r.address_valid ? XGPU_TRUE : XGPU_FALSE;
  out->address = r.address;
  out->access = r.access;
  out->addressRelation = r.relation;
  out->bufferHandle = r.buffer;
  copy_string(out->bufferName, sizeof(out->bufferName), r.buffer_name);
  out->bufferOffset = r.buffer_offset;
  out->bufferSize = r.buffer_size;
  for (int d = 0; d < 3; ++d) out->workgroupId[d] = r.workgroup_id[d];
  copy_string(out->sourceFile, sizeof(out->sourceFile), r.source_file);
  out->sourceLine = r.source_line;
  out->sourceColumn = r.source_column;
  copy_string(out->function, sizeof(out->function), r.function);
  out->runTimeNs = r.run_time_ns;
  copy_string(out->description, sizeof(out->description), r.description);
  return XGPU_SUCCESS;
}

}  // namespace xgpu::amdgpu
