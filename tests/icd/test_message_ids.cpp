// Every message the driver reports carries a stable ID (spec/api.md 1.5):
// the broken rule's VUID with type VALIDATION, or one of the driver's own
// XGPU-DRIVER-* IDs (icd/amdgpu/README.md) with type GENERAL, and
// messageIdNumber is the FNV-1a hash of it. One representative case per
// family of checks.
#include <cstring>
#include <string>

#include "icd_test_util.h"

using namespace icdtest;

namespace {

constexpr char kRulePrefix[] = "XGPU-VUID-";
constexpr char kDriverPrefix[] = "XGPU-DRIVER-";

// Checks that `log` holds exactly one message (what the call under test
// reported), that it carries `id` with its FNV-1a number and the type that
// goes with a rule (VALIDATION) or a driver ID (GENERAL), at severity ERROR,
// and that its text holds each of `parts`. Clears the log.
void check_reported(MessageLog& log, const std::string& id, std::initializer_list<std::string> parts) {
  const std::string seen = log.all_ids();  // INFO is evaluated on failure, when the lock below is held
  INFO(seen);
  std::lock_guard<std::mutex> lock(log.mutex);
  REQUIRE(log.ids.size() == 1);
  const MessageLog::Id& got = log.ids[0];
  CHECK(got.name == id);
  CHECK(got.number == fnv1a(id));
  const bool rule = id.rfind(kRulePrefix, 0) == 0;
  REQUIRE((rule || id.rfind(kDriverPrefix, 0) == 0));
  CHECK(got.types == (rule ? XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT : XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT));
  CHECK(got.severity == XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT);
  for (const std::string& part : parts) CHECK_MESSAGE(log.messages[0].find(part) != std::string::npos, part);
  log.messages.clear();
  log.objects.clear();
  log.ids.clear();
}

void check_silent(MessageLog& log) {
  INFO(log.all_ids());
  CHECK(log.all_ids().empty());
}

XgpuBufferCreateInfo buffer_info(Env& env, uint64_t size) {
  XgpuBufferCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.memoryTypeIndex = uint32_t(env.memory_type(XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT));
  return info;
}

}  // namespace

TEST_CASE("message IDs: the helper's FNV-1a is api.md's") {
  CHECK(fnv1a("XGPU-VUID-xgpuCmdDispatchIndirect-flags") == -1187414737);
}

TEST_CASE("message IDs: xgpuCreateDevice queue counts, xgpuCreateBuffer and xgpuMapBuffer") {
  Env env(1, 1);
  env.log.clear();
  XgpuDeviceQueueCreateInfo queue_info{};
  queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueCount = 1000;
  XgpuDeviceCreateInfo device_info{};
  device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  XgpuDevice device = nullptr;
  CHECK(api().CreateDevice(env.physical_devices[0], &device_info, nullptr, &device) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(device == nullptr);
  check_reported(env.log, "XGPU-VUID-xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueCount",
                 {"xgpuCreateDevice: pCreateInfo->pQueueCreateInfos[0].queueCount 1000"});

  XgpuBufferCreateInfo info = buffer_info(env, 0);
  XgpuBuffer buffer = nullptr;
  CHECK(api().CreateBuffer(env.device(), &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuCreateBuffer-pCreateInfo-size", {"xgpuCreateBuffer: pCreateInfo->size is 0"});
  info = buffer_info(env, 64);
  info.memoryTypeIndex = 1000;
  CHECK(api().CreateBuffer(env.device(), &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuCreateBuffer-pCreateInfo-memoryTypeIndex",
                 {"pCreateInfo->memoryTypeIndex 1000"});

  info = buffer_info(env, 64);
  REQUIRE(api().CreateBuffer(env.device(), &info, nullptr, &buffer) == XGPU_SUCCESS);
  void* data = nullptr;
  // offset must be less than the size; a sized range must fit and not be empty.
  CHECK(api().MapBuffer(env.device(), buffer, 64, XGPU_WHOLE_SIZE, &data) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuMapBuffer-offset", {"xgpuMapBuffer: offset 64", "(64 bytes)"});
  CHECK(api().MapBuffer(env.device(), buffer, 16, 49, &data) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuMapBuffer-size", {"xgpuMapBuffer: size 49 at offset 16", "64 bytes"});
  CHECK(api().MapBuffer(env.device(), buffer, 16, 0, &data) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuMapBuffer-size", {"xgpuMapBuffer: size 0"});
  CHECK(api().MapBuffer(env.device(), buffer, 16, 48, &data) == XGPU_SUCCESS);
  check_silent(env.log);
  api().DestroyBuffer(env.device(), buffer, nullptr);
}

TEST_CASE("message IDs: memory pools and xgpuQueueAlloca") {
  Env env(1, 1);
  env.log.clear();
  XgpuMemoryPoolCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  info.memoryTypeIndex = 0;
  info.blockSize = 1 << 20;
  info.maxSize = 1 << 16;
  XgpuMemoryPool pool = nullptr;
  CHECK(api().CreateMemoryPool(env.device(), &info, nullptr, &pool) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuCreateMemoryPool-pCreateInfo-blockSize",
                 {"pCreateInfo->blockSize 1048576 exceeds pCreateInfo->maxSize 65536"});
  info.blockSize = 0;
  info.retainSize = 1 << 17;
  CHECK(api().CreateMemoryPool(env.device(), &info, nullptr, &pool) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuCreateMemoryPool-pCreateInfo-retainSize", {"pCreateInfo->retainSize"});
  info.retainSize = 0;
  REQUIRE(api().CreateMemoryPool(env.device(), &info, nullptr, &pool) == XGPU_SUCCESS);
  XgpuBuffer buffer = reinterpret_cast<XgpuBuffer>(uintptr_t(1));
  CHECK(api().QueueAlloca(env.queue(), nullptr, nullptr, pool, 0, XGPU_BUFFER_USAGE_STORAGE_BIT, &buffer) ==
        XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(buffer == XGPU_NULL_HANDLE);
  check_reported(env.log, "XGPU-VUID-xgpuQueueAlloca-size", {"xgpuQueueAlloca: size 0", "limits.maxBufferSize"});
  CHECK(api().QueueAlloca(env.queue(), nullptr, nullptr, pool, 256, 0, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueAlloca-usage", {"xgpuQueueAlloca: usage is 0"});
  api().DestroyMemoryPool(env.device(), pool, nullptr);
}

TEST_CASE("message IDs: host signal, xgpuFailSemaphore and the driver's payload limit") {
  Env env(1, 1);
  env.log.clear();
  XgpuSemaphore semaphore = env.semaphore(7);
  CHECK(env.signal(semaphore, 5) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuSignalSemaphore-pSignalInfo-value",
                 {"xgpuSignalSemaphore: pSignalInfo->value 5", "current payload 7"});
  CHECK(env.value(semaphore) == 7);
  // A payload the API allows but this driver cannot mirror: its own ID.
  CHECK(env.signal(semaphore, UINT64_MAX) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-DRIVER-unsupported", {"xgpuSignalSemaphore: pSignalInfo->value"});
  CHECK(api().FailSemaphore(env.device(), semaphore, XGPU_SUCCESS) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuFailSemaphore-status", {"xgpuFailSemaphore: status 0", "negative"});
  CHECK(api().FailSemaphore(env.device(), semaphore, XGPU_TIMEOUT) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuFailSemaphore-status", {"xgpuFailSemaphore: status 2"});
  // Not failed by the refused calls.
  XgpuResult query = XGPU_ERROR_UNKNOWN;
  CHECK(env.value(semaphore, &query) == 7);
  CHECK(query == XGPU_SUCCESS);
  api().DestroySemaphore(env.device(), semaphore, nullptr);
}

TEST_CASE("message IDs: xgpuCreatePipeline layout and entry point") {
  Env env(1, 1);
  XgpuExecutable executable = env.test_executable();
  env.log.clear();
  // icd_undeclared (no XGPU_KERNEL_BINDINGS) takes 1 binding and 8 bytes of
  // constants; icd_saxpy declares 2 bindings and 8 bytes.
  XgpuPipelineCreateInfo info = Env::pipeline_info(executable, "icd_undeclared", 2, 8, 64);
  XgpuPipeline pipeline = nullptr;
  CHECK(api().CreatePipeline(env.device(), &info, nullptr, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-kernargSize",
                 {"xgpuCreatePipeline: layout of \"icd_undeclared\"", "bindingCount 2 * 8 + constantSize 8 = 24 bytes",
                  "kernarg size 16 bytes"});
  info = Env::pipeline_info(executable, "icd_saxpy", 1, 8, 64);
  CHECK(api().CreatePipeline(env.device(), &info, nullptr, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-layout-matches",
                 {"bindingCount 1, constantSize 8", "bindingCount 2, constantSize 8"});
  info = Env::pipeline_info(executable, "icd_undeclared", 1, 6, 64);
  CHECK(api().CreatePipeline(env.device(), &info, nullptr, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-constantSize", {"constantSize 6"});
  info = Env::pipeline_info(executable, "icd_saxpy", 2, 8, 0);
  CHECK(api().CreatePipeline(env.device(), &info, nullptr, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupSize-required",
                 {"workgroupSize is 0,0,0", "no required workgroup size"});
  // Not a rule: the executable simply has no such kernel.
  info = Env::pipeline_info(executable, "no_such_kernel", 2, 8, 64);
  CHECK(api().CreatePipeline(env.device(), &info, nullptr, &pipeline) == XGPU_ERROR_NOT_FOUND);
  check_reported(env.log, "XGPU-DRIVER-entry-point-not-found", {"\"no_such_kernel\"", "icd_saxpy"});
  api().DestroyExecutable(env.device(), executable, nullptr);
}

TEST_CASE("message IDs: xgpuQueueSubmit binding table and command-buffer state") {
  Env env(1, 1);
  REQUIRE(have_command_buffers());
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_saxpy", 2, 8, 64);
  XgpuBuffer x = env.buffer(256);
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 2);
  api().CmdBindPipeline(cb, pipeline);
  XgpuBufferRef refs[2] = {xgpuBufferRefSlot(0, 0, XGPU_WHOLE_SIZE), xgpuBufferRefSlot(1, 0, XGPU_WHOLE_SIZE)};
  api().CmdBindBuffers(cb, 0, 2, refs);
  struct { float a; uint32_t n; } constants = {2.0f, 64};
  api().CmdPushConstants(cb, 0, sizeof(constants), &constants);
  api().CmdDispatch(cb, 1, 1, 1);
  env.log.clear();
  // Still recording.
  CHECK(submit_barrier(env.queue(), {}, {}, {}, {}, cb, {{x, 0, XGPU_WHOLE_SIZE}, {x, 0, XGPU_WHOLE_SIZE}}) ==
        XGPU_ERROR_INVALID_USAGE);
  check_reported(env.log, "XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-state",
                 {"xgpuQueueSubmit: pSubmits[0].commandBuffer: the command buffer is still recording"});
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  // A binding table smaller than the recording's bindingCapacity.
  CHECK(submit_barrier(env.queue(), {}, {}, {}, {}, cb, {{x, 0, XGPU_WHOLE_SIZE}}) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueSubmit-pSubmits-bindingCount",
                 {"xgpuQueueSubmit: pSubmits[0].bindingCount 1", "bindingCapacity 2"});
  // A binding whose range leaves the buffer.
  CHECK(submit_barrier(env.queue(), {}, {}, {}, {}, cb, {{x, 0, XGPU_WHOLE_SIZE}, {x, 128, 129}}) ==
        XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-range",
                 {"xgpuQueueSubmit: pSubmits[0].pBindings[1]: range (offset 128, size 129)", "256 bytes"});
  // The refused submissions did not use up the one-shot buffer; a second
  // submission of it does.
  XgpuSemaphore done = env.semaphore(0);
  REQUIRE(submit_barrier(env.queue(), {}, {}, {done}, {1}, cb, {{x, 0, XGPU_WHOLE_SIZE}, {x, 0, XGPU_WHOLE_SIZE}}) ==
          XGPU_SUCCESS);
  CHECK(submit_barrier(env.queue(), {}, {}, {}, {}, cb, {{x, 0, XGPU_WHOLE_SIZE}, {x, 0, XGPU_WHOLE_SIZE}}) ==
        XGPU_ERROR_INVALID_USAGE);
  check_reported(env.log, "XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-oneShot", {"already submitted"});
  CHECK(env.wait(done, 1) == XGPU_SUCCESS);
  // A semaphore list with a NULL array: the list's implicit rule.
  XgpuSubmitInfo submit{};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.signalSemaphores = {1, nullptr, nullptr};
  CHECK(api().QueueSubmit(env.queue(), 1, &submit) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-pSemaphores-parameter",
                 {"xgpuQueueSubmit: pSubmits[0].signalSemaphores.pSemaphores is NULL but count is 1"});
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  api().DestroySemaphore(env.device(), done, nullptr);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  api().DestroyBuffer(env.device(), x, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}

TEST_CASE("message IDs: xgpuQueueFillBuffer and xgpuQueueCopyBuffer report their own rules") {
  Env env(1, 1);
  REQUIRE(have_command_buffers());
  XgpuBufferCreateInfo info = buffer_info(env, 10);
  XgpuBuffer a = nullptr, b = env.buffer(256);
  REQUIRE(api().CreateBuffer(env.device(), &info, nullptr, &a) == XGPU_SUCCESS);
  auto* bytes = static_cast<uint8_t*>(env.map(a));
  std::memset(bytes, 0, 10);
  env.log.clear();
  const uint32_t pattern = 0xA5A5A5A5u;
  CHECK(api().QueueFillBuffer(env.queue(), nullptr, nullptr, a, 0, 8, &pattern, 3) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueFillBuffer-patternSize", {"xgpuQueueFillBuffer: patternSize is 3"});
  CHECK(api().QueueFillBuffer(env.queue(), nullptr, nullptr, a, 2, 4, &pattern, 4) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueFillBuffer-dstOffset", {"xgpuQueueFillBuffer: dstOffset 2"});
  CHECK(api().QueueFillBuffer(env.queue(), nullptr, nullptr, a, 4, 8, &pattern, 4) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueFillBuffer-size", {"xgpuQueueFillBuffer: size 8", "(10 bytes)"});
  CHECK(api().QueueFillBuffer(env.queue(), nullptr, nullptr, a, 0, 4, nullptr, 4) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueFillBuffer-pPattern-parameter", {"pPattern is NULL"});
  CHECK(api().QueueCopyBuffer(env.queue(), nullptr, nullptr, b, 0, a, 0, 0) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueCopyBuffer-size", {"xgpuQueueCopyBuffer: size is 0"});
  CHECK(api().QueueCopyBuffer(env.queue(), nullptr, nullptr, b, 250, a, 0, 8) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueCopyBuffer-srcRange",
                 {"srcOffset (250) + size (8) exceeds the size of srcBuffer (256 bytes)"});
  CHECK(api().QueueCopyBuffer(env.queue(), nullptr, nullptr, b, 0, a, 4, 8) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueCopyBuffer-dstRange", {"dstOffset (4) + size (8)", "(10 bytes)"});
  CHECK(api().QueueCopyBuffer(env.queue(), nullptr, nullptr, b, 0, b, 8, 16) == XGPU_ERROR_INVALID_ARGUMENT);
  check_reported(env.log, "XGPU-VUID-xgpuQueueCopyBuffer-overlap", {"srcBuffer is dstBuffer"});
  // XGPU_WHOLE_SIZE fills to the end rounded down to the pattern: 8 of 10 bytes.
  XgpuSemaphore done = env.semaphore(0);
  uint64_t one = 1;
  XgpuSemaphoreList signal{1, &done, &one};
  REQUIRE(api().QueueFillBuffer(env.queue(), nullptr, &signal, a, 0, XGPU_WHOLE_SIZE, &pattern, 4) == XGPU_SUCCESS);
  REQUIRE(env.wait(done, 1) == XGPU_SUCCESS);
  check_silent(env.log);
  for (int i = 0; i < 8; ++i) CHECK(bytes[i] == 0xA5);
  CHECK(bytes[8] == 0);
  CHECK(bytes[9] == 0);
  api().DestroySemaphore(env.device(), done, nullptr);
  api().DestroyBuffer(env.device(), a, nullptr);
  api().DestroyBuffer(env.device(), b, nullptr);
}

TEST_CASE("message IDs: recording errors carry the command's rule") {
  Env env(1, 1);
  REQUIRE(have_command_buffers());
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_saxpy", 2, 8, 64);
  env.log.clear();
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 0);
  api().CmdDispatch(cb, 1, 1, 1);
  check_reported(env.log, "XGPU-VUID-xgpuCmdDispatch-pipeline", {"xgpuCmdDispatch: no pipeline is bound"});
  api().CmdBindPipeline(cb, pipeline);
  api().CmdDispatch(cb, 1, 1, 1);
  check_reported(env.log, "XGPU-VUID-xgpuCmdDispatch-bindings", {"xgpuCmdDispatch: binding 0 of pipeline 'icd_saxpy'"});
  api().CmdPushConstants(cb, 2, 4, &env);
  check_reported(env.log, "XGPU-VUID-xgpuCmdPushConstants-offset", {"xgpuCmdPushConstants: offset (2)"});
  // The first error is what End returns.
  CHECK(api().EndCommandBuffer(cb) == XGPU_ERROR_INVALID_USAGE);
  check_silent(env.log);
  api().CmdDispatch(cb, 1, 1, 1);
  check_reported(env.log, "XGPU-VUID-xgpuCmdDispatch-commandBuffer-recording",
                 {"xgpuCmdDispatch: commandBuffer is not in the recording state"});
  api().DestroyCommandBuffer(env.device(), cb, nullptr);

  // Group counts: over limits.maxWorkgroupCount, or within it but over
  // limits.maxGridSize (AQL's 32-bit grid) for groups of 64: the same rule.
  XgpuPhysicalDeviceProperties properties{};
  api().GetPhysicalDeviceProperties(env.physical_devices[0], &properties);
  const uint32_t limit = properties.limits.maxWorkgroupCount[0];
  XgpuBuffer x = env.buffer(256);
  const XgpuBufferRef whole = xgpuBufferRefWhole(x);
  XgpuBufferRef refs[2] = {whole, whole};
  for (const bool over_limit : {true, false}) {
    if (over_limit && limit == UINT32_MAX) continue;  // no count is above it
    const uint32_t count = over_limit ? limit + 1 : limit;
    if (!over_limit && uint64_t(count) * 64 <= UINT32_MAX) continue;  // the grid fits
    cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 0);
    api().CmdBindPipeline(cb, pipeline);
    api().CmdBindBuffers(cb, 0, 2, refs);
    env.log.clear();
    api().CmdDispatch(cb, count, 1, 1);
    check_reported(env.log, "XGPU-VUID-xgpuCmdDispatch-groupCount",
                   {"xgpuCmdDispatch: groupCountX (" + std::to_string(count) + ")",
                    "exceeds the pipeline's maxWorkgroupCount[0]", "limits.maxGridSize[0]", "workgroup size 64"});
    CHECK(api().EndCommandBuffer(cb) == XGPU_ERROR_INVALID_ARGUMENT);
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
  }
  api().DestroyBuffer(env.device(), x, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}

TEST_CASE("message IDs: device loss is XGPU-DRIVER-device-lost, later calls XGPU-DRIVER-call-on-lost-device") {
  setenv("XGPU_AMDGPU_TEST_HOOKS", "1", 1);
  {
    Env env(1, 1);
    using InjectFault = XgpuResult (*)(XgpuQueue, const XgpuSemaphoreList*);
    auto inject =
        reinterpret_cast<InjectFault>(api().GetDeviceProcAddr(env.device(), "xgpuAmdgpuTestInjectQueueFault"));
    REQUIRE((inject != nullptr));
    XgpuSemaphore fault = env.semaphore(0);
    uint64_t one = 1;
    XgpuSemaphoreList signal{1, &fault, &one};
    env.log.clear();
    REQUIRE(inject(env.queue(), &signal) == XGPU_SUCCESS);
    CHECK(env.wait(fault, 1) == XGPU_ERROR_DEVICE_LOST);
    check_reported(env.log, "XGPU-DRIVER-device-lost",
                   {"device lost: HSA queue 0 reported", "every later call returns XGPU_ERROR_DEVICE_LOST"});
    XgpuBufferCreateInfo info = buffer_info(env, 64);
    XgpuBuffer buffer = nullptr;
    CHECK(api().CreateBuffer(env.device(), &info, nullptr, &buffer) == XGPU_ERROR_DEVICE_LOST);
    check_reported(env.log, "XGPU-DRIVER-call-on-lost-device", {"xgpuCreateBuffer: the device is lost"});
    CHECK(submit_barrier(env.queue(), {}, {}, {}, {}) == XGPU_ERROR_DEVICE_LOST);
    check_reported(env.log, "XGPU-DRIVER-call-on-lost-device", {"xgpuQueueSubmit: the device is lost"});
    api().DestroySemaphore(env.device(), fault, nullptr);
  }
  unsetenv("XGPU_AMDGPU_TEST_HOOKS");
}
