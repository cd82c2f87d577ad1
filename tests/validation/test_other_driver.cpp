// Negative and positive tests of the rules one driver alone cannot break:
// queue capabilities (a command or queue operation on a family without the
// COMPUTE or TRANSFER bit it needs, a command buffer submitted to a queue of
// another family), semaphores of another driver, and static indirect counts
// in memory that is not host-visible. An instance with the layer loads the
// validation test driver (test_driver/) beside the AMDGPU driver: its device
// has a COMPUTE-only, a TRANSFER-only and a COMPUTE|TRANSFER family, a memory
// type without HOST_VISIBLE, and a driverName and runtimeName of its own.
//
// Each negative test makes exactly one mistake and asserts that exactly its
// rule was reported and that the call failed with the rule's error (and,
// where the driver would have done work, that it did none); each positive
// test makes the same call where the rule holds, expects no message, and
// checks the driver's result (bytes written, payloads reached).
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "harness.h"
#include "xgpu/xgpu_enum_string.h"

namespace vtest {
namespace {

constexpr const char* kTestDriverName = "xgpu validation test driver";
constexpr uint32_t kComputeFamily = 0;   // the test driver's COMPUTE-only family
constexpr uint32_t kTransferFamily = 1;  // its TRANSFER-only family
constexpr uint32_t kBothFamily = 2;      // its COMPUTE | TRANSFER family
constexpr uint32_t kDeviceOnlyType = 0;  // its memory type without HOST_VISIBLE
constexpr uint32_t kHostType = 1;        // its host-visible memory type
constexpr uint64_t kBytes = 256;         // size of the test buffers
constexpr XgpuBufferUsageFlags kAllUsage = XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                           XGPU_BUFFER_USAGE_TRANSFER_DST_BIT | XGPU_BUFFER_USAGE_INDIRECT_BIT;

#define RULE_TEST(id)                                                                  \
  static const bool DOCTEST_ANONYMOUS(RULE_TEST_REGISTERED_) = RegisterRuleTest(id); \
  TEST_CASE(id)

XgpuDevice NewDevice(XgpuPhysicalDevice physical, const std::vector<uint32_t>& families) {
  std::vector<XgpuDeviceQueueCreateInfo> queues;
  for (uint32_t family : families) {
    XgpuDeviceQueueCreateInfo q = {};
    q.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    q.queueFamilyIndex = family;
    q.queueCount = 1;
    queues.push_back(q);
  }
  XgpuDeviceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.queueCreateInfoCount = static_cast<uint32_t>(queues.size());
  info.pQueueCreateInfos = queues.data();
  XgpuDevice device = nullptr;
  REQUIRE(xgpuCreateDevice(physical, &info, nullptr, &device) == XGPU_SUCCESS);
  return device;
}

// One instance with the layer over both drivers, the fixture's log as its
// messenger; a test-driver device with a queue of each family, a second
// test-driver device (the same driver and runtime), and an AMDGPU device.
// Everything is destroyed, idle first, at the end of the test.
class World {
 public:
  World() : f_(Fixture::Get()) {
    {
      const std::string files =
          std::string(XGPU_VALIDATION_TEST_OTHER_DRIVER_MANIFEST) + ":" + XGPU_VALIDATION_TEST_DRIVER_MANIFEST;
      ScopedEnv driver_files("XGPU_DRIVER_FILES", files.c_str());
      const char* layers[] = {kLayerName};
      XgpuInstanceCreateInfo info = {};
      info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
      info.enabledLayerCount = 1;
      info.ppEnabledLayerNames = layers;
      REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
    }
    XgpuDebugMessengerCreateInfo log_info = f_.log.CreateInfo();
    REQUIRE(xgpuCreateDebugMessenger(instance, &log_info, nullptr, &messenger_) == XGPU_SUCCESS);
    uint32_t count = 0;
    REQUIRE(xgpuEnumeratePhysicalDevices(instance, &count, nullptr) == XGPU_SUCCESS);
    std::vector<XgpuPhysicalDevice> physicals(count);
    REQUIRE(xgpuEnumeratePhysicalDevices(instance, &count, physicals.data()) == XGPU_SUCCESS);
    XgpuPhysicalDevice test_physical = nullptr;
    XgpuPhysicalDevice amdgpu_physical = nullptr;
    for (XgpuPhysicalDevice p : physicals) {
      XgpuPhysicalDeviceProperties properties = {};
      xgpuGetPhysicalDeviceProperties(p, &properties);
      (std::strcmp(properties.driverName, kTestDriverName) == 0 ? test_physical : amdgpu_physical) = p;
    }
    REQUIRE(test_physical != nullptr);
    REQUIRE(amdgpu_physical != nullptr);
    device = NewDevice(test_physical, {kComputeFamily, kTransferFamily, kBothFamily});
    for (uint32_t family : {kComputeFamily, kTransferFamily, kBothFamily}) {
      xgpuGetDeviceQueue(device, family, 0, &queues[family]);
      REQUIRE(queues[family] != nullptr);
    }
    peer = NewDevice(test_physical, {kTransferFamily});
    amdgpu = NewDevice(amdgpu_physical, {0});
    xgpuGetDeviceQueue(amdgpu, 0, 0, &amdgpu_queue);
    REQUIRE(amdgpu_queue != nullptr);

    XgpuExecutableCreateInfo executable_info = {};
    executable_info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
    executable_info.pFilePath = XGPU_VALIDATION_TEST_KERNELS;
    REQUIRE(xgpuCreateExecutable(device, &executable_info, nullptr, &executable_) == XGPU_SUCCESS);
    XgpuPipelineCreateInfo pipeline_info = {};
    pipeline_info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
    pipeline_info.executable = executable_;
    pipeline_info.pEntryPoint = "validation_saxpy";
    pipeline_info.bindingCount = 2;
    pipeline_info.constantSize = 8;
    pipeline_info.workgroupSize[0] = 64;
    pipeline_info.workgroupSize[1] = 1;
    pipeline_info.workgroupSize[2] = 1;
    REQUIRE(xgpuCreatePipeline(device, &pipeline_info, nullptr, &pipeline) == XGPU_SUCCESS);
    f_.log.Clear();
  }

  ~World() {
    for (XgpuDevice d : {device, peer, amdgpu}) CHECK(xgpuDeviceWaitIdle(d) == XGPU_SUCCESS);
    for (auto it = cleanups_.rbegin(); it != cleanups_.rend(); ++it) (*it)();
    xgpuDestroyPipeline(device, pipeline, nullptr);
    xgpuDestroyExecutable(device, executable_, nullptr);
    for (XgpuDevice d : {device, peer, amdgpu}) xgpuDestroyDevice(d, nullptr);
    xgpuDestroyDebugMessenger(instance, messenger_, nullptr);
    // Tearing a valid program down reports nothing either.
    f_.ExpectNone();
    xgpuDestroyInstance(instance, nullptr);
  }

  XgpuBuffer Buffer(XgpuDevice owner, uint32_t memory_type, XgpuBufferUsageFlags usage = kAllUsage) {
    XgpuBufferCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = kBytes;
    info.usage = usage;
    info.memoryTypeIndex = memory_type;
    XgpuBuffer buffer = nullptr;
    REQUIRE(xgpuCreateBuffer(owner, &info, nullptr, &buffer) == XGPU_SUCCESS);
    cleanups_.push_back([owner, buffer] { xgpuDestroyBuffer(owner, buffer, nullptr); });
    return buffer;
  }
  XgpuBuffer HostBuffer() { return Buffer(device, kHostType); }

  XgpuSemaphore Semaphore(XgpuDevice owner, uint64_t initial = 0) {
    XgpuSemaphoreCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    info.initialValue = initial;
    XgpuSemaphore semaphore = nullptr;
    REQUIRE(xgpuCreateSemaphore(owner, &info, nullptr, &semaphore) == XGPU_SUCCESS);
    cleanups_.push_back([owner, semaphore] { xgpuDestroySemaphore(owner, semaphore, nullptr); });
    return semaphore;
  }

  // A command buffer of `device` for `family`, begun (one-shot).
  XgpuCommandBuffer Recording(uint32_t family, uint32_t binding_capacity = 0) {
    XgpuCommandBufferCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
    info.queueFamilyIndex = family;
    XgpuCommandBuffer cb = nullptr;
    REQUIRE(xgpuCreateCommandBuffer(device, &info, nullptr, &cb) == XGPU_SUCCESS);
    XgpuDevice owner = device;
    cleanups_.push_back([owner, cb] { xgpuDestroyCommandBuffer(owner, cb, nullptr); });
    XgpuCommandBufferBeginInfo begin = {};
    begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
    begin.bindingCapacity = binding_capacity;
    REQUIRE(xgpuBeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
    return cb;
  }

  // A recording of `family` with the pipeline bound and every binding and constant set (ready to dispatch).
  XgpuCommandBuffer ReadyToDispatch(uint32_t family, uint32_t binding_capacity = 0) {
    XgpuCommandBuffer cb = Recording(family, binding_capacity);
    const XgpuBuffer data = HostBuffer();
    xgpuCmdBindPipeline(cb, pipeline);
    const XgpuBufferRef refs[2] = {xgpuBufferRefRange(data, 0, 128), xgpuBufferRefRange(data, 128, 128)};
    xgpuCmdBindBuffers(cb, 0, 2, refs);
    const uint32_t constants[2] = {64, 0x40000000u};
    xgpuCmdPushConstants(cb, 0, sizeof(constants), constants);
    return cb;
  }

  std::vector<uint8_t> Read(XgpuBuffer buffer, XgpuDevice owner = nullptr) {
    if (owner == nullptr) owner = device;
    void* data = nullptr;
    REQUIRE(xgpuMapBuffer(owner, buffer, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
    std::vector<uint8_t> bytes(static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + kBytes);
    xgpuUnmapBuffer(owner, buffer);
    return bytes;
  }
  void Write(XgpuBuffer buffer, uint8_t first) {
    void* data = nullptr;
    REQUIRE(xgpuMapBuffer(device, buffer, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
    for (uint64_t i = 0; i < kBytes; ++i) static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(first + i);
    xgpuUnmapBuffer(device, buffer);
  }

  uint64_t Value(XgpuDevice owner, XgpuSemaphore semaphore) {
    uint64_t value = 0;
    REQUIRE(xgpuGetSemaphoreValue(owner, semaphore, &value) == XGPU_SUCCESS);
    return value;
  }

  XgpuInstance instance = nullptr;
  XgpuDevice device = nullptr;              // the test driver's, a queue of each family
  XgpuQueue queues[3] = {};                 // per family of `device`
  XgpuDevice peer = nullptr;                // another device of the test driver (TRANSFER family only)
  XgpuDevice amdgpu = nullptr;              // the AMDGPU driver's (over hsa-cpu)
  XgpuQueue amdgpu_queue = nullptr;         // its queue
  XgpuPipeline pipeline = nullptr;          // of `device`: validation_saxpy, 2 bindings, 8 bytes of constants

 private:
  Fixture& f_;
  XgpuDebugMessenger messenger_ = nullptr;
  XgpuExecutable executable_ = nullptr;
  std::vector<std::function<void()>> cleanups_;
};

std::vector<uint8_t> Filled(uint32_t pattern) {
  std::vector<uint8_t> bytes(kBytes);
  for (uint64_t i = 0; i < kBytes; i += 4) std::memcpy(&bytes[i], &pattern, 4);
  return bytes;
}

std::vector<uint8_t> Counting(uint8_t first) {
  std::vector<uint8_t> bytes(kBytes);
  for (uint64_t i = 0; i < kBytes; ++i) bytes[i] = static_cast<uint8_t>(first + i);
  return bytes;
}

void ExpectError(Fixture& f, XgpuResult result, const char* id) {
  f.ExpectOnly(id);
  CHECK(std::string(xgpuResultString(result)) == ErrorOfRule(id));
}

// A recording command broke `id`: exactly that message, and the recording's end returns the rule's error.
void ExpectRecordingError(Fixture& f, XgpuCommandBuffer cb, const char* id) {
  f.ExpectOnly(id);
  f.log.Clear();
  CHECK(std::string(xgpuResultString(xgpuEndCommandBuffer(cb))) == ErrorOfRule(id));
  f.ExpectNone();
}

XgpuResult SubmitOne(XgpuQueue queue, XgpuCommandBuffer cb, XgpuSemaphoreList waits = {},
                     XgpuSemaphoreList signals = {}) {
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  submit.waitSemaphores = waits;
  submit.signalSemaphores = signals;
  return xgpuQueueSubmit(queue, 1, &submit);
}

// ---- queue capabilities ----

RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-queueFamily") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuBuffer dst = w.HostBuffer();
  const uint32_t pattern = 0xA5A5A5A5u;
  XgpuCommandBuffer cb = w.Recording(kTransferFamily);
  const XgpuBufferRef ref = xgpuBufferRefRange(dst, 0, XGPU_WHOLE_SIZE);
  xgpuCmdFillBuffer(cb, &ref, &pattern, 4);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  f.log.Clear();
  // Recorded for the TRANSFER family, submitted to a queue of the COMPUTE|TRANSFER family.
  ExpectError(f, SubmitOne(w.queues[kBothFamily], cb), "XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-queueFamily");
  CHECK(w.Read(dst) == Filled(0));  // the driver never saw it
  f.log.Clear();
  CHECK(SubmitOne(w.queues[kTransferFamily], cb) == XGPU_SUCCESS);
  CHECK(xgpuQueueWaitIdle(w.queues[kTransferFamily]) == XGPU_SUCCESS);
  f.ExpectNone();
  CHECK(w.Read(dst) == Filled(pattern));
}

RULE_TEST("XGPU-VUID-xgpuQueueFillBuffer-queue-flags") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuBuffer dst = w.HostBuffer();
  const uint32_t pattern = 0x01020304u;
  ExpectError(f, xgpuQueueFillBuffer(w.queues[kComputeFamily], nullptr, nullptr, dst, 0, kBytes, &pattern, 4),
              "XGPU-VUID-xgpuQueueFillBuffer-queue-flags");
  CHECK(w.Read(dst) == Filled(0));
  for (uint32_t family : {kTransferFamily, kBothFamily}) {
    const uint32_t value = pattern + family;
    f.log.Clear();
    CHECK(xgpuQueueFillBuffer(w.queues[family], nullptr, nullptr, dst, 0, kBytes, &value, 4) == XGPU_SUCCESS);
    CHECK(xgpuQueueWaitIdle(w.queues[family]) == XGPU_SUCCESS);
    f.ExpectNone();
    CHECK(w.Read(dst) == Filled(value));
  }
}

RULE_TEST("XGPU-VUID-xgpuQueueCopyBuffer-queue-flags") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuBuffer src = w.HostBuffer();
  const XgpuBuffer dst = w.HostBuffer();
  w.Write(src, 7);
  f.log.Clear();
  ExpectError(f, xgpuQueueCopyBuffer(w.queues[kComputeFamily], nullptr, nullptr, src, 0, dst, 0, kBytes),
              "XGPU-VUID-xgpuQueueCopyBuffer-queue-flags");
  CHECK(w.Read(dst) == Filled(0));
  for (uint32_t family : {kTransferFamily, kBothFamily}) {
    w.Write(src, static_cast<uint8_t>(family * 50));
    f.log.Clear();
    CHECK(xgpuQueueCopyBuffer(w.queues[family], nullptr, nullptr, src, 0, dst, 0, kBytes) == XGPU_SUCCESS);
    CHECK(xgpuQueueWaitIdle(w.queues[family]) == XGPU_SUCCESS);
    f.ExpectNone();
    CHECK(w.Read(dst) == Counting(static_cast<uint8_t>(family * 50)));
  }
}

RULE_TEST("XGPU-VUID-xgpuCmdBindPipeline-commandBuffer-queueFamily") {
  Fixture& f = Fixture::Get();
  World w;
  XgpuCommandBuffer cb = w.Recording(kTransferFamily);
  xgpuCmdBindPipeline(cb, w.pipeline);
  ExpectRecordingError(f, cb, "XGPU-VUID-xgpuCmdBindPipeline-commandBuffer-queueFamily");
  for (uint32_t family : {kComputeFamily, kBothFamily}) {
    XgpuCommandBuffer ok = w.Recording(family);
    f.log.Clear();
    xgpuCmdBindPipeline(ok, w.pipeline);
    CHECK(xgpuEndCommandBuffer(ok) == XGPU_SUCCESS);
    f.ExpectNone();
  }
}

RULE_TEST("XGPU-VUID-xgpuCmdDispatch-commandBuffer-queueFamily") {
  Fixture& f = Fixture::Get();
  World w;
  XgpuCommandBuffer cb = w.Recording(kTransferFamily);
  f.log.Clear();
  xgpuCmdDispatch(cb, 1, 1, 1);
  ExpectRecordingError(f, cb, "XGPU-VUID-xgpuCmdDispatch-commandBuffer-queueFamily");
  for (uint32_t family : {kComputeFamily, kBothFamily}) {
    XgpuCommandBuffer ok = w.ReadyToDispatch(family);
    f.log.Clear();
    xgpuCmdDispatch(ok, 1, 1, 1);
    CHECK(xgpuEndCommandBuffer(ok) == XGPU_SUCCESS);
    f.ExpectNone();
  }
}

RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-commandBuffer-queueFamily") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuBuffer counts = w.HostBuffer();
  const XgpuBufferRef ref = xgpuBufferRefRange(counts, 0, 12);
  XgpuCommandBuffer cb = w.Recording(kTransferFamily);
  f.log.Clear();
  xgpuCmdDispatchIndirect(cb, &ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  ExpectRecordingError(f, cb, "XGPU-VUID-xgpuCmdDispatchIndirect-commandBuffer-queueFamily");
  for (uint32_t family : {kComputeFamily, kBothFamily}) {
    XgpuCommandBuffer ok = w.ReadyToDispatch(family);
    f.log.Clear();
    xgpuCmdDispatchIndirect(ok, &ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
    CHECK(xgpuEndCommandBuffer(ok) == XGPU_SUCCESS);
    f.ExpectNone();
  }
}

// A transfer command on the COMPUTE-only family fails; on the TRANSFER and
// COMPUTE|TRANSFER families it is recorded, and the submission writes `dst`.
template <typename Record>
void TransferCommandTest(const char* id, const Record& record, const std::vector<uint8_t>& expected) {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuBuffer src = w.HostBuffer();
  const XgpuBuffer dst = w.HostBuffer();
  w.Write(src, 3);
  XgpuCommandBuffer cb = w.Recording(kComputeFamily);
  f.log.Clear();
  record(cb, src, dst);
  ExpectRecordingError(f, cb, id);
  for (uint32_t family : {kTransferFamily, kBothFamily}) {
    std::vector<uint8_t> zero(kBytes, 0);
    const XgpuBufferRef ref = xgpuBufferRefRange(dst, 0, XGPU_WHOLE_SIZE);
    XgpuCommandBuffer clear = w.Recording(family);
    xgpuCmdUpdateBuffer(clear, &ref, kBytes, zero.data());  // dst back to 0 before each run
    XgpuCommandBuffer ok = w.Recording(family);
    f.log.Clear();
    record(ok, src, dst);
    CHECK(xgpuEndCommandBuffer(ok) == XGPU_SUCCESS);
    CHECK(xgpuEndCommandBuffer(clear) == XGPU_SUCCESS);
    CHECK(SubmitOne(w.queues[family], clear) == XGPU_SUCCESS);
    CHECK(SubmitOne(w.queues[family], ok) == XGPU_SUCCESS);
    CHECK(xgpuQueueWaitIdle(w.queues[family]) == XGPU_SUCCESS);
    f.ExpectNone();
    CHECK(w.Read(dst) == expected);
  }
}

RULE_TEST("XGPU-VUID-xgpuCmdFillBuffer-commandBuffer-queueFamily") {
  const uint32_t pattern = 0xC0FFEE11u;
  TransferCommandTest(
      "XGPU-VUID-xgpuCmdFillBuffer-commandBuffer-queueFamily",
      [&](XgpuCommandBuffer cb, XgpuBuffer, XgpuBuffer dst) {
        const XgpuBufferRef ref = xgpuBufferRefRange(dst, 0, XGPU_WHOLE_SIZE);
        xgpuCmdFillBuffer(cb, &ref, &pattern, 4);
      },
      Filled(pattern));
}

RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-commandBuffer-queueFamily") {
  TransferCommandTest(
      "XGPU-VUID-xgpuCmdCopyBuffer-commandBuffer-queueFamily",
      [](XgpuCommandBuffer cb, XgpuBuffer src, XgpuBuffer dst) {
        const XgpuBufferRef from = xgpuBufferRefRange(src, 0, kBytes);
        const XgpuBufferRef to = xgpuBufferRefRange(dst, 0, kBytes);
        xgpuCmdCopyBuffer(cb, &from, &to, kBytes);
      },
      Counting(3));
}

RULE_TEST("XGPU-VUID-xgpuCmdUpdateBuffer-commandBuffer-queueFamily") {
  const std::vector<uint8_t> data = Counting(90);
  TransferCommandTest(
      "XGPU-VUID-xgpuCmdUpdateBuffer-commandBuffer-queueFamily",
      [&](XgpuCommandBuffer cb, XgpuBuffer, XgpuBuffer dst) {
        const XgpuBufferRef ref = xgpuBufferRefRange(dst, 0, XGPU_WHOLE_SIZE);
        xgpuCmdUpdateBuffer(cb, &ref, kBytes, data.data());
      },
      data);
}

// ---- semaphores of another driver ----

RULE_TEST("XGPU-VUID-xgpuSignalSemaphore-pSignalInfo-semaphore-device") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuSemaphore test_semaphore = w.Semaphore(w.device, 1);
  const XgpuSemaphore amdgpu_semaphore = w.Semaphore(w.amdgpu, 1);
  XgpuSemaphoreSignalInfo signal = {};
  signal.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  signal.value = 5;
  // Each driver's semaphore signalled through the other driver's device.
  for (auto [device, semaphore, owner] : {std::tuple{w.amdgpu, test_semaphore, w.device},
                                          std::tuple{w.device, amdgpu_semaphore, w.amdgpu}}) {
    f.log.Clear();
    signal.semaphore = semaphore;
    ExpectError(f, xgpuSignalSemaphore(device, &signal), "XGPU-VUID-xgpuSignalSemaphore-pSignalInfo-semaphore-device");
    CHECK(w.Value(owner, semaphore) == 1);
  }
  // Another device of the same driver and runtime may signal it.
  f.log.Clear();
  signal.semaphore = test_semaphore;
  CHECK(xgpuSignalSemaphore(w.peer, &signal) == XGPU_SUCCESS);
  f.ExpectNone();
  CHECK(w.Value(w.device, test_semaphore) == 5);
}

RULE_TEST("XGPU-VUID-xgpuWaitSemaphores-pWaitInfo-pSemaphores-device") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuSemaphore own = w.Semaphore(w.amdgpu, 2);
  const XgpuSemaphore test_semaphore = w.Semaphore(w.device, 2);
  const XgpuSemaphore semaphores[2] = {own, test_semaphore};
  const uint64_t values[2] = {2, 2};
  XgpuSemaphoreWaitInfo wait = {};
  wait.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  wait.semaphoreCount = 2;
  wait.pSemaphores = semaphores;
  wait.pValues = values;
  f.log.Clear();
  ExpectError(f, xgpuWaitSemaphores(w.amdgpu, &wait, 0), "XGPU-VUID-xgpuWaitSemaphores-pWaitInfo-pSemaphores-device");
  // Through another device of the test driver: reached at once, and reported as such.
  wait.semaphoreCount = 1;
  wait.pSemaphores = &test_semaphore;
  f.log.Clear();
  CHECK(xgpuWaitSemaphores(w.peer, &wait, kTimeoutNs) == XGPU_SUCCESS);
  const uint64_t later = 3;
  wait.pValues = &later;
  CHECK(xgpuWaitSemaphores(w.peer, &wait, 0) == XGPU_TIMEOUT);
  f.ExpectNone();
}

RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-waitSemaphores-device") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuSemaphore test_semaphore = w.Semaphore(w.device, 1);
  const XgpuSemaphore amdgpu_semaphore = w.Semaphore(w.amdgpu, 0);
  const uint64_t one = 1;
  const uint64_t seven = 7;
  // An AMDGPU queue waiting for, then signalling, the test driver's semaphore.
  f.log.Clear();
  ExpectError(f, SubmitOne(w.amdgpu_queue, nullptr, XgpuSemaphoreList{1, &test_semaphore, &one}),
              "XGPU-VUID-xgpuQueueSubmit-pSubmits-waitSemaphores-device");
  f.log.Clear();
  ExpectError(f, SubmitOne(w.amdgpu_queue, nullptr, {}, XgpuSemaphoreList{1, &test_semaphore, &seven}),
              "XGPU-VUID-xgpuQueueSubmit-pSubmits-waitSemaphores-device");
  CHECK(w.Value(w.device, test_semaphore) == 1);
  // A queue of another test-driver device waits for it and signals it; the
  // AMDGPU queue signals its own.
  f.log.Clear();
  XgpuQueue peer_queue = nullptr;
  xgpuGetDeviceQueue(w.peer, kTransferFamily, 0, &peer_queue);
  REQUIRE(peer_queue != nullptr);
  CHECK(SubmitOne(peer_queue, nullptr, XgpuSemaphoreList{1, &test_semaphore, &one},
                  XgpuSemaphoreList{1, &test_semaphore, &seven}) == XGPU_SUCCESS);
  CHECK(SubmitOne(w.amdgpu_queue, nullptr, {}, XgpuSemaphoreList{1, &amdgpu_semaphore, &seven}) == XGPU_SUCCESS);
  const XgpuSemaphore both[1] = {amdgpu_semaphore};
  XgpuSemaphoreWaitInfo wait = {};
  wait.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  wait.semaphoreCount = 1;
  wait.pSemaphores = both;
  wait.pValues = &seven;
  CHECK(xgpuWaitSemaphores(w.amdgpu, &wait, kTimeoutNs) == XGPU_SUCCESS);
  wait.pSemaphores = &test_semaphore;
  CHECK(xgpuWaitSemaphores(w.device, &wait, kTimeoutNs) == XGPU_SUCCESS);
  f.ExpectNone();
  CHECK(w.Value(w.device, test_semaphore) == 7);
}

// The other queue operations' lists follow the same rule, reported by their
// -semaphores rule (whose own negative tests are in explicit_tests.cpp).
TEST_CASE("queue transfers: a semaphore of another driver in a wait or signal list breaks their -semaphores rule") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuBuffer src = w.HostBuffer();
  const XgpuBuffer dst = w.HostBuffer();
  const XgpuSemaphore amdgpu_semaphore = w.Semaphore(w.amdgpu, 1);
  const XgpuSemaphore peer_semaphore = w.Semaphore(w.peer, 1);
  const uint64_t one = 1;
  const uint64_t two = 2;
  const uint32_t pattern = 0x5A5A5A5Au;
  const XgpuQueue queue = w.queues[kTransferFamily];
  const XgpuSemaphoreList foreign_wait = {1, &amdgpu_semaphore, &one};
  const XgpuSemaphoreList foreign_signal = {1, &amdgpu_semaphore, &two};
  for (auto [waits, signals] : {std::pair{&foreign_wait, static_cast<const XgpuSemaphoreList*>(nullptr)},
                                std::pair{static_cast<const XgpuSemaphoreList*>(nullptr), &foreign_signal}}) {
    f.log.Clear();
    ExpectError(f, xgpuQueueFillBuffer(queue, waits, signals, dst, 0, kBytes, &pattern, 4),
                "XGPU-VUID-xgpuQueueFillBuffer-semaphores");
    f.log.Clear();
    ExpectError(f, xgpuQueueCopyBuffer(queue, waits, signals, src, 0, dst, 0, kBytes),
                "XGPU-VUID-xgpuQueueCopyBuffer-semaphores");
  }
  CHECK(w.Read(dst) == Filled(0));
  CHECK(w.Value(w.amdgpu, amdgpu_semaphore) == 1);
  // A semaphore of another device of the same driver: waited for, signalled.
  const XgpuSemaphoreList peer_wait = {1, &peer_semaphore, &one};
  const XgpuSemaphoreList peer_signal = {1, &peer_semaphore, &two};
  f.log.Clear();
  CHECK(xgpuQueueFillBuffer(queue, &peer_wait, &peer_signal, dst, 0, kBytes, &pattern, 4) == XGPU_SUCCESS);
  CHECK(xgpuQueueWaitIdle(queue) == XGPU_SUCCESS);
  f.ExpectNone();
  CHECK(w.Read(dst) == Filled(pattern));
  CHECK(w.Value(w.peer, peer_semaphore) == 2);
}

// ---- memory types ----

RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-static-hostVisible") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuBuffer device_counts = w.Buffer(w.device, kDeviceOnlyType);
  const XgpuBuffer host_counts = w.HostBuffer();
  const XgpuBufferRef device_ref = xgpuBufferRefRange(device_counts, 0, 12);
  const XgpuBufferRef host_ref = xgpuBufferRefRange(host_counts, 0, 12);
  XgpuCommandBuffer cb = w.ReadyToDispatch(kComputeFamily);
  f.log.Clear();
  xgpuCmdDispatchIndirect(cb, &device_ref, XGPU_DISPATCH_INDIRECT_STATIC_BIT);
  ExpectRecordingError(f, cb, "XGPU-VUID-xgpuCmdDispatchIndirect-static-hostVisible");
  // Static counts in host-visible memory, and dynamic counts anywhere.
  XgpuCommandBuffer ok = w.ReadyToDispatch(kComputeFamily);
  f.log.Clear();
  xgpuCmdDispatchIndirect(ok, &host_ref, XGPU_DISPATCH_INDIRECT_STATIC_BIT);
  xgpuCmdDispatchIndirect(ok, &device_ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  CHECK(xgpuEndCommandBuffer(ok) == XGPU_SUCCESS);
  f.ExpectNone();
  // The driver does not map memory that is not host-visible.
  void* data = nullptr;
  CHECK(xgpuMapBuffer(w.device, device_counts, 0, XGPU_WHOLE_SIZE, &data) == XGPU_ERROR_MEMORY_MAP_FAILED);
  f.log.Clear();
}

// The same rule at submission, for counts in a binding-table slot.
TEST_CASE("XGPU-VUID-xgpuCmdDispatchIndirect-static-hostVisible at xgpuQueueSubmit: static counts in a slot") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuBuffer device_counts = w.Buffer(w.device, kDeviceOnlyType);
  const XgpuBuffer host_counts = w.HostBuffer();
  const XgpuBufferRef slot = xgpuBufferRefSlot(0, 0, 12);
  XgpuCommandBuffer cb = w.ReadyToDispatch(kComputeFamily, 1);
  xgpuCmdDispatchIndirect(cb, &slot, XGPU_DISPATCH_INDIRECT_STATIC_BIT);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuBufferBinding binding = {device_counts, 0, XGPU_WHOLE_SIZE};
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  submit.bindingCount = 1;
  submit.pBindings = &binding;
  f.log.Clear();
  const XgpuResult refused = xgpuQueueSubmit(w.queues[kComputeFamily], 1, &submit);
  f.ExpectOnly("XGPU-VUID-xgpuCmdDispatchIndirect-static-hostVisible", "xgpuQueueSubmit");
  CHECK(std::string(xgpuResultString(refused)) == ErrorOfRule("XGPU-VUID-xgpuCmdDispatchIndirect-static-hostVisible"));
  // Bound to host-visible memory the layer passes it on, and the driver
  // answers for itself: it runs no kernels.
  binding.buffer = host_counts;
  f.log.Clear();
  CHECK(xgpuQueueSubmit(w.queues[kComputeFamily], 1, &submit) == XGPU_ERROR_FEATURE_NOT_PRESENT);
  f.ExpectNone();
}

// The test driver itself: a submission with a dispatch fails without running
// anything (it runs no kernels), and a submission's copy through binding-table
// slots reads and writes the bound ranges.
TEST_CASE("validation test driver: slots resolve at submit; dispatches are refused, not pretended") {
  Fixture& f = Fixture::Get();
  World w;
  const XgpuBuffer src = w.HostBuffer();
  const XgpuBuffer dst = w.HostBuffer();
  w.Write(src, 11);
  XgpuCommandBuffer copy = w.Recording(kBothFamily, 2);
  const XgpuBufferRef from = xgpuBufferRefSlot(0, 16, 64);
  const XgpuBufferRef to = xgpuBufferRefSlot(1, 0, 64);
  xgpuCmdCopyBuffer(copy, &from, &to, 64);
  REQUIRE(xgpuEndCommandBuffer(copy) == XGPU_SUCCESS);
  const XgpuBufferBinding bindings[2] = {{src, 0, XGPU_WHOLE_SIZE}, {dst, 64, 128}};
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = copy;
  submit.bindingCount = 2;
  submit.pBindings = bindings;
  CHECK(xgpuQueueSubmit(w.queues[kBothFamily], 1, &submit) == XGPU_SUCCESS);
  CHECK(xgpuQueueWaitIdle(w.queues[kBothFamily]) == XGPU_SUCCESS);
  std::vector<uint8_t> expected(kBytes, 0);
  for (int i = 0; i < 64; ++i) expected[64 + i] = static_cast<uint8_t>(11 + 16 + i);
  CHECK(w.Read(dst) == expected);

  const XgpuSemaphore done = w.Semaphore(w.device, 0);
  const uint64_t one = 1;
  XgpuCommandBuffer dispatch = w.ReadyToDispatch(kComputeFamily);
  xgpuCmdDispatch(dispatch, 1, 1, 1);
  REQUIRE(xgpuEndCommandBuffer(dispatch) == XGPU_SUCCESS);
  CHECK(SubmitOne(w.queues[kComputeFamily], dispatch, {}, XgpuSemaphoreList{1, &done, &one}) ==
        XGPU_ERROR_FEATURE_NOT_PRESENT);
  uint64_t value = 0;
  CHECK(xgpuGetSemaphoreValue(w.device, done, &value) == XGPU_ERROR_FEATURE_NOT_PRESENT);
  f.ExpectNone();
}

}  // namespace
}  // namespace vtest
