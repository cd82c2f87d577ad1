// Command-buffer recording and the commands half of the seam (stubs; the
// recorder lands next).
#include "seam.h"

namespace xgpu::amdgpu {

PFN_xgpuVoidFunction commands_get_proc_addr(const char*) { return nullptr; }
Device* command_buffer_device(const CommandBuffer*) { return nullptr; }
XgpuResult command_buffer_acquire_for_submit(CommandBuffer*, std::string* out_error) {
  if (out_error) *out_error = "command buffers are not implemented yet";
  return XGPU_ERROR_FEATURE_NOT_PRESENT;
}
IssueSizes command_buffer_issue_sizes(const CommandBuffer*) { return IssueSizes{1, 0, 0}; }
XgpuResult command_buffer_issue(const CommandBuffer*, IssueTarget& target) {
  if (target.out_error) *target.out_error = "command buffers are not implemented yet";
  return XGPU_ERROR_FEATURE_NOT_PRESENT;
}
void command_buffer_release_after_submit(CommandBuffer*) {}

}  // namespace xgpu::amdgpu
