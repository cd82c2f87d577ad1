#include "queue.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

#include "common.h"
#include "memory_pool.h"
#include "print_buffer.h"
#include "trace.h"
#include "generated/vuid_ids.h"

#include "queue_internal.h"

// Submission acceptance: the queue entry points validate their arguments
// and accept operations into the pending list.

namespace xgpu::amdgpu {
using namespace queue_impl;

// Called with queue->mutex held after operations were added to `pending`:
// the count to report when it reached the next warning (0: none).
static size_t held_to_report(Queue* queue) {
  const size_t held = queue->pending.size();
  if (held < queue->held_warning_at) return 0;
  while (queue->held_warning_at <= held) queue->held_warning_at *= 2;
  return held;
}

static void report_held(Queue* queue, size_t held) {
  if (held == 0) return;
  device_report(queue->device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kHeldSubmissions,
                "queue " + std::to_string(queue->index) + " holds " + std::to_string(held) +
                    " operations that wait for semaphore payloads not reached yet; they stay (taking host memory) "
                    "until those payloads are signalled or the semaphores failed, which is the application's to do",
                {{XGPU_OBJECT_TYPE_QUEUE, uint64_t(reinterpret_cast<uintptr_t>(queue))}});
}

void queue_accept(Queue* queue, Submission* submission) {
  size_t held = 0;
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    trace_submission_accepted(submission);
    submission->sequence = ++queue->accepted;
    queue->pending.push_back(submission);
    held = held_to_report(queue);
  }
  report_held(queue, held);
  pump(queue);
}

// --- entry points --------------------------------------------------------------

Submission::~Submission() {
  for (const SemaphoreValue& wait : waits) semaphore_release(wait.semaphore);
  for (const SemaphoreValue& signal : signals) {
    if (signals_accepted) semaphore_forget_signal(signal.semaphore, signal.value);
    semaphore_release(signal.semaphore);
  }
}

XgpuResult accept_signal_values(const Device* device, Submission* s, const char* function, const char* rule,
                                uint32_t submit_index) {
  for (size_t j = 0; j < s->signals.size(); ++j) {
    uint64_t current = 0, accepted = 0;
    if (semaphore_accept_signal(s->signals[j].semaphore, s->signals[j].value, &current, &accepted)) continue;
    for (size_t k = 0; k < j; ++k) semaphore_forget_signal(s->signals[k].semaphore, s->signals[k].value);
    const std::string where =
        submit_index == kNotASubmit ? "pSignalSemaphores->" : "pSubmits[" + std::to_string(submit_index) + "].signalSemaphores.";
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, rule,
                       std::string(function) + ": " + where + "pValues[" + std::to_string(j) + "] " +
                           std::to_string(s->signals[j].value) + " is not greater than the semaphore's payload " +
                           std::to_string(current) +
                           (accepted ? " and every payload of it already pending in a signal list (" +
                                           std::to_string(accepted) + ")"
                                     : std::string()));
  }
  s->signals_accepted = true;
  return XGPU_SUCCESS;
}

namespace {

const SemaphoreListArgument kQueueSubmitWaits{
    "xgpuQueueSubmit", "waitSemaphores", vuid::xgpuQueueSubmit_pSubmits_waitSemaphores_pSemaphores_parameter,
    vuid::xgpuQueueSubmit_pSubmits_waitSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueSubmitSignals{
    "xgpuQueueSubmit", "signalSemaphores", vuid::xgpuQueueSubmit_pSubmits_signalSemaphores_pSemaphores_parameter,
    vuid::xgpuQueueSubmit_pSubmits_signalSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueFillBufferWaits{"xgpuQueueFillBuffer", "pWaitSemaphores",
                                                  vuid::xgpuQueueFillBuffer_pWaitSemaphores_pSemaphores_parameter,
                                                  vuid::xgpuQueueFillBuffer_pWaitSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueFillBufferSignals{
    "xgpuQueueFillBuffer", "pSignalSemaphores", vuid::xgpuQueueFillBuffer_pSignalSemaphores_pSemaphores_parameter,
    vuid::xgpuQueueFillBuffer_pSignalSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueCopyBufferWaits{"xgpuQueueCopyBuffer", "pWaitSemaphores",
                                                  vuid::xgpuQueueCopyBuffer_pWaitSemaphores_pSemaphores_parameter,
                                                  vuid::xgpuQueueCopyBuffer_pWaitSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueCopyBufferSignals{
    "xgpuQueueCopyBuffer", "pSignalSemaphores", vuid::xgpuQueueCopyBuffer_pSignalSemaphores_pSemaphores_parameter,
    vuid::xgpuQueueCopyBuffer_pSignalSemaphores_pValues_parameter};
// The test hook is not an API command: its misuse has the test hook's ID.
const SemaphoreListArgument kTestFaultSignals{"xgpuAmdgpuTestInjectQueueFault", "pSignalSemaphores",
                                              msgid::kTestHook, msgid::kTestHook};

}  // namespace

XgpuResult copy_semaphore_list(const Device* device, const SemaphoreListArgument& argument, uint32_t submit_index,
                               const XgpuSemaphoreList* list, std::vector<SemaphoreValue>* out) {
  out->clear();
  if (!list || list->count == 0) return XGPU_SUCCESS;
  // For messages only: "xgpuQueueSubmit: pSubmits[2].waitSemaphores.", "xgpuQueueAlloca: pWaitSemaphores->".
  auto where = [&] {
    return std::string(argument.function) + ": " +
           (submit_index == kNotASubmit ? std::string(argument.name) + "->"
                                        : "pSubmits[" + std::to_string(submit_index) + "]." + argument.name + ".");
  };
  if (!list->pSemaphores)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, argument.semaphores_id,
                       where() + "pSemaphores is NULL but count is " + std::to_string(list->count));
  if (!list->pValues)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, argument.values_id,
                       where() + "pValues is NULL but count is " + std::to_string(list->count));
  for (uint32_t i = 0; i < list->count; ++i) {
    auto* semaphore = from_handle<Semaphore>(list->pSemaphores[i]);
    if (!semaphore)
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, argument.semaphores_id,
                         where() + "pSemaphores[" + std::to_string(i) + "] is XGPU_NULL_HANDLE");
    if (list->pValues[i] > kMaxSemaphoreValue)
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, msgid::kUnsupported,
                         where() + "pValues[" + std::to_string(i) + "] " + std::to_string(list->pValues[i]) +
                             " exceeds the largest payload this driver supports (" +
                             std::to_string(kMaxSemaphoreValue) + ")");
    if (!semaphore_retain_live(semaphore)) {  // released by ~Submission
      char value[32];
      std::snprintf(value, sizeof(value), "%p", static_cast<void*>(semaphore));
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, argument.semaphores_id,
                         where() + "pSemaphores[" + std::to_string(i) + "] (" + value +
                             ") is not a live semaphore: it was destroyed already or never created");
    }
    out->push_back(SemaphoreValue{semaphore, list->pValues[i]});
  }
  return XGPU_SUCCESS;
}

namespace {

XgpuResult validate_bindings(const Device* device, uint32_t submit_index, const XgpuSubmitInfo& submit,
                             const CommandBuffer* command_buffer, uint32_t capacity) {
  // Messages only.
  auto where = [&] { return "xgpuQueueSubmit: pSubmits[" + std::to_string(submit_index) + "]"; };
  if (submit.bindingCount < capacity)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueSubmit_pSubmits_bindingCount,
                       where() + ".bindingCount " + std::to_string(submit.bindingCount) +
                           " is less than the command buffer's bindingCapacity " + std::to_string(capacity));
  if (submit.bindingCount && !submit.pBindings)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueSubmit_pSubmits_pBindings_parameter,
                       where() + ".pBindings is NULL but bindingCount is " + std::to_string(submit.bindingCount));
  for (uint32_t i = 0; i < submit.bindingCount; ++i) {
    const XgpuBufferBinding& binding = submit.pBindings[i];
    auto* buffer = from_handle<Buffer>(binding.buffer);
    if (!buffer) {
      if (i < capacity)
        return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                           vuid::xgpuQueueSubmit_pSubmits_pBindings_buffer_parameter,
                           where() + ".pBindings[" + std::to_string(i) +
                               "].buffer is XGPU_NULL_HANDLE (the slot is below the command buffer's bindingCapacity " +
                               std::to_string(capacity) + ")");
      continue;
    }
    if (binding.offset >= buffer->size ||
        (binding.size != XGPU_WHOLE_SIZE && (binding.size == 0 || binding.size > buffer->size - binding.offset)))
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueSubmit_pSubmits_pBindings_range,
                         where() + ".pBindings[" + std::to_string(i) + "]: range (offset " +
                             std::to_string(binding.offset) + ", size " +
                             (binding.size == XGPU_WHOLE_SIZE ? std::string("XGPU_WHOLE_SIZE")
                                                              : std::to_string(binding.size)) +
                             ") is empty or exceeds the buffer's " + std::to_string(buffer->size) + " bytes");
  }
  // What the recording does through each slot needs the buffer's usage bits
  // (and, for STATIC indirect counts, host-visible memory).
  std::string error;
  const char* id = nullptr;
  const XgpuResult usage =
      command_buffer_check_binding_usage(command_buffer, submit.pBindings, submit.bindingCount, &error, &id);
  if (usage != XGPU_SUCCESS) return device_fail(device, usage, id, where() + "." + error);
  return XGPU_SUCCESS;
}

void discard(std::vector<Submission*>& submissions) {
  for (Submission* s : submissions) {
    if (s->command_buffer) command_buffer_cancel_submit(s->command_buffer);
    delete s;
  }
  submissions.clear();
}

}  // namespace

XgpuResult queue_submit(XgpuQueue handle, uint32_t count, const XgpuSubmitInfo* submits) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  Device* device = queue->device;
  if (device->lost) return device_fail_lost(device, "xgpuQueueSubmit");
  if (count && !submits)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueSubmit_pSubmits_parameter,
                       "xgpuQueueSubmit: pSubmits is NULL but submitCount is " + std::to_string(count));
  std::vector<Submission*> accepted;
  for (uint32_t i = 0; i < count; ++i) {
    const XgpuSubmitInfo& info = submits[i];
    auto s = std::make_unique<Submission>();
    s->queue = queue;
    XgpuResult result = copy_semaphore_list(device, kQueueSubmitWaits, i, &info.waitSemaphores, &s->waits);
    if (result == XGPU_SUCCESS)
      result = copy_semaphore_list(device, kQueueSubmitSignals, i, &info.signalSemaphores, &s->signals);
    if (result != XGPU_SUCCESS) {
      discard(accepted);
      return result;
    }
    if (info.commandBuffer) {
      auto* command_buffer = reinterpret_cast<CommandBuffer*>(info.commandBuffer);
      const Device* owner = command_buffer_live_device(info.commandBuffer);
      if (!owner) {
        discard(accepted);
        char value[32];
        std::snprintf(value, sizeof(value), "%p", static_cast<const void*>(info.commandBuffer));
        return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                           vuid::xgpuQueueSubmit_pSubmits_commandBuffer_parameter,
                           "xgpuQueueSubmit: pSubmits[" + std::to_string(i) + "].commandBuffer (" + value +
                               ") is not a live command buffer: it was destroyed already or never created");
      }
      if (owner != device) {
        discard(accepted);
        return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                           vuid::xgpuQueueSubmit_pSubmits_commandBuffer_parent,
                           "xgpuQueueSubmit: pSubmits[" + std::to_string(i) +
                               "].commandBuffer was created on another device than the queue's");
      }
      std::string error;
      const char* id = nullptr;
      result = command_buffer_acquire_for_submit(command_buffer, &error, &id);
      if (result != XGPU_SUCCESS) {
        discard(accepted);
        return device_fail(device, result, id,
                           "xgpuQueueSubmit: pSubmits[" + std::to_string(i) + "].commandBuffer: " + error);
      }
      s->kind = SubmissionKind::kCommands;
      s->command_buffer = command_buffer;
      s->command_buffer_handle = info.commandBuffer;
      s->sizes = command_buffer_issue_sizes(command_buffer);
      result = validate_bindings(device, i, info, command_buffer, s->sizes.binding_capacity);
      if (result != XGPU_SUCCESS) {
        command_buffer_cancel_submit(command_buffer);
        discard(accepted);
        return result;
      }
      if (info.bindingCount) s->bindings.assign(info.pBindings, info.pBindings + info.bindingCount);
    } else {
      s->kind = SubmissionKind::kBarrier;
    }
    result = accept_signal_values(device, s.get(), "xgpuQueueSubmit",
                                  vuid::xgpuQueueSubmit_pSubmits_signalSemaphores_value, i);
    if (result != XGPU_SUCCESS) {
      if (s->command_buffer) command_buffer_cancel_submit(s->command_buffer);
      discard(accepted);
      return result;
    }
    accepted.push_back(s.release());
  }
  size_t held = 0;
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    for (Submission* s : accepted) {
      trace_submission_accepted(s);
      s->sequence = ++queue->accepted;
      queue->pending.push_back(s);
    }
    held = held_to_report(queue);
  }
  report_held(queue, held);
  pump(queue);
  return XGPU_SUCCESS;
}

namespace {

// Records a one-shot internal command buffer with `record` and submits it.
// The caller has checked the command's arguments with its own rules, so the
// recording fails only for the driver's own reasons (the device library,
// memory); those are reported by the commands half and then summarized here.
template <typename Record>
XgpuResult submit_internal(Queue* queue, const char* function, const char* semaphores_rule,
                           const SemaphoreListArgument& waits_argument,
                           const XgpuSemaphoreList* waits, const SemaphoreListArgument& signals_argument,
                           const XgpuSemaphoreList* signals, Record&& record) {
  Device* device = queue->device;
  auto create = reinterpret_cast<PFN_xgpuCreateCommandBuffer>(commands_get_proc_addr("xgpuCreateCommandBuffer"));
  auto destroy = reinterpret_cast<PFN_xgpuDestroyCommandBuffer>(commands_get_proc_addr("xgpuDestroyCommandBuffer"));
  auto begin = reinterpret_cast<PFN_xgpuBeginCommandBuffer>(commands_get_proc_addr("xgpuBeginCommandBuffer"));
  auto end = reinterpret_cast<PFN_xgpuEndCommandBuffer>(commands_get_proc_addr("xgpuEndCommandBuffer"));
  if (!create || !destroy || !begin || !end)
    return device_fail(device, XGPU_ERROR_FEATURE_NOT_PRESENT, msgid::kUnsupported,
                       std::string(function) + ": command buffers are not available in this build");
  auto s = std::make_unique<Submission>();
  s->queue = queue;
  XgpuResult result = copy_semaphore_list(device, waits_argument, kNotASubmit, waits, &s->waits);
  if (result == XGPU_SUCCESS) result = copy_semaphore_list(device, signals_argument, kNotASubmit, signals, &s->signals);
  if (result == XGPU_SUCCESS)
    result = accept_signal_values(device, s.get(), function, semaphores_rule, kNotASubmit);
  if (result != XGPU_SUCCESS) return result;
  XgpuCommandBufferCreateInfo create_info{};
  create_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer command_buffer = nullptr;
  const auto device_handle = reinterpret_cast<XgpuDevice>(device);
  result = create(device_handle, &create_info, nullptr, &command_buffer);
  if (result != XGPU_SUCCESS) return result;
  XgpuCommandBufferBeginInfo begin_info{};
  begin_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin_info.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
  result = begin(command_buffer, &begin_info);
  if (result == XGPU_SUCCESS) {
    record(command_buffer);
    result = end(command_buffer);
  }
  auto* internal = reinterpret_cast<CommandBuffer*>(command_buffer);
  std::string error;
  const char* id = nullptr;
  if (result == XGPU_SUCCESS) result = command_buffer_acquire_for_submit(internal, &error, &id);
  if (result != XGPU_SUCCESS) {
    destroy(device_handle, command_buffer, nullptr);
    // Feature/initialization failures of a recording come from the device
    // library's builtin kernels (see the message before this one).
    if (!id)
      id = result == XGPU_ERROR_FEATURE_NOT_PRESENT || result == XGPU_ERROR_INITIALIZATION_FAILED
               ? msgid::kDeviceLibrary
               : msgid::failure(result);
    return device_fail(device, result, id,
                       std::string(function) + ": recording its internal command buffer failed" +
                           (error.empty() ? std::string() : ": " + error));
  }
  s->kind = SubmissionKind::kCommands;
  s->command_buffer = internal;
  s->command_buffer_handle = command_buffer;
  s->owns_command_buffer = true;
  s->sizes = command_buffer_issue_sizes(internal);
  queue_accept(queue, s.release());
  return XGPU_SUCCESS;
}

constexpr XgpuBufferUsageFlags kTransferSrc = XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT;
constexpr XgpuBufferUsageFlags kTransferDst = XGPU_BUFFER_USAGE_TRANSFER_DST_BIT;

}  // namespace

XgpuResult queue_fill_buffer(XgpuQueue handle, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                             XgpuBuffer dst, XgpuDeviceSize offset, XgpuDeviceSize size, const void* pattern,
                             uint32_t pattern_size) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  Device* device = queue->device;
  if (device->lost) return device_fail_lost(device, "xgpuQueueFillBuffer");
  auto fill = reinterpret_cast<PFN_xgpuCmdFillBuffer>(commands_get_proc_addr("xgpuCmdFillBuffer"));
  if (!fill)
    return device_fail(device, XGPU_ERROR_FEATURE_NOT_PRESENT, msgid::kUnsupported,
                       "xgpuQueueFillBuffer: xgpuCmdFillBuffer is not available in this build");
  // This command's rules, checked here so that the internal xgpuCmdFillBuffer
  // records without error.
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueFillBuffer_patternSize,
                       "xgpuQueueFillBuffer: patternSize is " + std::to_string(pattern_size) + " (must be 1, 2 or 4)");
  if (!pattern)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueFillBuffer_pPattern_parameter,
                       "xgpuQueueFillBuffer: pPattern is NULL");
  const auto* buffer = from_handle<Buffer>(dst);
  if (!buffer)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueFillBuffer_dstBuffer_parameter,
                       "xgpuQueueFillBuffer: dstBuffer is XGPU_NULL_HANDLE");
  if (!device_handle_live(device, dst, vuid::xgpuQueueFillBuffer_dstBuffer_parameter,
                          "xgpuQueueFillBuffer: dstBuffer"))
    return XGPU_ERROR_INVALID_ARGUMENT;
  if (offset % pattern_size != 0 || offset >= buffer->size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueFillBuffer_dstOffset,
                       "xgpuQueueFillBuffer: dstOffset " + std::to_string(offset) +
                           " is not a multiple of patternSize " + std::to_string(pattern_size) +
                           " less than the size of dstBuffer (" + std::to_string(buffer->size) + " bytes)");
  if (size != XGPU_WHOLE_SIZE && (size == 0 || size % pattern_size != 0 || size > buffer->size - offset))
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueFillBuffer_size,
                       "xgpuQueueFillBuffer: size " + std::to_string(size) +
                           " is not a non-zero multiple of patternSize " + std::to_string(pattern_size) +
                           " with dstOffset (" + std::to_string(offset) + ") + size at most the size of dstBuffer (" +
                           std::to_string(buffer->size) + " bytes)");
  if ((buffer->usage & kTransferDst) != kTransferDst)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueFillBuffer_dstBuffer_usage,
                       "xgpuQueueFillBuffer: dstBuffer was not created with XGPU_BUFFER_USAGE_TRANSFER_DST_BIT");
  // XGPU_WHOLE_SIZE: to the end of the buffer, rounded down to the pattern.
  const XgpuDeviceSize length =
      size == XGPU_WHOLE_SIZE ? (buffer->size - offset) / pattern_size * pattern_size : size;
  return submit_internal(queue, "xgpuQueueFillBuffer", vuid::xgpuQueueFillBuffer_semaphores, kQueueFillBufferWaits, waits, kQueueFillBufferSignals, signals,
                         [&](XgpuCommandBuffer command_buffer) {
                           if (length == 0) return;  // less than one pattern to the end: nothing to fill
                           const XgpuBufferRef ref = xgpuBufferRefRange(dst, offset, length);
                           fill(command_buffer, &ref, pattern, pattern_size);
                         });
}

XgpuResult queue_copy_buffer(XgpuQueue handle, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                             XgpuBuffer src, XgpuDeviceSize src_offset, XgpuBuffer dst, XgpuDeviceSize dst_offset,
                             XgpuDeviceSize size) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  Device* device = queue->device;
  if (device->lost) return device_fail_lost(device, "xgpuQueueCopyBuffer");
  auto copy = reinterpret_cast<PFN_xgpuCmdCopyBuffer>(commands_get_proc_addr("xgpuCmdCopyBuffer"));
  if (!copy)
    return device_fail(device, XGPU_ERROR_FEATURE_NOT_PRESENT, msgid::kUnsupported,
                       "xgpuQueueCopyBuffer: xgpuCmdCopyBuffer is not available in this build");
  // This command's rules, checked here so that the internal xgpuCmdCopyBuffer
  // records without error.
  const auto* source = from_handle<Buffer>(src);
  const auto* destination = from_handle<Buffer>(dst);
  if (!source)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_srcBuffer_parameter,
                       "xgpuQueueCopyBuffer: srcBuffer is XGPU_NULL_HANDLE");
  if (!destination)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_dstBuffer_parameter,
                       "xgpuQueueCopyBuffer: dstBuffer is XGPU_NULL_HANDLE");
  if (!device_handle_live(device, src, vuid::xgpuQueueCopyBuffer_srcBuffer_parameter,
                          "xgpuQueueCopyBuffer: srcBuffer") ||
      !device_handle_live(device, dst, vuid::xgpuQueueCopyBuffer_dstBuffer_parameter,
                          "xgpuQueueCopyBuffer: dstBuffer"))
    return XGPU_ERROR_INVALID_ARGUMENT;
  if (size == 0)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_size,
                       "xgpuQueueCopyBuffer: size is 0 (must be at least 1)");
  if (size > source->size || src_offset > source->size - size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_srcRange,
                       "xgpuQueueCopyBuffer: srcOffset (" + std::to_string(src_offset) + ") + size (" +
                           std::to_string(size) + ") exceeds the size of srcBuffer (" + std::to_string(source->size) +
                           " bytes)");
  if (size > destination->size || dst_offset > destination->size - size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_dstRange,
                       "xgpuQueueCopyBuffer: dstOffset (" + std::to_string(dst_offset) + ") + size (" +
                           std::to_string(size) + ") exceeds the size of dstBuffer (" +
                           std::to_string(destination->size) + " bytes)");
  if (source == destination && src_offset < dst_offset + size && dst_offset < src_offset + size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_overlap,
                       "xgpuQueueCopyBuffer: srcBuffer is dstBuffer and the ranges at srcOffset " +
                           std::to_string(src_offset) + " and dstOffset " + std::to_string(dst_offset) + " of " +
                           std::to_string(size) + " bytes overlap");
  if ((source->usage & kTransferSrc) != kTransferSrc)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueCopyBuffer_srcBuffer_usage,
                       "xgpuQueueCopyBuffer: srcBuffer was not created with XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT");
  if ((destination->usage & kTransferDst) != kTransferDst)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueCopyBuffer_dstBuffer_usage,
                       "xgpuQueueCopyBuffer: dstBuffer was not created with XGPU_BUFFER_USAGE_TRANSFER_DST_BIT");
  return submit_internal(queue, "xgpuQueueCopyBuffer", vuid::xgpuQueueCopyBuffer_semaphores, kQueueCopyBufferWaits, waits, kQueueCopyBufferSignals, signals,
                         [&](XgpuCommandBuffer command_buffer) {
                           const XgpuBufferRef src_ref = xgpuBufferRefRange(src, src_offset, size);
                           const XgpuBufferRef dst_ref = xgpuBufferRefRange(dst, dst_offset, size);
                           copy(command_buffer, &src_ref, &dst_ref, size);
                         });
}

XgpuResult queue_test_inject_fault(XgpuQueue handle, const XgpuSemaphoreList* signals) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  Device* device = queue->device;
  if (device->lost) return device_fail_lost(device, "xgpuAmdgpuTestInjectQueueFault");
  auto s = std::make_unique<Submission>();
  s->queue = queue;
  s->kind = SubmissionKind::kTestFault;
  XgpuResult result = copy_semaphore_list(device, kTestFaultSignals, kNotASubmit, signals, &s->signals);
  if (result == XGPU_SUCCESS)
    result = accept_signal_values(device, s.get(), "xgpuAmdgpuTestInjectQueueFault", msgid::kTestHook, kNotASubmit);
  if (result != XGPU_SUCCESS) return result;
  queue_accept(queue, s.release());
  return XGPU_SUCCESS;
}

XgpuResult queue_wait_idle(XgpuQueue handle) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  TraceHostCall trace_call(queue->device, "xgpuQueueWaitIdle", nullptr, nullptr, 0, false);
  XgpuResult result = queue_wait_idle_internal(queue, UINT64_MAX);
  if (result != XGPU_SUCCESS) return result;
  return queue->device->lost ? XGPU_ERROR_DEVICE_LOST : XGPU_SUCCESS;
}

}  // namespace xgpu::amdgpu
