// Describing a recorded program's commands for fault messages: which
// command a packet came from, which dispatches print, and what an indirect
// dispatch whose counts were out of range left in the ring (seam.h).
#include <cstring>
#include <vector>

#include "issue.h"
#include "issue_internal.h"

namespace xgpu::amdgpu {
namespace issue_impl {

// The API function that recorded a command of `type`.
const char* function_of(uint32_t type) {
  switch (type) {
    case XGPU_AMDGPU_COMMAND_DISPATCH: return "xgpuCmdDispatch";
    case XGPU_AMDGPU_COMMAND_DISPATCH_INDIRECT: return "xgpuCmdDispatchIndirect";
    case XGPU_AMDGPU_COMMAND_FILL: return "xgpuCmdFillBuffer";
    case XGPU_AMDGPU_COMMAND_COPY: return "xgpuCmdCopyBuffer";
    case XGPU_AMDGPU_COMMAND_UPDATE: return "xgpuCmdUpdateBuffer";
    case XGPU_AMDGPU_COMMAND_TIMESTAMP: return "xgpuCmdWriteTimestamp";
    case XGPU_AMDGPU_COMMAND_BARRIER: return "xgpuCmdPipelineBarrier";
    case XGPU_AMDGPU_COMMAND_DEBUG_LABEL: return "a debug label command";
    default: return "an unknown command";
  }
}

// Labels open around command `index` of `program`: "'outer' > 'inner'", or
// empty.
std::string labels_around(const CommandProgram& program, uint32_t index) {
  std::vector<std::string> open;
  command_program_for_each(program, [&](const xgpu_amdgpu_command_header_t* header) {
    if (header->index >= index || header->type != XGPU_AMDGPU_COMMAND_DEBUG_LABEL) return;
    const auto* label = reinterpret_cast<const xgpu_amdgpu_command_debug_label_t*>(header);
    if (label->op == XGPU_AMDGPU_DEBUG_LABEL_BEGIN)
      open.push_back(label->name ? reinterpret_cast<const char*>(uintptr_t(label->name)) : "");
    if (label->op == XGPU_AMDGPU_DEBUG_LABEL_END && !open.empty()) open.pop_back();
  });
  std::string out;
  for (const std::string& name : open) out += (out.empty() ? "'" : " > '") + name + "'";
  return out;
}

// "(70000, 1, 1)"
std::string triple(const uint32_t v[3]) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
}

}  // namespace issue_impl

using namespace issue_impl;

bool commands_describe_packet(const CommandBuffer* command_buffer, uint32_t packet_offset, CommandAtPacket* out) {
  if (!command_buffer) return false;
  const CommandProgram& program = command_buffer->program;
  const xgpu_amdgpu_command_header_t* found = nullptr;
  command_program_for_each(program, [&](const xgpu_amdgpu_command_header_t* command) {
    if (found) return;
    const uint32_t packets = command_packets(command);
    if (packets && packet_offset >= command->packet_offset && packet_offset - command->packet_offset < packets)
      found = command;
  });
  if (!found) return false;
  out->index = found->index;
  out->function = function_of(found->type);
  uint64_t name = 0;
  if (found->type == XGPU_AMDGPU_COMMAND_DISPATCH_INDIRECT) {
    const auto* cmd = reinterpret_cast<const xgpu_amdgpu_command_dispatch_indirect_t*>(found);
    const bool patch = (found->flags & XGPU_AMDGPU_COMMAND_FLAG_INDIRECT_DYNAMIC) && packet_offset == found->packet_offset;
    if (patch) {
      out->kernel = "the indirect-count patch kernel";
    } else {
      name = cmd->dispatch.debug_name;
    }
  } else {
    name = reinterpret_cast<const xgpu_amdgpu_command_dispatch_t*>(found)->dispatch.debug_name;
  }
  if (name) out->kernel = reinterpret_cast<const char*>(uintptr_t(name));
  out->labels = labels_around(program, found->index);
  return true;
}

std::string commands_printing_dispatch(const CommandBuffer* command_buffer, uint64_t command_index) {
  if (!command_buffer) return "a kernel (";
  std::vector<std::string> found;
  std::string exact;
  command_program_for_each(command_buffer->program, [&](const xgpu_amdgpu_command_header_t* command) {
    if (!(command->flags & XGPU_AMDGPU_COMMAND_FLAG_PRINTS)) return;
    const uint64_t address = command->type == XGPU_AMDGPU_COMMAND_DISPATCH_INDIRECT
                                 ? reinterpret_cast<const xgpu_amdgpu_command_dispatch_indirect_t*>(command)->dispatch.debug_name
                                 : reinterpret_cast<const xgpu_amdgpu_command_dispatch_t*>(command)->dispatch.debug_name;
    const std::string name = address ? reinterpret_cast<const char*>(uintptr_t(address)) : "?";
    found.push_back("'" + name + "' (command " + std::to_string(command->index));
    if (command->index == command_index) exact = found.back();
  });
  if (!exact.empty()) return "kernel " + exact;
  if (found.size() == 1) return "kernel " + found[0];
  std::string list;
  for (const std::string& one : found) list += (list.empty() ? "" : "), ") + one;
  return "one of the printing dispatches (kernels " + list + ")";
}

bool commands_describe_queue_error(const hsa_queue_t* queue, std::string* out_message) {
  if (!queue || !queue->base_address || queue->size == 0) return false;
  // The processor stops at the packet it rejects. At most one LIMIT_ERROR
  // packet is ever in a ring: publishing one fails the queue, and the
  // patch kernel of a later DYNAMIC dispatch cannot run past it.
  const auto* ring = static_cast<const uint8_t*>(queue->base_address);
  for (uint32_t i = 0; i < queue->size; ++i) {
    const uint8_t* slot = ring + uint64_t(i) * XGPU_AMDGPU_AQL_PACKET_SIZE;
    const uint16_t header = __atomic_load_n(reinterpret_cast<const uint16_t*>(slot), __ATOMIC_ACQUIRE);
    const uint32_t type = (header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1u);
    if (type != XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR) continue;
    uint64_t address = 0;
    std::memcpy(&address, slot + XGPU_AMDGPU_AQL_DISPATCH_KERNARG_ADDRESS_OFFSET, sizeof(address));
    if (address == 0) continue;
    xgpu_amdgpu_indirect_error_t record;
    std::memcpy(&record, reinterpret_cast<const void*>(uintptr_t(address)), sizeof(record));
    if (record.magic != XGPU_AMDGPU_INDIRECT_ERROR_MAGIC) continue;
    const bool dynamic = record.command_flags & XGPU_AMDGPU_COMMAND_FLAG_INDIRECT_DYNAMIC;
    const char* kernel = record.kernel_name ? reinterpret_cast<const char*>(uintptr_t(record.kernel_name)) : "?";
    std::string where = "command " + std::to_string(record.command_index);
    const auto* command_buffer = reinterpret_cast<const CommandBuffer*>(uintptr_t(record.command_buffer));
    if (command_buffer) {
      const std::string labels = labels_around(command_buffer->program, record.command_index);
      if (!labels.empty()) where += ", inside debug labels " + labels;
    }
    static const char* const kAxis[3] = {"x", "y", "z"};
    std::string over;
    for (int d = 0; d < 3; ++d) {
      if (record.counts[d] <= record.max_workgroup_count[d]) continue;
      over += std::string(over.empty() ? "" : ", ") + kAxis[d] + " " + std::to_string(record.counts[d]) + " > " +
              std::to_string(record.max_workgroup_count[d]);
    }
    *out_message = std::string("xgpuCmdDispatchIndirect (") + (dynamic ? "DYNAMIC" : "STATIC") + ", kernel '" +
                   kernel + "', " + where + "): the workgroup counts " + triple(record.counts) +
                   " read from pCounts exceed the limits " + triple(record.max_workgroup_count) + " (" + over +
                   "; the pipeline's maxWorkgroupCount: limits.maxWorkgroupCount and limits.maxGridSize): the dispatch did not run and the queue "
                   "failed";
    return true;
  }
  return false;
}

}  // namespace xgpu::amdgpu
