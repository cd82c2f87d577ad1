// End-to-end tests of command buffers through the loader on hsa-cpu:
// dispatches, transfers, barriers, reuse with binding tables, concurrency,
// indirect dispatch (also with counts in queue-allocated buffers, and counts
// beyond the limits, which lose the device), timestamps, record-time errors.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "xgpu/xgpu.h"

namespace {

constexpr uint64_t kTimeoutNs = 20'000'000'000ull;  // bound of every wait

struct Messages {
  std::mutex mutex;
  std::vector<std::string> ids;    // pMessageIdName of errors
  std::vector<std::string> texts;  // pMessage of errors
  static XgpuBool32 XGPU_API_PTR callback(XgpuDebugMessageSeverityFlagBits, XgpuDebugMessageTypeFlags,
                                          const XgpuDebugMessageData* data, void* user) {
    auto* self = static_cast<Messages*>(user);
    std::lock_guard<std::mutex> lock(self->mutex);
    self->ids.push_back(data->pMessageIdName ? data->pMessageIdName : "");
    self->texts.push_back(data->pMessage ? data->pMessage : "");
    return XGPU_FALSE;
  }
  bool has(const std::string& id) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& m : ids)
      if (m == id) return true;
    return false;
  }
  // The first message containing every one of `parts`, or "".
  std::string find(std::initializer_list<std::string> parts) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& text : texts) {
      bool all = true;
      for (const auto& part : parts) all = all && text.find(part) != std::string::npos;
      if (all) return text;
    }
    return "";
  }
  std::string all() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string out;
    for (const auto& text : texts) out += text + "\n";
    return out;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    ids.clear();
    texts.clear();
  }
};

struct Buffer {
  XgpuBuffer handle = XGPU_NULL_HANDLE;  // the buffer
  uint8_t* data = nullptr;               // mapped bytes
  uint64_t size = 0;                     // bytes
  template <typename T>
  T* as() const { return reinterpret_cast<T*>(data); }
};

constexpr XgpuBufferUsageFlags kUsage = XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                        XGPU_BUFFER_USAGE_TRANSFER_DST_BIT | XGPU_BUFFER_USAGE_INDIRECT_BIT;

struct Env {
  Messages messages;
  XgpuInstance instance = nullptr;
  XgpuDebugMessenger messenger = XGPU_NULL_HANDLE;
  XgpuPhysicalDevice physical = nullptr;
  XgpuDevice device = nullptr;
  XgpuQueue queues[2] = {};
  uint32_t host_type = 0;
  XgpuExecutable executable = XGPU_NULL_HANDLE;
  std::vector<Buffer> buffers;
  std::vector<XgpuPipeline> pipelines;
  std::vector<XgpuCommandBuffer> command_buffers;
  std::vector<XgpuSemaphore> semaphores;

  Env() {
    XgpuInstanceCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
    XgpuDebugMessengerCreateInfo messenger_info{};
    messenger_info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
    messenger_info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;
    messenger_info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
    messenger_info.pfnUserCallback = &Messages::callback;
    messenger_info.pUserData = &messages;
    REQUIRE(xgpuCreateDebugMessenger(instance, &messenger_info, nullptr, &messenger) == XGPU_SUCCESS);
    uint32_t count = 1;
    REQUIRE(xgpuEnumeratePhysicalDevices(instance, &count, &physical) >= XGPU_SUCCESS);
    REQUIRE(count >= 1);
    XgpuPhysicalDeviceMemoryProperties memory{};
    xgpuGetPhysicalDeviceMemoryProperties(physical, &memory);
    bool found = false;
    for (uint32_t i = 0; i < memory.memoryTypeCount && !found; ++i) {
      if (memory.memoryTypes[i].propertyFlags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        host_type = i;
        found = true;
      }
    }
    REQUIRE(found);
    XgpuDeviceQueueCreateInfo queue_info{};
    queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueCount = 2;
    XgpuDeviceCreateInfo device_info{};
    device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    REQUIRE(xgpuCreateDevice(physical, &device_info, nullptr, &device) == XGPU_SUCCESS);
    xgpuGetDeviceQueue(device, 0, 0, &queues[0]);
    xgpuGetDeviceQueue(device, 0, 1, &queues[1]);
    XgpuExecutableCreateInfo executable_info{};
    executable_info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
    executable_info.pFilePath = XGPU_COMMANDS_TEST_KERNELS;
    REQUIRE(xgpuCreateExecutable(device, &executable_info, nullptr, &executable) == XGPU_SUCCESS);
  }
  ~Env() {
    xgpuDeviceWaitIdle(device);
    for (XgpuCommandBuffer cb : command_buffers) xgpuDestroyCommandBuffer(device, cb, nullptr);
    for (XgpuPipeline p : pipelines) xgpuDestroyPipeline(device, p, nullptr);
    for (XgpuSemaphore s : semaphores) xgpuDestroySemaphore(device, s, nullptr);
    for (Buffer& b : buffers) xgpuDestroyBuffer(device, b.handle, nullptr);
    xgpuDestroyExecutable(device, executable, nullptr);
    xgpuDestroyDevice(device, nullptr);
    xgpuDestroyDebugMessenger(instance, messenger, nullptr);
    xgpuDestroyInstance(instance, nullptr);
  }

  Buffer buffer(uint64_t size, XgpuBufferUsageFlags usage = kUsage) {
    XgpuBufferCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = size;
    info.usage = usage;
    info.memoryTypeIndex = host_type;
    Buffer b;
    b.size = size;
    REQUIRE(xgpuCreateBuffer(device, &info, nullptr, &b.handle) == XGPU_SUCCESS);
    void* data = nullptr;
    REQUIRE(xgpuMapBuffer(device, b.handle, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
    b.data = static_cast<uint8_t*>(data);
    std::memset(b.data, 0, size);
    buffers.push_back(b);
    return b;
  }
  XgpuPipeline pipeline(const char* name, uint32_t bindings, uint32_t constants, uint32_t wx, uint32_t wy = 1,
                        uint32_t wz = 1) {
    XgpuPipelineCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
    info.executable = executable;
    info.pEntryPoint = name;
    info.bindingCount = bindings;
    info.constantSize = constants;
    info.workgroupSize[0] = wx;
    info.workgroupSize[1] = wy;
    info.workgroupSize[2] = wz;
    XgpuPipeline p = XGPU_NULL_HANDLE;
    REQUIRE(xgpuCreatePipeline(device, &info, nullptr, &p) == XGPU_SUCCESS);
    pipelines.push_back(p);
    return p;
  }
  XgpuCommandBuffer begin(uint32_t binding_capacity = 0, XgpuCommandBufferMode mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT) {
    XgpuCommandBufferCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
    XgpuCommandBuffer cb = nullptr;
    REQUIRE(xgpuCreateCommandBuffer(device, &info, nullptr, &cb) == XGPU_SUCCESS);
    command_buffers.push_back(cb);
    XgpuCommandBufferBeginInfo begin_info{};
    begin_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin_info.mode = mode;
    begin_info.bindingCapacity = binding_capacity;
    REQUIRE(xgpuBeginCommandBuffer(cb, &begin_info) == XGPU_SUCCESS);
    return cb;
  }
  XgpuSemaphore semaphore() {
    XgpuSemaphoreCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    XgpuSemaphore s = XGPU_NULL_HANDLE;
    REQUIRE(xgpuCreateSemaphore(device, &info, nullptr, &s) == XGPU_SUCCESS);
    semaphores.push_back(s);
    return s;
  }
  // Submits and returns the result; signals `semaphore` to `value` if given.
  XgpuResult submit(XgpuQueue queue, XgpuCommandBuffer cb, const std::vector<XgpuBufferBinding>& bindings = {},
                    XgpuSemaphore semaphore = XGPU_NULL_HANDLE, uint64_t value = 0) {
    XgpuSubmitInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    info.commandBuffer = cb;
    info.bindingCount = uint32_t(bindings.size());
    info.pBindings = bindings.data();
    if (semaphore != XGPU_NULL_HANDLE) {
      info.signalSemaphores.count = 1;
      info.signalSemaphores.pSemaphores = &semaphore;
      info.signalSemaphores.pValues = &value;
    }
    return xgpuQueueSubmit(queue, 1, &info);
  }
  XgpuResult wait(XgpuSemaphore semaphore, uint64_t value) {
    XgpuSemaphoreWaitInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    info.semaphoreCount = 1;
    info.pSemaphores = &semaphore;
    info.pValues = &value;
    return xgpuWaitSemaphores(device, &info, kTimeoutNs);
  }
  // Submits `cb` on queue 0 and waits for it.
  void run(XgpuCommandBuffer cb, const std::vector<XgpuBufferBinding>& bindings = {}) {
    XgpuSemaphore s = semaphore();
    REQUIRE(submit(queues[0], cb, bindings, s, 1) == XGPU_SUCCESS);
    REQUIRE(wait(s, 1) == XGPU_SUCCESS);
  }
};

XgpuBufferRef ref(const Buffer& b, uint64_t offset = 0, uint64_t size = XGPU_WHOLE_SIZE) {
  return xgpuBufferRefRange(b.handle, offset, size);
}
XgpuBufferRef slot(uint32_t index, uint64_t offset = 0, uint64_t size = XGPU_WHOLE_SIZE) {
  return xgpuBufferRefSlot(index, offset, size);
}
XgpuBufferBinding bind(const Buffer& b, uint64_t offset = 0, uint64_t size = XGPU_WHOLE_SIZE) {
  return XgpuBufferBinding{b.handle, offset, size};
}
// Every earlier write made visible to every later access, indirect reads
// included (the DYNAMIC rule, XGPU-VUID-xgpuCmdDispatchIndirect-dynamic-barrier).
void barrier(XgpuCommandBuffer cb) {
  xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, XGPU_ACCESS_MEMORY_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT | XGPU_PIPELINE_STAGE_INDIRECT_BIT,
                       XGPU_ACCESS_MEMORY_READ_BIT | XGPU_ACCESS_MEMORY_WRITE_BIT | XGPU_ACCESS_INDIRECT_READ_BIT);
}

// Records the mark kernel (pipeline `mark`, output `out`, `limit` slots) as
// an indirect dispatch whose counts come from `counts`.
void record_mark_indirect(XgpuCommandBuffer cb, XgpuPipeline mark, const XgpuBufferRef& out, uint32_t limit,
                          const XgpuBufferRef& counts, XgpuDispatchIndirectFlags flags) {
  xgpuCmdBindPipeline(cb, mark);
  xgpuCmdBindBuffers(cb, 0, 1, &out);
  const uint32_t mark_constants[2] = {limit, 0};
  xgpuCmdPushConstants(cb, 0, sizeof(mark_constants), mark_constants);
  xgpuCmdDispatchIndirect(cb, &counts, flags);
}

struct ScaleConstants {
  float scale;        // multiplier
  float bias;         // addend
  uint32_t n;         // elements
  uint32_t reserved;  // 0
};

}  // namespace

TEST_CASE("saxpy end to end") {
  Env env;
  constexpr uint32_t n = 1000;
  Buffer x = env.buffer(n * 4), y = env.buffer(n * 4);
  for (uint32_t i = 0; i < n; ++i) {
    x.as<float>()[i] = float(i);
    y.as<float>()[i] = 1.0f;
  }
  XgpuPipeline saxpy = env.pipeline("saxpy", 2, 8, 64);
  XgpuCommandBuffer cb = env.begin();
  xgpuCmdBindPipeline(cb, saxpy);
  const XgpuBufferRef refs[2] = {ref(x), ref(y)};
  xgpuCmdBindBuffers(cb, 0, 2, refs);
  const struct { float a; uint32_t n; } constants = {2.0f, n};
  xgpuCmdPushConstants(cb, 0, sizeof(constants), &constants);
  xgpuCmdDispatch(cb, (n + 63) / 64, 1, 1);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  env.run(cb);
  for (uint32_t i = 0; i < n; ++i) REQUIRE(y.as<float>()[i] == 2.0f * float(i) + 1.0f);
}

TEST_CASE("multi-kernel pipeline with barriers and binding-table slots") {
  Env env;
  constexpr uint32_t n = 777;
  Buffer a = env.buffer(n * 4), b = env.buffer(n * 4), c = env.buffer(n * 4);
  for (uint32_t i = 0; i < n; ++i) a.as<float>()[i] = float(i);
  XgpuPipeline scale = env.pipeline("scale_bias", 2, 16, 32);
  XgpuCommandBuffer cb = env.begin(3);
  xgpuCmdBindPipeline(cb, scale);
  const XgpuBufferRef ab[2] = {slot(0), slot(1)}, bc[2] = {slot(1), slot(2)}, ca[2] = {slot(2), slot(0)};
  const ScaleConstants s1{2.0f, 1.0f, n, 0}, s2{3.0f, -1.0f, n, 0}, s3{0.5f, 0.0f, n, 0};
  xgpuCmdBindBuffers(cb, 0, 2, ab);
  xgpuCmdPushConstants(cb, 0, sizeof(s1), &s1);
  xgpuCmdDispatch(cb, (n + 31) / 32, 1, 1);
  barrier(cb);
  xgpuCmdBindBuffers(cb, 0, 2, bc);
  xgpuCmdPushConstants(cb, 0, sizeof(s2), &s2);
  xgpuCmdDispatch(cb, (n + 31) / 32, 1, 1);
  barrier(cb);
  xgpuCmdBindBuffers(cb, 0, 2, ca);
  xgpuCmdPushConstants(cb, 0, sizeof(s3), &s3);
  xgpuCmdDispatch(cb, (n + 31) / 32, 1, 1);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  env.run(cb, {bind(a), bind(b), bind(c)});
  for (uint32_t i = 0; i < n; ++i) {
    const float expected = ((float(i) * 2.0f + 1.0f) * 3.0f - 1.0f) * 0.5f;
    REQUIRE(a.as<float>()[i] == expected);
  }
}

TEST_CASE("fill, copy and update with odd sizes and offsets; guard bytes untouched") {
  Env env;
  constexpr uint64_t kSize = 4096;
  constexpr uint8_t kGuard = 0xA5;
  Buffer dst = env.buffer(kSize), src = env.buffer(kSize);
  for (uint64_t i = 0; i < kSize; ++i) src.data[i] = uint8_t(i * 7 + 3);
  const uint64_t offsets[] = {0, 1, 2, 3, 4, 6, 13, 16, 17, 100};
  const uint64_t sizes[] = {1, 2, 3, 4, 5, 15, 16, 17, 31, 33, 255, 1000, 2049};
  int cases = 0;
  for (uint32_t pattern_size : {1u, 2u, 4u}) {
    for (uint64_t offset : offsets) {
      for (uint64_t size : sizes) {
        if (offset % pattern_size || size % pattern_size || offset + size > kSize) continue;
        std::memset(dst.data, kGuard, kSize);
        const uint8_t pattern[4] = {0x11, 0x22, 0x33, 0x44};
        XgpuCommandBuffer cb = env.begin();
        const XgpuBufferRef r = ref(dst, offset, size);
        xgpuCmdFillBuffer(cb, &r, pattern, pattern_size);
        REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
        env.run(cb);
        for (uint64_t i = 0; i < kSize; ++i) {
          const bool inside = i >= offset && i < offset + size;
          const uint8_t expected = inside ? pattern[(i - offset) % pattern_size] : kGuard;
          REQUIRE_MESSAGE(dst.data[i] == expected, "fill pattern ", pattern_size, " offset ", offset, " size ", size,
                          " byte ", i);
        }
        ++cases;
      }
    }
  }
  for (uint64_t src_offset : {0, 1, 3, 16, 21}) {
    for (uint64_t dst_offset : offsets) {
      for (uint64_t size : sizes) {
        if (dst_offset + size > kSize || src_offset + size > kSize) continue;
        std::memset(dst.data, kGuard, kSize);
        XgpuCommandBuffer cb = env.begin(1);
        const XgpuBufferRef s = ref(src, src_offset), d = slot(0, dst_offset);
        xgpuCmdCopyBuffer(cb, &s, &d, size);
        REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
        env.run(cb, {bind(dst)});
        for (uint64_t i = 0; i < kSize; ++i) {
          const bool inside = i >= dst_offset && i < dst_offset + size;
          const uint8_t expected = inside ? src.data[src_offset + i - dst_offset] : kGuard;
          REQUIRE_MESSAGE(dst.data[i] == expected, "copy src ", src_offset, " dst ", dst_offset, " size ", size,
                          " byte ", i);
        }
        ++cases;
      }
    }
  }
  for (uint64_t offset : offsets) {
    for (uint64_t size : {1, 3, 17, 100, 1001}) {
      std::memset(dst.data, kGuard, kSize);
      std::vector<uint8_t> payload(size);
      for (uint64_t i = 0; i < size; ++i) payload[i] = uint8_t(i ^ 0x5A);
      XgpuCommandBuffer cb = env.begin();
      const XgpuBufferRef d = ref(dst, offset);
      xgpuCmdUpdateBuffer(cb, &d, size, payload.data());
      payload.assign(size, 0);  // recorded data is a copy
      REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
      env.run(cb);
      for (uint64_t i = 0; i < kSize; ++i) {
        const bool inside = i >= offset && i < offset + size;
        const uint8_t expected = inside ? uint8_t((i - offset) ^ 0x5A) : kGuard;
        REQUIRE_MESSAGE(dst.data[i] == expected, "update offset ", offset, " size ", size, " byte ", i);
      }
      ++cases;
    }
  }
  MESSAGE(cases, " transfer cases checked byte by byte");
}

TEST_CASE("barrier ordering: a read after a slow write sees it only with the barrier") {
  Env env;
  constexpr uint32_t n = 256;
  Buffer a = env.buffer(n * 4), b = env.buffer(n * 4);
  XgpuPipeline slow = env.pipeline("slow_write", 1, 16, 64);
  XgpuPipeline increment = env.pipeline("increment", 2, 8, 64);
  auto record = [&](bool with_barrier, uint32_t value) {
    XgpuCommandBuffer cb = env.begin();
    xgpuCmdBindPipeline(cb, slow);
    const XgpuBufferRef ra = ref(a);
    xgpuCmdBindBuffers(cb, 0, 1, &ra);
    const uint32_t constants[4] = {value, n, 200000, 0};
    xgpuCmdPushConstants(cb, 0, sizeof(constants), constants);
    xgpuCmdDispatch(cb, n / 64, 1, 1);
    if (with_barrier) barrier(cb);
    xgpuCmdBindPipeline(cb, increment);
    const XgpuBufferRef rab[2] = {ref(a), ref(b)};
    xgpuCmdBindBuffers(cb, 0, 2, rab);
    const uint32_t inc[2] = {n, 0};
    xgpuCmdPushConstants(cb, 0, sizeof(inc), inc);
    xgpuCmdDispatch(cb, n / 64, 1, 1);
    REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
    return cb;
  };
  for (uint32_t round = 1; round <= 5; ++round) {
    env.run(record(true, round * 10));
    for (uint32_t i = 0; i < n; ++i) REQUIRE(b.as<uint32_t>()[i] == round * 10 + 1);
  }
  // Without the barrier the read races the write: each element of b is
  // the old value of a (0) or the new one, plus 1 -- never anything else
  // (both dispatches still ran completely, each element exactly once).
  uint32_t stale = 0;
  for (uint32_t round = 1; round <= 5; ++round) {
    std::memset(a.data, 0, n * 4);
    env.run(record(false, 1000 + round));
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t v = b.as<uint32_t>()[i];
      REQUIRE_MESSAGE((v == 1 || v == 1000 + round + 1), "round ", round, " element ", i, " = ", v);
      stale += v == 1;
    }
  }
  MESSAGE("without the barrier, ", stale, " of ", 5 * n, " reads saw the value before the write (a race, "
          "observable when the device runs the packets concurrently)");
}

TEST_CASE("reusable command buffer: 1,000 replays with different binding tables, then from two queues") {
  Env env;
  constexpr uint32_t kReplays = 1000, kPer = 4;  // uint32 per replay (16 bytes: the offset alignment)
  Buffer src = env.buffer(kReplays * kPer * 4), dst = env.buffer(kReplays * kPer * 4);
  for (uint32_t i = 0; i < kReplays * kPer; ++i) src.as<uint32_t>()[i] = i * 3;
  XgpuPipeline increment = env.pipeline("increment", 2, 8, 4);
  XgpuCommandBuffer cb = env.begin(2, XGPU_COMMAND_BUFFER_MODE_REUSABLE);
  xgpuCmdBindPipeline(cb, increment);
  const XgpuBufferRef refs[2] = {slot(0), slot(1)};
  xgpuCmdBindBuffers(cb, 0, 2, refs);
  const uint32_t constants[2] = {kPer, 0};
  xgpuCmdPushConstants(cb, 0, sizeof(constants), constants);
  xgpuCmdDispatch(cb, 1, 1, 1);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore s = env.semaphore();
  for (uint32_t i = 0; i < kReplays; ++i) {
    const uint64_t offset = uint64_t(i) * kPer * 4;
    REQUIRE(env.submit(env.queues[0], cb, {bind(src, offset, kPer * 4), bind(dst, offset, kPer * 4)},
                       i + 1 == kReplays ? s : XGPU_NULL_HANDLE, 1) == XGPU_SUCCESS);
  }
  REQUIRE(env.wait(s, 1) == XGPU_SUCCESS);
  for (uint32_t i = 0; i < kReplays * kPer; ++i) REQUIRE(dst.as<uint32_t>()[i] == i * 3 + 1);

  // Concurrently from two queues, each with its own tables.
  std::memset(dst.data, 0, dst.size);
  XgpuSemaphore s0 = env.semaphore(), s1 = env.semaphore();
  for (uint32_t i = 0; i < kReplays; ++i) {
    const uint64_t offset = uint64_t(i) * kPer * 4;
    const uint32_t q = i % 2;
    REQUIRE(env.submit(env.queues[q], cb, {bind(src, offset, kPer * 4), bind(dst, offset, kPer * 4)},
                       q ? s1 : s0, i / 2 + 1) == XGPU_SUCCESS);
  }
  REQUIRE(env.wait(s0, kReplays / 2) == XGPU_SUCCESS);
  REQUIRE(env.wait(s1, kReplays / 2) == XGPU_SUCCESS);
  for (uint32_t i = 0; i < kReplays * kPer; ++i) REQUIRE(dst.as<uint32_t>()[i] == i * 3 + 1);
}

TEST_CASE("submissions of one reusable command buffer from 8 threads") {
  Env env;
  constexpr uint32_t kThreads = 8, kEach = 40, kPer = 4;
  constexpr uint32_t kSlots = kThreads * kEach;
  Buffer src = env.buffer(kSlots * kPer * 4), dst = env.buffer(kSlots * kPer * 4);
  for (uint32_t i = 0; i < kSlots * kPer; ++i) src.as<uint32_t>()[i] = i;
  XgpuPipeline increment = env.pipeline("increment", 2, 8, 4);
  XgpuCommandBuffer cb = env.begin(2, XGPU_COMMAND_BUFFER_MODE_REUSABLE);
  xgpuCmdBindPipeline(cb, increment);
  const XgpuBufferRef refs[2] = {slot(0), slot(1)};
  xgpuCmdBindBuffers(cb, 0, 2, refs);
  const uint32_t constants[2] = {kPer, 0};
  xgpuCmdPushConstants(cb, 0, sizeof(constants), constants);
  xgpuCmdDispatch(cb, 1, 1, 1);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  std::vector<XgpuSemaphore> sems;
  for (uint32_t t = 0; t < kThreads; ++t) sems.push_back(env.semaphore());
  std::atomic<uint32_t> failures{0};
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint32_t i = 0; i < kEach; ++i) {
        const uint64_t offset = uint64_t(t * kEach + i) * kPer * 4;
        if (env.submit(env.queues[t % 2], cb, {bind(src, offset, kPer * 4), bind(dst, offset, kPer * 4)}, sems[t],
                       i + 1) != XGPU_SUCCESS)
          failures.fetch_add(1);
      }
      if (env.wait(sems[t], kEach) != XGPU_SUCCESS) failures.fetch_add(1);
    });
  }
  for (auto& thread : threads) thread.join();
  REQUIRE(failures.load() == 0);
  for (uint32_t i = 0; i < kSlots * kPer; ++i) REQUIRE(dst.as<uint32_t>()[i] == i + 1);
}

namespace {

// Checks what the mark kernel recorded for a dispatch of `counts` workgroups
// of `size` work items.
void check_marks(const Buffer& out, uint32_t limit, const uint32_t counts[3], const uint32_t size[3]) {
  const uint32_t* o = out.as<uint32_t>();
  const uint32_t grid[3] = {counts[0] * size[0], counts[1] * size[1], counts[2] * size[2]};
  const uint32_t items = grid[0] * grid[1] * grid[2];
  REQUIRE(o[0] == items);
  if (items == 0) return;
  for (uint32_t i = 0; i < items && i < limit; ++i) REQUIRE(o[1 + i] == i + 1);
  CHECK(o[1 + limit] == grid[0]);
  CHECK(o[2 + limit] == grid[1]);
  CHECK(o[3 + limit] == grid[2]);
}

}  // namespace

TEST_CASE("indirect dispatch STATIC and DYNAMIC in 1D/2D/3D, zero counts, counts from a slot or the previous dispatch") {
  Env env;
  constexpr uint32_t kLimit = 4096;
  // Workgroups of 1, 2 and 3 dimensions: the counts may use more dimensions
  // than the workgroup does.
  const uint32_t shapes[][3] = {{4, 2, 2}, {8, 1, 1}, {4, 2, 1}};
  XgpuPipeline make_counts = env.pipeline("make_counts", 1, 16, 1);
  Buffer out = env.buffer((kLimit + 8) * 4);
  Buffer counts = env.buffer(64);
  const uint32_t cases[][3] = {{5, 1, 1}, {3, 4, 1}, {2, 3, 4}, {0, 1, 1}, {2, 0, 3}, {1, 1, 0}};
  for (const auto& shape : shapes) {
    XgpuPipeline mark = env.pipeline("mark", 1, 8, shape[0], shape[1], shape[2]);
    for (const auto& c : cases) {
      for (int mode = 0; mode < 4; ++mode) {
        // 0: STATIC, counts written by the host; 1: STATIC, counts in slot 1;
        // 2: DYNAMIC, counts from the host; 3: DYNAMIC, counts produced by the previous dispatch.
        CAPTURE(shape[0]);
        CAPTURE(shape[1]);
        CAPTURE(shape[2]);
        CAPTURE(mode);
        CAPTURE(c[0]);
        CAPTURE(c[1]);
        CAPTURE(c[2]);
        std::memset(out.data, 0, out.size);
        std::memset(counts.data, 0xFF, counts.size);
        if (mode != 3) std::memcpy(counts.data + 16, c, 12);
        XgpuCommandBuffer cb = env.begin(2);
        if (mode == 3) {
          xgpuCmdBindPipeline(cb, make_counts);
          const XgpuBufferRef r = ref(counts, 16, 16);
          xgpuCmdBindBuffers(cb, 0, 1, &r);
          const uint32_t k[4] = {c[0], c[1], c[2], 0};
          xgpuCmdPushConstants(cb, 0, sizeof(k), k);
          xgpuCmdDispatch(cb, 1, 1, 1);
          barrier(cb);
        }
        record_mark_indirect(cb, mark, slot(0), kLimit, mode == 1 ? slot(1, 0, 12) : ref(counts, 16, 12),
                             mode < 2 ? XGPU_DISPATCH_INDIRECT_STATIC_BIT : XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
        REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
        env.run(cb, {bind(out), bind(counts, 16)});
        check_marks(out, kLimit, c, shape);
      }
    }
  }
}

TEST_CASE("indirect dispatch flags: neither or both fail at record time with the VUID") {
  Env env;
  XgpuPipeline mark = env.pipeline("mark", 1, 8, 4, 2, 2);
  Buffer counts = env.buffer(64);
  for (XgpuDispatchIndirectFlags flags :
       {XgpuDispatchIndirectFlags(0),
        XgpuDispatchIndirectFlags(XGPU_DISPATCH_INDIRECT_STATIC_BIT | XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT)}) {
    XgpuCommandBuffer cb = env.begin();
    xgpuCmdBindPipeline(cb, mark);
    const XgpuBufferRef r = ref(counts);
    xgpuCmdBindBuffers(cb, 0, 1, &r);
    xgpuCmdDispatchIndirect(cb, &r, flags);
    CHECK(xgpuEndCommandBuffer(cb) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.messages.has("XGPU-VUID-xgpuCmdDispatchIndirect-flags"));
    CHECK(env.submit(env.queues[0], cb) != XGPU_SUCCESS);
  }
}

TEST_CASE("timestamps around a dispatch are ordered and non-zero") {
  Env env;
  Buffer stamps = env.buffer(64);
  Buffer a = env.buffer(1024);
  XgpuPipeline slow = env.pipeline("slow_write", 1, 16, 64);
  XgpuCommandBuffer cb = env.begin();
  const XgpuBufferRef t0 = ref(stamps, 0, 8), t1 = ref(stamps, 8, 8);
  xgpuCmdWriteTimestamp(cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, &t0);
  xgpuCmdBindPipeline(cb, slow);
  const XgpuBufferRef ra = ref(a);
  xgpuCmdBindBuffers(cb, 0, 1, &ra);
  // 256 work items spinning 200,000 iterations each: milliseconds on any host.
  constexpr uint32_t kSpin = 200000;
  const uint32_t constants[4] = {1, 256, kSpin, 0};
  xgpuCmdPushConstants(cb, 0, sizeof(constants), constants);
  xgpuCmdDispatch(cb, 4, 1, 1);
  xgpuCmdWriteTimestamp(cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, &t1);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuPhysicalDeviceProperties properties{};
  xgpuGetPhysicalDeviceProperties(env.physical, &properties);
  const double period_ns = properties.limits.timestampPeriod;
  REQUIRE(period_ns > 0.0);

  const auto submitted = std::chrono::steady_clock::now();
  env.run(cb);
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - submitted).count();
  const uint64_t* t = stamps.as<uint64_t>();
  CHECK(t[0] != 0);
  REQUIRE(t[1] > t[0]);
  const double between_ns = double(t[1] - t[0]) * period_ns;
  INFO("timestampPeriod " << period_ns << " ns; " << (t[1] - t[0]) << " ticks = " << between_ns / 1e6
                          << " ms between the stamps; " << wall_ns / 1e6 << " ms submit to wait on the host");
  // The stamps are taken inside the host's submit..wait window, so at the
  // device's period their distance is at most that window (slack: 1% for the
  // frequency's rounding, 0.1 ms for reading the two clocks).
  CHECK(between_ns > 0.0);
  CHECK(between_ns <= wall_ns * 1.01 + 100e3);
  // The kernel dominates the window: at least a millisecond, at least a
  // quarter of the window (a period off by a large factor fails one bound).
  CHECK(between_ns >= 1e6);
  CHECK(between_ns >= wall_ns / 4);
}

namespace {

// Largest workgroup count a dispatch with workgroups of `size` work items
// accepts in dimension `d`: the device limit and a 32-bit grid.
uint32_t count_limit(XgpuPhysicalDevice physical, int d, uint32_t size) {
  XgpuPhysicalDeviceProperties properties{};
  xgpuGetPhysicalDeviceProperties(physical, &properties);
  return std::min<uint32_t>(properties.limits.maxWorkgroupCount[d], UINT32_MAX / size);
}

XgpuSemaphoreList list_of(const XgpuSemaphore* semaphore, const uint64_t* value) {
  return XgpuSemaphoreList{1, semaphore, value};
}

XgpuResult host_signal(Env& env, XgpuSemaphore semaphore, uint64_t value) {
  XgpuSemaphoreSignalInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  info.semaphore = semaphore;
  info.value = value;
  return xgpuSignalSemaphore(env.device, &info);
}

XgpuMemoryPool make_pool(Env& env) {
  XgpuMemoryPoolCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  info.memoryTypeIndex = env.host_type;
  XgpuMemoryPool pool = XGPU_NULL_HANDLE;
  REQUIRE(xgpuCreateMemoryPool(env.device, &info, nullptr, &pool) == XGPU_SUCCESS);
  return pool;
}

// Every call that returns an XgpuResult on the command-buffer path reports
// the loss (api.md 6.1). `recording` was begun before the device was lost,
// `ended` ended before.
void check_command_buffers_report_loss(Env& env, XgpuCommandBuffer recording, XgpuCommandBuffer ended) {
  CHECK(xgpuEndCommandBuffer(recording) == XGPU_ERROR_DEVICE_LOST);
  XgpuCommandBufferBeginInfo begin_info{};
  begin_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin_info.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
  CHECK(xgpuBeginCommandBuffer(ended, &begin_info) == XGPU_ERROR_DEVICE_LOST);
  CHECK(xgpuBeginCommandBuffer(recording, &begin_info) == XGPU_ERROR_DEVICE_LOST);
  XgpuCommandBufferCreateInfo create_info{};
  create_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer created = nullptr;
  CHECK(xgpuCreateCommandBuffer(env.device, &create_info, nullptr, &created) == XGPU_ERROR_DEVICE_LOST);
  CHECK(created == XGPU_NULL_HANDLE);
  CHECK(env.submit(env.queues[0], ended) == XGPU_ERROR_DEVICE_LOST);
  CHECK_FALSE(env.messages.find({"xgpuCreateCommandBuffer: the device is lost"}).empty());
  CHECK_FALSE(env.messages.find({"xgpuBeginCommandBuffer: the device is lost"}).empty());
  CHECK_FALSE(env.messages.find({"xgpuEndCommandBuffer: the device is lost"}).empty());
}

}  // namespace

TEST_CASE("STATIC indirect counts above the limits fail their submission alone with the rule's ID: the device and later submissions carry on") {
  const uint32_t shape[3] = {4, 2, 2};
  Env env;  // one device for every case: none of them loses it
  XgpuPipeline mark = env.pipeline("mark", 1, 8, shape[0], shape[1], shape[2]);
  Buffer out = env.buffer(64), counts_buffer = env.buffer(64);
  struct Case {
    int dim;    // the dimension over the limit
    bool grid;  // UINT32_MAX: above the 32-bit grid whatever limits.maxWorkgroupCount is
  };
  for (const Case& c : {Case{0, false}, Case{2, true}, Case{1, false}}) {
    CAPTURE(c.dim);
    CAPTURE(c.grid);
    env.messages.clear();
    const uint32_t limit = count_limit(env.physical, c.dim, shape[c.dim]);
    REQUIRE(limit < UINT32_MAX);
    uint32_t counts[3] = {1, 1, 1};
    counts[c.dim] = c.grid ? UINT32_MAX : limit + 1;
    std::memset(out.data, 0, out.size);
    std::memcpy(counts_buffer.data + 16, counts, sizeof(counts));

    // A fill before the dispatch in the same submission: it does not run
    // either (the submission fails as a whole).
    XgpuCommandBuffer cb = env.begin();
    XgpuDebugLabel label{};
    label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
    label.pLabelName = "cull pass";
    const uint32_t pattern = 0xabcdabcdu;
    const XgpuBufferRef tail = ref(out, 48, 16);
    xgpuCmdFillBuffer(cb, &tail, &pattern, sizeof(pattern));
    xgpuCmdBeginDebugLabel(cb, &label);
    record_mark_indirect(cb, mark, ref(out, 0, 32), 4, ref(counts_buffer, 16, 12), XGPU_DISPATCH_INDIRECT_STATIC_BIT);
    xgpuCmdEndDebugLabel(cb);
    REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
    XgpuSemaphore s = env.semaphore();  // a failed semaphore stays failed: one per case
    REQUIRE(env.submit(env.queues[0], cb, {}, s, 1) == XGPU_SUCCESS);
    CHECK(env.wait(s, 1) == XGPU_ERROR_INVALID_ARGUMENT);

    CHECK(env.messages.has("XGPU-VUID-xgpuCmdDispatchIndirect-static-counts"));
    const std::string message = env.messages.find(
        {"xgpuCmdDispatchIndirect", "STATIC, kernel 'mark', inside debug labels 'cull pass'",
         std::string("xyz").substr(size_t(c.dim), 1) + " " + std::to_string(counts[c.dim]) + " > " +
             std::to_string(limit),
         "[XGPU-VUID-xgpuCmdDispatchIndirect-static-counts]", "the device is not lost"});
    CHECK_MESSAGE(!message.empty(), env.messages.all());
    MESSAGE(message);
    CHECK(out.as<uint32_t>()[0] == 0);   // the dispatch never ran
    CHECK(out.as<uint32_t>()[12] == 0);  // nor the fill before it

    // The device carries on: the same recording with counts in range runs,
    // on this queue and on the other one.
    const uint32_t good[3] = {2, 1, 1};
    std::memcpy(counts_buffer.data + 16, good, sizeof(good));
    for (XgpuQueue queue : {env.queues[0], env.queues[1]}) {
      std::memset(out.data, 0, out.size);
      XgpuCommandBuffer again = env.begin();
      record_mark_indirect(again, mark, ref(out, 0, 32), 4, ref(counts_buffer, 16, 12),
                           XGPU_DISPATCH_INDIRECT_STATIC_BIT);
      REQUIRE(xgpuEndCommandBuffer(again) == XGPU_SUCCESS);
      XgpuSemaphore done = env.semaphore();
      REQUIRE(env.submit(queue, again, {}, done, 1) == XGPU_SUCCESS);
      CHECK(env.wait(done, 1) == XGPU_SUCCESS);
      CHECK(out.as<uint32_t>()[0] == 2 * shape[0] * shape[1] * shape[2]);  // every work item ran
    }
  }
}

TEST_CASE("DYNAMIC indirect counts above the limits lose the device, naming the command, counts and limits") {
  const uint32_t shape[3] = {4, 2, 2};
  for (const int dim : {1, 0}) {
    const bool grid = dim == 0;  // UINT32_MAX: above the 32-bit grid whatever limits.maxWorkgroupCount is
    CAPTURE(dim);
    Env env;  // a fresh device per case: each one is lost
    const uint32_t limit = count_limit(env.physical, dim, shape[dim]);
    REQUIRE(limit < UINT32_MAX);
    uint32_t counts[3] = {1, 1, 1};
    counts[dim] = grid ? UINT32_MAX : limit + 1;
    XgpuPipeline mark = env.pipeline("mark", 1, 8, shape[0], shape[1], shape[2]);
    XgpuPipeline make_counts = env.pipeline("make_counts", 1, 16, 1);
    Buffer out = env.buffer(64), counts_buffer = env.buffer(64);
    XgpuCommandBuffer recording = env.begin();  // still recording when the device is lost
    XgpuCommandBuffer ended = env.begin(0, XGPU_COMMAND_BUFFER_MODE_REUSABLE);
    REQUIRE(xgpuEndCommandBuffer(ended) == XGPU_SUCCESS);

    XgpuCommandBuffer cb = env.begin();
    XgpuDebugLabel label{};
    label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
    label.pLabelName = "cull pass";
    xgpuCmdBeginDebugLabel(cb, &label);
    xgpuCmdBindPipeline(cb, make_counts);
    const XgpuBufferRef r = ref(counts_buffer, 16, 16);
    xgpuCmdBindBuffers(cb, 0, 1, &r);
    const uint32_t k[4] = {counts[0], counts[1], counts[2], 0};
    xgpuCmdPushConstants(cb, 0, sizeof(k), k);
    xgpuCmdDispatch(cb, 1, 1, 1);
    barrier(cb);
    record_mark_indirect(cb, mark, ref(out), 8, ref(counts_buffer, 16, 12), XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
    xgpuCmdEndDebugLabel(cb);
    REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
    XgpuSemaphore s = env.semaphore();
    REQUIRE(env.submit(env.queues[0], cb, {}, s, 1) == XGPU_SUCCESS);
    CHECK(env.wait(s, 1) == XGPU_ERROR_DEVICE_LOST);

    const std::string message = env.messages.find(
        {"device lost", "xgpuCmdDispatchIndirect (DYNAMIC, kernel 'mark', command 3, inside debug labels 'cull pass')",
         std::string("xyz").substr(size_t(dim), 1) + " " + std::to_string(counts[dim]) + " > " +
             std::to_string(limit)});
    CHECK_MESSAGE(!message.empty(), env.messages.all());
    MESSAGE(message);
    CHECK(out.as<uint32_t>()[0] == 0);  // the dispatch never ran
    check_command_buffers_report_loss(env, recording, ended);
  }
}

TEST_CASE("device lost by a queue fault: command-buffer calls return XGPU_ERROR_DEVICE_LOST") {
  setenv("XGPU_AMDGPU_TEST_HOOKS", "1", 1);
  {
    Env env;
    using InjectFault = XgpuResult (*)(XgpuQueue, const XgpuSemaphoreList*);
    auto inject = reinterpret_cast<InjectFault>(xgpuGetDeviceProcAddr(env.device, "xgpuAmdgpuTestInjectQueueFault"));
    REQUIRE((inject != nullptr));
    XgpuCommandBuffer recording = env.begin();
    XgpuCommandBuffer ended = env.begin();
    REQUIRE(xgpuEndCommandBuffer(ended) == XGPU_SUCCESS);
    XgpuSemaphore fault = env.semaphore();
    const uint64_t value = 1;
    const XgpuSemaphoreList signals = list_of(&fault, &value);
    REQUIRE(inject(env.queues[0], &signals) == XGPU_SUCCESS);
    CHECK(env.wait(fault, 1) == XGPU_ERROR_DEVICE_LOST);
    check_command_buffers_report_loss(env, recording, ended);
  }
  unsetenv("XGPU_AMDGPU_TEST_HOOKS");
}

TEST_CASE("indirect counts in a queue-allocated buffer recorded before the alloca commits: STATIC and DYNAMIC, by handle and by slot") {
  Env env;
  const uint32_t shape[3] = {4, 2, 1};
  XgpuPipeline mark = env.pipeline("mark", 1, 8, shape[0], shape[1], shape[2]);
  XgpuPipeline make_counts = env.pipeline("make_counts", 1, 16, 1);
  XgpuMemoryPool pool = make_pool(env);
  Buffer out = env.buffer(4096), host_counts = env.buffer(64);
  constexpr uint32_t kLimit = 1000;
  constexpr uint64_t kCountsOffset = 64;  // of the counts in the scratch buffer
  const uint32_t mark_constants[2] = {kLimit, 0};
  const uint32_t counts[][3] = {{3, 2, 1}, {2, 3, 4}, {5, 1, 2}, {1, 4, 3}};
  int variant = 0;
  for (bool dynamic : {false, true}) {
    for (bool by_slot : {false, true}) {
      CAPTURE(dynamic);
      CAPTURE(by_slot);
      const uint32_t* c = counts[variant++];
      std::memset(out.data, 0, out.size);
      XgpuSemaphore gate = env.semaphore(), t = env.semaphore();
      // The alloca waits for the host, so it has not committed while the
      // command buffer below is recorded and submitted.
      const uint64_t one = 1, two = 2, three = 3;
      const XgpuSemaphoreList alloca_waits = list_of(&gate, &one), alloca_signals = list_of(&t, &one);
      XgpuBuffer scratch = XGPU_NULL_HANDLE;
      REQUIRE(xgpuQueueAlloca(env.queues[0], &alloca_waits, &alloca_signals, pool, 256, kUsage, &scratch) ==
              XGPU_SUCCESS);
      const Buffer scratch_buffer{scratch, nullptr, 256};

      XgpuCommandBuffer cb = env.begin(2);
      if (dynamic) {
        // Counts written into the scratch by the previous dispatch.
        xgpuCmdBindPipeline(cb, make_counts);
        const XgpuBufferRef r = by_slot ? slot(1, 0, 16) : ref(scratch_buffer, kCountsOffset, 16);
        xgpuCmdBindBuffers(cb, 0, 1, &r);
        const uint32_t k[4] = {c[0], c[1], c[2], 0};
        xgpuCmdPushConstants(cb, 0, sizeof(k), k);
        xgpuCmdDispatch(cb, 1, 1, 1);
        // The kernel's writes made visible to the indirect read (the rule
        // XGPU-VUID-xgpuCmdDispatchIndirect-dynamic-barrier asks for this).
        xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                             XGPU_PIPELINE_STAGE_INDIRECT_BIT, XGPU_ACCESS_INDIRECT_READ_BIT);
      }
      record_mark_indirect(cb, mark, slot(0), mark_constants[0],
                           by_slot ? slot(1, 0, 12) : ref(scratch_buffer, kCountsOffset, 12),
                           dynamic ? XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT : XGPU_DISPATCH_INDIRECT_STATIC_BIT);
      REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);

      if (!dynamic) {
        // STATIC: the counts are final before the submission, written by an
        // earlier operation on the queue (after the alloca).
        std::memcpy(host_counts.data, c, 12);
        REQUIRE(xgpuQueueCopyBuffer(env.queues[0], nullptr, nullptr, host_counts.handle, 0, scratch, kCountsOffset,
                                    12) == XGPU_SUCCESS);
      }
      REQUIRE(env.submit(env.queues[0], cb, {bind(out), bind(scratch_buffer, kCountsOffset)}, t, 2) ==
              XGPU_SUCCESS);
      const XgpuSemaphoreList dealloca_signals = list_of(&t, &three);
      REQUIRE(xgpuQueueDealloca(env.queues[0], nullptr, &dealloca_signals, scratch) == XGPU_SUCCESS);
      uint64_t value = 99;
      REQUIRE(xgpuGetSemaphoreValue(env.device, t, &value) == XGPU_SUCCESS);
      CHECK(value == 0);  // nothing ran: the alloca waits for the gate
      CHECK(out.as<uint32_t>()[0] == 0);
      REQUIRE(host_signal(env, gate, 1) == XGPU_SUCCESS);
      REQUIRE(env.wait(t, two) == XGPU_SUCCESS);
      REQUIRE(env.wait(t, three) == XGPU_SUCCESS);
      check_marks(out, kLimit, c, shape);
    }
  }
  REQUIRE(xgpuDeviceWaitIdle(env.device) == XGPU_SUCCESS);
  xgpuDestroyMemoryPool(env.device, pool, nullptr);
}

TEST_CASE("indirect DYNAMIC with counts produced into and read from a binding-table slot") {
  Env env;
  const uint32_t shape[3] = {2, 2, 2};
  XgpuPipeline mark = env.pipeline("mark", 1, 8, shape[0], shape[1], shape[2]);
  XgpuPipeline make_counts = env.pipeline("make_counts", 1, 16, 1);
  constexpr uint32_t kLimit = 1000;
  Buffer out = env.buffer(4096), counts_a = env.buffer(64), counts_b = env.buffer(64);
  XgpuCommandBuffer cb = env.begin(2, XGPU_COMMAND_BUFFER_MODE_REUSABLE);
  xgpuCmdBindPipeline(cb, make_counts);
  const XgpuBufferRef counts_slot = slot(1, 0, 16);
  xgpuCmdBindBuffers(cb, 0, 1, &counts_slot);
  const uint32_t c[3] = {3, 2, 5};
  const uint32_t k[4] = {c[0], c[1], c[2], 0};
  xgpuCmdPushConstants(cb, 0, sizeof(k), k);
  xgpuCmdDispatch(cb, 1, 1, 1);
  barrier(cb);
  record_mark_indirect(cb, mark, slot(0), kLimit, slot(1, 0, 12), XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  // Two tables: the counts land in (and are read from) each one's slot 1.
  for (const Buffer* counts : {&counts_a, &counts_b}) {
    std::memset(out.data, 0, out.size);
    env.run(cb, {bind(out), bind(*counts, 32)});
    check_marks(out, kLimit, c, shape);
    CHECK(std::memcmp(counts->data + 32, c, sizeof(c)) == 0);
  }
}

TEST_CASE("a misaligned counts offset through a slot names the function, parameter, slot and offset") {
  Env env;
  XgpuPipeline mark = env.pipeline("mark", 1, 8, 4, 1, 1);
  Buffer out = env.buffer(256), counts = env.buffer(64);
  const uint32_t c[3] = {1, 1, 1};
  std::memcpy(counts.data + 2, c, sizeof(c));
  XgpuCommandBuffer cb = env.begin(2);
  record_mark_indirect(cb, mark, slot(0), 8, slot(1, 0, 12), XGPU_DISPATCH_INDIRECT_STATIC_BIT);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore s = env.semaphore();
  // pBindings[1].offset 2 breaks limits.minBufferOffsetAlignment too, a
  // rule drivers need not check at submit: if the submit refuses it, the
  // message names the binding; otherwise issue refuses the counts address.
  const XgpuResult submitted = env.submit(env.queues[0], cb, {bind(out), bind(counts, 2)}, s, 1);
  if (submitted == XGPU_SUCCESS) {
    CHECK(env.wait(s, 1) != XGPU_SUCCESS);  // the submission failed (and with it, the queue)
    const std::string message = env.messages.find(
        {"(xgpuCmdDispatchIndirect): pCounts resolves through binding-table slot 1 (pBindings[1].offset 2 + offset 0)",
         "not a multiple of 4", "XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-offset"});
    CHECK_MESSAGE(!message.empty(), env.messages.all());
    CHECK(out.as<uint32_t>()[0] == 0);
  } else {
    CHECK_FALSE(env.messages.find({"pBindings[1]", "offset"}).empty());
  }
}

TEST_CASE("a buffer bound to a slot without the usage the recording needs is refused at submit") {
  Env env;
  XgpuPipeline mark = env.pipeline("mark", 1, 8, 4, 1, 1);
  Buffer out = env.buffer(256);
  Buffer storage_only = env.buffer(64, XGPU_BUFFER_USAGE_STORAGE_BIT);
  Buffer indirect = env.buffer(64, XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_INDIRECT_BIT);
  const uint32_t c[3] = {1, 1, 1};
  std::memcpy(storage_only.data, c, sizeof(c));
  std::memcpy(indirect.data, c, sizeof(c));
  for (XgpuDispatchIndirectFlags mode : {XGPU_DISPATCH_INDIRECT_STATIC_BIT, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT}) {
    CAPTURE(mode);
    env.messages.clear();
    XgpuCommandBuffer cb = env.begin(2);
    record_mark_indirect(cb, mark, slot(0), 8, slot(1, 0, 12), mode);
    REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
    // Slot 1 holds a buffer without XGPU_BUFFER_USAGE_INDIRECT_BIT.
    CHECK(env.submit(env.queues[0], cb, {bind(out), bind(storage_only)}) == XGPU_ERROR_INVALID_USAGE);
    const std::string message = env.messages.find({"xgpuQueueSubmit: pSubmits[0].pBindings[1]", "slot 1",
                                                    "XGPU_BUFFER_USAGE_INDIRECT_BIT", "xgpuCmdDispatchIndirect"});
    CHECK_MESSAGE(!message.empty(), env.messages.all());
    CHECK(out.as<uint32_t>()[0] == 0);
    // With the usage, the same recording runs.
    env.run(cb, {bind(out), bind(indirect)});
    CHECK(out.as<uint32_t>()[0] == 4);
    std::memset(out.data, 0, out.size);
  }
}
