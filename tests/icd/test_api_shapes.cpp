// The API's ergonomic shapes, end to end through the driver on hsa-cpu:
// zero-initialized buffer references name no buffer, the inline reference
// constructors, xgpuCmdMemoryBarrier, the grid limits a pipeline reports and
// the driver enforces, the instance-creation messenger's lifetime, and a
// second destroy of a destroyed handle.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "icd_test_util.h"

using namespace icdtest;

namespace {

// Records (message ID, text) of every message it receives.
struct IdLog {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> entries;

  static XgpuBool32 callback(XgpuDebugMessageSeverityFlagBits, XgpuDebugMessageTypeFlags,
                             const XgpuDebugMessageData* data, void* user) {
    auto* log = static_cast<IdLog*>(user);
    std::lock_guard<std::mutex> lock(log->mutex);
    log->entries.emplace_back(data->pMessageIdName ? data->pMessageIdName : "", data->pMessage ? data->pMessage : "");
    return XGPU_FALSE;
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mutex);
    return entries.size();
  }
  // The text of the first message with this ID ("" if none).
  std::string text_of(const std::string& id) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [message_id, text] : entries)
      if (message_id == id) return text;
    return "";
  }
  bool contains(const std::string& needle) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& entry : entries)
      if (entry.second.find(needle) != std::string::npos) return true;
    return false;
  }
  std::vector<std::string> ids() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::string> out;
    for (const auto& entry : entries) out.push_back(entry.first);
    return out;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    entries.clear();
  }
};

XgpuDebugMessengerCreateInfo messenger_info(IdLog* log, XgpuDebugMessageSeverityFlags severities) {
  XgpuDebugMessengerCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
  info.messageSeverity = severities;
  info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
  info.pfnUserCallback = &IdLog::callback;
  info.pUserData = log;
  return info;
}

// An Env plus a messenger that keeps message IDs.
struct IdEnv : Env {
  IdLog ids;
  XgpuDebugMessenger id_messenger = nullptr;
  IdEnv() : Env(1, 1) {
    const XgpuDebugMessengerCreateInfo info =
        messenger_info(&ids, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT);
    REQUIRE(api().CreateDebugMessenger(instance, &info, nullptr, &id_messenger) == XGPU_SUCCESS);
  }
  ~IdEnv() { api().DestroyDebugMessenger(instance, id_messenger, nullptr); }

  template <typename Pfn>
  Pfn entry(const char* name) {
    auto function = reinterpret_cast<Pfn>(api().GetDeviceProcAddr(device(), name));
    REQUIRE_MESSAGE((function != nullptr), name);
    return function;
  }
};

}  // namespace

TEST_CASE("buffer references: the inline constructors build the three kinds") {
  XgpuBuffer buffer = reinterpret_cast<XgpuBuffer>(uintptr_t(0x1000));
  const XgpuBufferRef whole = xgpuBufferRefWhole(buffer);
  CHECK(whole.kind == XGPU_BUFFER_REF_KIND_BUFFER);
  CHECK(whole.buffer == buffer);
  CHECK(whole.bindingSlot == 0);
  CHECK(whole.offset == 0);
  CHECK(whole.size == XGPU_WHOLE_SIZE);
  const XgpuBufferRef range = xgpuBufferRefRange(buffer, 256, 64);
  CHECK(range.kind == XGPU_BUFFER_REF_KIND_BUFFER);
  CHECK(range.buffer == buffer);
  CHECK(range.offset == 256);
  CHECK(range.size == 64);
  const XgpuBufferRef slot = xgpuBufferRefSlot(3, 16, XGPU_WHOLE_SIZE);
  CHECK(slot.kind == XGPU_BUFFER_REF_KIND_BINDING_SLOT);
  CHECK(slot.buffer == XGPU_NULL_HANDLE);
  CHECK(slot.bindingSlot == 3);
  CHECK(slot.offset == 16);
  CHECK(slot.size == XGPU_WHOLE_SIZE);
  // Zero is "a buffer", so a zero-initialized reference names no buffer.
  const XgpuBufferRef zero{};
  CHECK(zero.kind == XGPU_BUFFER_REF_KIND_BUFFER);
  CHECK(zero.buffer == XGPU_NULL_HANDLE);
}

TEST_CASE("buffer references: a malformed reference is a recording error with its rule's ID") {
  IdEnv env;
  auto fill = env.entry<PFN_xgpuCmdFillBuffer>("xgpuCmdFillBuffer");
  auto barrier = env.entry<PFN_xgpuCmdPipelineBarrier>("xgpuCmdPipelineBarrier");
  XgpuBuffer buffer = env.buffer(256);
  const uint32_t pattern = 7;

  struct Case {
    const char* name;
    XgpuBufferRef ref;
    const char* id;      // expected pMessageIdName
    const char* field;   // expected in the text
  };
  XgpuBufferRef slot_with_buffer = xgpuBufferRefSlot(0, 0, XGPU_WHOLE_SIZE);
  slot_with_buffer.buffer = buffer;
  XgpuBufferRef buffer_with_slot = xgpuBufferRefWhole(buffer);
  buffer_with_slot.bindingSlot = 3;
  XgpuBufferRef bad_kind = xgpuBufferRefWhole(buffer);
  bad_kind.kind = XgpuBufferRefKind(7);
  const Case cases[] = {
      {"zero-initialized", XgpuBufferRef{}, "XGPU-VUID-xgpuCmdFillBuffer-pDst-kind", "pDst->buffer"},
      {"slot with a buffer", slot_with_buffer, "XGPU-VUID-xgpuCmdFillBuffer-pDst-kind", "pDst->buffer"},
      {"buffer with a slot", buffer_with_slot, "XGPU-VUID-xgpuCmdFillBuffer-pDst-kind", "pDst->bindingSlot"},
      {"unknown kind", bad_kind, "XGPU-VUID-xgpuCmdFillBuffer-pDst-kind-parameter", "pDst->kind (7)"},
      {"slot beyond the capacity", xgpuBufferRefSlot(2, 0, XGPU_WHOLE_SIZE),
       "XGPU-VUID-xgpuCmdFillBuffer-pDst-bindingSlot", "pDst->bindingSlot (2)"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 2);
      env.ids.clear();
      fill(cb, &c.ref, &pattern, sizeof pattern);
      CHECK(api().EndCommandBuffer(cb) == XGPU_ERROR_INVALID_ARGUMENT);
      const std::vector<std::string> ids = env.ids.ids();
      REQUIRE(ids.size() == 1);
      CHECK(ids[0] == c.id);
      const std::string text = env.ids.text_of(c.id);
      CHECK_MESSAGE(text.find(c.field) != std::string::npos, text);
      CHECK_MESSAGE(text.find("xgpuCmdFillBuffer") == 0, text);
      api().DestroyCommandBuffer(env.device(), cb, nullptr);
    }
  }
  SUBCASE("an element of an array names its index and member") {
    XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 0);
    XgpuBufferMemoryBarrier barriers[2] = {};
    for (XgpuBufferMemoryBarrier& b : barriers) {
      b.sType = XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
      b.srcAccessMask = XGPU_ACCESS_TRANSFER_WRITE_BIT;
      b.dstAccessMask = XGPU_ACCESS_TRANSFER_READ_BIT;
    }
    barriers[0].buffer = xgpuBufferRefWhole(buffer);  // barriers[1].buffer stays zero: no buffer
    env.ids.clear();
    barrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_PIPELINE_STAGE_TRANSFER_BIT, 0, nullptr, 2, barriers);
    CHECK(api().EndCommandBuffer(cb) == XGPU_ERROR_INVALID_ARGUMENT);
    REQUIRE(env.ids.size() == 1);
    const std::string text = env.ids.text_of("XGPU-VUID-xgpuCmdPipelineBarrier-pBufferBarriers-kind");
    CHECK_MESSAGE(text.find("pBufferBarriers[1].buffer.buffer") != std::string::npos, text);
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
  }
  api().DestroyBuffer(env.device(), buffer, nullptr);
}

TEST_CASE("xgpuCmdMemoryBarrier: orders a fill before a copy of what it wrote; zero stage masks are refused") {
  IdEnv env;
  auto fill = env.entry<PFN_xgpuCmdFillBuffer>("xgpuCmdFillBuffer");
  auto copy = env.entry<PFN_xgpuCmdCopyBuffer>("xgpuCmdCopyBuffer");
  auto memory_barrier = env.entry<PFN_xgpuCmdMemoryBarrier>("xgpuCmdMemoryBarrier");
  constexpr uint64_t kBytes = 1 << 16;
  XgpuBuffer a = env.buffer(kBytes), b = env.buffer(kBytes);

  SUBCASE("positive") {
    std::memset(env.map(b), 0, kBytes);
    XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    const uint32_t pattern = 0xC0FFEE11u;
    const XgpuBufferRef ra = xgpuBufferRefWhole(a), rb = xgpuBufferRefWhole(b);
    fill(cb, &ra, &pattern, sizeof pattern);
    memory_barrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                   XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_READ_BIT);
    copy(cb, &ra, &rb, kBytes);
    REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
    XgpuSemaphore done = env.semaphore();
    REQUIRE(submit_barrier(env.queue(), {}, {}, {done}, {1}, cb) == XGPU_SUCCESS);
    REQUIRE(env.wait(done, 1) == XGPU_SUCCESS);
    const auto* words = static_cast<const uint32_t*>(env.map(b));
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < kBytes / 4; ++i) wrong += words[i] != pattern;
    CHECK(wrong == 0);
    CHECK(env.ids.size() == 0);
    api().DestroySemaphore(env.device(), done, nullptr);
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
  }
  SUBCASE("srcStageMask 0") {
    XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    env.ids.clear();
    memory_barrier(cb, 0, XGPU_ACCESS_TRANSFER_WRITE_BIT, XGPU_PIPELINE_STAGE_TRANSFER_BIT,
                   XGPU_ACCESS_TRANSFER_READ_BIT);
    CHECK(api().EndCommandBuffer(cb) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.ids.ids() == std::vector<std::string>{"XGPU-VUID-xgpuCmdMemoryBarrier-srcStageMask"});
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
  }
  SUBCASE("dstStageMask 0 (xgpuCmdPipelineBarrier too)") {
    auto barrier = env.entry<PFN_xgpuCmdPipelineBarrier>("xgpuCmdPipelineBarrier");
    XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    env.ids.clear();
    barrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr);
    CHECK(api().EndCommandBuffer(cb) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.ids.ids() == std::vector<std::string>{"XGPU-VUID-xgpuCmdPipelineBarrier-dstStageMask"});
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
  }
  api().DestroyBuffer(env.device(), a, nullptr);
  api().DestroyBuffer(env.device(), b, nullptr);
}

TEST_CASE("grid limits: limits.maxGridSize and the pipeline's maxWorkgroupCount are what the driver enforces") {
  IdEnv env;
  XgpuPhysicalDeviceProperties properties{};
  api().GetPhysicalDeviceProperties(env.physical_devices[0], &properties);
  const XgpuPhysicalDeviceLimits& limits = properties.limits;
  for (int d = 0; d < 3; ++d) {
    CHECK(limits.maxGridSize[d] >= limits.maxWorkgroupSize[d]);
    CHECK(limits.maxWorkgroupCount[d] <= limits.maxGridSize[d]);
  }
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_saxpy", 2, 8, 64);
  XgpuPipelineProperties pipeline_properties{};
  api().GetPipelineProperties(env.device(), pipeline, &pipeline_properties);
  REQUIRE(pipeline_properties.workgroupSize[0] == 64);
  for (int d = 0; d < 3; ++d) {
    const uint32_t size = pipeline_properties.workgroupSize[d];
    const uint32_t expected = std::min(limits.maxWorkgroupCount[d], limits.maxGridSize[d] / size);
    CHECK(pipeline_properties.maxWorkgroupCount[d] == expected);
  }
  // hsa-cpu's grid is 32 bits per dimension: groups of 64 items allow fewer
  // groups than groups of one item.
  CHECK(pipeline_properties.maxWorkgroupCount[0] < limits.maxWorkgroupCount[0]);

  XgpuBuffer x = env.buffer(256), y = env.buffer(256);
  const XgpuBufferRef refs[2] = {xgpuBufferRefWhole(x), xgpuBufferRefWhole(y)};
  const float constants[2] = {1.0f, 0.0f};
  auto record = [&](uint32_t groups) {
    XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    api().CmdBindPipeline(cb, pipeline);
    api().CmdBindBuffers(cb, 0, 2, refs);
    api().CmdPushConstants(cb, 0, sizeof constants, constants);
    api().CmdDispatch(cb, groups, 1, 1);
    const XgpuResult result = api().EndCommandBuffer(cb);
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
    return result;
  };
  env.ids.clear();
  CHECK(record(pipeline_properties.maxWorkgroupCount[0]) == XGPU_SUCCESS);  // recorded, never submitted
  CHECK(env.ids.size() == 0);
  CHECK(record(pipeline_properties.maxWorkgroupCount[0] + 1) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(env.ids.ids() == std::vector<std::string>{"XGPU-VUID-xgpuCmdDispatch-groupCount"});
  CHECK(env.ids.text_of("XGPU-VUID-xgpuCmdDispatch-groupCount").find("maxGridSize") != std::string::npos);
  api().DestroyBuffer(env.device(), x, nullptr);
  api().DestroyBuffer(env.device(), y, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}

TEST_CASE("debug messengers: one chained to the instance create info sees creation and destruction only") {
  init_api();
  IdLog chained, created;
  const XgpuDebugMessageSeverityFlags all = XGPU_DEBUG_MESSAGE_SEVERITY_VERBOSE_BIT |
                                            XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT |
                                            XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT |
                                            XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;
  const XgpuDebugMessengerCreateInfo chained_info = messenger_info(&chained, all);
  XgpuInstanceCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = &chained_info;
  XgpuInstance instance = nullptr;
  REQUIRE(api().CreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  load_instance_functions(instance);
  const size_t during_creation = chained.size();
  // The Vulkan idiom: chain one for creation, then create one for the rest.
  const XgpuDebugMessengerCreateInfo created_info = messenger_info(&created, all);
  XgpuDebugMessenger messenger = nullptr;
  REQUIRE(api().CreateDebugMessenger(instance, &created_info, nullptr, &messenger) == XGPU_SUCCESS);

  uint32_t count = 1;
  XgpuPhysicalDevice physical = nullptr;
  REQUIRE(api().EnumeratePhysicalDevices(instance, &count, &physical) >= XGPU_SUCCESS);
  XgpuDeviceQueueCreateInfo queue_info{};
  queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueCount = 1;
  XgpuDeviceCreateInfo device_info{};
  device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  XgpuDevice device = nullptr;
  REQUIRE(api().CreateDevice(physical, &device_info, nullptr, &device) == XGPU_SUCCESS);
  auto create_buffer = reinterpret_cast<PFN_xgpuCreateBuffer>(api().GetDeviceProcAddr(device, "xgpuCreateBuffer"));
  auto destroy_device = reinterpret_cast<PFN_xgpuDestroyDevice>(api().GetDeviceProcAddr(device, "xgpuDestroyDevice"));
  REQUIRE((create_buffer && destroy_device));
  XgpuBufferCreateInfo buffer_info{};
  buffer_info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = 0;  // an error the driver reports
  buffer_info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
  XgpuBuffer buffer = nullptr;
  CHECK(create_buffer(device, &buffer_info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(created.contains("xgpuCreateBuffer"));  // the created messenger heard the error ...
  CHECK(chained.size() == during_creation);  // ... the chained one did not: it is not a second messenger
  destroy_device(device, nullptr);
  api().DestroyDebugMessenger(instance, messenger, nullptr);
  api().DestroyInstance(instance, nullptr);
  CHECK(during_creation > 0);  // it did hear instance creation (the loader's and driver's messages)
}

TEST_CASE("destroying a handle twice is reported and harmless") {
  IdEnv env;
  const XgpuDevice device = env.device();
  auto expect_one = [&](const char* id) {
    const std::vector<std::string> ids = env.ids.ids();
    REQUIRE(ids.size() == 1);
    CHECK(ids[0] == id);
    CHECK_MESSAGE(env.ids.text_of(id).find("destroyed already") != std::string::npos, env.ids.text_of(id));
    env.ids.clear();
  };
  env.ids.clear();
  SUBCASE("buffer") {
    XgpuBuffer buffer = env.buffer(4096);
    api().DestroyBuffer(device, buffer, nullptr);
    CHECK(env.ids.size() == 0);
    api().DestroyBuffer(device, buffer, nullptr);
    expect_one("XGPU-VUID-xgpuDestroyBuffer-buffer-parameter");
    // The device's memory is intact: a new buffer works.
    XgpuBuffer again = env.buffer(4096);
    std::memset(env.map(again), 0x5A, 4096);
    CHECK(static_cast<const uint8_t*>(env.map(again))[4095] == 0x5A);
    api().DestroyBuffer(device, again, nullptr);
    CHECK(env.ids.size() == 0);
  }
  SUBCASE("semaphore") {
    XgpuSemaphore semaphore = env.semaphore(5);
    api().DestroySemaphore(device, semaphore, nullptr);
    api().DestroySemaphore(device, semaphore, nullptr);
    expect_one("XGPU-VUID-xgpuDestroySemaphore-semaphore-parameter");
  }
  SUBCASE("executable and pipeline") {
    XgpuExecutable executable = env.test_executable();
    XgpuPipeline pipeline = env.pipeline(executable, "icd_saxpy", 2, 8, 64);
    api().DestroyPipeline(device, pipeline, nullptr);
    api().DestroyPipeline(device, pipeline, nullptr);
    expect_one("XGPU-VUID-xgpuDestroyPipeline-pipeline-parameter");
    api().DestroyExecutable(device, executable, nullptr);
    api().DestroyExecutable(device, executable, nullptr);
    expect_one("XGPU-VUID-xgpuDestroyExecutable-executable-parameter");
  }
  SUBCASE("command buffer") {
    XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    api().DestroyCommandBuffer(device, cb, nullptr);
    api().DestroyCommandBuffer(device, cb, nullptr);
    expect_one("XGPU-VUID-xgpuDestroyCommandBuffer-commandBuffer-parameter");
  }
  SUBCASE("memory pool, and a second dealloca") {
    XgpuMemoryPoolCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
    info.memoryTypeIndex = uint32_t(env.memory_type(XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT));
    XgpuMemoryPool pool = nullptr;
    REQUIRE(api().CreateMemoryPool(device, &info, nullptr, &pool) == XGPU_SUCCESS);
    XgpuSemaphore done = env.semaphore();
    const uint64_t one = 1;
    const XgpuSemaphoreList signal = {1, &done, &one};
    XgpuBuffer scratch = nullptr;
    REQUIRE(api().QueueAlloca(env.queue(), nullptr, nullptr, pool, 1024, XGPU_BUFFER_USAGE_STORAGE_BIT, &scratch) ==
            XGPU_SUCCESS);
    REQUIRE(api().QueueDealloca(env.queue(), nullptr, &signal, scratch) == XGPU_SUCCESS);
    REQUIRE(env.wait(done, 1) == XGPU_SUCCESS);
    CHECK(env.ids.size() == 0);
    CHECK(api().QueueDealloca(env.queue(), nullptr, nullptr, scratch) == XGPU_ERROR_INVALID_ARGUMENT);
    expect_one("XGPU-VUID-xgpuQueueDealloca-buffer-parameter");
    api().DestroyMemoryPool(device, pool, nullptr);
    api().DestroyMemoryPool(device, pool, nullptr);
    expect_one("XGPU-VUID-xgpuDestroyMemoryPool-memoryPool-parameter");
    api().DestroySemaphore(device, done, nullptr);
  }
  SUBCASE("a handle the device never made is reported, not dereferenced") {
    XgpuBuffer buffer = env.buffer(256);
    // A never-created value: reported, never dereferenced.
    api().DestroyBuffer(device, reinterpret_cast<XgpuBuffer>(uintptr_t(0xdead0000)), nullptr);
    expect_one("XGPU-VUID-xgpuDestroyBuffer-buffer-parameter");
    api().DestroyBuffer(device, buffer, nullptr);
    CHECK(env.ids.size() == 0);
  }
}
