// Strings for the command-buffer files' messages, and the table of the
// commands half's entry points by name (commands_get_proc_addr).
#include "command_buffer_internal.h"

#include "xgpu/xgpu_enum_string.h"

#include <cstring>

#include "entry_guard.h"

namespace xgpu::amdgpu {
namespace command_buffer_impl {

std::string size_string(XgpuDeviceSize size) {
  return size == XGPU_WHOLE_SIZE ? std::string("XGPU_WHOLE_SIZE") : std::to_string(size);
}

// "A_BIT | B_BIT (0x3)", or "0" without bits (names from the registry).
std::string usage_string(XgpuBufferUsageFlags flags) {
  char names[XGPU_FLAGS_STRING_SIZE];
  xgpuBufferUsageFlagsString(flags, names, sizeof(names));
  return flags == 0 ? std::string("0") : std::string(names) + " (" + hex(flags) + ")";
}
std::string memory_property_string(XgpuMemoryPropertyFlags flags) {
  char names[XGPU_FLAGS_STRING_SIZE];
  xgpuMemoryPropertyFlagsString(flags, names, sizeof(names));
  return flags == 0 ? std::string("0") : std::string(names) + " (" + hex(flags) + ")";
}

// "memory type 2 (XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT (0x1))"
std::string memory_type_string(uint32_t memory_type, XgpuMemoryPropertyFlags properties) {
  return "memory type " + std::to_string(memory_type) + " (" + memory_property_string(properties) + ")";
}

// "command 2 (xgpuCmdCopyBuffer pDst)", "command 0 (xgpuCmdDispatch
// binding 1 (xgpuCmdBindBuffers))".
std::string slot_use_string(const SlotUse& use) {
  const std::string what = use.parameter ? std::string(use.parameter)
                                         : "binding " + std::to_string(use.binding) + " (xgpuCmdBindBuffers)";
  return "command " + std::to_string(use.command) + " (" + use.function + " " + what + ")";
}

}  // namespace command_buffer_impl

namespace {

using namespace command_buffer_impl;

struct NamedFunction {
  const char* name;               // API name
  PFN_xgpuVoidFunction function;  // implementation
};

// The static_cast checks each implementation against the registry's PFN
// type; EntryGuard keeps C++ exceptions from crossing the C API.
#define XGPU_AMDGPU_ENTRY(name, function) \
  {"xgpu" #name, reinterpret_cast<PFN_xgpuVoidFunction>(static_cast<PFN_xgpu##name>(&EntryGuard<&function>::call))}
const NamedFunction kEntryPoints[] = {
    XGPU_AMDGPU_ENTRY(CreateCommandBuffer, create_command_buffer),
    XGPU_AMDGPU_ENTRY(DestroyCommandBuffer, destroy_command_buffer),
    XGPU_AMDGPU_ENTRY(BeginCommandBuffer, begin_command_buffer),
    XGPU_AMDGPU_ENTRY(EndCommandBuffer, end_command_buffer),
    XGPU_AMDGPU_ENTRY(CmdBindPipeline, cmd_bind_pipeline),
    XGPU_AMDGPU_ENTRY(CmdPushConstants, cmd_push_constants),
    XGPU_AMDGPU_ENTRY(CmdBindBuffers, cmd_bind_buffers),
    XGPU_AMDGPU_ENTRY(CmdSetWorkgroupMemorySize, cmd_set_workgroup_memory_size),
    XGPU_AMDGPU_ENTRY(CmdDispatch, cmd_dispatch),
    XGPU_AMDGPU_ENTRY(CmdDispatchIndirect, cmd_dispatch_indirect),
    XGPU_AMDGPU_ENTRY(CmdFillBuffer, cmd_fill_buffer),
    XGPU_AMDGPU_ENTRY(CmdCopyBuffer, cmd_copy_buffer),
    XGPU_AMDGPU_ENTRY(CmdUpdateBuffer, cmd_update_buffer),
    XGPU_AMDGPU_ENTRY(CmdPipelineBarrier, cmd_pipeline_barrier),
    XGPU_AMDGPU_ENTRY(CmdMemoryBarrier, cmd_memory_barrier),
    XGPU_AMDGPU_ENTRY(CmdBeginDebugLabel, cmd_begin_debug_label),
    XGPU_AMDGPU_ENTRY(CmdEndDebugLabel, cmd_end_debug_label),
    XGPU_AMDGPU_ENTRY(CmdInsertDebugLabel, cmd_insert_debug_label),
    XGPU_AMDGPU_ENTRY(CmdWriteTimestamp, cmd_write_timestamp),
};
#undef XGPU_AMDGPU_ENTRY

}  // namespace

PFN_xgpuVoidFunction commands_get_proc_addr(const char* name) {
  if (!name) return nullptr;
  for (const NamedFunction& entry : kEntryPoints)
    if (std::strcmp(entry.name, name) == 0) return entry.function;
  return nullptr;
}

}  // namespace xgpu::amdgpu
