// Helpers of the ICD runtime tests: the xgpu entry points (through the
// loader when it is linked, else through the driver's xgpu_icd* exports),
// and an Env that creates an instance, devices and queues on hsa-cpu.
//
// Thread-safety: Env is thread-compatible; the API table is immutable after
// the first Env is created.
#pragma once

#include <dlfcn.h>
#include <unistd.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "xgpu/xgpu.h"
#include "xgpu/xgpu_icd.h"

namespace icdtest {

constexpr uint64_t kTimeoutNs = 10'000'000'000ull;  // bound of every wait in the tests

#define ICD_TEST_FUNCTIONS(X)                                                                     \
  X(CreateInstance) X(DestroyInstance) X(EnumeratePhysicalDevices) X(GetPhysicalDeviceProperties) \
  X(GetPhysicalDeviceMemoryProperties) X(GetPhysicalDeviceQueueFamilyProperties) X(CreateDevice)  \
  X(CreateDebugMessenger) X(DestroyDebugMessenger) X(GetDeviceProcAddr)
#define ICD_TEST_DEVICE_FUNCTIONS(X)                                                              \
  X(DestroyDevice) X(GetDeviceQueue) X(DeviceWaitIdle) X(CreateBuffer) X(DestroyBuffer)           \
  X(MapBuffer) X(UnmapBuffer) X(GetBufferDeviceAddress) X(CreateSemaphore) X(DestroySemaphore)    \
  X(SignalSemaphore) X(WaitSemaphores) X(GetSemaphoreValue) X(FailSemaphore)                      \
  X(CreateExecutable) X(DestroyExecutable) X(CreatePipeline) X(DestroyPipeline) X(GetPipelineProperties) X(QueueSubmit)   \
  X(QueueFillBuffer) X(QueueCopyBuffer) X(QueueWaitIdle) X(QueueAlloca) X(QueueDealloca)          \
  X(CreateMemoryPool) X(DestroyMemoryPool) X(GetMemoryPoolStatistics) X(TrimMemoryPool) X(SetObjectName) \
  X(GetDeviceFaultInfo)
// Command-buffer functions (the commands half): may be missing in a build
// where that half is still stubbed; tests that need them check.
#define ICD_TEST_COMMAND_FUNCTIONS(X)                                                             \
  X(CreateCommandBuffer) X(DestroyCommandBuffer) X(BeginCommandBuffer) X(EndCommandBuffer)        \
  X(CmdBindPipeline) X(CmdPushConstants) X(CmdBindBuffers) X(CmdDispatch) \
  X(CmdBeginDebugLabel) X(CmdEndDebugLabel)

struct Api {
#define X(name) PFN_xgpu##name name = nullptr;
  ICD_TEST_FUNCTIONS(X) ICD_TEST_DEVICE_FUNCTIONS(X) ICD_TEST_COMMAND_FUNCTIONS(X)
#undef X
  PFN_xgpuGetInstanceProcAddr get_instance_proc_addr = nullptr;
};

inline Api& api() {
  static Api table;
  return table;
}

// Sets the environment defaults (manifest, hsa-cpu) and resolves the global
// entry points.
inline void init_api() {
  static std::once_flag once;
  std::call_once(once, [] {
    setenv("XGPU_DRIVER_FILES", XGPU_ICD_TEST_MANIFEST, 0);
    setenv("XGPU_HSA_LIBRARY", XGPU_ICD_TEST_HSA_LIBRARY, 0);
#if defined(XGPU_ICD_TEST_WITH_LOADER)
    api().get_instance_proc_addr = &xgpuGetInstanceProcAddr;
#else
    void* driver = dlopen(XGPU_ICD_TEST_DRIVER, RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(driver, dlerror());
    auto negotiate = reinterpret_cast<PFN_xgpu_icdNegotiateLoaderICDInterfaceVersion>(
        dlsym(driver, XGPU_ICD_NEGOTIATE_SYMBOL));
    REQUIRE((negotiate != nullptr));
    uint32_t version = XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION;
    REQUIRE(negotiate(&version) == XGPU_SUCCESS);
    api().get_instance_proc_addr =
        reinterpret_cast<PFN_xgpuGetInstanceProcAddr>(dlsym(driver, XGPU_ICD_GET_INSTANCE_PROC_ADDR_SYMBOL));
    REQUIRE((api().get_instance_proc_addr != nullptr));
#endif
    api().CreateInstance = reinterpret_cast<PFN_xgpuCreateInstance>(
        api().get_instance_proc_addr(nullptr, "xgpuCreateInstance"));
    REQUIRE((api().CreateInstance != nullptr));
  });
}

inline void load_instance_functions(XgpuInstance instance) {
#define X(name)                                                                                 \
  api().name = reinterpret_cast<PFN_xgpu##name>(api().get_instance_proc_addr(instance, "xgpu" #name)); \
  REQUIRE_MESSAGE((api().name != nullptr), "xgpu" #name);
  ICD_TEST_FUNCTIONS(X)
#undef X
}

inline void load_device_functions(XgpuDevice device) {
#define X(name)                                                                                  \
  api().name = reinterpret_cast<PFN_xgpu##name>(api().GetDeviceProcAddr(device, "xgpu" #name));  \
  REQUIRE_MESSAGE((api().name != nullptr), "xgpu" #name);
  ICD_TEST_DEVICE_FUNCTIONS(X)
#undef X
#define X(name) api().name = reinterpret_cast<PFN_xgpu##name>(api().GetDeviceProcAddr(device, "xgpu" #name));
  ICD_TEST_COMMAND_FUNCTIONS(X)
#undef X
}

// messageIdNumber of a message ID (spec/api.md 1.5): 32-bit FNV-1a of its
// bytes as int32_t, written out here independently of the driver's.
// Whether the driver's table has the command-buffer entry points the
// dispatching tests use (loaded with the first Env: call it after one).
inline bool have_command_buffers() {
  return api().CreateCommandBuffer && api().BeginCommandBuffer && api().EndCommandBuffer && api().CmdDispatch &&
         api().CmdBindPipeline && api().CmdPushConstants;
}

// Whether the instance offers at least `count` physical devices. A case
// that needs several returns early where it does not (a machine with one
// GPU, hsa-cpu with HSA_CPU_AGENTS=1), saying so; ctest gives hsa-cpu two
// agents, so there the case runs.
inline bool have_devices(uint32_t count) {
  init_api();
  XgpuInstanceCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  XgpuInstance instance = nullptr;
  REQUIRE(api().CreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  load_instance_functions(instance);
  uint32_t found = 0;
  CHECK(api().EnumeratePhysicalDevices(instance, &found, nullptr) == XGPU_SUCCESS);
  api().DestroyInstance(instance, nullptr);
  if (found < count) MESSAGE("skipped: needs " << count << " devices, the instance offers " << found);
  return found >= count;
}

inline int32_t fnv1a(const std::string& name) {
  uint32_t hash = 0x811C9DC5u;
  for (unsigned char c : name) hash = (hash ^ c) * 0x01000193u;
  return static_cast<int32_t>(hash);
}

// Collects debug messages of severity error/warning.
struct MessageLog {
  // How a message identified itself.
  struct Id {
    std::string name;                        // pMessageIdName ("" when NULL)
    int32_t number = 0;                      // messageIdNumber
    XgpuDebugMessageTypeFlags types = 0;     // the types it was delivered with
    XgpuDebugMessageSeverityFlagBits severity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;  // its severity
  };
  std::mutex mutex;
  std::vector<std::string> messages;
  std::vector<std::string> objects;  // per message: "<type>:<name or ->" of each object, space-separated
  std::vector<Id> ids;               // per message
  static XgpuBool32 callback(XgpuDebugMessageSeverityFlagBits severity, XgpuDebugMessageTypeFlags types,
                             const XgpuDebugMessageData* data, void* user) {
    auto* log = static_cast<MessageLog*>(user);
    std::lock_guard<std::mutex> lock(log->mutex);
    log->messages.push_back(data->pMessage ? data->pMessage : "");
    log->ids.push_back(Id{data->pMessageIdName ? data->pMessageIdName : "", data->messageIdNumber, types, severity});
    std::string list;
    for (uint32_t i = 0; i < data->objectCount; ++i) {
      const XgpuDebugObjectInfo& object = data->pObjects[i];
      list += (i ? " " : "") + std::to_string(int(object.objectType)) + ":" +
              (object.pObjectName ? object.pObjectName : "-");
    }
    log->objects.push_back(list);
    return XGPU_FALSE;
  }
  // The objects of the first message containing `needle` ("" if none).
  std::string objects_of(const std::string& needle) {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < messages.size(); ++i)
      if (messages[i].find(needle) != std::string::npos) return objects[i];
    return "";
  }
  bool contains(const std::string& needle) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const std::string& m : messages)
      if (m.find(needle) != std::string::npos) return true;
    return false;
  }
  std::string all() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string out;
    for (const std::string& m : messages) out += m + "\n";
    return out;
  }
  // The text of the first message with ID `name` ("" if none).
  std::string text_of_id(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < ids.size(); ++i)
      if (ids[i].name == name) return messages[i];
    return "";
  }
  // Every message's ID, one per line (for failure output).
  std::string all_ids() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string out;
    for (size_t i = 0; i < ids.size(); ++i)
      out += (ids[i].name.empty() ? "(no ID)" : ids[i].name) + ": " + messages[i] + "\n";
    return out;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    messages.clear();
    objects.clear();
    ids.clear();
  }
};

// Redirects this process's stderr into a temporary file until stop().
class StderrCapture {
 public:
  StderrCapture() {
    char path[] = "/tmp/xgpu-icd-test-stderr-XXXXXX";
    fd_ = mkstemp(path);
    REQUIRE(fd_ >= 0);
    unlink(path);
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    REQUIRE(saved_ >= 0);
    REQUIRE(dup2(fd_, STDERR_FILENO) >= 0);
  }
  ~StderrCapture() { stop(); }
  // Restores stderr; returns everything written meanwhile.
  std::string stop() {
    if (saved_ < 0) return text_;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    saved_ = -1;
    std::string text;
    char chunk[4096];
    lseek(fd_, 0, SEEK_SET);
    for (ssize_t n; (n = read(fd_, chunk, sizeof(chunk))) > 0;) text.append(chunk, size_t(n));
    close(fd_);
    text_ = text;
    return text_;
  }

 private:
  int fd_ = -1;       // the temporary file
  int saved_ = -1;    // the original stderr
  std::string text_;  // captured text once stopped
};

// An instance with a messenger, every physical device, and `device_count`
// devices with `queue_count` queues each.
struct Env {
  XgpuInstance instance = nullptr;
  XgpuDebugMessenger messenger = nullptr;
  MessageLog log;
  std::vector<XgpuPhysicalDevice> physical_devices;
  std::vector<XgpuDevice> devices;
  std::vector<std::vector<XgpuQueue>> queues;  // per device
  std::map<std::pair<uint32_t, XgpuBuffer>, void*> mapped;  // (device, buffer) -> map()'s pointer

  explicit Env(uint32_t device_count = 1, uint32_t queue_count = 2, XgpuDeviceSize print_buffer_size = 0) {
    init_api();
    XgpuInstanceCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    REQUIRE(api().CreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
    load_instance_functions(instance);
    XgpuDebugMessengerCreateInfo messenger_info{};
    messenger_info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
    messenger_info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT;
    messenger_info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
    messenger_info.pfnUserCallback = &MessageLog::callback;
    messenger_info.pUserData = &log;
    REQUIRE(api().CreateDebugMessenger(instance, &messenger_info, nullptr, &messenger) == XGPU_SUCCESS);
    uint32_t count = 0;
    REQUIRE(api().EnumeratePhysicalDevices(instance, &count, nullptr) == XGPU_SUCCESS);
    physical_devices.resize(count);
    REQUIRE(api().EnumeratePhysicalDevices(instance, &count, physical_devices.data()) == XGPU_SUCCESS);
    REQUIRE(count >= device_count);
    for (uint32_t d = 0; d < device_count; ++d) {
      XgpuDeviceQueueCreateInfo queue_info{};
      queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
      queue_info.queueFamilyIndex = 0;
      queue_info.queueCount = queue_count;
      XgpuDeviceCreateInfo device_info{};
      device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
      device_info.queueCreateInfoCount = 1;
      device_info.pQueueCreateInfos = &queue_info;
      device_info.printBufferSize = print_buffer_size;
      XgpuDevice device = nullptr;
      REQUIRE(api().CreateDevice(physical_devices[d], &device_info, nullptr, &device) == XGPU_SUCCESS);
      if (d == 0) load_device_functions(device);
      devices.push_back(device);
      queues.emplace_back();
      for (uint32_t q = 0; q < queue_count; ++q) {
        XgpuQueue queue = nullptr;
        api().GetDeviceQueue(device, 0, q, &queue);
        REQUIRE(queue);
        queues.back().push_back(queue);
      }
    }
  }
  ~Env() {
    for (XgpuDevice device : devices) api().DestroyDevice(device, nullptr);
    if (messenger) api().DestroyDebugMessenger(instance, messenger, nullptr);
    if (instance) api().DestroyInstance(instance, nullptr);
  }
  XgpuDevice device(uint32_t i = 0) const { return devices[i]; }
  XgpuQueue queue(uint32_t q = 0, uint32_t d = 0) const { return queues[d][q]; }

  // First memory type with all of `flags`, or -1.
  int memory_type(XgpuMemoryPropertyFlags flags, uint32_t d = 0) const {
    XgpuPhysicalDeviceMemoryProperties memory{};
    api().GetPhysicalDeviceMemoryProperties(physical_devices[d], &memory);
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
      if ((memory.memoryTypes[i].propertyFlags & flags) == flags) return int(i);
    return -1;
  }
  XgpuBuffer buffer(uint64_t size, uint32_t d = 0, XgpuMemoryPropertyFlags flags = XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    XgpuBufferCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = size;
    info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT;
    int type = memory_type(flags, d);
    REQUIRE(type >= 0);
    info.memoryTypeIndex = uint32_t(type);
    XgpuBuffer buffer = nullptr;
    REQUIRE(api().CreateBuffer(devices[d], &info, nullptr, &buffer) == XGPU_SUCCESS);
    mapped.erase({d, buffer});  // a handle value of a buffer destroyed earlier: not mapped
    return buffer;
  }
  // The whole of `buffer` (made by buffer()) mapped: the first call maps it,
  // later ones return the same pointer (a buffer is mapped at most once at a
  // time, XGPU-VUID-xgpuMapBuffer-buffer-mapped). It stays mapped until the
  // buffer is destroyed.
  void* map(XgpuBuffer buffer, uint32_t d = 0) {
    if (auto it = mapped.find({d, buffer}); it != mapped.end()) return it->second;
    void* data = nullptr;
    REQUIRE(api().MapBuffer(devices[d], buffer, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
    mapped[{d, buffer}] = data;
    return data;
  }
  // The test kernels' executable (tests/icd/kernels) on device d.
  XgpuExecutable test_executable(uint32_t d = 0) {
    XgpuExecutableCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
    info.pFilePath = XGPU_ICD_TEST_KERNELS;
    XgpuExecutable executable = nullptr;
    REQUIRE(api().CreateExecutable(devices[d], &info, nullptr, &executable) == XGPU_SUCCESS);
    return executable;
  }
  // A pipeline of `executable`'s kernel `entry`: `bindings` buffers,
  // `constants` bytes, workgroups of wx x 1 x 1 (wx 0: the kernel's own size).
  static XgpuPipelineCreateInfo pipeline_info(XgpuExecutable executable, const char* entry, uint32_t bindings,
                                              uint32_t constants, uint32_t wx) {
    XgpuPipelineCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
    info.executable = executable;
    info.pEntryPoint = entry;
    info.bindingCount = bindings;
    info.constantSize = constants;
    info.workgroupSize[0] = wx;
    info.workgroupSize[1] = wx ? 1 : 0;
    info.workgroupSize[2] = wx ? 1 : 0;
    return info;
  }
  XgpuPipeline pipeline(XgpuExecutable executable, const char* entry, uint32_t bindings, uint32_t constants,
                        uint32_t wx, uint32_t d = 0) {
    const XgpuPipelineCreateInfo info = pipeline_info(executable, entry, bindings, constants, wx);
    XgpuPipeline pipeline = nullptr;
    REQUIRE(api().CreatePipeline(devices[d], &info, nullptr, &pipeline) == XGPU_SUCCESS);
    return pipeline;
  }
  // A new command buffer on device d, begun in `mode` with `binding_capacity` slots.
  XgpuCommandBuffer begin_command_buffer(XgpuCommandBufferMode mode, uint32_t binding_capacity = 0, uint32_t d = 0) {
    XgpuCommandBufferCreateInfo create{};
    create.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
    XgpuCommandBuffer cb = nullptr;
    REQUIRE(api().CreateCommandBuffer(devices[d], &create, nullptr, &cb) == XGPU_SUCCESS);
    XgpuCommandBufferBeginInfo begin{};
    begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.mode = mode;
    begin.bindingCapacity = binding_capacity;
    REQUIRE(api().BeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
    return cb;
  }
  XgpuSemaphore semaphore(uint64_t initial = 0, uint32_t d = 0) {
    XgpuSemaphoreCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    info.initialValue = initial;
    XgpuSemaphore semaphore = nullptr;
    REQUIRE(api().CreateSemaphore(devices[d], &info, nullptr, &semaphore) == XGPU_SUCCESS);
    return semaphore;
  }
  XgpuResult wait(XgpuSemaphore semaphore, uint64_t value, uint64_t timeout = kTimeoutNs, uint32_t d = 0) {
    XgpuSemaphoreWaitInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    info.semaphoreCount = 1;
    info.pSemaphores = &semaphore;
    info.pValues = &value;
    return api().WaitSemaphores(devices[d], &info, timeout);
  }
  XgpuResult signal(XgpuSemaphore semaphore, uint64_t value, uint32_t d = 0) {
    XgpuSemaphoreSignalInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
    info.semaphore = semaphore;
    info.value = value;
    return api().SignalSemaphore(devices[d], &info);
  }
  uint64_t value(XgpuSemaphore semaphore, XgpuResult* out_result = nullptr, uint32_t d = 0) {
    uint64_t v = 0;
    XgpuResult r = api().GetSemaphoreValue(devices[d], semaphore, &v);
    if (out_result) *out_result = r;
    return v;
  }
};

// HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY (newer than the installed hsa headers).
inline constexpr uint32_t kAmdAgentInfoTimestampFrequency = 0xA016;

// What hsa-cpu reports, read directly: the system timestamp frequency and the
// first agent's HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY (0 when not answered).
struct HsaCpuFrequencies {
  uint64_t system = 0;  // Hz
  uint64_t agent = 0;   // Hz, 0 = not answered
};

// The HSA runtime the driver loads in this process: XGPU_HSA_LIBRARY when
// set (hsa-cuda on a GPU machine), else the build's hsa-cpu.
inline const char* test_runtime_library() {
  const char* path = std::getenv("XGPU_HSA_LIBRARY");
  return path != nullptr && path[0] != '\0' ? path : XGPU_ICD_TEST_HSA_LIBRARY;
}

// Whether a physical device runs on hsa-cpu (whose own properties some
// cases check); the other cases hold on every runtime.
inline bool runs_on_hsa_cpu(const XgpuPhysicalDeviceProperties& properties) {
  return std::string(properties.runtimeName).find("libxgpu-hsa-cpu") != std::string::npos;
}

// (`path`: the runtime to read, hsa-cpu unless given.)
inline HsaCpuFrequencies read_hsa_cpu_frequencies(const char* path = XGPU_ICD_TEST_HSA_LIBRARY) {
  // RTLD_NODELETE as the driver does: the runtime keeps state that must stay mapped.
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  REQUIRE_MESSAGE(library, dlerror());
  auto init = reinterpret_cast<decltype(&hsa_init)>(dlsym(library, "hsa_init"));
  auto shut_down = reinterpret_cast<decltype(&hsa_shut_down)>(dlsym(library, "hsa_shut_down"));
  auto system_info = reinterpret_cast<decltype(&hsa_system_get_info)>(dlsym(library, "hsa_system_get_info"));
  auto iterate = reinterpret_cast<decltype(&hsa_iterate_agents)>(dlsym(library, "hsa_iterate_agents"));
  auto agent_info = reinterpret_cast<decltype(&hsa_agent_get_info)>(dlsym(library, "hsa_agent_get_info"));
  REQUIRE((init && shut_down && system_info && iterate && agent_info));
  REQUIRE(init() == HSA_STATUS_SUCCESS);
  HsaCpuFrequencies out;
  CHECK(system_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &out.system) == HSA_STATUS_SUCCESS);
  hsa_agent_t first{0};
  iterate(
      [](hsa_agent_t agent, void* data) {
        *static_cast<hsa_agent_t*>(data) = agent;
        return HSA_STATUS_INFO_BREAK;
      },
      &first);
  if (agent_info(first, hsa_agent_info_t(kAmdAgentInfoTimestampFrequency), &out.agent) != HSA_STATUS_SUCCESS)
    out.agent = 0;
  CHECK(shut_down() == HSA_STATUS_SUCCESS);
  dlclose(library);
  return out;
}

// A wait/signal-only submission (null command buffer).
inline XgpuResult submit_barrier(XgpuQueue queue, std::vector<XgpuSemaphore> wait_semaphores,
                                 std::vector<uint64_t> wait_values, std::vector<XgpuSemaphore> signal_semaphores,
                                 std::vector<uint64_t> signal_values, XgpuCommandBuffer command_buffer = nullptr,
                                 const std::vector<XgpuBufferBinding>& bindings = {}) {
  XgpuSubmitInfo submit{};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.waitSemaphores = {uint32_t(wait_semaphores.size()), wait_semaphores.data(), wait_values.data()};
  submit.signalSemaphores = {uint32_t(signal_semaphores.size()), signal_semaphores.data(), signal_values.data()};
  submit.commandBuffer = command_buffer;
  submit.bindingCount = uint32_t(bindings.size());
  submit.pBindings = bindings.data();
  return api().QueueSubmit(queue, 1, &submit);
}

}  // namespace icdtest
