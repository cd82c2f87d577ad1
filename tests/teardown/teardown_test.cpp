// Teardown is bounded and nothing a program does kills the process:
//   teardown scenarios (one per ctest entry, each run with and without the
//   validation layer): a hung kernel, a device lost to the watchdog (objects
//   destroyed after the loss, or left alive), work held behind a semaphore
//   nobody signals; xgpuWaitSemaphores for all of {unsignalled, failed};
//   host_memory_sweep: the whole life of a device (instance, device, buffer,
//   semaphore, executable, pipeline, command buffer, submission, wait) in a
//   child process under each of a range of address-space limits
//   (RLIMIT_AS), expecting only clean results - never a signal or an abort.
// Each step runs under an alarm: a step that hangs fails with its name
// (and ctest's TIMEOUT is the last line).
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <hsa/hsa.h>
#include <xgpu/xgpu.h>

#include "teardown_kernels.h"

namespace {

using Clock = std::chrono::steady_clock;

int g_failures = 0;

#define EXPECT(cond)                                                              \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond);     \
      ++g_failures;                                                               \
    }                                                                             \
  } while (0)
#define REQUIRE_OK(call)                                                          \
  do {                                                                            \
    const XgpuResult r_ = (call);                                                 \
    if (r_ != XGPU_SUCCESS) {                                                     \
      std::fprintf(stderr, "%s:%d: FAILED: %s returned %d\n", __FILE__, __LINE__, #call, int(r_)); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// The step running now, named by the alarm handler when it hangs.
const char* volatile g_step = "start";

void on_alarm(int) {
  const char* step = g_step;
  (void)!write(2, "HUNG in step: ", 14);
  (void)!write(2, step, std::strlen(step));
  (void)!write(2, "\n", 1);
  _exit(2);
}

// Runs `body` as step `name` with `limit_s` seconds before the process is
// failed as hung; returns how long it took.
template <typename Body>
double step(const char* name, unsigned limit_s, Body&& body) {
  g_step = name;
  alarm(limit_s);
  const Clock::time_point start = Clock::now();
  body();
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  alarm(0);
  std::printf("%-44s %.3f s\n", name, took);
  std::fflush(stdout);
  return took;
}

// Every message the instance's messenger hears.
struct Log {
  std::mutex mutex;
  std::vector<std::string> ids, texts;
  bool contains(const char* text) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const std::string& t : texts)
      if (t.find(text) != std::string::npos) return true;
    return false;
  }
  bool has_id(const char* id) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const std::string& i : ids)
      if (i.find(id) != std::string::npos) return true;
    return false;
  }
  void dump() {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < texts.size(); ++i) std::fprintf(stderr, "  [%s] %s\n", ids[i].c_str(), texts[i].c_str());
  }
};

XgpuBool32 XGPU_API_CALL on_message(XgpuDebugMessageSeverityFlagBits, XgpuDebugMessageTypeFlags,
                                    const XgpuDebugMessageData* data, void* user) {
  auto* log = static_cast<Log*>(user);
  std::lock_guard<std::mutex> lock(log->mutex);
  log->ids.emplace_back(data->pMessageIdName ? data->pMessageIdName : "");
  log->texts.emplace_back(data->pMessage ? data->pMessage : "");
  return XGPU_FALSE;
}

bool layer_on() {
  const char* layers = std::getenv("XGPU_INSTANCE_LAYERS");
  return layers != nullptr && std::strstr(layers, "validation") != nullptr;
}

// Process CPU time (user + system), seconds.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// An instance with a messenger, a device with `queues` queues on physical
// device 0, and the objects of one dispatch of teardown_spin (64 workgroups
// of one item: more than there are cores, so workgroups wait their turn
// while others spin).
struct World {
  Log log;
  XgpuInstance instance = nullptr;
  XgpuDebugMessenger messenger = nullptr;
  XgpuPhysicalDevice physical = nullptr;
  XgpuDevice device = nullptr;
  std::vector<XgpuQueue> queues;
  uint32_t host_visible = 0;
  XgpuExecutable executable = nullptr;
  XgpuPipeline pipeline = nullptr;
  XgpuBuffer gate = nullptr;
  XgpuCommandBuffer spin = nullptr;

  explicit World(uint32_t queue_count) {
    XgpuInstanceCreateInfo instance_info{};
    instance_info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    REQUIRE_OK(xgpuCreateInstance(&instance_info, nullptr, &instance));
    XgpuDebugMessengerCreateInfo messenger_info{};
    messenger_info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
    messenger_info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT |
                                     XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;
    messenger_info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT |
                                 XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT;
    messenger_info.pfnUserCallback = on_message;
    messenger_info.pUserData = &log;
    REQUIRE_OK(xgpuCreateDebugMessenger(instance, &messenger_info, nullptr, &messenger));
    uint32_t count = 1;
    const XgpuResult enumerated = xgpuEnumeratePhysicalDevices(instance, &count, &physical);
    if ((enumerated != XGPU_SUCCESS && enumerated != XGPU_INCOMPLETE) || count == 0) std::exit(1);
    XgpuPhysicalDeviceMemoryProperties memory{};
    xgpuGetPhysicalDeviceMemoryProperties(physical, &memory);
    for (uint32_t t = 0; t < memory.memoryTypeCount; ++t)
      if (memory.memoryTypes[t].propertyFlags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        host_visible = t;
        break;
      }
    XgpuDeviceQueueCreateInfo queue_info{};
    queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueCount = queue_count;
    XgpuDeviceCreateInfo device_info{};
    device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    REQUIRE_OK(xgpuCreateDevice(physical, &device_info, nullptr, &device));
    queues.resize(queue_count);
    for (uint32_t i = 0; i < queue_count; ++i) xgpuGetDeviceQueue(device, 0, i, &queues[i]);
  }

  XgpuSemaphore semaphore(uint64_t initial = 0) {
    XgpuSemaphoreCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    info.initialValue = initial;
    XgpuSemaphore s = nullptr;
    REQUIRE_OK(xgpuCreateSemaphore(device, &info, nullptr, &s));
    return s;
  }

  void make_spin() {
    XgpuExecutableCreateInfo executable_info{};
    executable_info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
    executable_info.pFilePath = XGPU_TEARDOWN_KERNELS;
    REQUIRE_OK(xgpuCreateExecutable(device, &executable_info, nullptr, &executable));
    XgpuPipelineCreateInfo pipeline_info{};
    pipeline_info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
    pipeline_info.executable = executable;
    pipeline_info.pEntryPoint = "teardown_spin";
    pipeline_info.bindingCount = 1;
    pipeline_info.workgroupSize[0] = pipeline_info.workgroupSize[1] = pipeline_info.workgroupSize[2] = 1;
    REQUIRE_OK(xgpuCreatePipeline(device, &pipeline_info, nullptr, &pipeline));
    XgpuBufferCreateInfo buffer_info{};
    buffer_info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    buffer_info.size = 64;
    buffer_info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
    buffer_info.memoryTypeIndex = host_visible;
    REQUIRE_OK(xgpuCreateBuffer(device, &buffer_info, nullptr, &gate));
    void* data = nullptr;
    REQUIRE_OK(xgpuMapBuffer(device, gate, 0, XGPU_WHOLE_SIZE, &data));
    __atomic_store_n(static_cast<uint32_t*>(data), 0u, __ATOMIC_RELEASE);
    XgpuCommandBufferCreateInfo create{};
    create.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
    REQUIRE_OK(xgpuCreateCommandBuffer(device, &create, nullptr, &spin));
    XgpuCommandBufferBeginInfo begin{};
    begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE;
    REQUIRE_OK(xgpuBeginCommandBuffer(spin, &begin));
    xgpuCmdBindPipeline(spin, pipeline);
    const XgpuBufferRef ref = xgpuBufferRefWhole(gate);
    xgpuCmdBindBuffers(spin, 0, 1, &ref);
    xgpuCmdDispatch(spin, 64, 1, 1);
    REQUIRE_OK(xgpuEndCommandBuffer(spin));
  }

  XgpuResult submit(uint32_t queue, XgpuCommandBuffer cb, std::vector<XgpuSemaphore> waits,
                    std::vector<uint64_t> wait_values, std::vector<XgpuSemaphore> signals,
                    std::vector<uint64_t> signal_values) {
    XgpuSubmitInfo submit{};
    submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBuffer = cb;
    submit.waitSemaphores = {uint32_t(waits.size()), waits.data(), wait_values.data()};
    submit.signalSemaphores = {uint32_t(signals.size()), signals.data(), signal_values.data()};
    return xgpuQueueSubmit(queues[queue], 1, &submit);
  }

  XgpuResult wait(XgpuSemaphore s, uint64_t value, uint64_t timeout = XGPU_INFINITE_TIMEOUT) {
    XgpuSemaphoreWaitInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    info.semaphoreCount = 1;
    info.pSemaphores = &s;
    info.pValues = &value;
    return xgpuWaitSemaphores(device, &info, timeout);
  }

  void destroy_spin_objects() {
    xgpuDestroyCommandBuffer(device, spin, nullptr);
    xgpuDestroyBuffer(device, gate, nullptr);
    xgpuDestroyPipeline(device, pipeline, nullptr);
    xgpuDestroyExecutable(device, executable, nullptr);
    spin = nullptr;
    gate = nullptr;
    pipeline = nullptr;
    executable = nullptr;
  }

  // Destroys the device (bounded by `device_limit_s`) and the instance, and
  // checks that nothing of the abandoned work still burns CPU time.
  void teardown(double device_limit_s, bool expect_abandoned) {
    const double device_s = step("xgpuDestroyDevice", unsigned(device_limit_s) + 10, [&] {
      xgpuDestroyDevice(device, nullptr);
    });
    EXPECT(device_s < device_limit_s);
    if (expect_abandoned) {
      const bool said = log.contains("abandoned");
      EXPECT(said);
      if (!said) log.dump();
    }
    xgpuDestroyDebugMessenger(instance, messenger, nullptr);
    const double instance_s = step("xgpuDestroyInstance", 15, [&] { xgpuDestroyInstance(instance, nullptr); });
    EXPECT(instance_s < 3.5);
    // The abandoned kernel was stopped: the process is idle.
    const double cpu_before = cpu_seconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    const double busy = cpu_seconds() - cpu_before;
    std::printf("%-44s %.3f s of CPU in 0.4 s\n", "after teardown", busy);
    EXPECT(busy < 0.2);
  }
};

// Bounds: the driver waits 2 s per busy queue, the layer 2 s of its own
// before it hands over to the driver (api.md, xgpuDestroyDevice).
double destroy_bound_s() { return layer_on() ? 5.0 : 3.0; }

// A kernel that never ends, the watchdog off: the destroy abandons it, and
// the runtime stops it (instance teardown does not wait for it).
int hung_kernel() {
  setenv("XGPU_AMDGPU_WATCHDOG_MS", "0", 1);
  World world(1);
  world.make_spin();
  REQUIRE_OK(world.submit(0, world.spin, {}, {}, {}, {}));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  world.teardown(destroy_bound_s(), /*expect_abandoned=*/true);
  return g_failures;
}

// The watchdog loses the device to a kernel that never ends; `destroy_first`:
// the objects are destroyed after the loss (no -pending or -inUse report:
// the host saw the submission fail), else left to xgpuDestroyDevice.
int watchdog_loss(bool destroy_first) {
  setenv("XGPU_AMDGPU_WATCHDOG_MS", "300", 1);
  World world(2);
  world.make_spin();
  XgpuSemaphore spun = world.semaphore(0);
  REQUIRE_OK(world.submit(0, world.spin, {}, {}, {spun}, {1}));
  XgpuResult waited = XGPU_SUCCESS;
  step("wait for the watchdog", 15, [&] { waited = world.wait(spun, 1); });
  EXPECT(waited == XGPU_ERROR_DEVICE_LOST);
  if (destroy_first) {
    step("destroy the objects after the loss", 10, [&] {
      world.destroy_spin_objects();
      xgpuDestroySemaphore(world.device, spun, nullptr);
    });
    for (const char* id : {"-pending", "-inUse", "-children", "-idle"}) {
      const bool reported = world.log.has_id(id);
      if (reported) std::fprintf(stderr, "unexpected report %s\n", id);
      EXPECT(!reported);
    }
    if (g_failures) world.log.dump();
  }
  world.teardown(destroy_first ? 1.5 : destroy_bound_s(), false);
  return g_failures;
}

// The device is lost (a fault on queue 1) while queue 0 runs a kernel that
// never ends and the watchdog is off: xgpuDeviceWaitIdle returns the loss
// in bounded time (stopping what still runs), and so does the destroy.
int lost_with_hung_queue() {
  setenv("XGPU_AMDGPU_WATCHDOG_MS", "0", 1);
  setenv("XGPU_AMDGPU_TEST_HOOKS", "1", 1);  // xgpuAmdgpuTestInjectQueueFault
  World world(2);
  world.make_spin();
  REQUIRE_OK(world.submit(0, world.spin, {}, {}, {}, {}));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  using InjectFault = XgpuResult (*)(XgpuQueue, const XgpuSemaphoreList*);
  auto inject = reinterpret_cast<InjectFault>(xgpuGetDeviceProcAddr(world.device, "xgpuAmdgpuTestInjectQueueFault"));
  if (inject == nullptr) {
    std::fprintf(stderr, "the driver has no xgpuAmdgpuTestInjectQueueFault\n");
    return 1;
  }
  XgpuSemaphore faulted = world.semaphore(0);
  const uint64_t one = 1;
  const XgpuSemaphoreList signals{1, &faulted, &one};
  REQUIRE_OK(inject(world.queues[1], &signals));
  XgpuResult waited = XGPU_SUCCESS;
  step("wait for the fault", 10, [&] { waited = world.wait(faulted, 1); });
  EXPECT(waited == XGPU_ERROR_DEVICE_LOST);
  XgpuResult idle = XGPU_SUCCESS;
  const double idle_s = step("xgpuDeviceWaitIdle after the loss", 15, [&] { idle = xgpuDeviceWaitIdle(world.device); });
  EXPECT(idle == XGPU_ERROR_DEVICE_LOST);
  EXPECT(idle_s < 3.0);
  xgpuDestroySemaphore(world.device, faulted, nullptr);
  world.teardown(destroy_bound_s(), false);
  return g_failures;
}

// Work held behind a semaphore nobody signals: the destroy drops it after
// its bound, and says so.
int never_signalled() {
  World world(1);
  XgpuSemaphore never = world.semaphore(0), after = world.semaphore(0);
  REQUIRE_OK(world.submit(0, nullptr, {never}, {1}, {after}, {1}));
  world.teardown(destroy_bound_s(), false);
  const bool said = world.log.contains("never signalled") || world.log.contains("dropped");
  EXPECT(said);
  if (!said) world.log.dump();
  return g_failures;
}

// xgpuWaitSemaphores for all of {unsignalled, failed} returns the failure at
// once, with an infinite timeout too; for any of them, the failure as well
// (the unsignalled one cannot satisfy it first).
int wait_all_failed() {
  World world(1);
  XgpuSemaphore pending = world.semaphore(0), failed = world.semaphore(0);
  REQUIRE_OK(xgpuFailSemaphore(world.device, failed, XGPU_ERROR_SEMAPHORE_FAILED));
  const XgpuSemaphore both[2] = {pending, failed};
  const uint64_t values[2] = {1, 1};
  XgpuSemaphoreWaitInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 2;
  info.pSemaphores = both;
  info.pValues = values;
  XgpuResult all = XGPU_SUCCESS, any = XGPU_SUCCESS, timed = XGPU_SUCCESS;
  const double all_s = step("wait all, infinite timeout", 10, [&] { all = xgpuWaitSemaphores(world.device, &info, XGPU_INFINITE_TIMEOUT); });
  const double timed_s = step("wait all, 5 s timeout", 10, [&] { timed = xgpuWaitSemaphores(world.device, &info, 5'000'000'000ull); });
  info.flags = XGPU_SEMAPHORE_WAIT_ANY_BIT;
  step("wait any", 10, [&] { any = xgpuWaitSemaphores(world.device, &info, XGPU_INFINITE_TIMEOUT); });
  EXPECT(all == XGPU_ERROR_SEMAPHORE_FAILED);
  EXPECT(timed == XGPU_ERROR_SEMAPHORE_FAILED);
  EXPECT(any == XGPU_ERROR_SEMAPHORE_FAILED);
  EXPECT(all_s < 1.0);
  EXPECT(timed_s < 1.0);
  // Failed by a submission that waited on it: the same.
  XgpuSemaphore chained = world.semaphore(0);
  REQUIRE_OK(world.submit(0, nullptr, {failed}, {1}, {chained}, {1}));
  const XgpuSemaphore second[2] = {pending, chained};
  info.flags = 0;
  info.pSemaphores = second;
  XgpuResult chained_result = XGPU_SUCCESS;
  const double chained_s = step("wait all, failed by a submission", 10, [&] {
    chained_result = xgpuWaitSemaphores(world.device, &info, XGPU_INFINITE_TIMEOUT);
  });
  EXPECT(chained_result == XGPU_ERROR_SEMAPHORE_FAILED);
  EXPECT(chained_s < 1.0);
  for (XgpuSemaphore s : {pending, failed, chained}) xgpuDestroySemaphore(world.device, s, nullptr);
  world.teardown(1.0, false);
  return g_failures;
}

// ---- host memory ----------------------------------------------------------

// What one xgpu call of the workload may answer under a memory limit.
bool clean(XgpuResult r) {
  switch (r) {
    case XGPU_SUCCESS:
    case XGPU_ERROR_OUT_OF_HOST_MEMORY:
    case XGPU_ERROR_OUT_OF_DEVICE_MEMORY:
    case XGPU_ERROR_INITIALIZATION_FAILED:
    case XGPU_ERROR_TOO_MANY_OBJECTS:
    case XGPU_ERROR_DEVICE_LOST:
    case XGPU_ERROR_INCOMPATIBLE_DRIVER:
    case XGPU_ERROR_INVALID_EXECUTABLE:
      return true;
    default:
      return false;
  }
}

// Exit codes of a workload child.
constexpr int kWorkloadRan = 0;       // every step succeeded
constexpr int kWorkloadRefused = 10;  // a step answered a clean error
constexpr int kWorkloadWrong = 11;    // a step answered something else

XgpuBool32 XGPU_API_CALL quiet(XgpuDebugMessageSeverityFlagBits, XgpuDebugMessageTypeFlags,
                               const XgpuDebugMessageData*, void*) {
  return XGPU_FALSE;
}

// Called by the workload once its instance exists (the failing allocator is
// armed there: the sweep covers the device's life, not the loader's reading
// of manifests - nlohmann::json's destructor allocates, and is noexcept).
void (*g_after_instance)() = nullptr;
// The failing allocator is armed before xgpuCreateInstance (the loader's
// reading of manifests, the layer's and the driver's loading): the sweep
// allocation_sweep_instance.
bool g_sweep_instance = false;

// The whole life of a device, every object destroyed on the way out; returns
// a workload exit code. Prints the first refusal.
int workload() {
  int outcome = kWorkloadRan;
  auto check = [&](const char* what, XgpuResult r) {
    if (r == XGPU_SUCCESS) return true;
    if (outcome == kWorkloadRan) {
      outcome = clean(r) ? kWorkloadRefused : kWorkloadWrong;
      std::printf("  %s: %d\n", what, int(r));
    }
    return false;
  };
  XgpuInstanceCreateInfo instance_info{};
  instance_info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  XgpuInstance instance = nullptr;
  if (!check("xgpuCreateInstance", xgpuCreateInstance(&instance_info, nullptr, &instance))) return outcome;
  // Messages go to a quiet messenger (stderr would flood the sweep).
  XgpuDebugMessengerCreateInfo messenger_info{};
  messenger_info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
  messenger_info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT;
  messenger_info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
  messenger_info.pfnUserCallback = quiet;
  XgpuDebugMessenger messenger = nullptr;
  check("xgpuCreateDebugMessenger", xgpuCreateDebugMessenger(instance, &messenger_info, nullptr, &messenger));
  if (g_after_instance != nullptr) g_after_instance();
  uint32_t count = 1;
  XgpuPhysicalDevice physical = nullptr;
  const XgpuResult enumerated = xgpuEnumeratePhysicalDevices(instance, &count, &physical);
  XgpuDevice device = nullptr;
  if ((enumerated == XGPU_SUCCESS || enumerated == XGPU_INCOMPLETE) && count == 1) {
    XgpuDeviceQueueCreateInfo queue_info{};
    queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueCount = 1;
    XgpuDeviceCreateInfo device_info{};
    device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    check("xgpuCreateDevice", xgpuCreateDevice(physical, &device_info, nullptr, &device));
  } else {
    check("xgpuEnumeratePhysicalDevices", enumerated == XGPU_SUCCESS ? XGPU_ERROR_INITIALIZATION_FAILED : enumerated);
  }
  if (device != nullptr) {
    XgpuQueue queue = nullptr;
    xgpuGetDeviceQueue(device, 0, 0, &queue);
    XgpuBufferCreateInfo buffer_info{};
    buffer_info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    buffer_info.size = 4096;
    buffer_info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
    XgpuBuffer buffer = nullptr;
    check("xgpuCreateBuffer", xgpuCreateBuffer(device, &buffer_info, nullptr, &buffer));
    XgpuSemaphoreCreateInfo semaphore_info{};
    semaphore_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    XgpuSemaphore semaphore = nullptr;
    check("xgpuCreateSemaphore", xgpuCreateSemaphore(device, &semaphore_info, nullptr, &semaphore));
    XgpuExecutableCreateInfo executable_info{};
    executable_info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
    executable_info.pFilePath = XGPU_TEARDOWN_KERNELS;
    XgpuExecutable executable = nullptr;
    check("xgpuCreateExecutable", xgpuCreateExecutable(device, &executable_info, nullptr, &executable));
    XgpuPipeline pipeline = nullptr;
    if (executable != nullptr) {
      XgpuPipelineCreateInfo pipeline_info{};
      pipeline_info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
      pipeline_info.executable = executable;
      pipeline_info.pEntryPoint = "teardown_iota";
      pipeline_info.workgroupSize[0] = 64;
      pipeline_info.workgroupSize[1] = pipeline_info.workgroupSize[2] = 1;
      check("xgpuCreatePipeline", xgpuCreatePipeline(device, &pipeline_info, nullptr, &pipeline));
    }
    // A fixed array: the workload itself allocates nothing the failing
    // allocator could refuse (a vector's growth would throw out of it).
    XgpuCommandBuffer cbs[8] = {};
    size_t cb_count = 0;
    if (pipeline != nullptr && buffer != nullptr && semaphore != nullptr) {
      // Several command buffers, so the limit falls inside their creation
      // and recording at some step of the sweep.
      for (int i = 0; i < 8; ++i) {
        XgpuCommandBufferCreateInfo create{};
        create.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
        XgpuCommandBuffer cb = nullptr;
        if (!check("xgpuCreateCommandBuffer", xgpuCreateCommandBuffer(device, &create, nullptr, &cb))) break;
        cbs[cb_count++] = cb;
        XgpuCommandBufferBeginInfo begin{};
        begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
        begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
        if (!check("xgpuBeginCommandBuffer", xgpuBeginCommandBuffer(cb, &begin))) break;
        xgpuCmdBindPipeline(cb, pipeline);
        const XgpuBufferRef ref = xgpuBufferRefWhole(buffer);
        xgpuCmdBindBuffers(cb, 0, 1, &ref);
        const uint32_t constants[2] = {1024, 0};
        xgpuCmdPushConstants(cb, 0, sizeof constants, constants);
        for (int d = 0; d < 16; ++d) xgpuCmdDispatch(cb, 16, 1, 1);
        if (!check("xgpuEndCommandBuffer", xgpuEndCommandBuffer(cb))) break;
        const uint64_t value = uint64_t(i) + 1;
        XgpuSubmitInfo submit{};
        submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
        submit.commandBuffer = cb;
        submit.signalSemaphores = {1, &semaphore, &value};
        if (!check("xgpuQueueSubmit", xgpuQueueSubmit(queue, 1, &submit))) break;
        XgpuSemaphoreWaitInfo wait{};
        wait.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
        wait.semaphoreCount = 1;
        wait.pSemaphores = &semaphore;
        wait.pValues = &value;
        if (!check("xgpuWaitSemaphores", xgpuWaitSemaphores(device, &wait, 10'000'000'000ull))) break;
      }
    }
    check("xgpuDeviceWaitIdle", xgpuDeviceWaitIdle(device));
    for (size_t i = 0; i < cb_count; ++i) xgpuDestroyCommandBuffer(device, cbs[i], nullptr);
    xgpuDestroyPipeline(device, pipeline, nullptr);
    xgpuDestroyExecutable(device, executable, nullptr);
    xgpuDestroySemaphore(device, semaphore, nullptr);
    xgpuDestroyBuffer(device, buffer, nullptr);
    xgpuDestroyDevice(device, nullptr);
  }
  if (messenger != nullptr) xgpuDestroyDebugMessenger(instance, messenger, nullptr);
  xgpuDestroyInstance(instance, nullptr);
  return outcome;
}

// Peak address space of this process, bytes (VmPeak).
uint64_t peak_address_space() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) return 0;
  char line[256];
  uint64_t kib = 0;
  while (std::fgets(line, sizeof line, status))
    if (std::sscanf(line, "VmPeak: %lu kB", &kib) == 1) break;
  std::fclose(status);
  return kib * 1024;
}

// An exception that escaped into the workload (std::terminate): where from.
[[noreturn]] void on_terminate() {
  static const char kText[] = "std::terminate: an exception crossed the C API; backtrace:\n";
  (void)!write(2, kText, sizeof kText - 1);
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), 2);
  std::abort();
}

// What the child runs before the workload: an address-space limit, or the
// failing allocator's choice (failing_malloc.c, preloaded).
struct Fault {
  uint64_t address_space = 0;  // RLIMIT_AS in bytes; 0: none
  long fail_allocation = -1;   // the allocation that fails; 0: count only; -1: the allocator is not armed
};

// Runs the workload in a child under `fault`; returns its wait status, or -1
// when it ran past `timeout_s` (killed). `out_value`: the child's peak
// address space (a limit) or its allocation count (the allocator).
int run_faulted(const Fault& fault, unsigned timeout_s, uint64_t* out_value) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    void* warm[1];
    backtrace(warm, 1);  // loads what backtrace needs before memory runs short
    std::set_terminate(on_terminate);
    if (fault.address_space != 0) {
      rlimit rl{fault.address_space, fault.address_space};
      setrlimit(RLIMIT_AS, &rl);
    }
    using ArmFn = void (*)(long);
    using CountFn = long (*)();
    static ArmFn arm = reinterpret_cast<ArmFn>(dlsym(RTLD_DEFAULT, "xgpu_test_fail_allocation"));
    auto count = reinterpret_cast<CountFn>(dlsym(RTLD_DEFAULT, "xgpu_test_allocation_count"));
    static long fail_at = fault.fail_allocation;
    if (fault.fail_allocation >= 0) {
      if (arm == nullptr || count == nullptr) _exit(kWorkloadWrong);
      if (g_sweep_instance)
        arm(fail_at);
      else
        g_after_instance = [] { arm(fail_at); };
    }
    const int outcome = workload();
    const uint64_t value = fault.fail_allocation >= 0 ? uint64_t(count()) : peak_address_space();
    if (fault.fail_allocation >= 0) arm(-1);
    (void)!write(pipe_fds[1], &value, sizeof value);
    std::fflush(stdout);
    _exit(outcome);
  }
  close(pipe_fds[1]);
  int status = 0;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (Clock::now() >= deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      close(pipe_fds[0]);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  uint64_t value = 0;
  if (read(pipe_fds[0], &value, sizeof value) == sizeof value && out_value) *out_value = value;
  close(pipe_fds[0]);
  return status;
}

// Counts one child's outcome; prints it after `label`.
void tally(const char* label, int status, unsigned timeout_s, int* ran, int* refused) {
  std::printf("%s: ", label);
  if (status == -1) {
    std::printf("HUNG (killed after %u s)\n", timeout_s);
    ++g_failures;
  } else if (WIFSIGNALED(status)) {
    std::printf("KILLED by signal %d (%s)\n", WTERMSIG(status), strsignal(WTERMSIG(status)));
    ++g_failures;
  } else if (WEXITSTATUS(status) == kWorkloadRan) {
    std::printf("ran\n");
    ++*ran;
  } else if (WEXITSTATUS(status) == kWorkloadRefused) {
    std::printf("refused cleanly\n");
    ++*refused;
  } else {
    std::printf("WRONG: exit status %d\n", WEXITSTATUS(status));
    ++g_failures;
  }
  std::fflush(stdout);
}

// The failing allocator's sweep: a counting run gives the workload's
// allocations once its instance exists, then `steps` runs each fail one of
// them, spread over the whole count (the first hundred one by one).
int allocation_sweep(int steps) {
  uint64_t total = 0;
  const int counted = run_faulted(Fault{0, 0}, 60, &total);
  if (counted == -1 || !WIFEXITED(counted) || WEXITSTATUS(counted) != kWorkloadRan || total == 0) {
    std::fprintf(stderr, "the workload does not run with the counting allocator (status 0x%x); is "
                 "failing_malloc preloaded?\n", counted);
    return 1;
  }
  std::printf("allocations of the workload: %lu\n", (unsigned long)total);
  int ran = 0, refused = 0;
  const uint64_t first = total < 100 ? total : 100;
  std::vector<uint64_t> picks;
  for (uint64_t n = 1; n <= first; ++n) picks.push_back(n);
  for (int i = 1; i <= steps; ++i) picks.push_back(first + (total - first) * uint64_t(i) / uint64_t(steps));
  for (uint64_t n : picks) {
    const int status = run_faulted(Fault{0, long(n)}, 30, nullptr);
    char label[64];
    std::snprintf(label, sizeof label, "allocation %6lu fails", (unsigned long)n);
    tally(label, status, 30, &ran, &refused);
  }
  std::printf("%zu allocations failed one at a time: %d ran, %d refused cleanly, %d failed\n", picks.size(), ran,
              refused, g_failures);
  return g_failures;
}

// The sweep: first a run with no limit (its peak address space sets the
// range), then `steps` limits from 1/8 of that peak up to it (below, glibc itself
// may abort a thread it cannot give dynamic TLS: README.md).
int host_memory_sweep(int steps) {
  uint64_t peak = 0;
  const int free_status = run_faulted(Fault{}, 60, &peak);
  if (free_status == -1 || !WIFEXITED(free_status) || WEXITSTATUS(free_status) != kWorkloadRan) {
    std::fprintf(stderr, "the workload does not run without a limit (status 0x%x)\n", free_status);
    return 1;
  }
  std::printf("peak address space without a limit: %lu MiB\n", (unsigned long)(peak >> 20));
  const uint64_t low = peak / 8, high = peak + (peak >> 4);
  int ran = 0, refused = 0;
  for (int i = 0; i < steps; ++i) {
    const uint64_t limit = low + (high - low) * uint64_t(i) / uint64_t(steps - 1);
    Fault fault;
    fault.address_space = limit;
    const int status = run_faulted(fault, 30, nullptr);
    char label[64];
    std::snprintf(label, sizeof label, "RLIMIT_AS %5lu MiB", (unsigned long)(limit >> 20));
    tally(label, status, 30, &ran, &refused);
  }
  std::printf("%d limits: %d ran, %d refused cleanly, %d failed\n", steps, ran, refused, g_failures);
  return g_failures;
}

// The HSA runtime outlives the driver: this program holds its own hsa_init
// on the runtime the driver uses, so the runtime's threads (its async
// handler thread) stay up while instances - and with them the driver
// library - come and go. Whatever driver code such a thread runs (a
// completion handler, the device's last flush function) must still be
// mapped when it returns: each round is a whole device life.
int runtime_outlives_driver(int rounds) {
  const char* path = std::getenv("XGPU_HSA_LIBRARY");
  if (path == nullptr) {
    std::fprintf(stderr, "XGPU_HSA_LIBRARY is not set\n");
    return 1;
  }
  void* hsa = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  auto init = hsa ? reinterpret_cast<decltype(&hsa_init)>(dlsym(hsa, "hsa_init")) : nullptr;
  auto shut_down = hsa ? reinterpret_cast<decltype(&hsa_shut_down)>(dlsym(hsa, "hsa_shut_down")) : nullptr;
  if (init == nullptr || shut_down == nullptr || init() != HSA_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cannot load or initialise the HSA runtime (%s)\n", path, dlerror());
    return 1;
  }
  for (int round = 0; round < rounds; ++round) {
    char name[64];
    std::snprintf(name, sizeof name, "round %d: a device's whole life", round);
    int outcome = kWorkloadWrong;
    g_step = name;
    alarm(30);
    outcome = workload();
    alarm(0);
    EXPECT(outcome == kWorkloadRan);
  }
  std::printf("%d rounds, each a whole device life, with the runtime initialised throughout\n", rounds);
  EXPECT(shut_down() == HSA_STATUS_SUCCESS);
  return g_failures;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGALRM, on_alarm);
  const std::string scenario = argc > 1 ? argv[1] : "";
  std::printf("scenario %s, validation layer %s\n", scenario.c_str(), layer_on() ? "on" : "off");
  int failures = 1;
  if (scenario == "hung_kernel") failures = hung_kernel();
  else if (scenario == "watchdog_loss") failures = watchdog_loss(true);
  else if (scenario == "watchdog_loss_children_alive") failures = watchdog_loss(false);
  else if (scenario == "never_signalled") failures = never_signalled();
  else if (scenario == "wait_all_failed") failures = wait_all_failed();
  else if (scenario == "lost_with_hung_queue") failures = lost_with_hung_queue();
  else if (scenario == "host_memory_sweep") failures = host_memory_sweep(argc > 2 ? std::atoi(argv[2]) : 24);
  else if (scenario == "allocation_sweep") failures = allocation_sweep(argc > 2 ? std::atoi(argv[2]) : 100);
  else if (scenario == "allocation_sweep_instance") {
    g_sweep_instance = true;
    failures = allocation_sweep(argc > 2 ? std::atoi(argv[2]) : 100);
  }
  else if (scenario == "runtime_outlives_driver") failures = runtime_outlives_driver(argc > 2 ? std::atoi(argv[2]) : 100);
  else if (scenario == "fail_allocation" && argc > 2) {  // one step of the sweep, in this process
    static long fail_at = std::atol(argv[2]);
    static auto arm = reinterpret_cast<void (*)(long)>(dlsym(RTLD_DEFAULT, "xgpu_test_fail_allocation"));
    if (arm != nullptr) g_after_instance = [] { arm(fail_at); };
    const int outcome = workload();
    failures = outcome == kWorkloadWrong ? 1 : 0;
  }
  else std::fprintf(stderr, "usage: %s hung_kernel|watchdog_loss|watchdog_loss_children_alive|never_signalled|"
                    "wait_all_failed|lost_with_hung_queue|host_memory_sweep [steps]|allocation_sweep [steps]|allocation_sweep_instance [steps]|runtime_outlives_driver [rounds]\n", argv[0]);
  std::printf("%s\n", failures == 0 ? "PASSED" : "FAILED");
  return failures == 0 ? 0 : 1;
}
