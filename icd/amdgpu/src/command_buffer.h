// Command buffers: recording into device-encoded command blocks
// (spec/command-buffer-format.md; structs in
// icd/amdgpu/device/include/xgpu_amdgpu/commands.h).
//
// Thread-safety: recording (Begin, Cmd*, End, Destroy) is externally
// synchronized, as the API requires. After End the program is immutable:
// command_buffer_issue may run concurrently for several submissions;
// acquire/release for submit are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "device_library.h"
#include "seam.h"
#include "xgpu/xgpu_icd.h"
#include "xgpu_amdgpu/commands.h"

namespace xgpu::amdgpu {

// Recording state of a command buffer.
enum class CommandBufferState : uint32_t {
  kInitial,     // created, or begun and never ended
  kRecording,   // between Begin and End
  kExecutable,  // ended without error: may be submitted
  kInvalid,     // ended with an error: may only be begun again or destroyed
};

// Usage bits a recording can require of a buffer (XgpuBufferUsageFlagBits
// 0x1..0x8), indexed by bit position.
inline constexpr uint32_t kBufferUsageBitCount = 4;

// The first command of a recording that needs something of a slot: the
// message "command 2 (xgpuCmdDispatchIndirect pCounts)" is built from it
// only when a submission breaks the requirement.
struct SlotUse {
  uint32_t command = 0;              // recording index
  const char* function = nullptr;    // "xgpuCmdDispatchIndirect" (string literal)
  const char* parameter = nullptr;   // "pCounts" (string literal); nullptr: pipeline binding `binding`
  uint32_t binding = 0;              // the pipeline binding's index (parameter == nullptr)
};

// What one recording requires of the buffer a submission binds to one
// binding-table slot (checked at submit by
// command_buffer_check_binding_usage).
struct SlotRequirement {
  XgpuBufferUsageFlags usage = 0;  // union of the usage bits the recording's commands need
  bool host_visible = false;       // a STATIC indirect dispatch reads counts from it on the host
  // Per usage bit (by bit position): the first command that needs it, and
  // that rule's VUID (a string literal).
  SlotUse use[kBufferUsageBitCount];
  const char* vuid[kBufferUsageBitCount] = {};
  SlotUse host_visible_use;        // the first STATIC indirect dispatch reading counts from it
};

// The immutable program of one recording, in device-visible memory drawn
// from the device's CommandChunkPool (device_library.h). Commands are
// written once, in place, while recording; End only writes the RETURN.
struct CommandProgram {
  // Device-visible command blocks (kHostCoherent), in order; the first is the
  // entry block, each ends with BRANCH to the next or RETURN.
  std::vector<uint8_t* XGPU_AMDGPU_DEVICE_PTR> blocks;
  // Every pool chunk the program holds: its blocks, read-only data
  // (kHostCoherent: kernarg templates, update payloads, label names) and
  // prebuilt kernargs (kKernarg: dispatches whose references are all
  // static, built when recorded). Given back to the pool when the command
  // buffer is begun again or destroyed, or, for a one-shot buffer, when its
  // submission completed.
  std::vector<PoolChunk> chunks;
  uint32_t command_count = 0;              // commands recorded (terminators excluded)
  uint32_t command_packet_count = 0;       // packets the commands produce
  bool trailing_barrier = false;           // a barrier-AND after the commands carries the completion signal
  bool resolves_at_issue = false;          // some command resolves references (or reads counts) at issue, where
                                           // it may fail: issue publishes its packets only once all are written
  IssueSizes sizes;                        // what each submission reserves
  std::vector<SlotRequirement> slots;      // per binding-table slot, up to the highest one referenced
};

struct Recorder;  // command_buffer_internal.h: recording state (kept across recordings)

struct CommandBuffer {
  XgpuLoaderData loader_data;              // dispatchable object: first member
  Device* device = nullptr;                // creating device
  uint32_t queue_family_index = 0;         // family it is submitted to

  // Recording state (externally synchronized).
  CommandBufferState state = CommandBufferState::kInitial;
  XgpuCommandBufferMode mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;  // from Begin
  uint32_t binding_capacity = 0;           // from Begin
  XgpuResult first_error = XGPU_SUCCESS;   // first recording error, returned by End
  Recorder* recorder = nullptr;            // recording state, created by the first Begin

  CommandProgram program;                  // valid in kExecutable

  // Submission state (thread-safe).
  std::mutex submit_mutex;                 // guards submitted_once against acquire races
  bool submitted_once = false;             // a one-shot buffer was submitted since Begin
  std::atomic<uint32_t> pending{0};        // submissions acquired and not released; top bit: destroyed
                                           // while they were pending (the last release frees the object)
};

// Walks the program's commands in order (following BRANCH), calling
// `visit(const xgpu_amdgpu_command_header_t*)` for each non-terminator.
template <typename Visit>
void command_program_for_each(const CommandProgram& program, Visit&& visit) {
  if (program.blocks.empty()) return;
  const uint8_t* cursor = program.blocks.front();
  for (;;) {
    const auto* header = reinterpret_cast<const xgpu_amdgpu_command_header_t*>(cursor);
    if (header->type == XGPU_AMDGPU_COMMAND_RETURN) return;
    if (header->type == XGPU_AMDGPU_COMMAND_BRANCH) {
      const auto* branch = reinterpret_cast<const xgpu_amdgpu_command_terminator_t*>(cursor);
      cursor = reinterpret_cast<const uint8_t*>(uintptr_t(branch->next_block));
      continue;
    }
    visit(header);
    cursor += header->size;
  }
}

}  // namespace xgpu::amdgpu
