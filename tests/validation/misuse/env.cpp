// Env: the objects the mistakes of the catalogue are made with.
#include <unistd.h>

#include <cstdlib>

#include "misuse.h"

namespace misuse {
namespace {

// A helper that cannot build what a mistake needs ends the child with
// status 3 (the parent reports it as a failure of the entry's setup).
[[noreturn]] void Fail(const char*) { _exit(3); }

void Ok(XgpuResult result, const char* what) {
  if (result != XGPU_SUCCESS) Fail(what);
}

}  // namespace

XgpuBuffer Env::Buffer(XgpuDeviceSize size, XgpuBufferUsageFlags usage, XgpuDevice on) {
  XgpuBufferCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = usage == ~0u ? (XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT |
                               XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_INDIRECT_BIT)
                            : usage;
  info.memoryTypeIndex = host_type;
  XgpuBuffer out = nullptr;
  Ok(xgpuCreateBuffer(on ? on : device, &info, nullptr, &out), "xgpuCreateBuffer");
  return out;
}

XgpuCommandBuffer Env::CommandBuffer(XgpuDevice on) {
  XgpuCommandBufferCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer out = nullptr;
  Ok(xgpuCreateCommandBuffer(on ? on : device, &info, nullptr, &out), "xgpuCreateCommandBuffer");
  return out;
}

XgpuCommandBuffer Env::Begun(XgpuCommandBufferMode mode, uint32_t capacity, XgpuDevice on) {
  XgpuCommandBuffer cb = CommandBuffer(on);
  XgpuCommandBufferBeginInfo begin = {};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = mode;
  begin.bindingCapacity = capacity;
  Ok(xgpuBeginCommandBuffer(cb, &begin), "xgpuBeginCommandBuffer");
  return cb;
}

XgpuCommandBuffer Env::ReadyToDispatch(XgpuCommandBufferMode mode) {
  XgpuCommandBuffer cb = Begun(mode);
  xgpuCmdBindPipeline(cb, pipeline);
  const XgpuBufferRef refs[2] = {xgpuBufferRefWhole(buffer), xgpuBufferRefWhole(buffer)};
  xgpuCmdBindBuffers(cb, 0, 2, refs);
  const struct {
    float a;
    uint32_t n;
  } constants = {1.0f, 16};
  xgpuCmdPushConstants(cb, 0, sizeof(constants), &constants);
  return cb;
}

XgpuCommandBuffer Env::Executable(XgpuCommandBufferMode mode, uint32_t capacity) {
  XgpuCommandBuffer cb = Begun(mode, capacity);
  Ok(xgpuEndCommandBuffer(cb), "xgpuEndCommandBuffer");
  return cb;
}

XgpuSemaphore Env::Semaphore(XgpuDevice on) {
  XgpuSemaphoreCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore out = nullptr;
  Ok(xgpuCreateSemaphore(on ? on : device, &info, nullptr, &out), "xgpuCreateSemaphore");
  return out;
}

XgpuExecutable Env::LoadExecutable(XgpuDevice on) {
  XgpuExecutableCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  info.pFilePath = XGPU_MISUSE_KERNELS;
  XgpuExecutable out = nullptr;
  Ok(xgpuCreateExecutable(on ? on : device, &info, nullptr, &out), "xgpuCreateExecutable");
  return out;
}

XgpuPipeline Env::Pipeline(XgpuDevice on) {
  XgpuPipelineCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
  info.executable = on ? LoadExecutable(on) : executable;
  info.pEntryPoint = "validation_saxpy";
  info.bindingCount = 2;
  info.constantSize = 8;
  info.workgroupSize[0] = 64;
  info.workgroupSize[1] = 1;
  info.workgroupSize[2] = 1;
  XgpuPipeline out = nullptr;
  Ok(xgpuCreatePipeline(on ? on : device, &info, nullptr, &out), "xgpuCreatePipeline");
  return out;
}

XgpuMemoryPool Env::Pool(XgpuDevice on) {
  XgpuMemoryPoolCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  info.memoryTypeIndex = host_type;
  XgpuMemoryPool out = nullptr;
  Ok(xgpuCreateMemoryPool(on ? on : device, &info, nullptr, &out), "xgpuCreateMemoryPool");
  return out;
}

XgpuResult Env::Submit(XgpuCommandBuffer cb, uint32_t binding_count, const XgpuBufferBinding* bindings) {
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  submit.bindingCount = binding_count;
  submit.pBindings = bindings;
  return xgpuQueueSubmit(queue, 1, &submit);
}

XgpuResult Env::Wait(XgpuSemaphore s, uint64_t value) {
  XgpuSemaphoreWaitInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &s;
  info.pValues = &value;
  return xgpuWaitSemaphores(device, &info, 10'000'000'000ull);
}

XgpuBuffer Env::Alloca(XgpuDeviceSize size) {
  XgpuBuffer out = nullptr;
  Ok(xgpuQueueAlloca(queue, nullptr, nullptr, pool, size,
                     XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT |
                         XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT,
                     &out),
     "xgpuQueueAlloca");
  Ok(xgpuQueueWaitIdle(queue), "xgpuQueueWaitIdle");
  return out;
}

}  // namespace misuse
