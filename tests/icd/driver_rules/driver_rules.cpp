// Every rule spec/vuids.json marks `driver: true`, broken with the layer off:
// the driver returns the rule's error and reports one message whose
// pMessageIdName is the rule's ID (spec/api.md 1.5). The cases are generated
// from vuids.json (gen_cases.py); each runs the body registered here under
// its ID, and the coverage case fails when a driver rule has no body or a
// body names no driver rule.
//
// A body breaks exactly its rule and returns what the call that broke it
// returned: the creating or queue command's result, or for a command
// recorded into a command buffer, what xgpuEndCommandBuffer returns (the
// recording's first error). A command called outside the recording state has
// no result (it returns void and there is no recording to end): only its
// message is checked.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "icd_test_kernels.h"
#include "icd_test_util.h"

using namespace icdtest;

namespace {

struct DriverRule {
  const char* id;         // the rule's VUID
  XgpuResult error;       // the error vuids.json gives it
};

// What a body did.
struct Outcome {
  bool has_result = false;            // the broken call returns a result
  XgpuResult result = XGPU_SUCCESS;   // that result
  std::string skipped;                // not "": the device cannot express the rule (why)
};

Outcome returned(XgpuResult result) { return Outcome{true, result, ""}; }
Outcome no_result() { return Outcome{}; }
Outcome skip(const std::string& why) { return Outcome{false, XGPU_SUCCESS, why}; }

// The commands icd_test_util.h does not load.
#define DRIVER_RULES_COMMANDS(X)                                                                          \
  X(CmdSetWorkgroupMemorySize) X(CmdDispatchIndirect) X(CmdFillBuffer) X(CmdCopyBuffer) X(CmdUpdateBuffer) \
  X(CmdPipelineBarrier) X(CmdMemoryBarrier) X(CmdBeginDebugLabel) X(CmdEndDebugLabel) X(CmdInsertDebugLabel) \
  X(CmdWriteTimestamp)

// One instance, device and queue for every case (the layer is not enabled),
// the test kernels' pipelines and a buffer with every usage.
struct Fixture {
  Env env{1, 1};
#define X(name) PFN_xgpu##name name = nullptr;
  DRIVER_RULES_COMMANDS(X)
#undef X
  XgpuExecutable executable = nullptr;
  XgpuPipeline saxpy = nullptr;        // 2 bindings, 8 bytes of constants, workgroups of 64
  XgpuPipeline groupshared = nullptr;  // 1 binding, 4 KiB of static groupshared memory
  XgpuBuffer buffer = nullptr;         // 256 bytes, host-visible, storage/transfer/indirect
  XgpuPhysicalDeviceLimits limits{};

  Fixture() {
#define X(name)                                                                                         \
  name = reinterpret_cast<PFN_xgpu##name>(api().GetDeviceProcAddr(env.device(), "xgpu" #name));          \
  REQUIRE_MESSAGE((name != nullptr), "xgpu" #name);
    DRIVER_RULES_COMMANDS(X)
#undef X
    XgpuPhysicalDeviceProperties properties{};
    api().GetPhysicalDeviceProperties(env.physical_devices[0], &properties);
    limits = properties.limits;
    executable = env.test_executable();
    saxpy = env.pipeline(executable, "icd_saxpy", 2, 8, 64);
    groupshared = env.pipeline(executable, "icd_groupshared", 1, 0, 64);
    XgpuBufferCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = 256;
    info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 XGPU_BUFFER_USAGE_TRANSFER_DST_BIT | XGPU_BUFFER_USAGE_INDIRECT_BIT;
    info.memoryTypeIndex = uint32_t(env.memory_type(XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT));
    REQUIRE(api().CreateBuffer(env.device(), &info, nullptr, &buffer) == XGPU_SUCCESS);
  }
  ~Fixture() {
    api().DeviceWaitIdle(env.device());
    api().DestroyBuffer(env.device(), buffer, nullptr);
    api().DestroyPipeline(env.device(), groupshared, nullptr);
    api().DestroyPipeline(env.device(), saxpy, nullptr);
    api().DestroyExecutable(env.device(), executable, nullptr);
  }
  static Fixture& get() {
    static Fixture fixture;
    return fixture;
  }

  XgpuDevice device() const { return env.device(); }
  XgpuQueue queue() const { return env.queue(); }

  // A one-shot command buffer in the recording state with `capacity` slots.
  XgpuCommandBuffer begin(uint32_t capacity = 2) {
    return env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, capacity);
  }
  // Ends and destroys `cb`: what End returned.
  Outcome end(XgpuCommandBuffer cb) {
    const XgpuResult result = api().EndCommandBuffer(cb);
    api().DestroyCommandBuffer(device(), cb, nullptr);
    return returned(result);
  }
  // Records `record` into a recording command buffer, ends it: End's result.
  Outcome record(const std::function<void(XgpuCommandBuffer)>& record, uint32_t capacity = 2) {
    XgpuCommandBuffer cb = begin(capacity);
    record(cb);
    return end(cb);
  }
  // Calls `command` (valid arguments) on a command buffer that is executable,
  // not recording: no result.
  Outcome outside_recording(const std::function<void(XgpuCommandBuffer)>& command) {
    XgpuCommandBuffer cb = begin(0);
    REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
    command(cb);
    api().DestroyCommandBuffer(device(), cb, nullptr);
    return no_result();
  }
  // saxpy bound with both bindings to `buffer` (ready to dispatch).
  void bind_saxpy(XgpuCommandBuffer cb) {
    api().CmdBindPipeline(cb, saxpy);
    const XgpuBufferRef refs[2] = {xgpuBufferRefWhole(buffer), xgpuBufferRefWhole(buffer)};
    api().CmdBindBuffers(cb, 0, 2, refs);
    const uint32_t constants[2] = {0, 0};
    api().CmdPushConstants(cb, 0, sizeof(constants), constants);
  }
  void bind_groupshared(XgpuCommandBuffer cb) {
    api().CmdBindPipeline(cb, groupshared);
    const XgpuBufferRef ref = xgpuBufferRefWhole(buffer);
    api().CmdBindBuffers(cb, 0, 1, &ref);
  }
  XgpuSemaphore semaphore(uint64_t initial = 0) { return env.semaphore(initial); }
  void destroy(XgpuSemaphore semaphore) { api().DestroySemaphore(device(), semaphore, nullptr); }
};

// References that break a reference rule: both a buffer and a slot
// (-kind); a slot at the recording's capacity (-bindingSlot).
XgpuBufferRef both_buffer_and_slot(XgpuBuffer buffer) {
  XgpuBufferRef ref = xgpuBufferRefWhole(buffer);
  ref.kind = XGPU_BUFFER_REF_KIND_BINDING_SLOT;
  return ref;
}
constexpr uint32_t kCapacity = 2;  // bindingCapacity of Fixture::record's recordings
XgpuBufferRef slot_past_capacity() { return xgpuBufferRefSlot(kCapacity, 0, XGPU_WHOLE_SIZE); }

const XgpuDebugLabel kLabel{XGPU_STRUCTURE_TYPE_DEBUG_LABEL, nullptr, "label", {0, 0, 0, 0}};
const uint32_t kPattern = 0x01020304u;
constexpr XgpuPipelineStageFlags kAll = XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT;

using Body = std::function<Outcome(Fixture&)>;

std::map<std::string, Body>& bodies() {
  static std::map<std::string, Body> table;
  return table;
}

struct Register {
  Register(const char* id, Body body) {
    const bool inserted = bodies().emplace(id, std::move(body)).second;
    if (!inserted) std::abort();  // two bodies for one rule
  }
};

#define DRIVER_RULE_CAT2_(a, b) a##b
#define DRIVER_RULE_CAT_(a, b) DRIVER_RULE_CAT2_(a, b)
#define RULE(id) static const Register DRIVER_RULE_CAT_(driver_rule_, __LINE__)(id, [](Fixture & f) -> Outcome
#define END_RULE );

XgpuBufferCreateInfo buffer_info(Fixture& f, uint64_t size, uint32_t memory_type) {
  XgpuBufferCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
  info.memoryTypeIndex = memory_type;
  (void)f;
  return info;
}

Outcome create_device(Fixture& f, uint32_t family, uint32_t count, XgpuDeviceSize print_buffer_size = 0) {
  XgpuDeviceQueueCreateInfo queue_info{};
  queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = family;
  queue_info.queueCount = count;
  XgpuDeviceCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.printBufferSize = print_buffer_size;
  XgpuDevice device = reinterpret_cast<XgpuDevice>(uintptr_t(1));
  const XgpuResult result = api().CreateDevice(f.env.physical_devices[0], &info, nullptr, &device);
  CHECK(device == nullptr);
  if (result == XGPU_SUCCESS && device) api().DestroyDevice(device, nullptr);
  return returned(result);
}

Outcome create_pipeline(Fixture& f, const char* entry, uint32_t bindings, uint32_t constants, uint32_t wx,
                        uint32_t wy = 0, uint32_t wz = 0) {
  XgpuPipelineCreateInfo info = Env::pipeline_info(f.executable, entry, bindings, constants, wx);
  if (wy) info.workgroupSize[1] = wy;
  if (wz) info.workgroupSize[2] = wz;
  XgpuPipeline pipeline = reinterpret_cast<XgpuPipeline>(uintptr_t(1));
  const XgpuResult result = api().CreatePipeline(f.device(), &info, nullptr, &pipeline);
  CHECK(pipeline == nullptr);
  if (result == XGPU_SUCCESS && pipeline) api().DestroyPipeline(f.device(), pipeline, nullptr);
  return returned(result);
}

Outcome submit(Fixture& f, XgpuCommandBuffer cb, const std::vector<XgpuBufferBinding>& bindings) {
  return returned(submit_barrier(f.queue(), {}, {}, {}, {}, cb, bindings));
}

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream stream(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
}

// --- instance, device, memory -------------------------------------------------

RULE("XGPU-VUID-xgpuCreateInstance-pCreateInfo-pApplicationInfo-apiVersion") {
  // The messenger chained to the create info hears the refusal.
  XgpuDebugMessengerCreateInfo messenger{};
  messenger.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
  messenger.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT;
  messenger.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
  messenger.pfnUserCallback = &MessageLog::callback;
  messenger.pUserData = &f.env.log;
  XgpuApplicationInfo app{};
  app.sType = XGPU_STRUCTURE_TYPE_APPLICATION_INFO;
  app.apiVersion = XGPU_MAKE_API_VERSION(0, 2, 0, 0);
  XgpuInstanceCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = &messenger;
  info.pApplicationInfo = &app;
  XgpuInstance instance = reinterpret_cast<XgpuInstance>(uintptr_t(1));
  const XgpuResult result = api().CreateInstance(&info, nullptr, &instance);
  CHECK(instance == nullptr);
  if (result == XGPU_SUCCESS && instance) api().DestroyInstance(instance, nullptr);
  return returned(result);
} END_RULE

RULE("XGPU-VUID-xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueFamilyIndex") {
  return create_device(f, 7, 1);
} END_RULE

RULE("XGPU-VUID-xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueCount") {
  return create_device(f, 0, 0);
} END_RULE

RULE("XGPU-VUID-xgpuCreateDevice-pCreateInfo-printBufferSize") {
  return create_device(f, 0, 1, XGPU_MIN_PRINT_BUFFER_SIZE - 8);
} END_RULE

RULE("XGPU-VUID-xgpuCreateBuffer-pCreateInfo-size") {
  const XgpuBufferCreateInfo info = buffer_info(f, f.limits.maxBufferSize + 1, 0);
  XgpuBuffer buffer = reinterpret_cast<XgpuBuffer>(uintptr_t(1));
  const XgpuResult result = api().CreateBuffer(f.device(), &info, nullptr, &buffer);
  CHECK(buffer == nullptr);
  return returned(result);
} END_RULE

RULE("XGPU-VUID-xgpuCreateBuffer-pCreateInfo-memoryTypeIndex") {
  const XgpuBufferCreateInfo info = buffer_info(f, 64, 1000);
  XgpuBuffer buffer = nullptr;
  return returned(api().CreateBuffer(f.device(), &info, nullptr, &buffer));
} END_RULE

RULE("XGPU-VUID-xgpuMapBuffer-offset") {
  void* data = nullptr;
  return returned(api().MapBuffer(f.device(), f.buffer, 256, XGPU_WHOLE_SIZE, &data));
} END_RULE

RULE("XGPU-VUID-xgpuMapBuffer-size") {
  void* data = nullptr;
  return returned(api().MapBuffer(f.device(), f.buffer, 128, 129, &data));
} END_RULE

RULE("XGPU-VUID-xgpuCreateMemoryPool-pCreateInfo-memoryTypeIndex") {
  XgpuMemoryPoolCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  info.memoryTypeIndex = 1000;
  XgpuMemoryPool pool = nullptr;
  return returned(api().CreateMemoryPool(f.device(), &info, nullptr, &pool));
} END_RULE

// --- semaphores ---------------------------------------------------------------

RULE("XGPU-VUID-xgpuSignalSemaphore-pSignalInfo-value") {
  // The second half of the rule: below every payload a queue operation
  // will signal (a submission held on a wait signals 5; the host may not
  // signal 5 or more before it ran).
  XgpuSemaphore gate = f.semaphore(0), timeline = f.semaphore(1);
  REQUIRE(submit_barrier(f.queue(), {gate}, {1}, {timeline}, {5}) == XGPU_SUCCESS);
  REQUIRE(f.env.signal(timeline, 4) == XGPU_SUCCESS);  // below 5: allowed
  const XgpuResult result = f.env.signal(timeline, 5);
  CHECK(f.env.value(timeline) == 4);
  REQUIRE(f.env.signal(gate, 1) == XGPU_SUCCESS);
  CHECK(f.env.wait(timeline, 5) == XGPU_SUCCESS);
  f.destroy(gate);
  f.destroy(timeline);
  return returned(result);
} END_RULE

RULE("XGPU-VUID-xgpuFailSemaphore-status") {
  XgpuSemaphore semaphore = f.semaphore(0);
  const XgpuResult result = api().FailSemaphore(f.device(), semaphore, XGPU_INCOMPLETE);
  XgpuResult query = XGPU_ERROR_UNKNOWN;
  f.env.value(semaphore, &query);
  CHECK(query == XGPU_SUCCESS);  // not failed
  f.destroy(semaphore);
  return returned(result);
} END_RULE

// --- executables and pipelines --------------------------------------------------

RULE("XGPU-VUID-xgpuCreateExecutable-pCreateInfo-source") {
  const std::vector<uint8_t> code = read_file(XGPU_ICD_TEST_KERNELS);
  REQUIRE(!code.empty());
  XgpuExecutableCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  info.pCode = code.data();
  info.codeSize = code.size();
  info.pFilePath = XGPU_ICD_TEST_KERNELS;  // both
  XgpuExecutable executable = nullptr;
  return returned(api().CreateExecutable(f.device(), &info, nullptr, &executable));
} END_RULE

RULE("XGPU-VUID-xgpuCreateExecutable-pCreateInfo-codeSize") {
  const std::vector<uint8_t> code = read_file(XGPU_ICD_TEST_KERNELS);
  REQUIRE(!code.empty());
  XgpuExecutableCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  info.pCode = code.data();
  info.codeSize = 0;
  XgpuExecutable executable = nullptr;
  return returned(api().CreateExecutable(f.device(), &info, nullptr, &executable));
} END_RULE

RULE("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-layout-declared") {
  return create_pipeline(f, "icd_undeclared", 0, 0, 64);
} END_RULE

RULE("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-layout-matches") {
  return create_pipeline(f, "icd_saxpy", 1, 16, 64);
} END_RULE

RULE("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-bindingCount") {
  return create_pipeline(f, "icd_undeclared", f.limits.maxBindings + 1, 0, 64);
} END_RULE

RULE("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-constantSize") {
  return create_pipeline(f, "icd_undeclared", 1, 6, 64);
} END_RULE

RULE("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-kernargSize") {
  return create_pipeline(f, "icd_undeclared", 2, 8, 64);
} END_RULE

RULE("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupSize") {
  return create_pipeline(f, "icd_saxpy", 0, 0, f.limits.maxWorkgroupSize[0] + 1);
} END_RULE

RULE("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupSize-required") {
  // icd_increment requires ICD_TEST_INCREMENT_WORKGROUP x 1 x 1.
  return create_pipeline(f, "icd_increment", 0, 0, ICD_TEST_INCREMENT_WORKGROUP * 2);
} END_RULE

RULE("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupMemory") {
  XgpuPhysicalDeviceProperties properties{};
  api().GetPhysicalDeviceProperties(f.env.physical_devices[0], &properties);
  if (properties.deviceType != XGPU_PHYSICAL_DEVICE_TYPE_CPU)
    return skip("a kernel above the limit only compiles for the host (icd_groupshared_too_large)");
  if (f.limits.maxWorkgroupMemorySize >= sizeof(icd_groupshared_large_t))
    return skip("the kernel's groupshared memory fits this device's maxWorkgroupMemorySize");
  XgpuExecutableCreateInfo executable_info{};
  executable_info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  executable_info.pFilePath = XGPU_ICD_TEST_HOST_KERNELS;
  XgpuExecutable host_only = nullptr;
  REQUIRE(api().CreateExecutable(f.device(), &executable_info, nullptr, &host_only) == XGPU_SUCCESS);
  XgpuPipelineCreateInfo info = Env::pipeline_info(host_only, "icd_groupshared_too_large", 0, 0, 64);
  XgpuPipeline pipeline = nullptr;
  const XgpuResult result = api().CreatePipeline(f.device(), &info, nullptr, &pipeline);
  CHECK(pipeline == nullptr);
  api().DestroyExecutable(f.device(), host_only, nullptr);
  return returned(result);
} END_RULE

// --- command buffers and submission ----------------------------------------------

RULE("XGPU-VUID-xgpuCreateCommandBuffer-pCreateInfo-queueFamilyIndex") {
  XgpuCommandBufferCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  info.queueFamilyIndex = 3;
  XgpuCommandBuffer cb = reinterpret_cast<XgpuCommandBuffer>(uintptr_t(1));
  const XgpuResult result = api().CreateCommandBuffer(f.device(), &info, nullptr, &cb);
  CHECK(cb == nullptr);
  return returned(result);
} END_RULE

RULE("XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-state") {
  XgpuCommandBuffer cb = f.begin(0);  // still recording
  const Outcome outcome = submit(f, cb, {});
  api().DestroyCommandBuffer(f.device(), cb, nullptr);
  return outcome;
} END_RULE

RULE("XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-oneShot") {
  XgpuCommandBuffer cb = f.begin(0);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore done = f.semaphore(0);
  REQUIRE(submit_barrier(f.queue(), {}, {}, {done}, {1}, cb) == XGPU_SUCCESS);
  const Outcome outcome = submit(f, cb, {});
  CHECK(f.env.wait(done, 1) == XGPU_SUCCESS);
  api().DestroyCommandBuffer(f.device(), cb, nullptr);
  f.destroy(done);
  return outcome;
} END_RULE

RULE("XGPU-VUID-xgpuQueueSubmit-pSubmits-bindingCount") {
  XgpuCommandBuffer cb = f.begin(2);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  const Outcome outcome = submit(f, cb, {{f.buffer, 0, XGPU_WHOLE_SIZE}});
  api().DestroyCommandBuffer(f.device(), cb, nullptr);
  return outcome;
} END_RULE

RULE("XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-range") {
  XgpuCommandBuffer cb = f.begin(1);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  const Outcome outcome = submit(f, cb, {{f.buffer, 200, 100}});
  api().DestroyCommandBuffer(f.device(), cb, nullptr);
  return outcome;
} END_RULE

RULE("XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-value") {
  // 3 is pending (held behind a wait); a later submission signalling 3 again
  // does not increase the payload.
  XgpuSemaphore gate = f.semaphore(0), timeline = f.semaphore(1);
  REQUIRE(submit_barrier(f.queue(), {gate}, {1}, {timeline}, {3}) == XGPU_SUCCESS);
  const XgpuResult result = submit_barrier(f.queue(), {}, {}, {timeline}, {3});
  REQUIRE(f.env.signal(gate, 1) == XGPU_SUCCESS);
  CHECK(f.env.wait(timeline, 3) == XGPU_SUCCESS);
  CHECK(api().QueueWaitIdle(f.queue()) == XGPU_SUCCESS);
  f.destroy(gate);
  f.destroy(timeline);
  return returned(result);
} END_RULE

RULE("XGPU-VUID-xgpuQueueFillBuffer-patternSize") {
  return returned(api().QueueFillBuffer(f.queue(), nullptr, nullptr, f.buffer, 0, 8, &kPattern, 3));
} END_RULE

RULE("XGPU-VUID-xgpuQueueFillBuffer-dstOffset") {
  return returned(api().QueueFillBuffer(f.queue(), nullptr, nullptr, f.buffer, 2, 8, &kPattern, 4));
} END_RULE

RULE("XGPU-VUID-xgpuQueueFillBuffer-size") {
  return returned(api().QueueFillBuffer(f.queue(), nullptr, nullptr, f.buffer, 252, 8, &kPattern, 4));
} END_RULE

RULE("XGPU-VUID-xgpuQueueCopyBuffer-size") {
  return returned(api().QueueCopyBuffer(f.queue(), nullptr, nullptr, f.buffer, 0, f.buffer, 128, 0));
} END_RULE

RULE("XGPU-VUID-xgpuQueueCopyBuffer-srcRange") {
  return returned(api().QueueCopyBuffer(f.queue(), nullptr, nullptr, f.buffer, 250, f.buffer, 0, 8));
} END_RULE

RULE("XGPU-VUID-xgpuQueueCopyBuffer-dstRange") {
  return returned(api().QueueCopyBuffer(f.queue(), nullptr, nullptr, f.buffer, 0, f.buffer, 250, 8));
} END_RULE

RULE("XGPU-VUID-xgpuQueueAlloca-size") {
  XgpuMemoryPoolCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  XgpuMemoryPool pool = nullptr;
  REQUIRE(api().CreateMemoryPool(f.device(), &info, nullptr, &pool) == XGPU_SUCCESS);
  XgpuBuffer buffer = nullptr;
  const XgpuResult result =
      api().QueueAlloca(f.queue(), nullptr, nullptr, pool, 0, XGPU_BUFFER_USAGE_STORAGE_BIT, &buffer);
  CHECK(buffer == nullptr);
  api().DestroyMemoryPool(f.device(), pool, nullptr);
  return returned(result);
} END_RULE

RULE("XGPU-VUID-xgpuBeginCommandBuffer-commandBuffer-pending") {
  XgpuCommandBuffer cb = f.env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 0);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore gate = f.semaphore(0), done = f.semaphore(0);
  REQUIRE(submit_barrier(f.queue(), {gate}, {1}, {done}, {1}, cb) == XGPU_SUCCESS);  // held: pending
  XgpuCommandBufferBeginInfo begin{};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE;
  const XgpuResult result = api().BeginCommandBuffer(cb, &begin);
  REQUIRE(f.env.signal(gate, 1) == XGPU_SUCCESS);
  CHECK(f.env.wait(done, 1) == XGPU_SUCCESS);
  api().DestroyCommandBuffer(f.device(), cb, nullptr);
  f.destroy(gate);
  f.destroy(done);
  return returned(result);
} END_RULE

RULE("XGPU-VUID-xgpuDestroyCommandBuffer-commandBuffer-pending") {
  // The submission is held behind a wait, so pending, when its command
  // buffer is destroyed: the destroy reports the rule (the case's message),
  // and the submission, issued once the wait is reached, fails with the
  // rule's ID and XGPU_ERROR_INVALID_USAGE instead of reading a freed
  // recording; the command buffer is freed then (HSA_CPU_LOG finds nothing
  // live at the end).
  XgpuCommandBuffer cb = f.begin(0);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore gate = f.semaphore(0), done = f.semaphore(0);
  REQUIRE(submit_barrier(f.queue(), {gate}, {1}, {done}, {1}, cb) == XGPU_SUCCESS);
  api().DestroyCommandBuffer(f.device(), cb, nullptr);
  CHECK(f.env.log.text_of_id("XGPU-VUID-xgpuDestroyCommandBuffer-commandBuffer-pending")
            .find("xgpuDestroyCommandBuffer: commandBuffer has 1 submission(s) pending") != std::string::npos);
  REQUIRE(f.env.signal(gate, 1) == XGPU_SUCCESS);
  CHECK(f.env.wait(done, 1) == XGPU_ERROR_INVALID_USAGE);
  CHECK(api().QueueWaitIdle(f.queue()) == XGPU_SUCCESS);
  {
    // The submission's own report, checked and taken off the log.
    std::lock_guard<std::mutex> lock(f.env.log.mutex);
    REQUIRE(f.env.log.ids.size() == 2);
    CHECK(f.env.log.ids[1].name == "XGPU-VUID-xgpuDestroyCommandBuffer-commandBuffer-pending");
    CHECK(f.env.log.messages[1].find("the command buffer was destroyed (xgpuDestroyCommandBuffer) while this "
                                     "submission was pending") != std::string::npos);
    f.env.log.ids.pop_back();
    f.env.log.messages.pop_back();
    f.env.log.objects.pop_back();
  }
  f.destroy(gate);
  f.destroy(done);
  return no_result();
} END_RULE

RULE("XGPU-VUID-xgpuGetBufferDeviceAddress-buffer-committed") {
  // An alloca held behind a wait has not committed: no address yet.
  XgpuMemoryPoolCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  XgpuMemoryPool pool = nullptr;
  REQUIRE(api().CreateMemoryPool(f.device(), &info, nullptr, &pool) == XGPU_SUCCESS);
  XgpuSemaphore gate = f.semaphore(0), done = f.semaphore(0);
  const uint64_t one = 1, two = 2;
  const XgpuSemaphoreList wait{1, &gate, &one}, committed{1, &done, &one}, released{1, &done, &two};
  XgpuBuffer buffer = nullptr;
  REQUIRE(api().QueueAlloca(f.queue(), &wait, &committed, pool, 256, XGPU_BUFFER_USAGE_STORAGE_BIT, &buffer) ==
          XGPU_SUCCESS);
  CHECK(api().GetBufferDeviceAddress(f.device(), buffer) == 0);
  CHECK(f.env.log.text_of_id("XGPU-VUID-xgpuGetBufferDeviceAddress-buffer-committed")
            .find("its alloca has not committed yet") != std::string::npos);
  REQUIRE(api().QueueDealloca(f.queue(), nullptr, &released, buffer) == XGPU_SUCCESS);
  REQUIRE(f.env.signal(gate, 1) == XGPU_SUCCESS);
  CHECK(f.env.wait(done, 2) == XGPU_SUCCESS);
  api().DestroyMemoryPool(f.device(), pool, nullptr);
  f.destroy(gate);
  f.destroy(done);
  return no_result();
} END_RULE

RULE("XGPU-VUID-xgpuBeginCommandBuffer-pBeginInfo-bindingCapacity") {
  XgpuCommandBufferCreateInfo create{};
  create.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer cb = nullptr;
  REQUIRE(api().CreateCommandBuffer(f.device(), &create, nullptr, &cb) == XGPU_SUCCESS);
  XgpuCommandBufferBeginInfo begin{};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
  begin.bindingCapacity = f.limits.maxBindingCapacity + 1;
  const XgpuResult result = api().BeginCommandBuffer(cb, &begin);
  api().DestroyCommandBuffer(f.device(), cb, nullptr);
  return returned(result);
} END_RULE

RULE("XGPU-VUID-xgpuEndCommandBuffer-commandBuffer-recording") {
  XgpuCommandBuffer cb = f.begin(0);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  return f.end(cb);  // a second End
} END_RULE

// --- commands outside the recording state -----------------------------------------

RULE("XGPU-VUID-xgpuCmdBindPipeline-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) { api().CmdBindPipeline(cb, f.saxpy); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdPushConstants-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) { api().CmdPushConstants(cb, 0, 4, &kPattern); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdBindBuffers-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = xgpuBufferRefWhole(f.buffer);
    api().CmdBindBuffers(cb, 0, 1, &ref);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdSetWorkgroupMemorySize-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) { f.CmdSetWorkgroupMemorySize(cb, 0); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatch-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) { api().CmdDispatch(cb, 1, 1, 1); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatchIndirect-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = xgpuBufferRefWhole(f.buffer);
    f.CmdDispatchIndirect(cb, &ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdFillBuffer-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = xgpuBufferRefWhole(f.buffer);
    f.CmdFillBuffer(cb, &ref, &kPattern, 4);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdCopyBuffer-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef src = xgpuBufferRefRange(f.buffer, 0, 64), dst = xgpuBufferRefRange(f.buffer, 128, 64);
    f.CmdCopyBuffer(cb, &src, &dst, 64);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdUpdateBuffer-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = xgpuBufferRefWhole(f.buffer);
    f.CmdUpdateBuffer(cb, &ref, 4, &kPattern);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdPipelineBarrier-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) { f.CmdPipelineBarrier(cb, kAll, kAll, 0, nullptr, 0, nullptr); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdMemoryBarrier-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) { f.CmdMemoryBarrier(cb, kAll, 0, kAll, 0); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdBeginDebugLabel-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) { f.CmdBeginDebugLabel(cb, &kLabel); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdEndDebugLabel-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) { f.CmdEndDebugLabel(cb); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdInsertDebugLabel-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) { f.CmdInsertDebugLabel(cb, &kLabel); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdWriteTimestamp-commandBuffer-recording") {
  return f.outside_recording([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = xgpuBufferRefRange(f.buffer, 0, 8);
    f.CmdWriteTimestamp(cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, &ref);
  });
} END_RULE

// --- recorded commands ----------------------------------------------------------

RULE("XGPU-VUID-xgpuCmdPushConstants-offset") {
  return f.record([&](XgpuCommandBuffer cb) {
    api().CmdBindPipeline(cb, f.saxpy);
    api().CmdPushConstants(cb, 2, 4, &kPattern);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdPushConstants-size") {
  return f.record([&](XgpuCommandBuffer cb) {
    api().CmdBindPipeline(cb, f.saxpy);
    api().CmdPushConstants(cb, 0, 0, &kPattern);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdPushConstants-range") {
  // saxpy has 8 bytes of constants (far below maxPushConstantsSize).
  return f.record([&](XgpuCommandBuffer cb) {
    api().CmdBindPipeline(cb, f.saxpy);
    const uint32_t values[2] = {1, 2};
    api().CmdPushConstants(cb, 4, 8, values);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdBindBuffers-bindingCount") {
  return f.record([&](XgpuCommandBuffer cb) {
    api().CmdBindPipeline(cb, f.saxpy);
    const XgpuBufferRef ref = xgpuBufferRefWhole(f.buffer);
    api().CmdBindBuffers(cb, 0, 0, &ref);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdBindBuffers-firstBinding") {
  // saxpy has 2 bindings (far below maxBindings).
  return f.record([&](XgpuCommandBuffer cb) {
    api().CmdBindPipeline(cb, f.saxpy);
    const XgpuBufferRef refs[2] = {xgpuBufferRefWhole(f.buffer), xgpuBufferRefWhole(f.buffer)};
    api().CmdBindBuffers(cb, 1, 2, refs);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdBindBuffers-pBuffers-kind") {
  return f.record([&](XgpuCommandBuffer cb) {
    api().CmdBindPipeline(cb, f.saxpy);
    const XgpuBufferRef ref = both_buffer_and_slot(f.buffer);
    api().CmdBindBuffers(cb, 0, 1, &ref);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdBindBuffers-pBuffers-bindingSlot") {
  return f.record([&](XgpuCommandBuffer cb) {
    api().CmdBindPipeline(cb, f.saxpy);
    const XgpuBufferRef ref = slot_past_capacity();
    api().CmdBindBuffers(cb, 0, 1, &ref);
  }, kCapacity);
} END_RULE
RULE("XGPU-VUID-xgpuCmdSetWorkgroupMemorySize-dynamicSize") {
  return f.record([&](XgpuCommandBuffer cb) { f.CmdSetWorkgroupMemorySize(cb, f.limits.maxWorkgroupMemorySize + 1); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatch-pipeline") {
  return f.record([&](XgpuCommandBuffer cb) { api().CmdDispatch(cb, 1, 1, 1); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatch-groupCount") {
  // Over maxWorkgroupCount, or (when that is 2^32 - 1) over maxGridSize with
  // workgroups of 64.
  const uint64_t limit = std::min<uint64_t>(f.limits.maxWorkgroupCount[0], f.limits.maxGridSize[0] / 64);
  if (limit == UINT32_MAX) return skip("no group count is above this device's limits for workgroups of 64");
  return f.record([&](XgpuCommandBuffer cb) {
    f.bind_saxpy(cb);
    api().CmdDispatch(cb, uint32_t(limit + 1), 1, 1);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatch-workgroupMemory") {
  // 4 KiB static + the largest dynamic size.
  return f.record([&](XgpuCommandBuffer cb) {
    f.bind_groupshared(cb);
    f.CmdSetWorkgroupMemorySize(cb, f.limits.maxWorkgroupMemorySize);
    api().CmdDispatch(cb, 1, 1, 1);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatchIndirect-flags") {
  return f.record([&](XgpuCommandBuffer cb) {
    f.bind_saxpy(cb);
    const XgpuBufferRef ref = xgpuBufferRefRange(f.buffer, 0, 12);
    f.CmdDispatchIndirect(cb, &ref, XGPU_DISPATCH_INDIRECT_STATIC_BIT | XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatchIndirect-pipeline") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = xgpuBufferRefRange(f.buffer, 0, 12);
    f.CmdDispatchIndirect(cb, &ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatchIndirect-workgroupMemory") {
  return f.record([&](XgpuCommandBuffer cb) {
    f.bind_groupshared(cb);
    f.CmdSetWorkgroupMemorySize(cb, f.limits.maxWorkgroupMemorySize);
    const XgpuBufferRef ref = xgpuBufferRefRange(f.buffer, 0, 12);
    f.CmdDispatchIndirect(cb, &ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-kind") {
  return f.record([&](XgpuCommandBuffer cb) {
    f.bind_saxpy(cb);
    const XgpuBufferRef ref = both_buffer_and_slot(f.buffer);
    f.CmdDispatchIndirect(cb, &ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-bindingSlot") {
  return f.record([&](XgpuCommandBuffer cb) {
    f.bind_saxpy(cb);
    const XgpuBufferRef ref = slot_past_capacity();
    f.CmdDispatchIndirect(cb, &ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  }, kCapacity);
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-offset") {
  return f.record([&](XgpuCommandBuffer cb) {
    f.bind_saxpy(cb);
    const XgpuBufferRef ref = xgpuBufferRefRange(f.buffer, 2, 12);
    f.CmdDispatchIndirect(cb, &ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdDispatchIndirect-static-hostVisible") {
  const int device_only = [&] {
    XgpuPhysicalDeviceMemoryProperties memory{};
    api().GetPhysicalDeviceMemoryProperties(f.env.physical_devices[0], &memory);
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
      if (!(memory.memoryTypes[i].propertyFlags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) return int(i);
    return -1;
  }();
  if (device_only < 0) return skip("every memory type of this device is host-visible");
  XgpuBufferCreateInfo info = buffer_info(f, 64, uint32_t(device_only));
  info.usage = XGPU_BUFFER_USAGE_INDIRECT_BIT;
  XgpuBuffer counts = nullptr;
  REQUIRE(api().CreateBuffer(f.device(), &info, nullptr, &counts) == XGPU_SUCCESS);
  const Outcome outcome = f.record([&](XgpuCommandBuffer cb) {
    f.bind_saxpy(cb);
    const XgpuBufferRef ref = xgpuBufferRefRange(counts, 0, 12);
    f.CmdDispatchIndirect(cb, &ref, XGPU_DISPATCH_INDIRECT_STATIC_BIT);
  });
  api().DestroyBuffer(f.device(), counts, nullptr);
  return outcome;
} END_RULE
RULE("XGPU-VUID-xgpuCmdFillBuffer-patternSize") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = xgpuBufferRefWhole(f.buffer);
    f.CmdFillBuffer(cb, &ref, &kPattern, 3);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdFillBuffer-pDst-kind") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = both_buffer_and_slot(f.buffer);
    f.CmdFillBuffer(cb, &ref, &kPattern, 4);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdFillBuffer-pDst-bindingSlot") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = slot_past_capacity();
    f.CmdFillBuffer(cb, &ref, &kPattern, 4);
  }, kCapacity);
} END_RULE
RULE("XGPU-VUID-xgpuCmdCopyBuffer-size") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef src = xgpuBufferRefRange(f.buffer, 0, 64), dst = xgpuBufferRefRange(f.buffer, 128, 64);
    f.CmdCopyBuffer(cb, &src, &dst, 0);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdCopyBuffer-pSrc-kind") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef src = both_buffer_and_slot(f.buffer), dst = xgpuBufferRefRange(f.buffer, 128, 64);
    f.CmdCopyBuffer(cb, &src, &dst, 64);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdCopyBuffer-pSrc-bindingSlot") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef src = slot_past_capacity(), dst = xgpuBufferRefRange(f.buffer, 128, 64);
    f.CmdCopyBuffer(cb, &src, &dst, 64);
  }, kCapacity);
} END_RULE
RULE("XGPU-VUID-xgpuCmdCopyBuffer-pDst-kind") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef src = xgpuBufferRefRange(f.buffer, 0, 64), dst = both_buffer_and_slot(f.buffer);
    f.CmdCopyBuffer(cb, &src, &dst, 64);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdCopyBuffer-pDst-bindingSlot") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef src = xgpuBufferRefRange(f.buffer, 0, 64), dst = slot_past_capacity();
    f.CmdCopyBuffer(cb, &src, &dst, 64);
  }, kCapacity);
} END_RULE
RULE("XGPU-VUID-xgpuCmdUpdateBuffer-dataSize") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = xgpuBufferRefWhole(f.buffer);
    f.CmdUpdateBuffer(cb, &ref, 0, &kPattern);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdUpdateBuffer-pDst-kind") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = both_buffer_and_slot(f.buffer);
    f.CmdUpdateBuffer(cb, &ref, 4, &kPattern);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdUpdateBuffer-pDst-bindingSlot") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = slot_past_capacity();
    f.CmdUpdateBuffer(cb, &ref, 4, &kPattern);
  }, kCapacity);
} END_RULE
RULE("XGPU-VUID-xgpuCmdPipelineBarrier-srcStageMask") {
  return f.record([&](XgpuCommandBuffer cb) { f.CmdPipelineBarrier(cb, 0, kAll, 0, nullptr, 0, nullptr); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdPipelineBarrier-dstStageMask") {
  return f.record([&](XgpuCommandBuffer cb) { f.CmdPipelineBarrier(cb, kAll, 0, 0, nullptr, 0, nullptr); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdPipelineBarrier-pBufferBarriers-kind") {
  return f.record([&](XgpuCommandBuffer cb) {
    XgpuBufferMemoryBarrier barrier{};
    barrier.sType = XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    barrier.buffer = both_buffer_and_slot(f.buffer);
    f.CmdPipelineBarrier(cb, kAll, kAll, 0, nullptr, 1, &barrier);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdPipelineBarrier-pBufferBarriers-bindingSlot") {
  return f.record([&](XgpuCommandBuffer cb) {
    XgpuBufferMemoryBarrier barrier{};
    barrier.sType = XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    barrier.buffer = slot_past_capacity();
    f.CmdPipelineBarrier(cb, kAll, kAll, 0, nullptr, 1, &barrier);
  }, kCapacity);
} END_RULE
RULE("XGPU-VUID-xgpuCmdMemoryBarrier-srcStageMask") {
  return f.record([&](XgpuCommandBuffer cb) { f.CmdMemoryBarrier(cb, 0, 0, kAll, 0); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdMemoryBarrier-dstStageMask") {
  return f.record([&](XgpuCommandBuffer cb) { f.CmdMemoryBarrier(cb, kAll, 0, 0, 0); });
} END_RULE
RULE("XGPU-VUID-xgpuCmdWriteTimestamp-stage") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = xgpuBufferRefRange(f.buffer, 0, 8);
    f.CmdWriteTimestamp(cb, XgpuPipelineStageFlagBits(0), &ref);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdWriteTimestamp-pDst-kind") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = both_buffer_and_slot(f.buffer);
    f.CmdWriteTimestamp(cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, &ref);
  });
} END_RULE
RULE("XGPU-VUID-xgpuCmdWriteTimestamp-pDst-bindingSlot") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = slot_past_capacity();
    f.CmdWriteTimestamp(cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, &ref);
  }, kCapacity);
} END_RULE
RULE("XGPU-VUID-xgpuCmdWriteTimestamp-pDst-offset") {
  return f.record([&](XgpuCommandBuffer cb) {
    const XgpuBufferRef ref = xgpuBufferRefRange(f.buffer, 4, 8);
    f.CmdWriteTimestamp(cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, &ref);
  });
} END_RULE

// Runs the body of rule `id` and checks its result and its one message.
void run_driver_rule(const char* id, XgpuResult expected) {
  const auto body = bodies().find(id);
  REQUIRE_MESSAGE(body != bodies().end(), "no body for the driver rule ", id);
  Fixture& f = Fixture::get();
  f.env.log.clear();
  const Outcome outcome = body->second(f);
  if (!outcome.skipped.empty()) {
    MESSAGE("skipped: ", outcome.skipped);
    CHECK(f.env.log.all_ids().empty());
    return;
  }
  if (outcome.has_result) CHECK(outcome.result == expected);
  const std::string seen = f.env.log.all_ids();
  INFO(seen);
  {
    std::lock_guard<std::mutex> lock(f.env.log.mutex);
    REQUIRE(f.env.log.ids.size() == 1);
    const MessageLog::Id& got = f.env.log.ids[0];
    CHECK(got.name == id);
    CHECK(got.number == fnv1a(id));
    CHECK(got.types == XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT);
    CHECK(got.severity == XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT);
  }
  f.env.log.clear();
}

}  // namespace

#include "driver_rule_cases.inc"

// The signal-payload rule beyond its case: a payload already reached, a
// batch whose later submission repeats an earlier one's payload, and a
// refused call that leaves no payload behind.
TEST_CASE("driver rules: signal payloads increase across a batch, and a refused batch reserves nothing") {
  Fixture& f = Fixture::get();
  f.env.log.clear();
  XgpuSemaphore timeline = f.semaphore(0);
  REQUIRE(submit_barrier(f.queue(), {}, {}, {timeline}, {2}) == XGPU_SUCCESS);
  REQUIRE(f.env.wait(timeline, 2) == XGPU_SUCCESS);
  CHECK(submit_barrier(f.queue(), {}, {}, {timeline}, {2}) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(f.env.log.text_of_id("XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-value")
            .find("pSubmits[0].signalSemaphores.pValues[0] 2 is not greater than the semaphore's payload 2") !=
        std::string::npos);
  f.env.log.clear();
  // Submissions 0 and 1 signal 4 and 3: the call is refused as a whole.
  const uint64_t four = 4, three = 3;
  XgpuSubmitInfo submits[2]{};
  submits[0].sType = submits[1].sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submits[0].signalSemaphores = {1, &timeline, &four};
  submits[1].signalSemaphores = {1, &timeline, &three};
  CHECK(api().QueueSubmit(f.queue(), 2, submits) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(f.env.log.text_of_id("XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-value")
            .find("pSubmits[1].signalSemaphores.pValues[0] 3") != std::string::npos);
  f.env.log.clear();
  // Nothing of the refused call stays pending: 3 and then 4 are accepted;
  // once they ran, the host signals above them.
  REQUIRE(submit_barrier(f.queue(), {}, {}, {timeline}, {3}) == XGPU_SUCCESS);
  REQUIRE(submit_barrier(f.queue(), {}, {}, {timeline}, {4}) == XGPU_SUCCESS);
  REQUIRE(f.env.wait(timeline, 4) == XGPU_SUCCESS);
  CHECK(f.env.signal(timeline, 5) == XGPU_SUCCESS);
  CHECK(f.env.value(timeline) == 5);
  CHECK(f.env.log.all_ids().empty());
  f.destroy(timeline);
}

TEST_CASE("coverage: every driver rule of spec/vuids.json has its case, and every case is a driver rule") {
  std::set<std::string> rules;
  for (const DriverRule& rule : kDriverRules) rules.insert(rule.id);
  for (const std::string& id : rules) {
    INFO(id);
    CHECK(bodies().count(id) == 1);
  }
  for (const auto& [id, body] : bodies()) {
    INFO(id);
    CHECK(rules.count(id) == 1);
  }
  MESSAGE(rules.size(), " driver rules, ", bodies().size(), " bodies");
}
