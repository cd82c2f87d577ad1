// xgpu's validation test driver: a small ICD that runs on host memory and
// reports what the AMDGPU driver over hsa-cpu cannot (README.md): a
// COMPUTE-only, a TRANSFER-only and a COMPUTE|TRANSFER queue family, a memory
// type without HOST_VISIBLE, and a driverName/runtimeName of its own.
//
// What it does for real: buffers are host allocations (mapping refused for the
// type that is not host-visible); semaphores are timeline payloads with host
// waits, shared by every device of the driver; command buffers record into a
// list; a submission or queue transfer runs on the calling thread at the call
// (its waits first, bounded by kWaitBoundNs), executing fills, copies and
// updates on the buffers' bytes, then signals. Executables are read with
// xgpu_executable (the kernels' metadata); pipelines take their layout from
// it or the create info. It cannot run kernels: a submission whose recording
// holds a dispatch returns XGPU_ERROR_FEATURE_NOT_PRESENT and runs nothing.
// Memory pools, queue-ordered allocation, timestamps and debug labels are not
// implemented: the loader's stubs answer them (they report the call and fail).
//
// Thread-safety: semaphores are thread-safe; everything else follows the
// API's external-synchronization rules.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "xgpu/xgpu_icd.h"
#include "xgpu_executable.h"

#define TEST_DRIVER_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr const char* kDriverName = "xgpu validation test driver";
constexpr const char* kRuntimeName = "host memory (no HSA runtime)";
constexpr uint64_t kWaitBoundNs = 10'000'000'000ull;  // longest a submission waits for its wait payloads

// Queue families: what each can do.
constexpr XgpuQueueFlags kFamilyFlags[] = {
    XGPU_QUEUE_COMPUTE_BIT,                           // 0: compute only
    XGPU_QUEUE_TRANSFER_BIT,                          // 1: transfer only (as a copy engine)
    XGPU_QUEUE_COMPUTE_BIT | XGPU_QUEUE_TRANSFER_BIT  // 2: both
};
constexpr uint32_t kFamilyCount = static_cast<uint32_t>(std::size(kFamilyFlags));
constexpr uint32_t kQueuesPerFamily = 2;

// Memory types: 0 device-local only, 1 also host-visible and coherent.
constexpr uint32_t kDeviceOnlyType = 0;
constexpr uint32_t kHostVisibleType = 1;

struct Dispatchable {
  uintptr_t loader_word;  // XGPU_ICD_LOADER_MAGIC, then the loader's dispatch table
  Dispatchable() { xgpuSetLoaderMagicValue(this); }
};

struct TestInstance;
struct TestPhysicalDevice : Dispatchable {
  TestInstance* instance = nullptr;  // owner
};
struct TestInstance : Dispatchable {
  TestPhysicalDevice physical_device;  // the one physical device
};
struct TestDevice;
struct TestQueue : Dispatchable {
  TestDevice* device = nullptr;  // owner
  uint32_t family = 0;           // its queue family
};
struct TestDevice : Dispatchable {
  std::vector<std::unique_ptr<TestQueue>> queues[kFamilyCount];  // created queues per family
};

struct TestBuffer {
  std::vector<uint8_t> bytes;  // the buffer's memory
  uint32_t memory_type = 0;    // index of its memory type
  bool mapped = false;         // mapped now
};

struct TestSemaphore {
  std::mutex mutex;                  // guards the two below
  std::condition_variable changed;   // notified at each signal or failure
  uint64_t value = 0;                // current payload
  XgpuResult status = XGPU_SUCCESS;  // failure status, or XGPU_SUCCESS
};

struct TestExecutable {
  std::vector<xgpu::executable::KernelInfo> kernels;  // its kernels (the first entry's metadata)
};

struct TestPipeline {
  XgpuPipelineProperties properties = {};  // what it resolved to
};

// One recorded command. Buffer references stay references: slots resolve at submit.
struct Command {
  enum class Kind { kFill, kCopy, kUpdate, kDispatch } kind;  // what it does
  XgpuBufferRef dst = {};                                     // fill, copy, update: bytes written
  XgpuBufferRef src = {};                                     // copy: bytes read
  uint64_t size = 0;                                          // copy: bytes
  std::vector<uint8_t> data;                                  // fill: the pattern; update: the bytes
};

struct TestCommandBuffer : Dispatchable {
  uint32_t family = 0;             // its queue family
  uint32_t binding_capacity = 0;   // of the current recording
  std::vector<Command> commands;   // the current recording
};

template <typename T, typename H>
T* From(H handle) {
  return reinterpret_cast<T*>(handle);
}

void Report(const std::string& text) { std::fprintf(stderr, "xgpu validation test driver: %s\n", text.c_str()); }

// ---- semaphores ----

void Signal(TestSemaphore* s, uint64_t value) {
  {
    std::lock_guard lock(s->mutex);
    if (s->status == XGPU_SUCCESS) s->value = std::max(s->value, value);
  }
  s->changed.notify_all();
}

void Fail(TestSemaphore* s, XgpuResult status) {
  {
    std::lock_guard lock(s->mutex);
    if (s->status == XGPU_SUCCESS) s->status = status;
  }
  s->changed.notify_all();
}

// Waits until `s` reaches `value` (XGPU_SUCCESS), fails (its status) or `deadline` passes (XGPU_TIMEOUT).
XgpuResult WaitOne(TestSemaphore* s, uint64_t value, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(s->mutex);
  const bool done = s->changed.wait_until(lock, deadline, [&] { return s->status != XGPU_SUCCESS || s->value >= value; });
  if (s->status != XGPU_SUCCESS) return s->status;
  return done ? XGPU_SUCCESS : XGPU_TIMEOUT;
}

std::chrono::steady_clock::time_point DeadlineIn(uint64_t ns) {
  const auto now = std::chrono::steady_clock::now();
  const auto max_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::time_point::max() - now);
  return ns >= static_cast<uint64_t>(max_ns.count()) ? std::chrono::steady_clock::time_point::max()
                                                      : now + std::chrono::nanoseconds(ns);
}

// A queue operation's waits, then (when `run` succeeds) its signals; a failed
// wait or run fails the signal semaphores with its status.
template <typename Run>
XgpuResult Operate(const XgpuSemaphoreList& waits, const XgpuSemaphoreList& signals, const Run& run) {
  XgpuResult status = XGPU_SUCCESS;
  const auto deadline = DeadlineIn(kWaitBoundNs);
  for (uint32_t i = 0; i < waits.count && status == XGPU_SUCCESS; ++i) {
    status = WaitOne(From<TestSemaphore>(waits.pSemaphores[i]), waits.pValues[i], deadline);
    if (status == XGPU_TIMEOUT) {
      Report("a wait payload was not reached within 10 s; the operation fails (this driver runs work at submit)");
      status = XGPU_ERROR_UNKNOWN;
    }
  }
  if (status == XGPU_SUCCESS) status = run();
  for (uint32_t i = 0; i < signals.count; ++i) {
    if (status == XGPU_SUCCESS) {
      Signal(From<TestSemaphore>(signals.pSemaphores[i]), signals.pValues[i]);
    } else {
      Fail(From<TestSemaphore>(signals.pSemaphores[i]), status);
    }
  }
  return status;
}

// ---- execution on host memory ----

// The bytes a reference names, resolved with a submission's binding table;
// nullptr (with a message) when it does not resolve inside a buffer.
uint8_t* Resolve(const XgpuBufferRef& ref, const XgpuBufferBinding* bindings, uint32_t binding_count, uint64_t* size) {
  TestBuffer* buffer = nullptr;
  uint64_t base = 0;
  uint64_t range = 0;
  if (ref.kind == XGPU_BUFFER_REF_KIND_BUFFER) {
    buffer = From<TestBuffer>(ref.buffer);
    range = buffer->bytes.size();
  } else {
    if (ref.bindingSlot >= binding_count) {
      Report("slot " + std::to_string(ref.bindingSlot) + " is not in the binding table");
      return nullptr;
    }
    const XgpuBufferBinding& binding = bindings[ref.bindingSlot];
    buffer = From<TestBuffer>(binding.buffer);
    base = binding.offset;
    if (base > buffer->bytes.size()) return nullptr;
    range = binding.size == XGPU_WHOLE_SIZE ? buffer->bytes.size() - base : binding.size;
  }
  if (ref.offset > range) return nullptr;
  const uint64_t bytes = ref.size == XGPU_WHOLE_SIZE ? range - ref.offset : ref.size;
  if (bytes > range - ref.offset || base + range > buffer->bytes.size()) {
    Report("a buffer reference does not fit its buffer");
    return nullptr;
  }
  *size = bytes;
  return buffer->bytes.data() + base + ref.offset;
}

void FillBytes(uint8_t* dst, uint64_t size, const std::vector<uint8_t>& pattern) {
  for (uint64_t i = 0; i < size; ++i) dst[i] = pattern[i % pattern.size()];
}

XgpuResult Execute(const TestCommandBuffer& cb, const XgpuSubmitInfo& submit) {
  for (const Command& c : cb.commands) {
    if (c.kind == Command::Kind::kDispatch) {
      Report("this driver runs no kernels: a submission with a dispatch fails");
      return XGPU_ERROR_FEATURE_NOT_PRESENT;
    }
  }
  for (const Command& c : cb.commands) {
    uint64_t dst_size = 0;
    uint8_t* dst = Resolve(c.dst, submit.pBindings, submit.bindingCount, &dst_size);
    if (dst == nullptr) return XGPU_ERROR_INVALID_ARGUMENT;
    switch (c.kind) {
      case Command::Kind::kFill:
        FillBytes(dst, dst_size, c.data);
        break;
      case Command::Kind::kUpdate:
        if (c.data.size() > dst_size) return XGPU_ERROR_INVALID_ARGUMENT;
        std::memcpy(dst, c.data.data(), c.data.size());
        break;
      case Command::Kind::kCopy: {
        uint64_t src_size = 0;
        const uint8_t* src = Resolve(c.src, submit.pBindings, submit.bindingCount, &src_size);
        if (src == nullptr || c.size > src_size || c.size > dst_size) return XGPU_ERROR_INVALID_ARGUMENT;
        std::memmove(dst, src, c.size);
        break;
      }
      case Command::Kind::kDispatch:
        break;
    }
  }
  return XGPU_SUCCESS;
}

// ---- instance and physical device ----

XgpuResult XGPU_API_CALL CreateInstance(const XgpuInstanceCreateInfo*, const XgpuAllocationCallbacks*,
                                        XgpuInstance* out) {
  auto* instance = new TestInstance;
  instance->physical_device.instance = instance;
  *out = reinterpret_cast<XgpuInstance>(instance);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyInstance(XgpuInstance instance, const XgpuAllocationCallbacks*) {
  delete From<TestInstance>(instance);
}

XgpuResult XGPU_API_CALL EnumeratePhysicalDevices(XgpuInstance instance, uint32_t* count, XgpuPhysicalDevice* out) {
  if (out == nullptr) {
    *count = 1;
    return XGPU_SUCCESS;
  }
  if (*count == 0) return XGPU_INCOMPLETE;
  out[0] = reinterpret_cast<XgpuPhysicalDevice>(&From<TestInstance>(instance)->physical_device);
  *count = 1;
  return XGPU_SUCCESS;
}

// Messengers: the driver reports on stderr, so it only hands out handles.
XgpuResult XGPU_API_CALL CreateDebugMessenger(XgpuInstance, const XgpuDebugMessengerCreateInfo*,
                                              const XgpuAllocationCallbacks*, XgpuDebugMessenger* out) {
  *out = reinterpret_cast<XgpuDebugMessenger>(new char);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyDebugMessenger(XgpuInstance, XgpuDebugMessenger messenger, const XgpuAllocationCallbacks*) {
  delete From<char>(messenger);
}

void XGPU_API_CALL GetPhysicalDeviceProperties(XgpuPhysicalDevice, XgpuPhysicalDeviceProperties* out) {
  std::memset(out, 0, sizeof(*out));
  out->apiVersion = XGPU_API_VERSION_1_0;
  out->driverVersion = 1;
  out->deviceType = XGPU_PHYSICAL_DEVICE_TYPE_OTHER;
  std::snprintf(out->deviceName, sizeof(out->deviceName), "validation test device");
  std::snprintf(out->isaName, sizeof(out->isaName), "none (runs no kernels)");
  std::snprintf(out->driverName, sizeof(out->driverName), "%s", kDriverName);
  std::snprintf(out->runtimeName, sizeof(out->runtimeName), "%s", kRuntimeName);
  XgpuPhysicalDeviceLimits& l = out->limits;
  for (int d = 0; d < 3; ++d) {
    l.maxWorkgroupSize[d] = 1024;
    l.maxWorkgroupCount[d] = 65535;
    l.maxGridSize[d] = 1u << 30;
  }
  l.maxWorkgroupInvocations = 1024;
  l.maxWorkgroupMemorySize = 65536;
  l.maxPushConstantsSize = 256;
  l.maxBindings = 32;
  l.maxBindingCapacity = 1024;
  l.wavefrontSize = 1;
  l.computeUnitCount = 1;
  l.timestampValidBits = 0;
  l.timestampPeriod = 1.0f;
  l.maxBufferSize = 1ull << 30;
  l.minBufferOffsetAlignment = 16;
}

void XGPU_API_CALL GetPhysicalDeviceMemoryProperties(XgpuPhysicalDevice, XgpuPhysicalDeviceMemoryProperties* out) {
  std::memset(out, 0, sizeof(*out));
  out->memoryHeapCount = 1;
  out->memoryHeaps[0] = {1ull << 30, XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT};
  out->memoryTypeCount = 2;
  out->memoryTypes[kDeviceOnlyType] = {XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
  out->memoryTypes[kHostVisibleType] = {XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                            XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                        0};
}

void XGPU_API_CALL GetPhysicalDeviceQueueFamilyProperties(XgpuPhysicalDevice, uint32_t* count,
                                                          XgpuQueueFamilyProperties* out) {
  if (out == nullptr) {
    *count = kFamilyCount;
    return;
  }
  *count = std::min(*count, kFamilyCount);
  for (uint32_t i = 0; i < *count; ++i) out[i] = {kFamilyFlags[i], kQueuesPerFamily, 0};
}

XgpuResult XGPU_API_CALL CreateDevice(XgpuPhysicalDevice, const XgpuDeviceCreateInfo* info,
                                      const XgpuAllocationCallbacks*, XgpuDevice* out) {
  auto device = std::make_unique<TestDevice>();
  for (uint32_t i = 0; i < info->queueCreateInfoCount; ++i) {
    const XgpuDeviceQueueCreateInfo& q = info->pQueueCreateInfos[i];
    if (q.queueFamilyIndex >= kFamilyCount || q.queueCount > kQueuesPerFamily) {
      Report("xgpuCreateDevice: queue family " + std::to_string(q.queueFamilyIndex) + " with " +
             std::to_string(q.queueCount) + " queues is not available");
      *out = XGPU_NULL_HANDLE;
      return XGPU_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t k = 0; k < q.queueCount; ++k) {
      auto queue = std::make_unique<TestQueue>();
      queue->device = device.get();
      queue->family = q.queueFamilyIndex;
      device->queues[q.queueFamilyIndex].push_back(std::move(queue));
    }
  }
  *out = reinterpret_cast<XgpuDevice>(device.release());
  return XGPU_SUCCESS;
}

// ---- device, queues ----

void XGPU_API_CALL DestroyDevice(XgpuDevice device, const XgpuAllocationCallbacks*) {
  delete From<TestDevice>(device);
}

void XGPU_API_CALL GetDeviceQueue(XgpuDevice handle, uint32_t family, uint32_t index, XgpuQueue* out) {
  TestDevice* device = From<TestDevice>(handle);
  *out = family < kFamilyCount && index < device->queues[family].size()
             ? reinterpret_cast<XgpuQueue>(device->queues[family][index].get())
             : XGPU_NULL_HANDLE;
}

// Work completes inside the call that submits it.
XgpuResult XGPU_API_CALL DeviceWaitIdle(XgpuDevice) { return XGPU_SUCCESS; }
XgpuResult XGPU_API_CALL QueueWaitIdle(XgpuQueue) { return XGPU_SUCCESS; }

// ---- buffers ----

XgpuResult XGPU_API_CALL CreateBuffer(XgpuDevice, const XgpuBufferCreateInfo* info, const XgpuAllocationCallbacks*,
                                      XgpuBuffer* out) {
  auto* buffer = new TestBuffer;
  buffer->bytes.assign(info->size, 0);
  buffer->memory_type = info->memoryTypeIndex;
  *out = reinterpret_cast<XgpuBuffer>(buffer);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyBuffer(XgpuDevice, XgpuBuffer buffer, const XgpuAllocationCallbacks*) {
  delete From<TestBuffer>(buffer);
}

XgpuResult XGPU_API_CALL MapBuffer(XgpuDevice, XgpuBuffer handle, XgpuDeviceSize offset, XgpuDeviceSize,
                                   void** out) {
  TestBuffer* buffer = From<TestBuffer>(handle);
  if (buffer->memory_type != kHostVisibleType) {
    *out = nullptr;
    return XGPU_ERROR_MEMORY_MAP_FAILED;
  }
  buffer->mapped = true;
  *out = buffer->bytes.data() + offset;
  return XGPU_SUCCESS;
}

void XGPU_API_CALL UnmapBuffer(XgpuDevice, XgpuBuffer buffer) { From<TestBuffer>(buffer)->mapped = false; }

// ---- semaphores ----

XgpuResult XGPU_API_CALL CreateSemaphore(XgpuDevice, const XgpuSemaphoreCreateInfo* info,
                                         const XgpuAllocationCallbacks*, XgpuSemaphore* out) {
  auto* semaphore = new TestSemaphore;
  semaphore->value = info->initialValue;
  *out = reinterpret_cast<XgpuSemaphore>(semaphore);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroySemaphore(XgpuDevice, XgpuSemaphore semaphore, const XgpuAllocationCallbacks*) {
  delete From<TestSemaphore>(semaphore);
}

XgpuResult XGPU_API_CALL GetSemaphoreValue(XgpuDevice, XgpuSemaphore handle, uint64_t* out) {
  TestSemaphore* s = From<TestSemaphore>(handle);
  std::lock_guard lock(s->mutex);
  *out = s->value;
  return s->status;
}

XgpuResult XGPU_API_CALL SignalSemaphore(XgpuDevice, const XgpuSemaphoreSignalInfo* info) {
  TestSemaphore* s = From<TestSemaphore>(info->semaphore);
  {
    std::lock_guard lock(s->mutex);
    if (s->status != XGPU_SUCCESS) return s->status;
    if (info->value <= s->value) {
      Report("xgpuSignalSemaphore: value " + std::to_string(info->value) + " is not above the payload " +
             std::to_string(s->value));
      return XGPU_ERROR_INVALID_ARGUMENT;
    }
    s->value = info->value;
  }
  s->changed.notify_all();
  return XGPU_SUCCESS;
}

XgpuResult XGPU_API_CALL WaitSemaphores(XgpuDevice, const XgpuSemaphoreWaitInfo* info, uint64_t timeout) {
  const auto deadline = DeadlineIn(timeout);
  const bool any = (info->flags & XGPU_SEMAPHORE_WAIT_ANY_BIT) != 0;
  // A wait for any polls each semaphore in turn until one is reached.
  for (;;) {
    XgpuResult last = XGPU_SUCCESS;
    for (uint32_t i = 0; i < info->semaphoreCount; ++i) {
      const auto until = any ? std::chrono::steady_clock::now() : deadline;
      last = WaitOne(From<TestSemaphore>(info->pSemaphores[i]), info->pValues[i], until);
      if (last < 0) return last;
      if (any && last == XGPU_SUCCESS) return XGPU_SUCCESS;
      if (!any && last != XGPU_SUCCESS) return last;
    }
    if (!any || info->semaphoreCount == 0) return XGPU_SUCCESS;
    if (std::chrono::steady_clock::now() >= deadline) return XGPU_TIMEOUT;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

// ---- executables and pipelines ----

XgpuResult XGPU_API_CALL CreateExecutable(XgpuDevice, const XgpuExecutableCreateInfo* info,
                                          const XgpuAllocationCallbacks*, XgpuExecutable* out) {
  *out = XGPU_NULL_HANDLE;
  std::vector<uint8_t> bytes;
  if (info->pCode != nullptr) {
    const auto* code = static_cast<const uint8_t*>(info->pCode);
    bytes.assign(code, code + info->codeSize);
  } else {
    std::ifstream file(info->pFilePath, std::ios::binary);
    if (!file) {
      Report(std::string("xgpuCreateExecutable: cannot read ") + info->pFilePath);
      return XGPU_ERROR_INITIALIZATION_FAILED;
    }
    bytes.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }
  xgpu::executable::Executable executable;
  std::vector<xgpu::executable::CodeObjectInfo> infos;
  xgpu::executable::Status status = xgpu::executable::Executable::parse(bytes, &executable);
  if (status.ok()) status = xgpu::executable::check(executable, &infos);
  if (!status.ok() || infos.empty()) {
    Report("xgpuCreateExecutable: " + (status.ok() ? std::string("no code object") : status.message()));
    return XGPU_ERROR_INVALID_EXECUTABLE;
  }
  auto* result = new TestExecutable;
  result->kernels = std::move(infos.front().kernels);
  *out = reinterpret_cast<XgpuExecutable>(result);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyExecutable(XgpuDevice, XgpuExecutable executable, const XgpuAllocationCallbacks*) {
  delete From<TestExecutable>(executable);
}

XgpuResult XGPU_API_CALL CreatePipeline(XgpuDevice, const XgpuPipelineCreateInfo* info,
                                        const XgpuAllocationCallbacks*, XgpuPipeline* out) {
  *out = XGPU_NULL_HANDLE;
  const TestExecutable* executable = From<TestExecutable>(info->executable);
  const xgpu::executable::KernelInfo* kernel = nullptr;
  for (const auto& k : executable->kernels) {
    if (k.name == info->pEntryPoint) kernel = &k;
  }
  if (kernel == nullptr) {
    Report(std::string("xgpuCreatePipeline: no kernel ") + info->pEntryPoint);
    return XGPU_ERROR_NOT_FOUND;
  }
  const bool as_declared = info->bindingCount == 0 && info->constantSize == 0;
  if (as_declared && !kernel->layout_declared) {
    Report("xgpuCreatePipeline: the kernel declares no layout and the create info gives none");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  auto* pipeline = new TestPipeline;
  XgpuPipelineProperties& p = pipeline->properties;
  p.bindingCount = as_declared ? kernel->binding_count : info->bindingCount;
  p.constantSize = as_declared ? kernel->constant_size : info->constantSize;
  p.kernargSize = 8 * p.bindingCount + p.constantSize;
  const bool size_given = info->workgroupSize[0] != 0 || info->workgroupSize[1] != 0 || info->workgroupSize[2] != 0;
  for (int d = 0; d < 3; ++d) {
    p.workgroupSize[d] = size_given ? info->workgroupSize[d] : kernel->required_workgroup_size[d];
    p.maxWorkgroupCount[d] = 65535;
  }
  p.staticWorkgroupMemorySize = kernel->group_segment_size;
  p.privateMemorySize = kernel->private_segment_size;
  *out = reinterpret_cast<XgpuPipeline>(pipeline);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyPipeline(XgpuDevice, XgpuPipeline pipeline, const XgpuAllocationCallbacks*) {
  delete From<TestPipeline>(pipeline);
}

void XGPU_API_CALL GetPipelineProperties(XgpuDevice, XgpuPipeline pipeline, XgpuPipelineProperties* out) {
  *out = From<TestPipeline>(pipeline)->properties;
}

// ---- command buffers ----

XgpuResult XGPU_API_CALL CreateCommandBuffer(XgpuDevice, const XgpuCommandBufferCreateInfo* info,
                                             const XgpuAllocationCallbacks*, XgpuCommandBuffer* out) {
  auto* cb = new TestCommandBuffer;
  cb->family = info->queueFamilyIndex;
  *out = reinterpret_cast<XgpuCommandBuffer>(cb);
  return XGPU_SUCCESS;
}

void XGPU_API_CALL DestroyCommandBuffer(XgpuDevice, XgpuCommandBuffer cb, const XgpuAllocationCallbacks*) {
  delete From<TestCommandBuffer>(cb);
}

XgpuResult XGPU_API_CALL BeginCommandBuffer(XgpuCommandBuffer handle, const XgpuCommandBufferBeginInfo* info) {
  TestCommandBuffer* cb = From<TestCommandBuffer>(handle);
  cb->commands.clear();
  cb->binding_capacity = info->bindingCapacity;
  return XGPU_SUCCESS;
}

XgpuResult XGPU_API_CALL EndCommandBuffer(XgpuCommandBuffer) { return XGPU_SUCCESS; }

// State commands change nothing this driver executes: a dispatch fails its submission whatever is bound.
void XGPU_API_CALL CmdBindPipeline(XgpuCommandBuffer, XgpuPipeline) {}
void XGPU_API_CALL CmdPushConstants(XgpuCommandBuffer, uint32_t, uint32_t, const void*) {}
void XGPU_API_CALL CmdBindBuffers(XgpuCommandBuffer, uint32_t, uint32_t, const XgpuBufferRef*) {}

void XGPU_API_CALL CmdDispatch(XgpuCommandBuffer cb, uint32_t, uint32_t, uint32_t) {
  From<TestCommandBuffer>(cb)->commands.push_back(Command{Command::Kind::kDispatch});
}

void XGPU_API_CALL CmdDispatchIndirect(XgpuCommandBuffer cb, const XgpuBufferRef*, XgpuDispatchIndirectFlags) {
  From<TestCommandBuffer>(cb)->commands.push_back(Command{Command::Kind::kDispatch});
}

void XGPU_API_CALL CmdFillBuffer(XgpuCommandBuffer cb, const XgpuBufferRef* dst, const void* pattern,
                                 uint32_t pattern_size) {
  Command c{Command::Kind::kFill};
  c.dst = *dst;
  c.data.assign(static_cast<const uint8_t*>(pattern), static_cast<const uint8_t*>(pattern) + pattern_size);
  From<TestCommandBuffer>(cb)->commands.push_back(std::move(c));
}

void XGPU_API_CALL CmdCopyBuffer(XgpuCommandBuffer cb, const XgpuBufferRef* src, const XgpuBufferRef* dst,
                                 XgpuDeviceSize size) {
  Command c{Command::Kind::kCopy};
  c.src = *src;
  c.dst = *dst;
  c.size = size;
  From<TestCommandBuffer>(cb)->commands.push_back(std::move(c));
}

void XGPU_API_CALL CmdUpdateBuffer(XgpuCommandBuffer cb, const XgpuBufferRef* dst, XgpuDeviceSize size,
                                   const void* data) {
  Command c{Command::Kind::kUpdate};
  c.dst = *dst;
  c.data.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
  From<TestCommandBuffer>(cb)->commands.push_back(std::move(c));
}

// Commands run one after another on one thread: every barrier already holds.
void XGPU_API_CALL CmdPipelineBarrier(XgpuCommandBuffer, XgpuPipelineStageFlags, XgpuPipelineStageFlags, uint32_t,
                                      const XgpuMemoryBarrier*, uint32_t, const XgpuBufferMemoryBarrier*) {}
void XGPU_API_CALL CmdMemoryBarrier(XgpuCommandBuffer, XgpuPipelineStageFlags, XgpuAccessFlags,
                                    XgpuPipelineStageFlags, XgpuAccessFlags) {}

// ---- queue operations (run at the call) ----

XgpuResult XGPU_API_CALL QueueSubmit(XgpuQueue, uint32_t count, const XgpuSubmitInfo* submits) {
  for (uint32_t i = 0; i < count; ++i) {
    const XgpuSubmitInfo& submit = submits[i];
    const XgpuResult status = Operate(submit.waitSemaphores, submit.signalSemaphores, [&] {
      if (submit.commandBuffer == XGPU_NULL_HANDLE) return XGPU_SUCCESS;
      return Execute(*From<TestCommandBuffer>(submit.commandBuffer), submit);
    });
    if (status != XGPU_SUCCESS) return status;
  }
  return XGPU_SUCCESS;
}

XgpuResult XGPU_API_CALL QueueFillBuffer(XgpuQueue, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                                         XgpuBuffer dst, XgpuDeviceSize offset, XgpuDeviceSize size,
                                         const void* pattern, uint32_t pattern_size) {
  const XgpuSemaphoreList none = {};
  return Operate(waits ? *waits : none, signals ? *signals : none, [&] {
    TestBuffer* buffer = From<TestBuffer>(dst);
    const uint64_t bytes = size == XGPU_WHOLE_SIZE ? buffer->bytes.size() - offset : size;
    const auto* p = static_cast<const uint8_t*>(pattern);
    FillBytes(buffer->bytes.data() + offset, bytes, std::vector<uint8_t>(p, p + pattern_size));
    return XGPU_SUCCESS;
  });
}

XgpuResult XGPU_API_CALL QueueCopyBuffer(XgpuQueue, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                                         XgpuBuffer src, XgpuDeviceSize src_offset, XgpuBuffer dst,
                                         XgpuDeviceSize dst_offset, XgpuDeviceSize size) {
  const XgpuSemaphoreList none = {};
  return Operate(waits ? *waits : none, signals ? *signals : none, [&] {
    std::memmove(From<TestBuffer>(dst)->bytes.data() + dst_offset, From<TestBuffer>(src)->bytes.data() + src_offset,
                 size);
    return XGPU_SUCCESS;
  });
}

PFN_xgpuVoidFunction XGPU_API_CALL GetDeviceProcAddr(XgpuDevice, const char* name);

struct Entry {
  const char* name;               // the API name
  PFN_xgpuVoidFunction function;  // the driver's function
};
#define ENTRY(fn) {"xgpu" #fn, reinterpret_cast<PFN_xgpuVoidFunction>(fn)}
const Entry kInstanceEntries[] = {
    ENTRY(CreateInstance),        ENTRY(DestroyInstance),
    ENTRY(EnumeratePhysicalDevices), ENTRY(CreateDebugMessenger),
    ENTRY(DestroyDebugMessenger), ENTRY(GetPhysicalDeviceProperties),
    ENTRY(GetPhysicalDeviceMemoryProperties), ENTRY(GetPhysicalDeviceQueueFamilyProperties),
    ENTRY(CreateDevice),          ENTRY(GetDeviceProcAddr),
};
const Entry kDeviceEntries[] = {
    ENTRY(GetDeviceProcAddr),   ENTRY(DestroyDevice),        ENTRY(GetDeviceQueue),
    ENTRY(DeviceWaitIdle),      ENTRY(QueueWaitIdle),        ENTRY(CreateBuffer),
    ENTRY(DestroyBuffer),       ENTRY(MapBuffer),            ENTRY(UnmapBuffer),
    ENTRY(CreateSemaphore),     ENTRY(DestroySemaphore),     ENTRY(GetSemaphoreValue),
    ENTRY(SignalSemaphore),     ENTRY(WaitSemaphores),       ENTRY(CreateExecutable),
    ENTRY(DestroyExecutable),   ENTRY(CreatePipeline),       ENTRY(DestroyPipeline),
    ENTRY(GetPipelineProperties), ENTRY(CreateCommandBuffer), ENTRY(DestroyCommandBuffer),
    ENTRY(BeginCommandBuffer),  ENTRY(EndCommandBuffer),     ENTRY(CmdBindPipeline),
    ENTRY(CmdPushConstants),    ENTRY(CmdBindBuffers),       ENTRY(CmdDispatch),
    ENTRY(CmdDispatchIndirect), ENTRY(CmdFillBuffer),        ENTRY(CmdCopyBuffer),
    ENTRY(CmdUpdateBuffer),     ENTRY(CmdPipelineBarrier),   ENTRY(CmdMemoryBarrier),
    ENTRY(QueueSubmit),         ENTRY(QueueFillBuffer),      ENTRY(QueueCopyBuffer),
};
#undef ENTRY

template <size_t N>
PFN_xgpuVoidFunction Find(const Entry (&entries)[N], const char* name) {
  for (const Entry& e : entries) {
    if (std::strcmp(e.name, name) == 0) return e.function;
  }
  return nullptr;
}

PFN_xgpuVoidFunction XGPU_API_CALL GetDeviceProcAddr(XgpuDevice, const char* name) {
  return Find(kDeviceEntries, name);
}

}  // namespace

TEST_DRIVER_EXPORT XgpuResult xgpu_icdNegotiateLoaderICDInterfaceVersion(uint32_t* pSupportedVersion) {
  if (*pSupportedVersion < XGPU_MIN_LOADER_ICD_INTERFACE_VERSION) return XGPU_ERROR_INCOMPATIBLE_DRIVER;
  *pSupportedVersion = XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION;
  return XGPU_SUCCESS;
}

TEST_DRIVER_EXPORT PFN_xgpuVoidFunction xgpu_icdGetInstanceProcAddr(XgpuInstance instance, const char* pName) {
  if (instance == XGPU_NULL_HANDLE) {
    return std::strcmp(pName, "xgpuCreateInstance") == 0 ? reinterpret_cast<PFN_xgpuVoidFunction>(CreateInstance)
                                                         : nullptr;
  }
  return Find(kInstanceEntries, pName);
}
