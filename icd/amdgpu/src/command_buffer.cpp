// Command buffers: their lifetime (create, begin, end, destroy) and the
// commands half of the seam (submission and issue; see command_buffer.h,
// seam.h and spec/command-buffer-format.md). Recording is in
// command_buffer_record.cpp and command_buffer_encode.cpp, its checks in
// command_buffer_checks.cpp, what they share in command_buffer_internal.h.
#include "command_buffer_internal.h"

#include <new>
#include <shared_mutex>
#include <unordered_map>

#include "entry_guard.h"
#include "host_memory.h"
#include "issue.h"

namespace xgpu::amdgpu {

using namespace command_buffer_impl;

namespace {

// CommandBuffer::pending's top bit: xgpuDestroyCommandBuffer ran while
// submissions were pending; the last of them to complete frees the command
// buffer (the low bits count them).
constexpr uint32_t kDestroyedWhilePending = 0x80000000u;

// Every live command buffer and its device, so that xgpuQueueSubmit can tell
// a destroyed (or never created) handle from one of another device without
// reading the object. Written at creation and destruction.
std::shared_mutex g_live_command_buffers_mutex;
std::unordered_map<const CommandBuffer*, Device*> g_live_command_buffers;

// ---------------------------------------------------------------------------
// Program memory and the end of recording.

// Gives the program's chunks back to the pool and forgets them (vectors
// keep their capacity for the next recording).
void release_program_memory(CommandBuffer* cb) {
  CommandProgram& program = cb->program;
  if (!program.chunks.empty()) {
    if (const DeviceLibrary* library = library_of(cb); library && library->pool)
      library->pool->give(program.chunks.data(), program.chunks.size());
  }
  program.chunks.clear();
  program.blocks.clear();
}

void free_program(CommandBuffer* cb) {
  release_program_memory(cb);
  CommandProgram& program = cb->program;
  program.command_count = 0;
  program.command_packet_count = 0;
  program.trailing_barrier = false;
  program.resolves_at_issue = false;
  program.sizes = IssueSizes{};
  program.slots.clear();
}

// The commands are in place already: End writes the RETURN and the sizes.
void finalize(CommandBuffer* cb) {
  Recorder* r = cb->recorder;
  CommandProgram& program = cb->program;
  write_terminator(r, XGPU_AMDGPU_COMMAND_RETURN, nullptr);
  program.command_count = r->command_count;
  program.command_packet_count = r->packet_count;
  program.trailing_barrier = r->packet_count > 1 && !r->last_packet_has_barrier;
  program.resolves_at_issue = r->resolves_at_issue;
  program.sizes.packet_count = std::max<uint32_t>(r->packet_count, 1) + (program.trailing_barrier ? 1 : 0);
  program.sizes.kernarg_bytes = r->kernarg_bytes;
  program.sizes.binding_capacity = cb->binding_capacity;
  program.sizes.reads_memory_at_issue = r->reads_memory_at_issue;
  program.sizes.prints = r->prints;
  program.slots.swap(r->slots);
  r->slots.clear();
}

// Back to the initial state: the program's memory goes back to the pool;
// the recorder is kept for the next recording unless `destroy`.
void reset(CommandBuffer* cb, bool destroy = false) {
  free_program(cb);
  if (destroy) {
    delete cb->recorder;
    cb->recorder = nullptr;
  }
  cb->first_error = XGPU_SUCCESS;
  cb->submitted_once = false;
}

void free_command_buffer(CommandBuffer* cb) {
  reset(cb, /*destroy=*/true);
  host_delete_handle(cb);  // its address is its handle: not reused soon
}

}  // namespace

namespace command_buffer_impl {

// ---------------------------------------------------------------------------
// Entry points.

XgpuResult XGPU_API_CALL create_command_buffer(XgpuDevice device_handle, const XgpuCommandBufferCreateInfo* info,
                                               const XgpuAllocationCallbacks* allocator, XgpuCommandBuffer* out) {
  Device* device = device_from_handle(device_handle);
  if (!device || !out) return XGPU_ERROR_INVALID_ARGUMENT;
  *out = XGPU_NULL_HANDLE;
  if (report_if_lost(device, "xgpuCreateCommandBuffer")) return XGPU_ERROR_DEVICE_LOST;
  if (!info) {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuCreateCommandBuffer_pCreateInfo_parameter,
                  "xgpuCreateCommandBuffer: pCreateInfo is NULL");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (info->sType != XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO) {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, vuid::xgpuCreateCommandBuffer_pCreateInfo_sType,
                  "xgpuCreateCommandBuffer: pCreateInfo->sType (" + std::to_string(int(info->sType)) +
                      ") is not XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (!device_has_queue_family(device, info->queueFamilyIndex)) {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuCreateCommandBuffer_pCreateInfo_queueFamilyIndex,
                  "xgpuCreateCommandBuffer: pCreateInfo->queueFamilyIndex " + std::to_string(info->queueFamilyIndex) +
                      " is not the family of a queue the device was created with");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  auto* cb = host_new<CommandBuffer>(allocator);
  if (!cb) {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kOutOfHostMemory,
                  "xgpuCreateCommandBuffer: allocating the object's host memory failed");
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
  xgpuSetLoaderMagicValue(cb);
  cb->device = device;
  cb->queue_family_index = info->queueFamilyIndex;
  device_track_handle(device, cb);
  {
    std::unique_lock lock(g_live_command_buffers_mutex);
    g_live_command_buffers[cb] = device;
  }
  *out = reinterpret_cast<XgpuCommandBuffer>(cb);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL destroy_command_buffer(XgpuDevice device, XgpuCommandBuffer handle, const XgpuAllocationCallbacks*) {
  CommandBuffer* cb = from_handle(handle);
  Device* owner = device_from_handle(device);
  if (!cb || !owner) return;
  if (!device_release_handle(owner, cb, vuid::xgpuDestroyCommandBuffer_commandBuffer_parameter,
                             "xgpuDestroyCommandBuffer: commandBuffer")) return;
  {
    std::unique_lock lock(g_live_command_buffers_mutex);
    g_live_command_buffers.erase(cb);
  }
  // Submissions still pending read the recording: the last of them frees
  // it, and those not issued yet fail (command_buffer_issue). From the
  // fetch_or on, cb may be freed by another thread.
  const uint32_t pending = cb->pending.fetch_or(kDestroyedWhilePending, std::memory_order_acq_rel);
  if (pending == 0) {
    free_command_buffer(cb);
    return;
  }
  device_report(owner, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, vuid::xgpuDestroyCommandBuffer_commandBuffer_pending,
                "xgpuDestroyCommandBuffer: commandBuffer has " + std::to_string(pending) +
                    " submission(s) pending: those not issued yet fail (their signal semaphores with "
                    "XGPU_ERROR_INVALID_USAGE), those issued run, and the command buffer is freed when the last "
                    "completes",
                {{XGPU_OBJECT_TYPE_COMMAND_BUFFER, uint64_t(reinterpret_cast<uintptr_t>(handle))}});
}

XgpuResult XGPU_API_CALL begin_command_buffer(XgpuCommandBuffer handle, const XgpuCommandBufferBeginInfo* info) {
  CommandBuffer* cb = from_handle(handle);
  if (!cb) return XGPU_ERROR_INVALID_ARGUMENT;
  if (report_if_lost(cb->device, "xgpuBeginCommandBuffer")) return XGPU_ERROR_DEVICE_LOST;
  if (!info) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuBeginCommandBuffer_pBeginInfo_parameter,
                  "xgpuBeginCommandBuffer: pBeginInfo is NULL");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (info->sType != XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuBeginCommandBuffer_pBeginInfo_sType,
                  "xgpuBeginCommandBuffer: pBeginInfo->sType (" + std::to_string(int(info->sType)) +
                      ") is not XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (const uint32_t pending = cb->pending.load(std::memory_order_acquire); pending != 0) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuBeginCommandBuffer_commandBuffer_pending,
                  "xgpuBeginCommandBuffer: commandBuffer has " + std::to_string(pending & ~kDestroyedWhilePending) +
                      " submissions pending; wait for them before recording again");
    return XGPU_ERROR_INVALID_USAGE;
  }
  if (info->mode != XGPU_COMMAND_BUFFER_MODE_ONE_SHOT && info->mode != XGPU_COMMAND_BUFFER_MODE_REUSABLE) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, vuid::xgpuBeginCommandBuffer_pBeginInfo_mode_parameter,
                  "xgpuBeginCommandBuffer: pBeginInfo->mode (" + std::to_string(int(info->mode)) + ") is not a mode");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  const XgpuPhysicalDeviceLimits& limits = device_limits(cb->device);
  if (info->bindingCapacity > limits.maxBindingCapacity) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuBeginCommandBuffer_pBeginInfo_bindingCapacity,
                  "xgpuBeginCommandBuffer: pBeginInfo->bindingCapacity (" + std::to_string(info->bindingCapacity) +
                      ") exceeds limits.maxBindingCapacity (" + std::to_string(limits.maxBindingCapacity) + ")");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  reset(cb);
  if (!cb->recorder) cb->recorder = new (std::nothrow) Recorder();
  Recorder* r = cb->recorder;
  const DeviceLibrary* library = library_of(cb);
  if (!r || !library || !library->pool) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kOutOfHostMemory,
                  "xgpuBeginCommandBuffer: allocating the recording's host memory failed");
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
  // Recorder state; the vectors keep their capacity across recordings.
  r->pool = library->pool.get();
  r->limits = &limits;
  r->block_cursor = r->block_limit = nullptr;
  r->rodata_cursor = r->rodata_limit = nullptr;
  r->kernarg_cursor = r->kernarg_limit = nullptr;
  r->command_count = 0;
  r->packet_count = 0;
  r->kernarg_bytes = 0;
  r->reads_memory_at_issue = false;
  r->resolves_at_issue = false;
  r->prints = false;
  r->barrier_pending = false;
  r->last_packet_has_barrier = false;
  r->label_depth = 0;
  r->pipeline = nullptr;
  r->pushed.assign(limits.maxPushConstantsSize, 0);
  r->bindings.assign(limits.maxBindings, xgpu_amdgpu_buffer_ref_t{});
  r->bound.assign(limits.maxBindings, 0);
  r->dynamic_group_size = 0;
  r->template_valid = false;
  r->slots.clear();
  cb->mode = info->mode;
  cb->binding_capacity = info->bindingCapacity;
  if (!new_block(cb, r, 0)) {  // the entry block (from the pool: no HSA allocation in steady state)
    const XgpuResult result = cb->first_error;
    free_program(cb);
    cb->first_error = XGPU_SUCCESS;
    cb->state = CommandBufferState::kInvalid;
    return result;
  }
  cb->state = CommandBufferState::kRecording;
  return XGPU_SUCCESS;
}

XgpuResult XGPU_API_CALL end_command_buffer(XgpuCommandBuffer handle) {
  CommandBuffer* cb = from_handle(handle);
  if (!cb) return XGPU_ERROR_INVALID_ARGUMENT;
  if (report_if_lost(cb->device, "xgpuEndCommandBuffer")) {
    // The recording is discarded: the command buffer can only be begun
    // again (which also reports the loss) or destroyed.
    if (cb->state == CommandBufferState::kRecording) {
      free_program(cb);
      cb->state = CommandBufferState::kInvalid;
    }
    return XGPU_ERROR_DEVICE_LOST;
  }
  if (cb->state != CommandBufferState::kRecording || !cb->recorder) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuEndCommandBuffer_commandBuffer_recording,
                  "xgpuEndCommandBuffer: commandBuffer is not in the recording state");
    return XGPU_ERROR_INVALID_USAGE;
  }
  const XgpuResult result = cb->first_error;
  if (result != XGPU_SUCCESS) {
    free_program(cb);
    cb->state = CommandBufferState::kInvalid;
    return result;
  }
  finalize(cb);
  cb->state = CommandBufferState::kExecutable;
  return XGPU_SUCCESS;
}

}  // namespace command_buffer_impl

// ---------------------------------------------------------------------------
// Seam: commands half.

void command_buffer_note_exception(XgpuCommandBuffer handle) noexcept {
  CommandBuffer* cb = from_handle(handle);
  if (!cb) return;
  if (cb->first_error == XGPU_SUCCESS) cb->first_error = XGPU_ERROR_OUT_OF_HOST_MEMORY;
  try {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kOutOfHostMemory,
                  "recording: a host allocation failed: the recording fails with XGPU_ERROR_OUT_OF_HOST_MEMORY",
                  {{XGPU_OBJECT_TYPE_COMMAND_BUFFER, uint64_t(reinterpret_cast<uintptr_t>(cb))}});
  } catch (const std::exception&) {
    // No memory for the message either: the result says it.
  }
}

Device* command_buffer_device(const CommandBuffer* command_buffer) {
  return command_buffer ? command_buffer->device : nullptr;
}

Device* command_buffer_live_device(XgpuCommandBuffer handle) {
  std::shared_lock lock(g_live_command_buffers_mutex);
  const auto found = g_live_command_buffers.find(from_handle(handle));
  return found == g_live_command_buffers.end() ? nullptr : found->second;
}

XgpuResult command_buffer_acquire_for_submit(CommandBuffer* cb, std::string* out_error, const char** out_id) {
  std::lock_guard<std::mutex> lock(cb->submit_mutex);
  if (cb->state != CommandBufferState::kExecutable) {
    if (out_error)
      *out_error = cb->state == CommandBufferState::kRecording
                       ? "the command buffer is still recording (call xgpuEndCommandBuffer)"
                       : "the command buffer is not executable (never ended, or its recording failed)";
    if (out_id) *out_id = vuid::xgpuQueueSubmit_pSubmits_commandBuffer_state;
    return XGPU_ERROR_INVALID_USAGE;
  }
  if (cb->mode == XGPU_COMMAND_BUFFER_MODE_ONE_SHOT && cb->submitted_once) {
    if (out_error) *out_error = "the one-shot command buffer was already submitted since it was begun";
    if (out_id) *out_id = vuid::xgpuQueueSubmit_pSubmits_commandBuffer_oneShot;
    return XGPU_ERROR_INVALID_USAGE;
  }
  cb->submitted_once = true;
  cb->pending.fetch_add(1, std::memory_order_acq_rel);
  return XGPU_SUCCESS;
}

IssueSizes command_buffer_issue_sizes(const CommandBuffer* cb) { return cb->program.sizes; }

XgpuResult command_buffer_issue(const CommandBuffer* cb, IssueTarget& target) {
  if (cb->pending.load(std::memory_order_acquire) & kDestroyedWhilePending) {
    if (target.out_error)
      *target.out_error = "the command buffer was destroyed (xgpuDestroyCommandBuffer) while this submission was "
                          "pending";
    if (target.out_error_id) *target.out_error_id = vuid::xgpuDestroyCommandBuffer_commandBuffer_pending;
    return XGPU_ERROR_INVALID_USAGE;
  }
  return issue_program(*cb, target);
}

void command_buffer_release_after_submit(CommandBuffer* cb) {
  if (!cb) return;
  // A one-shot buffer's only submission completed: its memory goes back to
  // the pool now (before `pending` drops, so a Begin that sees 0 finds it
  // released). The slot requirements stay: xgpuQueueSubmit may still read
  // them to refuse a second submission.
  if (cb->mode == XGPU_COMMAND_BUFFER_MODE_ONE_SHOT && cb->pending.load(std::memory_order_acquire) == 1)
    release_program_memory(cb);
  if (cb->pending.fetch_sub(1, std::memory_order_acq_rel) == (kDestroyedWhilePending | 1)) free_command_buffer(cb);
}

void command_buffer_cancel_submit(CommandBuffer* cb) {
  if (!cb) return;
  uint32_t before = 0;
  {
    std::lock_guard<std::mutex> lock(cb->submit_mutex);
    before = cb->pending.fetch_sub(1, std::memory_order_acq_rel);
    if (before == 1) cb->submitted_once = false;
  }
  if (before == (kDestroyedWhilePending | 1)) free_command_buffer(cb);
}

}  // namespace xgpu::amdgpu
