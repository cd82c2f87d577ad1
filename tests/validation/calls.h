// Baseline calls of every command (generated/calls.inc) and the fixups that
// make them valid where the registry cannot say how (sizes, names, objects in
// the right state). A negative test breaks exactly one rule of such a call.
#ifndef XGPU_TESTS_VALIDATION_CALLS_H_
#define XGPU_TESTS_VALIDATION_CALLS_H_

#include "harness.h"

namespace vtest {

#include "generated/calls_fwd.inc"

// Structure-level fixups: every instance of the structure in a baseline call.
template <typename T>
void FixupStruct(Fixture&, T&) {}
void FixupStruct(Fixture& f, XgpuBufferRef& ref);
void FixupStruct(Fixture& f, XgpuBufferBinding& binding);
void FixupStruct(Fixture& f, XgpuBufferCreateInfo& info);
void FixupStruct(Fixture& f, XgpuMemoryPoolCreateInfo& info);
void FixupStruct(Fixture& f, XgpuDeviceQueueCreateInfo& info);
void FixupStruct(Fixture& f, XgpuPipelineCreateInfo& info);
void FixupStruct(Fixture& f, XgpuCommandBufferBeginInfo& info);
void FixupStruct(Fixture& f, XgpuDebugMessengerCreateInfo& info);
void FixupStruct(Fixture& f, XgpuDebugObjectNameInfo& info);
void FixupStruct(Fixture& f, XgpuSemaphoreSignalInfo& info);

// Command-level fixups.
template <typename C>
void Fixup(Fixture&, C&) {}
void Fixup(Fixture& f, Call_xgpuCreateInstance& call);
void Fixup(Fixture& f, Call_xgpuDestroyInstance& call);
void Fixup(Fixture& f, Call_xgpuQueueSubmit& call);
void Fixup(Fixture& f, Call_xgpuBeginCommandBuffer& call);
void Fixup(Fixture& f, Call_xgpuDestroyDevice& call);
void Fixup(Fixture& f, Call_xgpuGetDeviceProcAddr& call);
void Fixup(Fixture& f, Call_xgpuGetInstanceProcAddr& call);
void Fixup(Fixture& f, Call_xgpuCreateExecutable& call);
void Fixup(Fixture& f, Call_xgpuQueueCopyBuffer& call);
void Fixup(Fixture& f, Call_xgpuSubmitDebugMessage& call);
void Fixup(Fixture& f, Call_xgpuQueueAlloca& call);
void Fixup(Fixture& f, Call_xgpuCmdPipelineBarrier& call);
void Fixup(Fixture& f, Call_xgpuCmdMemoryBarrier& call);
void Fixup(Fixture& f, Call_xgpuQueueFillBuffer& call);
void Fixup(Fixture& f, Call_xgpuQueueDealloca& call);
void Fixup(Fixture& f, Call_xgpuCmdCopyBuffer& call);
void Fixup(Fixture& f, Call_xgpuCmdDispatchIndirect& call);
void Fixup(Fixture& f, Call_xgpuCmdDispatch& call);
void Fixup(Fixture& f, Call_xgpuFailSemaphore& call);
void Fixup(Fixture& f, Call_xgpuCmdBindBuffers& call);
void Fixup(Fixture& f, Call_xgpuCmdPushConstants& call);
void Fixup(Fixture& f, Call_xgpuMapBuffer& call);
void Fixup(Fixture& f, Call_xgpuUnmapBuffer& call);

// Binds the fixture's pipeline, both its bindings and its 8 constant bytes.
void ReadyToDispatch(Fixture& f, XgpuCommandBuffer commandBuffer);

#include "generated/calls.inc"

}  // namespace vtest

#endif  // XGPU_TESTS_VALIDATION_CALLS_H_
