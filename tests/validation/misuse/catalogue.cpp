// The catalogue: each entry one mistake an engine developer makes, the ID
// the layer reports for it, the ID the driver reports without the layer (for
// the rules drivers check), the error the call returns, and, for the rules
// the layer does not check yet, the rule it waits for. A recording mistake
// returns what xgpuEndCommandBuffer then returns.
#include <cstring>

#include "misuse.h"

namespace misuse {
namespace {

constexpr XgpuResult kArg = XGPU_ERROR_INVALID_ARGUMENT;
constexpr XgpuResult kUsage = XGPU_ERROR_INVALID_USAGE;

#define V(rule) "XGPU-VUID-" rule
#define ENTRY(name, layer_id, driver_id, error, waits, ...) \
  Entry{name, layer_id, driver_id, error, waits, [](Env& e) -> XgpuResult { __VA_ARGS__ }}

XgpuBuffer Destroyed(Env& e) {
  XgpuBuffer b = e.Buffer(256);
  xgpuDestroyBuffer(e.device, b, nullptr);
  return b;
}
XgpuSemaphore DestroyedSemaphore(Env& e) {
  XgpuSemaphore s = e.Semaphore();
  xgpuDestroySemaphore(e.device, s, nullptr);
  return s;
}
XgpuBuffer Deallocated(Env& e) {
  XgpuBuffer b = e.Alloca(256);
  xgpuQueueDealloca(e.queue, nullptr, nullptr, b);
  xgpuQueueWaitIdle(e.queue);
  return b;
}
XgpuBufferRef Ref(XgpuBuffer b, XgpuDeviceSize offset = 0, XgpuDeviceSize size = XGPU_WHOLE_SIZE) {
  return xgpuBufferRefRange(b, offset, size);
}
XgpuBufferRef BadKind(XgpuBuffer b) {
  XgpuBufferRef r = xgpuBufferRefWhole(b);
  r.kind = static_cast<XgpuBufferRefKind>(7);
  return r;
}
constexpr uint32_t kPattern = 0x12345678u;
constexpr uint64_t kCounts[3] = {};

XgpuResult SubmitWith(Env& e, XgpuSubmitInfo submit) {
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  return xgpuQueueSubmit(e.queue, 1, &submit);
}
XgpuSemaphoreList List(const XgpuSemaphore* s, const uint64_t* v, uint32_t count = 1) {
  XgpuSemaphoreList l = {};
  l.count = count;
  l.pSemaphores = s;
  l.pValues = v;
  return l;
}
// A submission of `cb` held back by a wait on a semaphore nothing signals.
XgpuResult SubmitHeld(Env& e, XgpuCommandBuffer cb, XgpuSemaphore gate) {
  static const uint64_t one = 1;
  XgpuSubmitInfo submit = {};
  submit.commandBuffer = cb;
  submit.waitSemaphores = List(&gate, &one);
  return SubmitWith(e, submit);
}
XgpuResult Signal(Env& e, XgpuSemaphore s, uint64_t value) {
  XgpuSemaphoreSignalInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  info.semaphore = s;
  info.value = value;
  return xgpuSignalSemaphore(e.device, &info);
}
XgpuResult MakeBuffer(Env& e, XgpuBufferCreateInfo info) {
  XgpuBuffer b = nullptr;
  XgpuResult r = xgpuCreateBuffer(e.device, &info, nullptr, &b);
  return r;
}
XgpuBufferCreateInfo BufferInfo(Env& e) {
  XgpuBufferCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = 256;
  info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
  info.memoryTypeIndex = e.host_type;
  return info;
}
XgpuPipelineCreateInfo PipelineInfo(Env& e) {
  XgpuPipelineCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
  info.executable = e.executable;
  info.pEntryPoint = "validation_saxpy";
  info.bindingCount = 2;
  info.constantSize = 8;
  info.workgroupSize[0] = 64;
  info.workgroupSize[1] = 1;
  info.workgroupSize[2] = 1;
  return info;
}
XgpuResult MakePipeline(Env& e, XgpuPipelineCreateInfo info) {
  XgpuPipeline p = nullptr;
  return xgpuCreatePipeline(e.device, &info, nullptr, &p);
}
XgpuResult MakeDevice(Env& e, uint32_t family, uint32_t count) {
  XgpuDeviceQueueCreateInfo q = {};
  q.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  q.queueFamilyIndex = family;
  q.queueCount = count;
  XgpuDeviceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &q;
  XgpuDevice d = nullptr;
  return xgpuCreateDevice(e.physical, &info, nullptr, &d);
}
XgpuResult Barrier(XgpuCommandBuffer cb, XgpuPipelineStageFlags src, XgpuPipelineStageFlags dst,
                   const XgpuBufferMemoryBarrier* buffer_barrier = nullptr) {
  xgpuCmdPipelineBarrier(cb, src, dst, 0, nullptr, buffer_barrier ? 1 : 0, buffer_barrier);
  return xgpuEndCommandBuffer(cb);
}
XgpuResult Label(XgpuCommandBuffer cb, const char* name) {
  XgpuDebugLabel label = {};
  label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  label.pLabelName = name;
  xgpuCmdInsertDebugLabel(cb, &label);
  return xgpuEndCommandBuffer(cb);
}

const std::vector<Entry> kCatalogue = {
    // ---- Freed objects used again (the object tracker; undefined without the layer).
    ENTRY("binds a destroyed buffer", V("xgpuCmdBindBuffers-pBuffers-buffer-parameter"), nullptr, kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); xgpuCmdBindPipeline(cb, e.pipeline); XgpuBufferRef r = Ref(Destroyed(e));
          xgpuCmdBindBuffers(cb, 0, 1, &r); return xgpuEndCommandBuffer(cb);),
    ENTRY("fills a destroyed buffer", V("xgpuCmdFillBuffer-pDst-buffer-parameter"), nullptr, kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef r = Ref(Destroyed(e));
          xgpuCmdFillBuffer(cb, &r, &kPattern, 4); return xgpuEndCommandBuffer(cb);),
    ENTRY("copies from a destroyed buffer", V("xgpuCmdCopyBuffer-pSrc-buffer-parameter"), nullptr, kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef s = Ref(Destroyed(e)); XgpuBufferRef d = Ref(e.buffer);
          xgpuCmdCopyBuffer(cb, &s, &d, 16); return xgpuEndCommandBuffer(cb);),
    ENTRY("copies into a destroyed buffer", V("xgpuCmdCopyBuffer-pDst-buffer-parameter"), nullptr, kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef s = Ref(e.buffer); XgpuBufferRef d = Ref(Destroyed(e));
          xgpuCmdCopyBuffer(cb, &s, &d, 16); return xgpuEndCommandBuffer(cb);),
    ENTRY("updates a destroyed buffer", V("xgpuCmdUpdateBuffer-pDst-buffer-parameter"), nullptr, kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef d = Ref(Destroyed(e));
          xgpuCmdUpdateBuffer(cb, &d, 4, &kPattern); return xgpuEndCommandBuffer(cb);),
    ENTRY("reads dispatch counts from a destroyed buffer", V("xgpuCmdDispatchIndirect-pCounts-buffer-parameter"), nullptr,
          kArg, nullptr, XgpuCommandBuffer cb = e.ReadyToDispatch(); XgpuBufferRef c = Ref(Destroyed(e), 0, 12);
          xgpuCmdDispatchIndirect(cb, &c, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT); return xgpuEndCommandBuffer(cb);),
    ENTRY("binds a destroyed pipeline", V("xgpuCmdBindPipeline-pipeline-parameter"), nullptr, kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuPipeline p = e.Pipeline(); xgpuDestroyPipeline(e.device, p, nullptr);
          xgpuCmdBindPipeline(cb, p); return xgpuEndCommandBuffer(cb);),
    ENTRY("puts a barrier on a destroyed buffer", V("xgpuCmdPipelineBarrier-pBufferBarriers-buffer-buffer-parameter"),
          nullptr, kArg, nullptr, XgpuCommandBuffer cb = e.Begun(); XgpuBufferMemoryBarrier b = {};
          b.sType = XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER; b.srcAccessMask = XGPU_ACCESS_SHADER_WRITE_BIT;
          b.dstAccessMask = XGPU_ACCESS_SHADER_READ_BIT; b.buffer = Ref(Destroyed(e));
          return Barrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_PIPELINE_STAGE_DISPATCH_BIT, &b);),
    ENTRY("waits on a destroyed semaphore in a submission", V("xgpuQueueSubmit-pSubmits-waitSemaphores-pSemaphores-parameter"),
          V("xgpuQueueSubmit-pSubmits-waitSemaphores-pSemaphores-parameter"), kArg, nullptr, XgpuSemaphore s = DestroyedSemaphore(e); uint64_t v = 1; XgpuSubmitInfo submit = {};
          submit.waitSemaphores = List(&s, &v); return SubmitWith(e, submit);),
    ENTRY("signals a destroyed semaphore in a submission", V("xgpuQueueSubmit-pSubmits-signalSemaphores-pSemaphores-parameter"),
          V("xgpuQueueSubmit-pSubmits-signalSemaphores-pSemaphores-parameter"), kArg, nullptr, XgpuSemaphore s = DestroyedSemaphore(e); uint64_t v = 1; XgpuSubmitInfo submit = {};
          submit.signalSemaphores = List(&s, &v); return SubmitWith(e, submit);),
    ENTRY("signals a destroyed semaphore from the host", V("xgpuSignalSemaphore-pSignalInfo-semaphore-parameter"), nullptr,
          kArg, nullptr, return Signal(e, DestroyedSemaphore(e), 1);),
    ENTRY("waits on the host for a destroyed semaphore", V("xgpuWaitSemaphores-pWaitInfo-pSemaphores-parameter"), nullptr,
          kArg, nullptr, XgpuSemaphore s = DestroyedSemaphore(e); uint64_t v = 0; XgpuSemaphoreWaitInfo w = {};
          w.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO; w.semaphoreCount = 1; w.pSemaphores = &s; w.pValues = &v;
          return xgpuWaitSemaphores(e.device, &w, 0);),
    ENTRY("reads the value of a destroyed semaphore", V("xgpuGetSemaphoreValue-semaphore-parameter"), nullptr, kArg,
          nullptr, uint64_t v = 0; return xgpuGetSemaphoreValue(e.device, DestroyedSemaphore(e), &v);),
    ENTRY("maps a destroyed buffer", V("xgpuMapBuffer-buffer-parameter"), nullptr, kArg, nullptr, void* p = nullptr;
          return xgpuMapBuffer(e.device, Destroyed(e), 0, XGPU_WHOLE_SIZE, &p);),
    ENTRY("unmaps a destroyed buffer", V("xgpuUnmapBuffer-buffer-parameter"), nullptr, kVoid, nullptr,
          xgpuUnmapBuffer(e.device, Destroyed(e)); return kVoid;),
    ENTRY("asks for the address of a destroyed buffer", V("xgpuGetBufferDeviceAddress-buffer-parameter"), nullptr, kAny,
          nullptr, xgpuGetBufferDeviceAddress(e.device, Destroyed(e)); return kAny;),
    ENTRY("fills a destroyed buffer on a queue", V("xgpuQueueFillBuffer-dstBuffer-parameter"), nullptr, kArg, nullptr,
          return xgpuQueueFillBuffer(e.queue, nullptr, nullptr, Destroyed(e), 0, 16, &kPattern, 4);),
    ENTRY("copies on a queue from a destroyed buffer", V("xgpuQueueCopyBuffer-srcBuffer-parameter"), nullptr, kArg,
          nullptr, return xgpuQueueCopyBuffer(e.queue, nullptr, nullptr, Destroyed(e), 0, e.buffer, 0, 16);),
    ENTRY("copies on a queue into a destroyed buffer", V("xgpuQueueCopyBuffer-dstBuffer-parameter"), nullptr, kArg,
          nullptr, return xgpuQueueCopyBuffer(e.queue, nullptr, nullptr, e.buffer, 0, Destroyed(e), 0, 16);),
    ENTRY("creates a pipeline from a destroyed executable", V("xgpuCreatePipeline-pCreateInfo-executable-parameter"),
          nullptr, kArg, nullptr, XgpuExecutable x = e.LoadExecutable(); xgpuDestroyExecutable(e.device, x, nullptr);
          XgpuPipelineCreateInfo info = PipelineInfo(e); info.executable = x; return MakePipeline(e, info);),
    ENTRY("allocates from a destroyed memory pool", V("xgpuQueueAlloca-memoryPool-parameter"), nullptr, kArg, nullptr,
          XgpuMemoryPool p = e.Pool(); xgpuDestroyMemoryPool(e.device, p, nullptr); XgpuBuffer b = nullptr;
          return xgpuQueueAlloca(e.queue, nullptr, nullptr, p, 256, XGPU_BUFFER_USAGE_STORAGE_BIT, &b);),
    // ---- Double destroys: the driver also keeps its children's handles and reports them (api.md 1.8).
    ENTRY("destroys a buffer twice", V("xgpuDestroyBuffer-buffer-parameter"), V("xgpuDestroyBuffer-buffer-parameter"),
          kVoid, nullptr, xgpuDestroyBuffer(e.device, Destroyed(e), nullptr); return kVoid;),
    ENTRY("destroys a semaphore twice", V("xgpuDestroySemaphore-semaphore-parameter"),
          V("xgpuDestroySemaphore-semaphore-parameter"), kVoid, nullptr,
          xgpuDestroySemaphore(e.device, DestroyedSemaphore(e), nullptr); return kVoid;),
    ENTRY("destroys a pipeline twice", V("xgpuDestroyPipeline-pipeline-parameter"), V("xgpuDestroyPipeline-pipeline-parameter"),
          kVoid, nullptr, XgpuPipeline p = e.Pipeline(); xgpuDestroyPipeline(e.device, p, nullptr);
          xgpuDestroyPipeline(e.device, p, nullptr); return kVoid;),
    ENTRY("destroys an executable twice", V("xgpuDestroyExecutable-executable-parameter"),
          V("xgpuDestroyExecutable-executable-parameter"), kVoid, nullptr, XgpuExecutable x = e.LoadExecutable();
          xgpuDestroyExecutable(e.device, x, nullptr); xgpuDestroyExecutable(e.device, x, nullptr); return kVoid;),
    ENTRY("destroys a command buffer twice", V("xgpuDestroyCommandBuffer-commandBuffer-parameter"),
          V("xgpuDestroyCommandBuffer-commandBuffer-parameter"), kVoid, nullptr, XgpuCommandBuffer cb = e.CommandBuffer();
          xgpuDestroyCommandBuffer(e.device, cb, nullptr); xgpuDestroyCommandBuffer(e.device, cb, nullptr); return kVoid;),
    ENTRY("destroys a memory pool twice", V("xgpuDestroyMemoryPool-memoryPool-parameter"),
          V("xgpuDestroyMemoryPool-memoryPool-parameter"), kVoid, nullptr, XgpuMemoryPool p = e.Pool();
          xgpuDestroyMemoryPool(e.device, p, nullptr); xgpuDestroyMemoryPool(e.device, p, nullptr); return kVoid;),
    ENTRY("deallocates a queue allocation twice", V("xgpuQueueDealloca-buffer-parameter"),
          V("xgpuQueueDealloca-buffer-parameter"), kArg, nullptr,
          return xgpuQueueDealloca(e.queue, nullptr, nullptr, Deallocated(e));),
    ENTRY("destroys a deallocated queue allocation with xgpuDestroyBuffer", V("xgpuDestroyBuffer-buffer-parameter"),
          V("xgpuDestroyBuffer-buffer-parameter"), kVoid, nullptr,
          xgpuDestroyBuffer(e.device, Deallocated(e), nullptr); return kVoid;),
    // ---- Use after dealloca.
    ENTRY("records a fill of a queue allocation after its dealloca", V("xgpuCmdFillBuffer-pDst-buffer-parameter"), nullptr,
          kArg, nullptr, XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef r = Ref(Deallocated(e));
          xgpuCmdFillBuffer(cb, &r, &kPattern, 4); return xgpuEndCommandBuffer(cb);),
    ENTRY("fills a queue allocation on a queue after its dealloca", V("xgpuQueueFillBuffer-dstBuffer-parameter"), nullptr,
          kArg, nullptr, return xgpuQueueFillBuffer(e.queue, nullptr, nullptr, Deallocated(e), 0, 16, &kPattern, 4);),
    ENTRY("binds a queue allocation in a binding table after its dealloca",
          V("xgpuQueueSubmit-pSubmits-pBindings-buffer-parameter"), nullptr, kArg, nullptr,
          XgpuCommandBuffer cb = e.Executable(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 1);
          XgpuBufferBinding binding = {Deallocated(e), 0, XGPU_WHOLE_SIZE}; return e.Submit(cb, 1, &binding);),
    ENTRY("names a destroyed buffer", V("xgpuSetObjectName-pNameInfo-objectHandle"), nullptr, kAny, nullptr,
          XgpuDebugObjectNameInfo n = {}; n.sType = XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO;
          n.objectType = XGPU_OBJECT_TYPE_BUFFER; n.objectHandle = reinterpret_cast<uintptr_t>(Destroyed(e));
          n.pObjectName = "gone"; return xgpuSetObjectName(e.device, &n);),
    ENTRY("binds a destroyed buffer in a binding table", V("xgpuQueueSubmit-pSubmits-pBindings-buffer-parameter"), nullptr,
          kArg, nullptr, XgpuCommandBuffer cb = e.Executable(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 1);
          XgpuBufferBinding binding = {Destroyed(e), 0, XGPU_WHOLE_SIZE}; return e.Submit(cb, 1, &binding);),
    // ---- Objects of another device.
    ENTRY("destroys a buffer of another device", V("xgpuDestroyBuffer-buffer-parent"), nullptr, kVoid, nullptr,
          xgpuDestroyBuffer(e.device, e.Buffer(64, ~0u, e.other_device), nullptr); return kVoid;),
    ENTRY("binds a pipeline of another device", V("xgpuCmdBindPipeline-pipeline-parent"), nullptr, kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); xgpuCmdBindPipeline(cb, e.Pipeline(e.other_device));
          return xgpuEndCommandBuffer(cb);),
    ENTRY("fills a buffer of another device", V("xgpuCmdFillBuffer-pDst-buffer-parent"), nullptr, kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef r = Ref(e.Buffer(64, ~0u, e.other_device));
          xgpuCmdFillBuffer(cb, &r, &kPattern, 4); return xgpuEndCommandBuffer(cb);),
    ENTRY("maps a buffer of another device", V("xgpuMapBuffer-buffer-parent"), nullptr, kArg, nullptr, void* p = nullptr;
          return xgpuMapBuffer(e.device, e.Buffer(64, ~0u, e.other_device), 0, XGPU_WHOLE_SIZE, &p);),
    ENTRY("allocates from a memory pool of another device", V("xgpuQueueAlloca-memoryPool-parent"), nullptr, kArg,
          nullptr, XgpuBuffer b = nullptr;
          return xgpuQueueAlloca(e.queue, nullptr, nullptr, e.Pool(e.other_device), 256, XGPU_BUFFER_USAGE_STORAGE_BIT, &b);),
    ENTRY("creates a pipeline from an executable of another device", V("xgpuCreatePipeline-pCreateInfo-executable-parent"),
          nullptr, kArg, nullptr, XgpuPipelineCreateInfo info = PipelineInfo(e);
          info.executable = e.LoadExecutable(e.other_device); return MakePipeline(e, info);),
    ENTRY("queue-fills a buffer of another device", V("xgpuQueueFillBuffer-dstBuffer-parent"), nullptr, kArg, nullptr,
          return xgpuQueueFillBuffer(e.queue, nullptr, nullptr, e.Buffer(64, ~0u, e.other_device), 0, 16, &kPattern, 4);),
    ENTRY("reads the value of a semaphore through another device", V("xgpuGetSemaphoreValue-semaphore-parent"), nullptr,
          kArg, nullptr, uint64_t v = 0; return xgpuGetSemaphoreValue(e.device, e.Semaphore(e.other_device), &v);),
    // ---- Command-buffer state.
    ENTRY("records into a command buffer never begun", V("xgpuCmdDispatch-commandBuffer-recording"),
          V("xgpuCmdDispatch-commandBuffer-recording"), kUsage, nullptr, XgpuCommandBuffer cb = e.CommandBuffer();
          xgpuCmdDispatch(cb, 1, 1, 1); return xgpuEndCommandBuffer(cb);),
    ENTRY("ends a command buffer never begun", V("xgpuEndCommandBuffer-commandBuffer-recording"),
          V("xgpuEndCommandBuffer-commandBuffer-recording"), kUsage, nullptr,
          return xgpuEndCommandBuffer(e.CommandBuffer());),
    ENTRY("ends a command buffer twice", V("xgpuEndCommandBuffer-commandBuffer-recording"),
          V("xgpuEndCommandBuffer-commandBuffer-recording"), kUsage, nullptr,
          return xgpuEndCommandBuffer(e.Executable());),
    ENTRY("begins a command buffer that is recording", V("xgpuBeginCommandBuffer-commandBuffer-recording"), nullptr, kUsage,
          nullptr, XgpuCommandBuffer cb = e.Begun(); XgpuCommandBufferBeginInfo b = {};
          b.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO; return xgpuBeginCommandBuffer(cb, &b);),
    ENTRY("submits a command buffer still recording", V("xgpuQueueSubmit-pSubmits-commandBuffer-state"),
          V("xgpuQueueSubmit-pSubmits-commandBuffer-state"), kUsage, nullptr, return e.Submit(e.Begun());),
    ENTRY("submits a command buffer never recorded", V("xgpuQueueSubmit-pSubmits-commandBuffer-state"),
          V("xgpuQueueSubmit-pSubmits-commandBuffer-state"), kUsage, nullptr, return e.Submit(e.CommandBuffer());),
    ENTRY("submits a one-shot command buffer twice", V("xgpuQueueSubmit-pSubmits-commandBuffer-oneShot"),
          V("xgpuQueueSubmit-pSubmits-commandBuffer-oneShot"), kUsage, nullptr, XgpuCommandBuffer cb = e.Executable();
          e.Submit(cb); xgpuQueueWaitIdle(e.queue); return e.Submit(cb);),
    ENTRY("submits a pending one-shot command buffer again", V("xgpuQueueSubmit-pSubmits-commandBuffer-oneShot"),
          V("xgpuQueueSubmit-pSubmits-commandBuffer-oneShot"), kUsage, nullptr, XgpuCommandBuffer cb = e.Executable();
          XgpuSemaphore gate = e.Semaphore(); SubmitHeld(e, cb, gate); XgpuResult r = e.Submit(cb);
          Signal(e, gate, 1); xgpuQueueWaitIdle(e.queue); return r;),
    ENTRY("puts one one-shot command buffer twice in one submit", V("xgpuQueueSubmit-pSubmits-commandBuffer-oneShot"),
          V("xgpuQueueSubmit-pSubmits-commandBuffer-oneShot"), kUsage, nullptr, XgpuCommandBuffer cb = e.Executable();
          XgpuSubmitInfo s[2] = {}; for (auto& x : s) { x.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO; x.commandBuffer = cb; }
          return xgpuQueueSubmit(e.queue, 2, s);),
    ENTRY("records a fill after ending", V("xgpuCmdFillBuffer-commandBuffer-recording"),
          V("xgpuCmdFillBuffer-commandBuffer-recording"), kUsage, nullptr, XgpuCommandBuffer cb = e.Executable();
          XgpuBufferRef r = Ref(e.buffer); xgpuCmdFillBuffer(cb, &r, &kPattern, 4); return xgpuEndCommandBuffer(cb);),
    ENTRY("submits a command buffer whose recording failed", V("xgpuQueueSubmit-pSubmits-commandBuffer-state"),
          V("xgpuQueueSubmit-pSubmits-commandBuffer-state"), kUsage, nullptr, XgpuCommandBuffer cb = e.Begun();
          xgpuCmdDispatch(cb, 1, 1, 1); xgpuEndCommandBuffer(cb); return e.Submit(cb);),
    ENTRY("pushes constants into a command buffer never begun", V("xgpuCmdPushConstants-commandBuffer-recording"),
          V("xgpuCmdPushConstants-commandBuffer-recording"), kUsage, nullptr, XgpuCommandBuffer cb = e.CommandBuffer();
          xgpuCmdPushConstants(cb, 0, 4, &kPattern); return xgpuEndCommandBuffer(cb);),
    ENTRY("binds a pipeline into an ended command buffer", V("xgpuCmdBindPipeline-commandBuffer-recording"),
          V("xgpuCmdBindPipeline-commandBuffer-recording"), kUsage, nullptr, XgpuCommandBuffer cb = e.Executable();
          xgpuCmdBindPipeline(cb, e.pipeline); return xgpuEndCommandBuffer(cb);),
    ENTRY("binds buffers into a command buffer never begun", V("xgpuCmdBindBuffers-commandBuffer-recording"),
          V("xgpuCmdBindBuffers-commandBuffer-recording"), kUsage, nullptr, XgpuCommandBuffer cb = e.CommandBuffer();
          XgpuBufferRef r = Ref(e.buffer); xgpuCmdBindBuffers(cb, 0, 1, &r); return xgpuEndCommandBuffer(cb);),
    ENTRY("copies in a command buffer never begun", V("xgpuCmdCopyBuffer-commandBuffer-recording"),
          V("xgpuCmdCopyBuffer-commandBuffer-recording"), kUsage, nullptr, XgpuCommandBuffer cb = e.CommandBuffer();
          XgpuBufferRef r = Ref(e.buffer, 0, 16); XgpuBufferRef d = Ref(e.buffer, 64, 16);
          xgpuCmdCopyBuffer(cb, &r, &d, 16); return xgpuEndCommandBuffer(cb);),
    ENTRY("updates in a command buffer never begun", V("xgpuCmdUpdateBuffer-commandBuffer-recording"),
          V("xgpuCmdUpdateBuffer-commandBuffer-recording"), kUsage, nullptr, XgpuCommandBuffer cb = e.CommandBuffer();
          XgpuBufferRef d = Ref(e.buffer); xgpuCmdUpdateBuffer(cb, &d, 4, &kPattern); return xgpuEndCommandBuffer(cb);),
    ENTRY("puts a memory barrier in a command buffer never begun", V("xgpuCmdMemoryBarrier-commandBuffer-recording"),
          V("xgpuCmdMemoryBarrier-commandBuffer-recording"), kUsage, nullptr, XgpuCommandBuffer cb = e.CommandBuffer();
          xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                               XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT);
          return xgpuEndCommandBuffer(cb);),
    ENTRY("indirect-dispatches in an ended command buffer", V("xgpuCmdDispatchIndirect-commandBuffer-recording"),
          V("xgpuCmdDispatchIndirect-commandBuffer-recording"), kUsage, nullptr, XgpuCommandBuffer cb = e.Executable();
          XgpuBufferRef c = Ref(e.buffer, 0, 12); xgpuCmdDispatchIndirect(cb, &c, XGPU_DISPATCH_INDIRECT_STATIC_BIT);
          return xgpuEndCommandBuffer(cb);),
    ENTRY("sets workgroup memory in a command buffer never begun", V("xgpuCmdSetWorkgroupMemorySize-commandBuffer-recording"),
          V("xgpuCmdSetWorkgroupMemorySize-commandBuffer-recording"), kUsage, nullptr,
          XgpuCommandBuffer cb = e.CommandBuffer(); xgpuCmdSetWorkgroupMemorySize(cb, 0); return xgpuEndCommandBuffer(cb);),
    ENTRY("puts a pipeline barrier in an ended command buffer", V("xgpuCmdPipelineBarrier-commandBuffer-recording"),
          V("xgpuCmdPipelineBarrier-commandBuffer-recording"), kUsage, nullptr,
          return Barrier(e.Executable(), XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_PIPELINE_STAGE_DISPATCH_BIT);),
    ENTRY("begins a pending command buffer again", V("xgpuBeginCommandBuffer-commandBuffer-pending"), V("xgpuBeginCommandBuffer-commandBuffer-pending"), kUsage, nullptr, XgpuCommandBuffer cb = e.Executable();
          XgpuSemaphore gate = e.Semaphore(); SubmitHeld(e, cb, gate); XgpuCommandBufferBeginInfo b = {};
          b.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO; XgpuResult r = xgpuBeginCommandBuffer(cb, &b);
          Signal(e, gate, 1); xgpuQueueWaitIdle(e.queue); return r;),
    // ---- Bound state, limits and buffer references at record time (drivers check these).
    ENTRY("dispatches with no pipeline bound", V("xgpuCmdDispatch-pipeline"), V("xgpuCmdDispatch-pipeline"), kUsage, nullptr,
          XgpuCommandBuffer cb = e.Begun(); xgpuCmdDispatch(cb, 1, 1, 1); return xgpuEndCommandBuffer(cb);),
    ENTRY("indirect-dispatches with no pipeline bound", V("xgpuCmdDispatchIndirect-pipeline"), V("xgpuCmdDispatchIndirect-pipeline"), kUsage, nullptr, XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef c = Ref(e.buffer, 0, 12);
          xgpuCmdDispatchIndirect(cb, &c, XGPU_DISPATCH_INDIRECT_STATIC_BIT); return xgpuEndCommandBuffer(cb);),
    ENTRY("dispatches more workgroups than the limit", V("xgpuCmdDispatch-groupCount"), V("xgpuCmdDispatch-groupCount"), kArg, nullptr, XgpuCommandBuffer cb = e.ReadyToDispatch();
          xgpuCmdDispatch(cb, e.limits.maxGridSize[0] / 64u + 1u, 1, 1); return xgpuEndCommandBuffer(cb);),
    ENTRY("indirect dispatch with neither STATIC nor DYNAMIC", V("xgpuCmdDispatchIndirect-flags"), V("xgpuCmdDispatchIndirect-flags"), kArg, nullptr, XgpuCommandBuffer cb = e.ReadyToDispatch(); XgpuBufferRef c = Ref(e.buffer, 0, 12);
          xgpuCmdDispatchIndirect(cb, &c, 0); return xgpuEndCommandBuffer(cb);),
    ENTRY("indirect dispatch with both STATIC and DYNAMIC", V("xgpuCmdDispatchIndirect-flags"), V("xgpuCmdDispatchIndirect-flags"), kArg, nullptr, XgpuCommandBuffer cb = e.ReadyToDispatch(); XgpuBufferRef c = Ref(e.buffer, 0, 12);
          xgpuCmdDispatchIndirect(cb, &c, XGPU_DISPATCH_INDIRECT_STATIC_BIT | XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
          return xgpuEndCommandBuffer(cb);),
    ENTRY("reads dispatch counts at an offset not a multiple of 4", V("xgpuCmdDispatchIndirect-pCounts-offset"), V("xgpuCmdDispatchIndirect-pCounts-offset"), kArg, nullptr, XgpuCommandBuffer cb = e.ReadyToDispatch();
          XgpuBufferRef c = Ref(e.buffer, 2, 12); xgpuCmdDispatchIndirect(cb, &c, XGPU_DISPATCH_INDIRECT_STATIC_BIT);
          return xgpuEndCommandBuffer(cb);),
    ENTRY("reads dispatch counts through a reference of an unknown kind", V("xgpuCmdDispatchIndirect-pCounts-kind-parameter"),
          V("xgpuCmdDispatchIndirect-pCounts-kind-parameter"), kArg, nullptr, XgpuCommandBuffer cb = e.ReadyToDispatch();
          XgpuBufferRef c = BadKind(e.buffer); xgpuCmdDispatchIndirect(cb, &c, XGPU_DISPATCH_INDIRECT_STATIC_BIT);
          return xgpuEndCommandBuffer(cb);),
    ENTRY("pushes constants at an offset not a multiple of 4", V("xgpuCmdPushConstants-offset"), V("xgpuCmdPushConstants-offset"), kArg, nullptr, XgpuCommandBuffer cb = e.Begun(); xgpuCmdBindPipeline(cb, e.pipeline);
          xgpuCmdPushConstants(cb, 2, 4, &kPattern); return xgpuEndCommandBuffer(cb);),
    ENTRY("pushes constants of a size not a multiple of 4", V("xgpuCmdPushConstants-size"), V("xgpuCmdPushConstants-size"), kArg, nullptr, XgpuCommandBuffer cb = e.Begun(); xgpuCmdBindPipeline(cb, e.pipeline);
          xgpuCmdPushConstants(cb, 0, 3, &kPattern); return xgpuEndCommandBuffer(cb);),
    ENTRY("pushes constants past maxPushConstantsSize", V("xgpuCmdPushConstants-range"), V("xgpuCmdPushConstants-range"), kArg, nullptr, XgpuCommandBuffer cb = e.Begun(); xgpuCmdBindPipeline(cb, e.pipeline);
          xgpuCmdPushConstants(cb, e.limits.maxPushConstantsSize, 4, &kPattern); return xgpuEndCommandBuffer(cb);),
    ENTRY("binds buffers from a binding at maxBindings", V("xgpuCmdBindBuffers-firstBinding"), V("xgpuCmdBindBuffers-firstBinding"), kArg, nullptr, XgpuCommandBuffer cb = e.Begun(); xgpuCmdBindPipeline(cb, e.pipeline);
          XgpuBufferRef r = Ref(e.buffer);
          xgpuCmdBindBuffers(cb, e.limits.maxBindings, 1, &r); return xgpuEndCommandBuffer(cb);),
    ENTRY("binds more buffers than maxBindings", V("xgpuCmdBindBuffers-firstBinding"), V("xgpuCmdBindBuffers-firstBinding"), kArg, nullptr, XgpuCommandBuffer cb = e.Begun(); xgpuCmdBindPipeline(cb, e.pipeline);
          std::vector<XgpuBufferRef> refs(e.limits.maxBindings + 1, Ref(e.buffer));
          xgpuCmdBindBuffers(cb, 0, static_cast<uint32_t>(refs.size()), refs.data()); return xgpuEndCommandBuffer(cb);),
    ENTRY("binds a binding-table slot at the recording's capacity", V("xgpuCmdBindBuffers-pBuffers-bindingSlot"), V("xgpuCmdBindBuffers-pBuffers-bindingSlot"),
          kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 2); xgpuCmdBindPipeline(cb, e.pipeline);
          XgpuBufferRef r = xgpuBufferRefSlot(2, 0, 64); xgpuCmdBindBuffers(cb, 0, 1, &r); return xgpuEndCommandBuffer(cb);),
    ENTRY("binds a buffer reference of an unknown kind", V("xgpuCmdBindBuffers-pBuffers-kind-parameter"),
          V("xgpuCmdBindBuffers-pBuffers-kind-parameter"), kArg, nullptr, XgpuCommandBuffer cb = e.Begun();
          XgpuBufferRef r = BadKind(e.buffer); xgpuCmdBindBuffers(cb, 0, 1, &r); return xgpuEndCommandBuffer(cb);),
    ENTRY("fills with a 3-byte pattern", V("xgpuCmdFillBuffer-patternSize"), V("xgpuCmdFillBuffer-patternSize"), kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef r = Ref(e.buffer); xgpuCmdFillBuffer(cb, &r, &kPattern, 3);
          return xgpuEndCommandBuffer(cb);),
    ENTRY("fills a binding-table slot at the recording's capacity", V("xgpuCmdFillBuffer-pDst-bindingSlot"), V("xgpuCmdFillBuffer-pDst-bindingSlot"), kArg, nullptr, XgpuCommandBuffer cb = e.Begun(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 1);
          XgpuBufferRef r = xgpuBufferRefSlot(1, 0, 64); xgpuCmdFillBuffer(cb, &r, &kPattern, 4);
          return xgpuEndCommandBuffer(cb);),
    ENTRY("fills through a reference of an unknown kind", V("xgpuCmdFillBuffer-pDst-kind-parameter"),
          V("xgpuCmdFillBuffer-pDst-kind-parameter"), kArg, nullptr, XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef r = BadKind(e.buffer);
          xgpuCmdFillBuffer(cb, &r, &kPattern, 4); return xgpuEndCommandBuffer(cb);),
    ENTRY("updates 0 bytes", V("xgpuCmdUpdateBuffer-dataSize"), V("xgpuCmdUpdateBuffer-dataSize"), kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef d = Ref(e.buffer); xgpuCmdUpdateBuffer(cb, &d, 0, &kPattern);
          return xgpuEndCommandBuffer(cb);),
    ENTRY("updates a binding-table slot at the recording's capacity", V("xgpuCmdUpdateBuffer-pDst-bindingSlot"), V("xgpuCmdUpdateBuffer-pDst-bindingSlot"),
          kArg, nullptr, XgpuCommandBuffer cb = e.Begun(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 1);
          XgpuBufferRef d = xgpuBufferRefSlot(3, 0, 4); xgpuCmdUpdateBuffer(cb, &d, 4, &kPattern);
          return xgpuEndCommandBuffer(cb);),
    ENTRY("updates through a reference of an unknown kind", V("xgpuCmdUpdateBuffer-pDst-kind-parameter"),
          V("xgpuCmdUpdateBuffer-pDst-kind-parameter"), kArg, nullptr, XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef d = BadKind(e.buffer);
          xgpuCmdUpdateBuffer(cb, &d, 4, &kPattern); return xgpuEndCommandBuffer(cb);),
    ENTRY("copies 0 bytes", V("xgpuCmdCopyBuffer-size"), V("xgpuCmdCopyBuffer-size"), kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef s = Ref(e.buffer, 0, 64); XgpuBufferRef d = Ref(e.buffer, 128, 64);
          xgpuCmdCopyBuffer(cb, &s, &d, 0); return xgpuEndCommandBuffer(cb);),
    ENTRY("copies from a reference of an unknown kind", V("xgpuCmdCopyBuffer-pSrc-kind-parameter"),
          V("xgpuCmdCopyBuffer-pSrc-kind-parameter"), kArg, nullptr, XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef s = BadKind(e.buffer);
          XgpuBufferRef d = Ref(e.buffer, 128, 64); xgpuCmdCopyBuffer(cb, &s, &d, 16); return xgpuEndCommandBuffer(cb);),
    ENTRY("copies into a binding-table slot at the recording's capacity", V("xgpuCmdCopyBuffer-pDst-bindingSlot"), V("xgpuCmdCopyBuffer-pDst-bindingSlot"),
          kArg, nullptr, XgpuCommandBuffer cb = e.Begun(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 1);
          XgpuBufferRef s = Ref(e.buffer, 0, 64); XgpuBufferRef d = xgpuBufferRefSlot(1, 0, 64);
          xgpuCmdCopyBuffer(cb, &s, &d, 16); return xgpuEndCommandBuffer(cb);),
    ENTRY("puts a barrier with no source stage", V("xgpuCmdPipelineBarrier-srcStageMask"), V("xgpuCmdPipelineBarrier-srcStageMask"), kArg, nullptr, return Barrier(e.Begun(), 0, XGPU_PIPELINE_STAGE_DISPATCH_BIT);),
    ENTRY("puts a barrier with no destination stage", V("xgpuCmdPipelineBarrier-dstStageMask"), V("xgpuCmdPipelineBarrier-dstStageMask"), kArg, nullptr, return Barrier(e.Begun(), XGPU_PIPELINE_STAGE_DISPATCH_BIT, 0);),
    ENTRY("puts a barrier on a reference of an unknown kind", V("xgpuCmdPipelineBarrier-pBufferBarriers-buffer-kind-parameter"),
          V("xgpuCmdPipelineBarrier-pBufferBarriers-buffer-kind-parameter"), kArg, nullptr, XgpuBufferMemoryBarrier b = {};
          b.sType = XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER; b.buffer = BadKind(e.buffer);
          return Barrier(e.Begun(), XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_PIPELINE_STAGE_DISPATCH_BIT, &b);),
    ENTRY("asks for more dynamic workgroup memory than the limit", V("xgpuCmdSetWorkgroupMemorySize-dynamicSize"), V("xgpuCmdSetWorkgroupMemorySize-dynamicSize"),
          kArg, nullptr, XgpuCommandBuffer cb = e.Begun();
          xgpuCmdSetWorkgroupMemorySize(cb, e.limits.maxWorkgroupMemorySize + 4); return xgpuEndCommandBuffer(cb);),
    // ---- Submissions and semaphores.
    ENTRY("submits a binding table smaller than the recording's capacity", V("xgpuQueueSubmit-pSubmits-bindingCount"), V("xgpuQueueSubmit-pSubmits-bindingCount"),
          kArg, nullptr,
          return e.Submit(e.Executable(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 2));),
    ENTRY("binds a range past the end of the buffer at submit", V("xgpuQueueSubmit-pSubmits-pBindings-range"), V("xgpuQueueSubmit-pSubmits-pBindings-range"), kArg, nullptr,
          XgpuBufferBinding binding = {e.buffer, 4096, 64};
          return e.Submit(e.Executable(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 1), 1, &binding);),
    ENTRY("signals a semaphore backwards in a submission", V("xgpuQueueSubmit-pSubmits-signalSemaphores-value"), V("xgpuQueueSubmit-pSubmits-signalSemaphores-value"), kArg, nullptr, XgpuSemaphore s = e.Semaphore(); Signal(e, s, 5);
          uint64_t v = 3; XgpuSubmitInfo submit = {}; submit.signalSemaphores = List(&s, &v); return SubmitWith(e, submit);),
    ENTRY("signals a semaphore backwards from the host", V("xgpuSignalSemaphore-pSignalInfo-value"), V("xgpuSignalSemaphore-pSignalInfo-value"), kArg, nullptr, XgpuSemaphore s = e.Semaphore(); Signal(e, s, 5);
          return Signal(e, s, 4);),
    ENTRY("signals a semaphore's current value again from the host", V("xgpuSignalSemaphore-pSignalInfo-value"), V("xgpuSignalSemaphore-pSignalInfo-value"),
          kArg, nullptr, XgpuSemaphore s = e.Semaphore(); Signal(e, s, 5);
          return Signal(e, s, 5);),
    ENTRY("fails a semaphore with XGPU_SUCCESS", V("xgpuFailSemaphore-status"), V("xgpuFailSemaphore-status"), kArg, nullptr,
          return xgpuFailSemaphore(e.device, e.Semaphore(), XGPU_SUCCESS);),
    ENTRY("submits with a wait count and no semaphores", V("xgpuQueueSubmit-pSubmits-waitSemaphores-pSemaphores-parameter"),
          nullptr, kArg, nullptr, uint64_t v = 1; XgpuSubmitInfo submit = {}; submit.waitSemaphores = List(nullptr, &v);
          return SubmitWith(e, submit);),
    ENTRY("submits with a signal count and no values", V("xgpuQueueSubmit-pSubmits-signalSemaphores-pValues-parameter"),
          nullptr, kArg, nullptr, XgpuSemaphore s = e.Semaphore(); XgpuSubmitInfo submit = {};
          submit.signalSemaphores = List(&s, nullptr); return SubmitWith(e, submit);),
    ENTRY("submits with a wrong sType", V("xgpuQueueSubmit-pSubmits-sType"), nullptr, kArg, nullptr,
          XgpuSubmitInfo submit = {}; submit.sType = XGPU_STRUCTURE_TYPE_MEMORY_BARRIER;
          return xgpuQueueSubmit(e.queue, 1, &submit);),
    // ---- Queue operations.
    ENTRY("fills on a queue with a 3-byte pattern", V("xgpuQueueFillBuffer-patternSize"), V("xgpuQueueFillBuffer-patternSize"), kArg, nullptr, return xgpuQueueFillBuffer(e.queue, nullptr, nullptr, e.buffer, 0, 16, &kPattern, 3);),
    ENTRY("fills on a queue at an offset not a multiple of 4", V("xgpuQueueFillBuffer-dstOffset"), V("xgpuQueueFillBuffer-dstOffset"), kArg, nullptr, return xgpuQueueFillBuffer(e.queue, nullptr, nullptr, e.buffer, 2, 16, &kPattern, 4);),
    ENTRY("fills on a queue past the end of the buffer", V("xgpuQueueFillBuffer-size"), V("xgpuQueueFillBuffer-size"), kArg, nullptr, return xgpuQueueFillBuffer(e.queue, nullptr, nullptr, e.buffer, 4000, 256, &kPattern, 4);),
    ENTRY("copies 0 bytes on a queue", V("xgpuQueueCopyBuffer-size"), V("xgpuQueueCopyBuffer-size"), kArg, nullptr,
          return xgpuQueueCopyBuffer(e.queue, nullptr, nullptr, e.buffer, 0, e.buffer, 1024, 0);),
    ENTRY("copies on a queue reading past the end", V("xgpuQueueCopyBuffer-srcRange"), V("xgpuQueueCopyBuffer-srcRange"), kArg, nullptr, return xgpuQueueCopyBuffer(e.queue, nullptr, nullptr, e.buffer, 4090, e.Buffer(4096), 0, 64);),
    ENTRY("copies on a queue writing past the end", V("xgpuQueueCopyBuffer-dstRange"), V("xgpuQueueCopyBuffer-dstRange"), kArg, nullptr, return xgpuQueueCopyBuffer(e.queue, nullptr, nullptr, e.buffer, 0, e.Buffer(64), 32, 64);),
    ENTRY("allocates 0 bytes on a queue", V("xgpuQueueAlloca-size"), V("xgpuQueueAlloca-size"), kArg, nullptr,
          XgpuBuffer b = nullptr; return xgpuQueueAlloca(e.queue, nullptr, nullptr, e.pool, 0, XGPU_BUFFER_USAGE_STORAGE_BIT, &b);),
    ENTRY("allocates on a queue with an unknown usage bit", V("xgpuQueueAlloca-usage-parameter"), nullptr, kArg, nullptr,
          XgpuBuffer b = nullptr; return xgpuQueueAlloca(e.queue, nullptr, nullptr, e.pool, 64, 0x40000000u, &b);),
    // ---- Creation.
    ENTRY("creates a buffer of 0 bytes", V("xgpuCreateBuffer-pCreateInfo-size"), V("xgpuCreateBuffer-pCreateInfo-size"), kArg, nullptr, XgpuBufferCreateInfo info = BufferInfo(e); info.size = 0;
          return MakeBuffer(e, info);),
    ENTRY("creates a buffer of a memory type that does not exist", V("xgpuCreateBuffer-pCreateInfo-memoryTypeIndex"), V("xgpuCreateBuffer-pCreateInfo-memoryTypeIndex"),
          kArg, nullptr, XgpuBufferCreateInfo info = BufferInfo(e);
          info.memoryTypeIndex = 99; return MakeBuffer(e, info);),
    ENTRY("creates a buffer with a reserved flag", V("xgpuCreateBuffer-pCreateInfo-flags-zero"), nullptr, kArg, nullptr,
          XgpuBufferCreateInfo info = BufferInfo(e); info.flags = 1; return MakeBuffer(e, info);),
    ENTRY("creates a buffer with a wrong sType", V("xgpuCreateBuffer-pCreateInfo-sType"), nullptr, kArg, nullptr,
          XgpuBufferCreateInfo info = BufferInfo(e); info.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO; return MakeBuffer(e, info);),
    ENTRY("chains an unknown structure to a buffer's create info", V("xgpuCreateBuffer-pCreateInfo-pNext"), nullptr, kArg,
          nullptr, static const struct { XgpuStructureType sType; const void* pNext; } unknown = {
              static_cast<XgpuStructureType>(0x7FFFFFF0), nullptr};
          XgpuBufferCreateInfo info = BufferInfo(e); info.pNext = &unknown; return MakeBuffer(e, info);),
    ENTRY("creates a buffer with an unknown usage bit", V("xgpuCreateBuffer-pCreateInfo-usage-parameter"), nullptr, kArg,
          nullptr, XgpuBufferCreateInfo info = BufferInfo(e); info.usage |= 0x40000000u; return MakeBuffer(e, info);),
    ENTRY("creates a memory pool of a memory type that does not exist", V("xgpuCreateMemoryPool-pCreateInfo-memoryTypeIndex"),
          V("xgpuCreateMemoryPool-pCreateInfo-memoryTypeIndex"), kArg, nullptr,
          XgpuMemoryPoolCreateInfo info = {}; info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
          info.memoryTypeIndex = 99; XgpuMemoryPool p = nullptr; return xgpuCreateMemoryPool(e.device, &info, nullptr, &p);),
    ENTRY("maps at an offset past the end", V("xgpuMapBuffer-offset"), V("xgpuMapBuffer-offset"), kArg, nullptr,
          void* p = nullptr; return xgpuMapBuffer(e.device, e.Buffer(256), 512, XGPU_WHOLE_SIZE, &p);),
    ENTRY("maps more than the buffer holds", V("xgpuMapBuffer-size"), V("xgpuMapBuffer-size"), kArg, nullptr,
          void* p = nullptr; return xgpuMapBuffer(e.device, e.Buffer(256), 0, 512, &p);),
    ENTRY("creates an executable from neither code nor a path", V("xgpuCreateExecutable-pCreateInfo-source"), V("xgpuCreateExecutable-pCreateInfo-source"), kArg, nullptr, XgpuExecutableCreateInfo info = {};
          info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO; XgpuExecutable x = nullptr;
          return xgpuCreateExecutable(e.device, &info, nullptr, &x);),
    ENTRY("creates a pipeline whose binding count does not fit the kernel's arguments", V("xgpuCreatePipeline-pCreateInfo-kernargSize"),
          V("xgpuCreatePipeline-pCreateInfo-kernargSize"), kArg, nullptr,
          XgpuPipelineCreateInfo info = PipelineInfo(e); info.bindingCount = 3; return MakePipeline(e, info);),
    ENTRY("creates a pipeline whose constant size does not fit the kernel's arguments", V("xgpuCreatePipeline-pCreateInfo-kernargSize"),
          V("xgpuCreatePipeline-pCreateInfo-kernargSize"), kArg, nullptr,
          XgpuPipelineCreateInfo info = PipelineInfo(e); info.constantSize = 16; return MakePipeline(e, info);),
    ENTRY("creates a pipeline with a workgroup size of 0", V("xgpuCreatePipeline-pCreateInfo-workgroupSize"), V("xgpuCreatePipeline-pCreateInfo-workgroupSize"), kArg, nullptr, XgpuPipelineCreateInfo info = PipelineInfo(e);
          info.workgroupSize[1] = 0; return MakePipeline(e, info);),
    ENTRY("creates a pipeline with a reserved flag", V("xgpuCreatePipeline-pCreateInfo-flags-zero"), nullptr, kArg, nullptr,
          XgpuPipelineCreateInfo info = PipelineInfo(e); info.flags = 1; return MakePipeline(e, info);),
    ENTRY("creates a command buffer for a queue family that does not exist", V("xgpuCreateCommandBuffer-pCreateInfo-queueFamilyIndex"),
          V("xgpuCreateCommandBuffer-pCreateInfo-queueFamilyIndex"), kArg, nullptr, XgpuCommandBufferCreateInfo info = {};
          info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO; info.queueFamilyIndex = 9; XgpuCommandBuffer cb = nullptr;
          return xgpuCreateCommandBuffer(e.device, &info, nullptr, &cb);),
    ENTRY("begins with a binding capacity above the limit", V("xgpuBeginCommandBuffer-pBeginInfo-bindingCapacity"), V("xgpuBeginCommandBuffer-pBeginInfo-bindingCapacity"),
          kArg, nullptr, XgpuCommandBufferBeginInfo b = {};
          b.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO; b.bindingCapacity = e.limits.maxBindingCapacity + 1;
          return xgpuBeginCommandBuffer(e.CommandBuffer(), &b);),
    ENTRY("begins with a mode that does not exist", V("xgpuBeginCommandBuffer-pBeginInfo-mode-parameter"), nullptr, kArg,
          nullptr, XgpuCommandBufferBeginInfo b = {}; b.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
          b.mode = static_cast<XgpuCommandBufferMode>(5); return xgpuBeginCommandBuffer(e.CommandBuffer(), &b);),
    ENTRY("creates a device with more queues than the family has", V("xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueCount"),
          V("xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueCount"), kArg, nullptr, return MakeDevice(e, 0, 1000);),
    ENTRY("creates a device with a queue family that does not exist", V("xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueFamilyIndex"),
          V("xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueFamilyIndex"), kArg, nullptr, return MakeDevice(e, 9, 1);),
    ENTRY("inserts a debug label whose name is not UTF-8", V("xgpuCmdInsertDebugLabel-pLabel-pLabelName-parameter"), nullptr,
          kArg, nullptr, return Label(e.Begun(), "\xff\xfe");),
    ENTRY("names an object with a string that is not UTF-8", V("xgpuSetObjectName-pNameInfo-pObjectName-parameter"), nullptr,
          kArg, nullptr, XgpuDebugObjectNameInfo n = {}; n.sType = XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO;
          n.objectType = XGPU_OBJECT_TYPE_BUFFER; n.objectHandle = reinterpret_cast<uintptr_t>(e.buffer);
          n.pObjectName = "\xc3"; return xgpuSetObjectName(e.device, &n);),
    ENTRY("puts a memory barrier with an unknown access bit", V("xgpuCmdMemoryBarrier-srcAccessMask-parameter"), nullptr,
          kArg, nullptr, XgpuCommandBuffer cb = e.Begun();
          xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, 0x40000000u, XGPU_PIPELINE_STAGE_DISPATCH_BIT,
                               XGPU_ACCESS_SHADER_READ_BIT);
          return xgpuEndCommandBuffer(cb);),
    ENTRY("waits on the host with a count and no semaphores", V("xgpuWaitSemaphores-pWaitInfo-pSemaphores-parameter"),
          V("xgpuWaitSemaphores-pWaitInfo-pSemaphores-parameter"), kArg, nullptr, uint64_t v = 0; XgpuSemaphoreWaitInfo w = {};
          w.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO; w.semaphoreCount = 1; w.pValues = &v;
          return xgpuWaitSemaphores(e.device, &w, 0);),
    // ---- Rules the layer does not check yet (the explicit rules in progress); without
    // the layer they are undefined, so the mistakes stop short of running bad work.
    ENTRY("destroys a buffer a held submission still uses", V("xgpuDestroyBuffer-buffer-inUse"), nullptr, kVoid, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBuffer b = e.Buffer(256); XgpuBufferRef r = Ref(b);
          xgpuCmdFillBuffer(cb, &r, &kPattern, 4); xgpuEndCommandBuffer(cb); SubmitHeld(e, cb, e.Semaphore());
          xgpuDestroyBuffer(e.device, b, nullptr); return kVoid;),
    ENTRY("destroys a pending command buffer", V("xgpuDestroyCommandBuffer-commandBuffer-pending"), nullptr, kVoid, nullptr,
          XgpuCommandBuffer cb = e.Executable(); SubmitHeld(e, cb, e.Semaphore());
          xgpuDestroyCommandBuffer(e.device, cb, nullptr); return kVoid;),
    ENTRY("records a fill past the end of a buffer", V("xgpuCmdFillBuffer-pDst-range"), nullptr, kArg, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef r = Ref(e.buffer, 4000, 256);
          xgpuCmdFillBuffer(cb, &r, &kPattern, 4); return xgpuEndCommandBuffer(cb);),
    ENTRY("records a fill of a buffer without TRANSFER_DST usage", V("xgpuCmdFillBuffer-pDst-usage"), nullptr, kUsage, nullptr,
          XgpuCommandBuffer cb = e.Begun(); XgpuBufferRef r = Ref(e.Buffer(256, XGPU_BUFFER_USAGE_STORAGE_BIT));
          xgpuCmdFillBuffer(cb, &r, &kPattern, 4); return xgpuEndCommandBuffer(cb);),
    ENTRY("reads dispatch counts from a buffer without INDIRECT usage", V("xgpuCmdDispatchIndirect-pCounts-usage"), nullptr, kUsage, nullptr, XgpuCommandBuffer cb = e.ReadyToDispatch();
          XgpuBufferRef c = Ref(e.Buffer(64, XGPU_BUFFER_USAGE_STORAGE_BIT), 0, 12);
          xgpuCmdDispatchIndirect(cb, &c, XGPU_DISPATCH_INDIRECT_STATIC_BIT); return xgpuEndCommandBuffer(cb);),
    ENTRY("ends a debug label never begun", V("xgpuCmdEndDebugLabel-open"), nullptr, kUsage, nullptr,
          XgpuCommandBuffer cb = e.Begun(); xgpuCmdEndDebugLabel(cb); return xgpuEndCommandBuffer(cb);),
    ENTRY("maps a buffer twice", V("xgpuMapBuffer-buffer-mapped"), nullptr, kUsage, nullptr, void* p = nullptr;
          XgpuBuffer b = e.Buffer(64); xgpuMapBuffer(e.device, b, 0, XGPU_WHOLE_SIZE, &p);
          return xgpuMapBuffer(e.device, b, 0, XGPU_WHOLE_SIZE, &p);),
    ENTRY("unmaps a buffer that is not mapped", V("xgpuUnmapBuffer-buffer-mapped"), nullptr, kVoid, nullptr,
          xgpuUnmapBuffer(e.device, e.Buffer(64)); return kVoid;),
    ENTRY("waits on the host for no semaphore at all", V("xgpuWaitSemaphores-pWaitInfo-semaphoreCount"), nullptr, kArg, nullptr,
          XgpuSemaphoreWaitInfo w = {}; w.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
          return xgpuWaitSemaphores(e.device, &w, 0);),
    ENTRY("binds a buffer too small for the recorded range at submit", V("xgpuQueueSubmit-pSubmits-pBindings-refRange"), nullptr, kArg, nullptr, XgpuCommandBuffer cb = e.Begun(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 1);
          XgpuBufferRef r = xgpuBufferRefSlot(0, 0, 1024); xgpuCmdFillBuffer(cb, &r, &kPattern, 4); xgpuEndCommandBuffer(cb);
          XgpuSemaphore gate = e.Semaphore(); static const uint64_t one = 1; XgpuBufferBinding binding = {e.Buffer(64), 0, 64};
          XgpuSubmitInfo submit = {}; submit.commandBuffer = cb; submit.bindingCount = 1; submit.pBindings = &binding;
          submit.waitSemaphores = List(&gate, &one); (void)kCounts; return SubmitWith(e, submit);),
    ENTRY("deallocates a queue allocation while a held submission uses it", V("xgpuQueueDealloca-buffer-ordered"), nullptr, kAny, nullptr, XgpuBuffer b = e.Alloca(256); XgpuCommandBuffer cb = e.Begun();
          XgpuBufferRef r = Ref(b); xgpuCmdFillBuffer(cb, &r, &kPattern, 4); xgpuEndCommandBuffer(cb);
          XgpuSemaphore gate = e.Semaphore(); static const uint64_t one = 1; XgpuSubmitInfo submit = {};
          submit.commandBuffer = cb; submit.waitSemaphores = List(&gate, &one); SubmitWith(e, submit);
          return xgpuQueueDealloca(e.health_queue == e.queue ? e.queue : e.health_queue, nullptr, nullptr, b);),
    ENTRY("indirect-dispatches with STATIC counts above the limits", nullptr, V("xgpuCmdDispatchIndirect-static-counts"), kArg,
          V("xgpuCmdDispatchIndirect-static-counts"), XgpuBuffer counts = e.Buffer(64); void* p = nullptr;
          if (xgpuMapBuffer(e.device, counts, 0, XGPU_WHOLE_SIZE, &p) != XGPU_SUCCESS) return XGPU_ERROR_UNKNOWN;
          const uint32_t over = e.limits.maxWorkgroupCount[0] == UINT32_MAX ? UINT32_MAX : e.limits.maxWorkgroupCount[0] + 1;
          const uint32_t c[3] = {over, 1, 1}; std::memcpy(p, c, sizeof(c)); xgpuUnmapBuffer(e.device, counts);
          XgpuCommandBuffer cb = e.ReadyToDispatch(); XgpuBufferRef r = Ref(counts, 0, 12);
          xgpuCmdDispatchIndirect(cb, &r, XGPU_DISPATCH_INDIRECT_STATIC_BIT); xgpuEndCommandBuffer(cb);
          XgpuSemaphore s = e.Semaphore(); static const uint64_t one = 1; XgpuSubmitInfo submit = {};
          submit.commandBuffer = cb; submit.signalSemaphores = List(&s, &one);
          if (SubmitWith(e, submit) != XGPU_SUCCESS) return XGPU_ERROR_UNKNOWN;
          return e.Wait(s, 1);),
};

}  // namespace

const std::vector<Entry>& Catalogue() { return kCatalogue; }

}  // namespace misuse
