// A kernel that faults, end to end: the HSA queue reports the fault
// (hsa-cpu contains it), the driver loses the device, waits return
// XGPU_ERROR_DEVICE_LOST, and the process goes on (a new device works; the
// suite exits normally). On hsa-cuda (an NVIDIA GPU) the fault is sticky for
// the whole process in CUDA: no later CUDA call of the process succeeds and
// the device's context cannot be made again, so the new device is checked
// only where the runtime allows it (the first half still runs).
#include <cstring>
#include <string>

#include "icd_test_kernels.h"
#include "icd_test_util.h"

using namespace icdtest;

namespace {

// An address no mapping covers (the null page).
constexpr uint64_t kBadAddress = 0x10;


}  // namespace

TEST_CASE("a kernel dereferencing a bad address loses the device: waits return DEVICE_LOST, the process goes on") {
  bool fault_is_sticky_for_the_process = false;
  {
    Env env(1, 2);
    REQUIRE(have_command_buffers());
    XgpuPhysicalDeviceProperties properties{};
    api().GetPhysicalDeviceProperties(env.physical_devices[0], &properties);
    fault_is_sticky_for_the_process = std::string(properties.runtimeName).find("libxgpu-hsa-cuda") != std::string::npos;
    XgpuExecutable executable = env.test_executable();
    XgpuPipeline pipeline = env.pipeline(executable, "icd_fault", 1, sizeof(uint64_t), 1);
    XgpuBuffer out = env.buffer(64);
    XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    api().CmdBindPipeline(cb, pipeline);
    const XgpuBufferRef ref = xgpuBufferRefWhole(out);
    api().CmdBindBuffers(cb, 0, 1, &ref);
    const uint64_t address = kBadAddress;
    api().CmdPushConstants(cb, 0, sizeof(address), &address);
    api().CmdDispatch(cb, 8, 1, 1);
    REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);

    XgpuSemaphore faulted = env.semaphore(0), other = env.semaphore(0);
    REQUIRE(submit_barrier(env.queue(0), {}, {}, {faulted}, {1}, cb) == XGPU_SUCCESS);
    CHECK(env.wait(faulted, 1) == XGPU_ERROR_DEVICE_LOST);
    INFO(env.log.all());
    CHECK(env.log.contains("device lost"));
    CHECK(env.log.contains("HSA_STATUS_ERROR_MEMORY_FAULT"));
    // Every later wait and submission on the device says so too.
    CHECK(api().DeviceWaitIdle(env.device()) == XGPU_ERROR_DEVICE_LOST);
    CHECK(api().QueueWaitIdle(env.queue(1)) == XGPU_ERROR_DEVICE_LOST);
    CHECK(submit_barrier(env.queue(1), {}, {}, {other}, {1}) == XGPU_ERROR_DEVICE_LOST);
    XgpuResult query = XGPU_SUCCESS;
    CHECK(env.value(faulted, &query) == 0);
    CHECK(query == XGPU_ERROR_DEVICE_LOST);
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
    api().DestroySemaphore(env.device(), faulted, nullptr);
    api().DestroySemaphore(env.device(), other, nullptr);
    api().DestroyBuffer(env.device(), out, nullptr);
    api().DestroyPipeline(env.device(), pipeline, nullptr);
    api().DestroyExecutable(env.device(), executable, nullptr);
  }
  if (fault_is_sticky_for_the_process) {
    MESSAGE("skipped on hsa-cuda: a new device after the fault. CUDA keeps a device fault (an illegal address) "
            "for the whole process: every later CUDA call fails and the primary context cannot be retained "
            "again, even after cuDevicePrimaryCtxReset; only a new process can use the GPU "
            "(hsa-cuda/README.md, \"Device faults\")");
    return;
  }
  // The process goes on: a new device runs kernels as before.
  Env env(1, 1);
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_increment", 1, 8, 0);
  constexpr uint32_t n = 1000;
  XgpuBuffer counters = env.buffer(n * 4);
  std::memset(env.map(counters), 0, n * 4);
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  api().CmdBindPipeline(cb, pipeline);
  const XgpuBufferRef ref = xgpuBufferRefWhole(counters);
  api().CmdBindBuffers(cb, 0, 1, &ref);
  const struct { uint32_t n, pad; } constants = {n, 0};
  api().CmdPushConstants(cb, 0, sizeof(constants), &constants);
  api().CmdDispatch(cb, (n + ICD_TEST_INCREMENT_WORKGROUP - 1) / ICD_TEST_INCREMENT_WORKGROUP, 1, 1);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore done = env.semaphore(0);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {1}, cb) == XGPU_SUCCESS);
  CHECK(env.wait(done, 1) == XGPU_SUCCESS);
  const auto* values = static_cast<const uint32_t*>(env.map(counters));
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) wrong += values[i] != 1;
  CHECK(wrong == 0);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  api().DestroySemaphore(env.device(), done, nullptr);
  api().DestroyBuffer(env.device(), counters, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}
