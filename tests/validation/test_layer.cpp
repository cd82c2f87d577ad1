// Hand-written tests of the validation layer: the public path through the
// loader, what messages say and carry, object tracking across calls, the
// recording-error state, objects left alive at destroy, the settings, and a
// valid program that must run silently.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "calls.h"
#include "validation_test_kernels.h"

namespace vtest {
namespace {


// Captures what is written to stderr (file descriptor 2) for a scope.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = dup(2);
    dup2(fileno(file_), 2);
  }
  std::string Stop() {
    if (saved_ < 0) return text_;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
    std::rewind(file_);
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file_)) > 0) text_.append(buffer, n);
    std::fclose(file_);
    return text_;
  }
  ~StderrCapture() { Stop(); }

 private:
  std::FILE* file_ = nullptr;
  int saved_ = -1;
  std::string text_;
};

std::string Hex(const void* handle) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(handle)));
  return text;
}

void Name(XgpuDevice device, XgpuObjectType type, const void* handle, const char* name) {
  XgpuDebugObjectNameInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO;
  info.objectType = type;
  info.objectHandle = reinterpret_cast<uintptr_t>(handle);
  info.pObjectName = name;
  REQUIRE(xgpuSetObjectName(device, &info) == XGPU_SUCCESS);
}

XgpuBuffer MakeBuffer(Fixture& f, XgpuDevice device, uint64_t size, bool defer = true) {
  XgpuBufferCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  FixupStruct(f, info);
  info.size = size;
  XgpuBuffer buffer = nullptr;
  REQUIRE(xgpuCreateBuffer(device, &info, nullptr, &buffer) == XGPU_SUCCESS);
  if (defer) f.Defer([device, buffer] { xgpuDestroyBuffer(device, buffer, nullptr); });
  return buffer;
}

XgpuSemaphore MakeSemaphore(Fixture& f, XgpuDevice device) {
  XgpuSemaphoreCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore semaphore = nullptr;
  REQUIRE(xgpuCreateSemaphore(device, &info, nullptr, &semaphore) == XGPU_SUCCESS);
  f.Defer([device, semaphore] { xgpuDestroySemaphore(device, semaphore, nullptr); });
  return semaphore;
}

XgpuResult Wait(XgpuDevice device, XgpuSemaphore semaphore, uint64_t value) {
  XgpuSemaphoreWaitInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &value;
  return xgpuWaitSemaphores(device, &info, kTimeoutNs);
}

XgpuBufferCreateInfo FlaggedBufferInfo(Fixture& f) {
  XgpuBufferCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  FixupStruct(f, info);
  info.flags = 1;  // reserved: XGPU-VUID-xgpuCreateBuffer-pCreateInfo-flags-zero
  return info;
}

constexpr const char* kFlagsRule = "XGPU-VUID-xgpuCreateBuffer-pCreateInfo-flags-zero";

// An instance with the layer and messengers as given, and a device.
struct SmallEnv {
  XgpuInstance instance = nullptr;
  XgpuDevice device = nullptr;
  XgpuDebugMessenger messenger = nullptr;
  SmallEnv(Fixture& f, bool with_messenger, bool layer_by_name = true) {
    const char* layers[] = {kLayerName};
    XgpuInstanceCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.enabledLayerCount = layer_by_name ? 1 : 0;
    info.ppEnabledLayerNames = layer_by_name ? layers : nullptr;
    REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
    if (with_messenger) {
      XgpuDebugMessengerCreateInfo m = f.log.CreateInfo();
      REQUIRE(xgpuCreateDebugMessenger(instance, &m, nullptr, &messenger) == XGPU_SUCCESS);
    }
    uint32_t count = 1;
    XgpuPhysicalDevice physical = nullptr;
    xgpuEnumeratePhysicalDevices(instance, &count, &physical);
    XgpuDeviceQueueCreateInfo queue = {};
    queue.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue.queueCount = 1;
    XgpuDeviceCreateInfo device_info = {};
    device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue;
    REQUIRE(xgpuCreateDevice(physical, &device_info, nullptr, &device) == XGPU_SUCCESS);
  }
  ~SmallEnv() {
    xgpuDestroyDevice(device, nullptr);
    if (messenger) xgpuDestroyDebugMessenger(instance, messenger, nullptr);
    xgpuDestroyInstance(instance, nullptr);
  }
};

}  // namespace

TEST_CASE("the loader puts the layer in the chain, enabled by name or by XGPU_INSTANCE_LAYERS") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  auto library_of = [](PFN_xgpuVoidFunction function) {
    Dl_info info = {};
    REQUIRE(dladdr(reinterpret_cast<void*>(function), &info) != 0);
    return std::string(info.dli_fname);
  };
  // Device-level commands go straight to the layer's intercepts.
  CHECK(library_of(xgpuGetDeviceProcAddr(f.device, "xgpuCmdDispatch")).find("libxgpu_layer_validation.so") !=
        std::string::npos);
  {
    ScopedEnv layers("XGPU_INSTANCE_LAYERS", kLayerName);
    SmallEnv env(f, true, /*layer_by_name=*/false);
    CHECK(library_of(xgpuGetDeviceProcAddr(env.device, "xgpuCmdDispatch")).find("libxgpu_layer_validation.so") !=
          std::string::npos);
    XgpuBufferCreateInfo info = FlaggedBufferInfo(f);
    XgpuBuffer buffer = Sentinel<XgpuBuffer>();
    CHECK(xgpuCreateBuffer(env.device, &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(buffer == XGPU_NULL_HANDLE);
    f.ExpectOnly(kFlagsRule);
    f.log.Clear();
  }
  {
    ScopedEnv layers("XGPU_INSTANCE_LAYERS", nullptr);
    SmallEnv env(f, true, /*layer_by_name=*/false);
    CHECK(library_of(xgpuGetDeviceProcAddr(env.device, "xgpuCmdDispatch")).find("libxgpu_layer_validation.so") ==
          std::string::npos);
  }
  f.ExpectNone();
}

TEST_CASE("a message through the public entry points: function, field, value, rule, ID, and the device by name") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Name(f.device, XGPU_OBJECT_TYPE_DEVICE, f.device, "main device");
  f.Defer([&f] { Name(f.device, XGPU_OBJECT_TYPE_DEVICE, f.device, nullptr); });
  XgpuBufferCreateInfo info = FlaggedBufferInfo(f);
  XgpuBuffer buffer = Sentinel<XgpuBuffer>();
  f.log.Clear();
  CHECK(xgpuCreateBuffer(f.device, &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(buffer == XGPU_NULL_HANDLE);
  f.ExpectOnly(kFlagsRule);
  const MessageLog::Message m = f.log.Messages().at(0);
  CHECK(m.text ==
        "xgpuCreateBuffer: pCreateInfo->flags is 0x1. Rule: pCreateInfo->flags is 0 (reserved). "
        "[XGPU-VUID-xgpuCreateBuffer-pCreateInfo-flags-zero]");
  CHECK(m.number == Fnv1a(kFlagsRule));
  REQUIRE(m.objects.size() == 1);
  CHECK(m.objects[0].type == XGPU_OBJECT_TYPE_DEVICE);
  CHECK(m.objects[0].handle == reinterpret_cast<uintptr_t>(f.device));
  CHECK(m.objects[0].name == "main device");
}

TEST_CASE("api.md's example: the ID's messageIdNumber") {
  CHECK(Fnv1a("XGPU-VUID-xgpuCmdDispatchIndirect-flags") == -1187414737);
}

TEST_CASE("a destroyed buffer in a binding table: the field with its indexes, who destroyed it and its name") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuBuffer live = MakeBuffer(f, f.device, 256);
  XgpuBuffer staging = MakeBuffer(f, f.device, 256, /*defer=*/false);
  Name(f.device, XGPU_OBJECT_TYPE_BUFFER, staging, "staging");
  xgpuDestroyBuffer(f.device, staging, nullptr);
  XgpuSemaphore semaphore = MakeSemaphore(f, f.device);
  const uint64_t one = 1;
  XgpuSubmitInfo submits[2] = {};
  submits[0].sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submits[0].signalSemaphores = {.count = 1, .pSemaphores = &semaphore, .pValues = &one};
  XgpuBufferBinding bindings[2] = {{.buffer = live, .offset = 0, .size = XGPU_WHOLE_SIZE},
                                   {.buffer = staging, .offset = 0, .size = XGPU_WHOLE_SIZE}};
  submits[1].sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submits[1].bindingCount = 2;
  submits[1].pBindings = bindings;
  f.log.Clear();
  CHECK(xgpuQueueSubmit(f.queue, 2, submits) == XGPU_ERROR_INVALID_ARGUMENT);
  f.ExpectOnly("XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-buffer-parameter");
  const MessageLog::Message m = f.log.Messages().at(0);
  CHECK(m.text.rfind("xgpuQueueSubmit: pSubmits[1].pBindings[1].buffer is " + Hex(staging) +
                         ", not a live XgpuBuffer: it was destroyed by xgpuDestroyBuffer (it was named \"staging\")",
                     0) == 0);
  REQUIRE(m.objects.size() == 3);  // the buffer, the queue, its device
  CHECK(m.objects[0].type == XGPU_OBJECT_TYPE_BUFFER);
  CHECK(m.objects[0].name == "staging");
  CHECK(m.objects[1].type == XGPU_OBJECT_TYPE_QUEUE);
  CHECK(m.objects[2].type == XGPU_OBJECT_TYPE_DEVICE);
  // Nothing was submitted: the first submission's signal never happened.
  CHECK(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
  uint64_t value = 99;
  CHECK(xgpuGetSemaphoreValue(f.device, semaphore, &value) == XGPU_SUCCESS);
  CHECK(value == 0);
  f.ExpectOnly("XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-buffer-parameter");
}

TEST_CASE("a stale handle stays stale: buffers created after the destroy get other handles, and its use is reported") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuBuffer old = MakeBuffer(f, f.device, 256, /*defer=*/false);
  Name(f.device, XGPU_OBJECT_TYPE_BUFFER, old, "old");
  xgpuDestroyBuffer(f.device, old, nullptr);
  // The next buffers, of the same size, do not get the destroyed handle (the
  // driver holds its memory back), so the stale one names no live buffer.
  for (int i = 0; i < 16; ++i) CHECK(MakeBuffer(f, f.device, 256) != old);
  f.log.Clear();
  void* mapped = nullptr;
  CHECK(xgpuMapBuffer(f.device, old, 0, XGPU_WHOLE_SIZE, &mapped) == XGPU_ERROR_INVALID_ARGUMENT);
  f.ExpectOnly("XGPU-VUID-xgpuMapBuffer-buffer-parameter");
  CHECK(f.log.Messages().at(0).text.find("not a live XgpuBuffer: it was destroyed by xgpuDestroyBuffer (it was named "
                                         "\"old\")") != std::string::npos);
}

TEST_CASE("a handle of another device, a handle never created, a handle of another type") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Name(f.other_device, XGPU_OBJECT_TYPE_PIPELINE, f.other_pipeline, "theirs");
  XgpuCommandBuffer cb = f.BegunCommandBuffer(f.device, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 0);
  f.log.Clear();
  xgpuCmdBindPipeline(cb, f.other_pipeline);
  f.ExpectOnly("XGPU-VUID-xgpuCmdBindPipeline-pipeline-parent");
  CHECK(f.log.Messages().at(0).text.find("XgpuPipeline " + Hex(f.other_pipeline) + " \"theirs\", created from "
                                         "XgpuDevice " + Hex(f.other_device) + ", not from XgpuDevice " +
                                         Hex(f.device)) != std::string::npos);
  CHECK(f.log.Messages().at(0).objects.at(0).name == "theirs");

  f.log.Clear();
  xgpuDestroyBuffer(f.device, Fake<XgpuBuffer>(), nullptr);
  f.ExpectOnly("XGPU-VUID-xgpuDestroyBuffer-buffer-parameter");
  CHECK(f.log.Messages().at(0).text.find("not a live XgpuBuffer: no such object was created") != std::string::npos);

  f.log.Clear();
  void* data = nullptr;
  CHECK(xgpuMapBuffer(f.device, reinterpret_cast<XgpuBuffer>(f.pipeline), 0, XGPU_WHOLE_SIZE, &data) ==
        XGPU_ERROR_INVALID_ARGUMENT);
  f.ExpectOnly("XGPU-VUID-xgpuMapBuffer-buffer-parameter");
  CHECK(f.log.Messages().at(0).text.find("it is XgpuPipeline " + Hex(f.pipeline)) != std::string::npos);
  CHECK(data == nullptr);
}

TEST_CASE("a recording command that breaks a rule records nothing; xgpuEndCommandBuffer returns the error until a new begin") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuCommandBufferCreateInfo create = {};
  create.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer cb = nullptr;
  REQUIRE(xgpuCreateCommandBuffer(f.device, &create, nullptr, &cb) == XGPU_SUCCESS);
  f.Defer([&f, cb] { xgpuDestroyCommandBuffer(f.device, cb, nullptr); });
  XgpuCommandBufferBeginInfo begin = {};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
  REQUIRE(xgpuBeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
  XgpuBuffer target = MakeBuffer(f, f.device, 256);
  const uint32_t pattern = 0x11223344u;
  XgpuBufferRef dst = RefToBuffer(target, 0, 64);
  XgpuDebugLabel label = {};
  label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  label.pLabelName = "\xc3\x28";  // not UTF-8
  f.log.Clear();
  xgpuCmdInsertDebugLabel(cb, &label);
  f.ExpectOnly("XGPU-VUID-xgpuCmdInsertDebugLabel-pLabel-pLabelName-parameter");
  CHECK(f.log.Messages().at(0).text.find("pLabel->pLabelName is a string that is not UTF-8 (byte 0xC3 at offset 0)") !=
        std::string::npos);
  f.log.Clear();
  xgpuCmdFillBuffer(cb, &dst, &pattern, 4);  // valid: recorded by the driver
  CHECK(xgpuEndCommandBuffer(cb) == XGPU_ERROR_INVALID_ARGUMENT);
  f.ExpectNone();
  // Now invalid: ending it again breaks the state rule.
  CHECK(xgpuEndCommandBuffer(cb) == XGPU_ERROR_INVALID_USAGE);
  f.ExpectOnly("XGPU-VUID-xgpuEndCommandBuffer-commandBuffer-recording");
  CHECK(f.log.Messages().at(0).text.find("in the invalid (its xgpuEndCommandBuffer failed) state") != std::string::npos);
  f.log.Clear();
  // A new recording starts clean and runs.
  REQUIRE(xgpuBeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
  xgpuCmdFillBuffer(cb, &dst, &pattern, 4);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  REQUIRE(xgpuQueueSubmit(f.queue, 1, &submit) == XGPU_SUCCESS);
  REQUIRE(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
  void* data = nullptr;
  REQUIRE(xgpuMapBuffer(f.device, target, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
  CHECK(static_cast<uint32_t*>(data)[0] == pattern);
  CHECK(static_cast<uint32_t*>(data)[15] == pattern);
  xgpuUnmapBuffer(f.device, target);
  f.ExpectNone();
}

TEST_CASE("objects left alive when their device is destroyed are named, then destroyed by the layer") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuDeviceQueueCreateInfo queue_info = {};
  queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueCount = 1;
  XgpuDeviceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  XgpuDevice device = nullptr;
  REQUIRE(xgpuCreateDevice(f.physical_device, &info, nullptr, &device) == XGPU_SUCCESS);
  XgpuQueue queue = nullptr;
  xgpuGetDeviceQueue(device, 0, 0, &queue);
  XgpuBuffer leaky = MakeBuffer(f, device, 64, /*defer=*/false);
  Name(device, XGPU_OBJECT_TYPE_BUFFER, leaky, "leaky buffer");
  XgpuSemaphoreCreateInfo semaphore_info = {};
  semaphore_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore semaphore = nullptr;
  REQUIRE(xgpuCreateSemaphore(device, &semaphore_info, nullptr, &semaphore) == XGPU_SUCCESS);
  // A pool with a queue-ordered allocation still in it, and a pipeline of an executable.
  XgpuMemoryPoolCreateInfo pool_info = {};
  pool_info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  FixupStruct(f, pool_info);
  XgpuMemoryPool pool = nullptr;
  REQUIRE(xgpuCreateMemoryPool(device, &pool_info, nullptr, &pool) == XGPU_SUCCESS);
  XgpuBuffer allocation = nullptr;
  REQUIRE(xgpuQueueAlloca(queue, nullptr, nullptr, pool, 1024, XGPU_BUFFER_USAGE_STORAGE_BIT, &allocation) ==
          XGPU_SUCCESS);
  XgpuExecutableCreateInfo executable_info = {};
  executable_info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  executable_info.pFilePath = XGPU_VALIDATION_TEST_KERNELS;
  XgpuExecutable executable = nullptr;
  REQUIRE(xgpuCreateExecutable(device, &executable_info, nullptr, &executable) == XGPU_SUCCESS);
  XgpuPipelineCreateInfo pipeline_info = {};
  pipeline_info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
  FixupStruct(f, pipeline_info);
  pipeline_info.executable = executable;
  XgpuPipeline pipeline = nullptr;
  REQUIRE(xgpuCreatePipeline(device, &pipeline_info, nullptr, &pipeline) == XGPU_SUCCESS);
  REQUIRE(xgpuQueueWaitIdle(queue) == XGPU_SUCCESS);  // the alloca is no longer pending
  f.log.Clear();
  xgpuDestroyDevice(device, nullptr);
  std::vector<MessageLog::Message> messages = f.log.Messages();
  REQUIRE(messages.size() == 6);
  for (const auto& m : messages) CHECK(m.id == "XGPU-VUID-xgpuDestroyDevice-device-children");
  // Sorted by type, then handle: buffers, pool, semaphore, executable, pipeline.
  std::string all;
  for (const auto& m : messages) all += m.text + "\n";
  CHECK(all.find("which still has XgpuBuffer " + Hex(leaky) + " \"leaky buffer\" (the layer destroys it)") !=
        std::string::npos);
  CHECK(all.find("which still has XgpuBuffer " + Hex(allocation)) != std::string::npos);
  CHECK(all.find("which still has XgpuMemoryPool " + Hex(pool)) != std::string::npos);
  CHECK(all.find("which still has XgpuSemaphore " + Hex(semaphore)) != std::string::npos);
  CHECK(all.find("which still has XgpuExecutable " + Hex(executable)) != std::string::npos);
  CHECK(all.find("which still has XgpuPipeline " + Hex(pipeline)) != std::string::npos);
  bool named = false;
  for (const auto& m : messages) named |= !m.objects.empty() && m.objects[0].name == "leaky buffer";
  CHECK(named);
  // Nothing of the device is left in the driver: hsa-cpu names leaked memory at
  // its shutdown (HSA_CPU_LOG), which fails the test run.
}

TEST_CASE("a messenger chained to the instance's create info hears the layer during creation and destruction") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuDebugMessengerCreateInfo chained = f.log.CreateInfo();
  const char* layers[] = {kLayerName};
  XgpuInstanceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = &chained;
  info.flags = 4;  // reserved
  info.enabledLayerCount = 1;
  info.ppEnabledLayerNames = layers;
  XgpuInstance instance = Sentinel<XgpuInstance>();
  CHECK(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(instance == XGPU_NULL_HANDLE);
  std::vector<MessageLog::Message> messages = f.log.Messages();
  int layer_messages = 0;
  for (const auto& m : messages) {
    if (m.id.rfind("XGPU-VUID-", 0) != 0) continue;  // the loader's own reports
    ++layer_messages;
    CHECK(m.id == "XGPU-VUID-xgpuCreateInstance-pCreateInfo-flags-zero");
    CHECK(m.text.find("pCreateInfo->flags is 0x4") != std::string::npos);
  }
  CHECK(layer_messages == 1);

  // Destruction with a messenger left: reported to the chained messenger; the
  // loader destroys the messenger with the instance.
  info.flags = 0;
  REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  XgpuDebugMessengerCreateInfo quiet = chained;
  quiet.pfnUserCallback = &Dummy_PFN_xgpuDebugMessengerCallback;
  XgpuDebugMessenger messenger = nullptr;
  REQUIRE(xgpuCreateDebugMessenger(instance, &quiet, nullptr, &messenger) == XGPU_SUCCESS);
  f.log.Clear();
  xgpuDestroyInstance(instance, nullptr);
  f.ExpectOnly("XGPU-VUID-xgpuDestroyInstance-instance-messengers");
  CHECK(f.log.Messages().at(0).text.find("which still has XgpuDebugMessenger " + Hex(messenger)) != std::string::npos);
}

// Runs one test case of this program in a child process (a fresh process:
// what it leaks on purpose does not count) and returns its exit status.
int RunChild(const char* test_case) {
  std::fflush(nullptr);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    setenv("XGPU_VALIDATION_TEST_CHILD", "1", 1);
    std::string asan = std::getenv("ASAN_OPTIONS") ? std::getenv("ASAN_OPTIONS") : "";
    setenv("ASAN_OPTIONS", (asan + (asan.empty() ? "" : ":") + "detect_leaks=0").c_str(), 1);
    std::string filter = std::string("--test-case=") + test_case;
    execl("/proc/self/exe", "xgpu_validation_tests", filter.c_str(), "--no-skip=true",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_CASE("a device left alive at xgpuDestroyInstance is reported, then destroyed by the layer (in a child process)") {
  CHECK(RunChild("child: a device left alive at xgpuDestroyInstance") == 0);
}

TEST_CASE("child: a device left alive at xgpuDestroyInstance" * doctest::skip()) {
  // The loader's own record of the device is never released (the application
  // never destroyed the device): a leak of this process only.
  REQUIRE(std::getenv("XGPU_VALIDATION_TEST_CHILD") != nullptr);
  MessageLog log;
  XgpuDebugMessengerCreateInfo chained = log.CreateInfo();
  const char* layers[] = {kLayerName};
  XgpuInstanceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = &chained;
  info.enabledLayerCount = 1;
  info.ppEnabledLayerNames = layers;
  setenv("XGPU_DRIVER_FILES", XGPU_VALIDATION_TEST_DRIVER_MANIFEST, 0);
  setenv("XGPU_HSA_LIBRARY", XGPU_VALIDATION_TEST_HSA_LIBRARY, 0);
  setenv("XGPU_LAYER_PATH", XGPU_VALIDATION_TEST_LAYER_MANIFEST_DIR, 0);
  XgpuInstance instance = nullptr;
  REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  uint32_t count = 1;
  XgpuPhysicalDevice physical = nullptr;
  xgpuEnumeratePhysicalDevices(instance, &count, &physical);
  XgpuDeviceQueueCreateInfo queue = {};
  queue.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueCount = 1;
  XgpuDeviceCreateInfo device_info = {};
  device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue;
  XgpuDevice device = nullptr;
  REQUIRE(xgpuCreateDevice(physical, &device_info, nullptr, &device) == XGPU_SUCCESS);
  XgpuSemaphoreCreateInfo semaphore_info = {};
  semaphore_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore semaphore = nullptr;
  REQUIRE(xgpuCreateSemaphore(device, &semaphore_info, nullptr, &semaphore) == XGPU_SUCCESS);
  log.Clear();
  xgpuDestroyInstance(instance, nullptr);
  std::vector<MessageLog::Message> messages = log.Messages();
  std::string all;
  for (const auto& m : messages) all += "  [" + m.id + "] " + m.text + "\n";
  INFO(all);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].id == "XGPU-VUID-xgpuDestroyInstance-instance-devices");
  // The device's own leftovers are named with it.
  CHECK(messages[0].text.find("which still has XgpuDevice " + Hex(device) + " with 1 object(s) of its own (XgpuSemaphore " +
                              Hex(semaphore) + ") (the layer destroys it)") != std::string::npos);
}

TEST_CASE("settings: XGPU_VALIDATION_MUTE lets a rule's calls through silently") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  const std::string number = std::to_string(Fnv1a(kFlagsRule));
  for (const std::string& mute : {std::string(kFlagsRule), "XGPU-VUID-xgpuCmdDispatch-commandBuffer-parameter, " + number}) {
    ScopedEnv env("XGPU_VALIDATION_MUTE", mute.c_str());
    SmallEnv small(f, true);
    XgpuBufferCreateInfo info = FlaggedBufferInfo(f);
    XgpuBuffer buffer = nullptr;
    CHECK(xgpuCreateBuffer(small.device, &info, nullptr, &buffer) == XGPU_SUCCESS);  // the driver ignores flags
    CHECK(buffer != nullptr);
    xgpuDestroyBuffer(small.device, buffer, nullptr);
    f.ExpectNone();
  }
}

TEST_CASE("settings: XGPU_VALIDATION_DUPLICATE_LIMIT caps the messages of an ID; the calls still fail") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  ScopedEnv env("XGPU_VALIDATION_DUPLICATE_LIMIT", "2");
  SmallEnv small(f, true);
  XgpuBufferCreateInfo info = FlaggedBufferInfo(f);
  for (int n = 0; n < 4; ++n) {
    XgpuBuffer buffer = nullptr;
    CHECK(xgpuCreateBuffer(small.device, &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  }
  std::vector<MessageLog::Message> messages = f.log.Messages();
  REQUIRE(messages.size() == 2);
  CHECK(messages[0].text.find("the last message") == std::string::npos);
  CHECK(messages[1].text.find("(the last message with this ID: XGPU_VALIDATION_DUPLICATE_LIMIT is 2)") !=
        std::string::npos);
}

// The stage/access pairing of xgpuCmdMemoryBarrier (api.md 17), every stage
// combination against every access bit, on both sides of the barrier.
TEST_CASE("every stage combination accepts exactly the accesses of its stages") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  ScopedEnv env("XGPU_VALIDATION_DUPLICATE_LIMIT", "0");  // 98 messages of two IDs
  SmallEnv small(f, true);
  struct Access {
    uint32_t bit, stage;  // stage 0: an access of every stage
  };
  const Access accesses[] = {
      {XGPU_ACCESS_INDIRECT_READ_BIT, XGPU_PIPELINE_STAGE_INDIRECT_BIT},
      {XGPU_ACCESS_SHADER_READ_BIT, XGPU_PIPELINE_STAGE_DISPATCH_BIT},
      {XGPU_ACCESS_SHADER_WRITE_BIT, XGPU_PIPELINE_STAGE_DISPATCH_BIT},
      {XGPU_ACCESS_TRANSFER_READ_BIT, XGPU_PIPELINE_STAGE_TRANSFER_BIT},
      {XGPU_ACCESS_TRANSFER_WRITE_BIT, XGPU_PIPELINE_STAGE_TRANSFER_BIT},
      {XGPU_ACCESS_HOST_READ_BIT, XGPU_PIPELINE_STAGE_HOST_BIT},
      {XGPU_ACCESS_HOST_WRITE_BIT, XGPU_PIPELINE_STAGE_HOST_BIT},
      {XGPU_ACCESS_MEMORY_READ_BIT, 0},
      {XGPU_ACCESS_MEMORY_WRITE_BIT, 0},
  };
  XgpuCommandBufferCreateInfo create = {};
  create.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer cb = nullptr;
  REQUIRE(xgpuCreateCommandBuffer(small.device, &create, nullptr, &cb) == XGPU_SUCCESS);
  XgpuCommandBufferBeginInfo begin = {};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
  REQUIRE(xgpuBeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
  size_t reported = 0;
  for (uint32_t stages = 1; stages < 32; ++stages) {
    for (const Access& a : accesses) {
      const bool allowed = a.stage == 0 || (stages & (a.stage | XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT)) != 0;
      for (bool src : {true, false}) {
        CAPTURE(stages);
        CAPTURE(a.bit);
        CAPTURE(src);
        f.log.Clear();
        if (src) {
          xgpuCmdMemoryBarrier(cb, stages, a.bit, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0);
        } else {
          xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, stages, a.bit);
        }
        if (allowed) {
          f.ExpectNone();
        } else {
          f.ExpectOnly(src ? "XGPU-VUID-xgpuCmdMemoryBarrier-srcAccessMask" : "XGPU-VUID-xgpuCmdMemoryBarrier-dstAccessMask");
          ++reported;
        }
      }
    }
  }
  // Each one-stage access is refused by the 7 non-empty combinations of the
  // other three one-stage bits, on each side.
  CHECK(reported == 2 * 7 * 7);
  xgpuDestroyCommandBuffer(small.device, cb, nullptr);
}

TEST_CASE("settings: the default duplicate limit is 10") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  SmallEnv small(f, true);
  XgpuBufferCreateInfo info = FlaggedBufferInfo(f);
  for (int n = 0; n < 12; ++n) {
    XgpuBuffer buffer = nullptr;
    CHECK(xgpuCreateBuffer(small.device, &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  }
  CHECK(f.log.Messages().size() == 10);
}

TEST_CASE("without a messenger, messages go to stderr") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  SmallEnv small(f, false);
  Name(small.device, XGPU_OBJECT_TYPE_DEVICE, small.device, "quiet device");
  XgpuBufferCreateInfo info = FlaggedBufferInfo(f);
  XgpuBuffer buffer = nullptr;
  StderrCapture capture;
  CHECK(xgpuCreateBuffer(small.device, &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  const std::string text = capture.Stop();
  CHECK(text.find("xgpu validation: error: xgpuCreateBuffer: pCreateInfo->flags is 0x1. Rule: ") == 0);
  CHECK(text.find("    object 0: XgpuDevice " + Hex(small.device) + " \"quiet device\"\n") != std::string::npos);
  f.ExpectNone();
}

TEST_CASE("a messenger that does not take errors does not listen: the error goes to stderr") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  SmallEnv small(f, false);
  XgpuDebugMessengerCreateInfo warnings_only = f.log.CreateInfo();
  warnings_only.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT;
  XgpuDebugMessenger messenger = nullptr;
  REQUIRE(xgpuCreateDebugMessenger(small.instance, &warnings_only, nullptr, &messenger) == XGPU_SUCCESS);
  XgpuBufferCreateInfo info = FlaggedBufferInfo(f);
  XgpuBuffer buffer = nullptr;
  StderrCapture capture;
  CHECK(xgpuCreateBuffer(small.device, &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  const std::string text = capture.Stop();
  CHECK(text.find("xgpu validation: error: xgpuCreateBuffer: pCreateInfo->flags is 0x1. Rule: ") == 0);
  CHECK(text.find(kFlagsRule) != std::string::npos);
  xgpuDestroyDebugMessenger(small.instance, messenger, nullptr);
  f.ExpectNone();
}

TEST_CASE("settings: XGPU_VALIDATION_STDERR=0 keeps messages no messenger receives off stderr") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  ScopedEnv quiet("XGPU_VALIDATION_STDERR", "0");
  SmallEnv small(f, false);
  XgpuBufferCreateInfo info = FlaggedBufferInfo(f);
  XgpuBuffer buffer = nullptr;
  StderrCapture capture;
  CHECK(xgpuCreateBuffer(small.device, &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(capture.Stop().empty());
  f.ExpectNone();
}

TEST_CASE("settings: XGPU_VALIDATION_ON_ERROR=abort and =break stop the process at the first error") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  auto create = reinterpret_cast<PFN_xgpuCreateInstance>(f.LayerGlobalFunction("xgpuCreateInstance"));
  for (auto [action, expected_signal] : {std::pair{"abort", SIGABRT}, std::pair{"break", SIGTRAP}}) {
    std::fflush(nullptr);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      // The child reports with no instance: the settings come from its environment.
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 2);
      std::signal(SIGABRT, SIG_DFL);  // not the test framework's crash handlers
      std::signal(SIGTRAP, SIG_DFL);
      std::signal(SIGSEGV, SIG_DFL);
      setenv("XGPU_VALIDATION_ON_ERROR", action, 1);
      XgpuInstanceCreateInfo info = {};
      info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
      info.flags = 1;
      XgpuInstance instance = nullptr;
      create(&info, nullptr, &instance);
      _exit(0);  // not reached when the layer stops the process
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    INFO(std::string(action));
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == expected_signal);
  }
  f.ExpectNone();
}

TEST_CASE("settings: malformed values are reported on stderr and the defaults kept") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  ScopedEnv limit("XGPU_VALIDATION_DUPLICATE_LIMIT", "ten");
  ScopedEnv action("XGPU_VALIDATION_ON_ERROR", "explode");
  ScopedEnv mute("XGPU_VALIDATION_MUTE", "XGPU-VUID-" "no-such-rule");  // split: not a rule the ID scan should find
  StderrCapture capture;
  {
    SmallEnv small(f, true);
  }
  const std::string text = capture.Stop();
  CHECK(text.find("XGPU_VALIDATION_DUPLICATE_LIMIT=ten is not a number; the default (10) is used") != std::string::npos);
  CHECK(text.find("XGPU_VALIDATION_ON_ERROR=explode is not continue, break or abort") != std::string::npos);
  CHECK(text.find("XGPU_VALIDATION_MUTE: XGPU-VUID-no-such-rule is not a rule ID of the layer") != std::string::npos);
  f.ExpectNone();
}

TEST_CASE("a valid program runs with the layer on and reports nothing") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  constexpr uint32_t n = 1000;
  XgpuDevice device = f.device;
  XgpuBuffer x = MakeBuffer(f, device, n * sizeof(float));
  XgpuBuffer y = MakeBuffer(f, device, n * sizeof(float));
  XgpuBuffer scratch = MakeBuffer(f, device, 256);
  Name(device, XGPU_OBJECT_TYPE_BUFFER, x, "x");
  float* xs = nullptr;
  float* ys = nullptr;
  REQUIRE(xgpuMapBuffer(device, x, 0, XGPU_WHOLE_SIZE, reinterpret_cast<void**>(&xs)) == XGPU_SUCCESS);
  REQUIRE(xgpuMapBuffer(device, y, 0, XGPU_WHOLE_SIZE, reinterpret_cast<void**>(&ys)) == XGPU_SUCCESS);
  for (uint32_t i = 0; i < n; ++i) {
    xs[i] = float(i);
    ys[i] = 1.0f;
  }
  CHECK(xgpuGetBufferDeviceAddress(device, x) != 0);

  XgpuPipelineProperties properties = {};
  xgpuGetPipelineProperties(device, f.pipeline, &properties);
  CHECK(properties.workgroupSize[0] == 64);

  // A reusable recording, the buffers through the binding table.
  XgpuCommandBuffer cb = f.BegunCommandBuffer(device, XGPU_COMMAND_BUFFER_MODE_REUSABLE, 2);
  XgpuDebugLabel label = {};
  label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  label.pLabelName = "saxpy \xe2\x9c\x93";  // UTF-8
  xgpuCmdBeginDebugLabel(cb, &label);
  xgpuCmdBindPipeline(cb, f.pipeline);
  XgpuBufferRef refs[2] = {RefToSlot(0), RefToSlot(1)};
  xgpuCmdBindBuffers(cb, 0, 2, refs);
  struct {
    float a;
    uint32_t n;
  } constants = {2.0f, n};
  xgpuCmdPushConstants(cb, 0, sizeof(constants), &constants);
  xgpuCmdDispatch(cb, (n + 63) / 64, 1, 1);
  XgpuBufferMemoryBarrier barrier = {};
  barrier.sType = XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
  barrier.srcAccessMask = XGPU_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = XGPU_ACCESS_TRANSFER_READ_BIT;
  barrier.buffer = RefToSlot(1);
  xgpuCmdPipelineBarrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_PIPELINE_STAGE_TRANSFER_BIT, 0, nullptr, 1,
                         &barrier);
  XgpuBufferRef y_head = RefToSlot(1, 0, 16);
  XgpuBufferRef scratch_head = RefToBuffer(scratch, 0, 16);
  xgpuCmdCopyBuffer(cb, &y_head, &scratch_head, 16);
  const uint32_t words[2] = {7, 9};
  XgpuBufferRef scratch_tail = RefToBuffer(scratch, 128, 8);
  xgpuCmdUpdateBuffer(cb, &scratch_tail, sizeof(words), words);
  xgpuCmdInsertDebugLabel(cb, &label);
  xgpuCmdEndDebugLabel(cb);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);

  XgpuSemaphore done = MakeSemaphore(f, device);
  const uint64_t one = 1;
  XgpuBufferBinding table[2] = {{.buffer = x, .offset = 0, .size = XGPU_WHOLE_SIZE},
                                {.buffer = y, .offset = 0, .size = XGPU_WHOLE_SIZE}};
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  submit.bindingCount = 2;
  submit.pBindings = table;
  submit.signalSemaphores = {.count = 1, .pSemaphores = &done, .pValues = &one};
  REQUIRE(xgpuQueueSubmit(f.queue, 1, &submit) == XGPU_SUCCESS);
  REQUIRE(Wait(device, done, 1) == XGPU_SUCCESS);
  for (uint32_t i = 0; i < n; ++i) {
    if (ys[i] != 2.0f * float(i) + 1.0f) FAIL("y[", i, "] = ", ys[i]);
  }

  // Queue operations: fill, copy, a queue-ordered allocation.
  const uint32_t pattern = 0xABCDEF01u;
  const uint64_t two = 2;
  XgpuSemaphoreList signal_two = {.count = 1, .pSemaphores = &done, .pValues = &two};
  REQUIRE(xgpuQueueFillBuffer(f.queue, nullptr, &signal_two, y, 0, 64, &pattern, 4) == XGPU_SUCCESS);
  REQUIRE(Wait(device, done, 2) == XGPU_SUCCESS);
  CHECK(reinterpret_cast<uint32_t*>(ys)[15] == pattern);
  REQUIRE(xgpuQueueCopyBuffer(f.queue, nullptr, nullptr, y, 0, x, 0, 64) == XGPU_SUCCESS);
  XgpuBuffer temporary = nullptr;
  const uint64_t three = 3;
  XgpuSemaphoreList signal_three = {.count = 1, .pSemaphores = &done, .pValues = &three};
  REQUIRE(xgpuQueueAlloca(f.queue, nullptr, &signal_three, f.memory_pool, 4096, XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                          &temporary) == XGPU_SUCCESS);
  Name(device, XGPU_OBJECT_TYPE_BUFFER, temporary, "temporary");
  REQUIRE(xgpuQueueFillBuffer(f.queue, nullptr, nullptr, temporary, 0, XGPU_WHOLE_SIZE, &pattern, 4) == XGPU_SUCCESS);
  REQUIRE(xgpuQueueDealloca(f.queue, nullptr, nullptr, temporary) == XGPU_SUCCESS);
  REQUIRE(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
  CHECK(reinterpret_cast<uint32_t*>(xs)[0] == pattern);
  XgpuMemoryPoolStatistics statistics = {};
  xgpuGetMemoryPoolStatistics(device, f.memory_pool, &statistics);
  CHECK(statistics.allocationCount >= 1);
  xgpuTrimMemoryPool(device, f.memory_pool);

  // Host signals and waits.
  XgpuSemaphoreSignalInfo signal = {};
  signal.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  signal.semaphore = done;
  signal.value = 10;
  REQUIRE(xgpuSignalSemaphore(device, &signal) == XGPU_SUCCESS);
  uint64_t value = 0;
  REQUIRE(xgpuGetSemaphoreValue(device, done, &value) == XGPU_SUCCESS);
  CHECK(value == 10);
  REQUIRE(xgpuDeviceWaitIdle(device) == XGPU_SUCCESS);
  xgpuUnmapBuffer(device, x);
  xgpuUnmapBuffer(device, y);
  f.ExpectNone();

  // The deallocated buffer is no longer an object.
  f.log.Clear();
  xgpuDestroyBuffer(device, temporary, nullptr);
  f.ExpectOnly("XGPU-VUID-xgpuDestroyBuffer-buffer-parameter");
  CHECK(f.log.Messages().at(0).text.find("it was destroyed by xgpuQueueDealloca (it was named \"temporary\")") !=
        std::string::npos);
}

TEST_CASE("threads recording and creating at once report nothing") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  constexpr int kThreads = 4;
  XgpuCommandBuffer cbs[kThreads];
  for (XgpuCommandBuffer& cb : cbs) cb = f.BegunCommandBuffer(f.device, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 2);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      XgpuBufferRef refs[2] = {RefToSlot(0), RefToSlot(1)};
      for (int i = 0; i < 2000; ++i) {
        xgpuCmdBindPipeline(cbs[t], f.pipeline);
        xgpuCmdBindBuffers(cbs[t], 0, 2, refs);
        const uint32_t constants[2] = {};
        xgpuCmdPushConstants(cbs[t], 0, sizeof(constants), constants);
        xgpuCmdDispatch(cbs[t], 1, 1, 1);
        if (i % 100 == 0) {
          XgpuBufferCreateInfo info = {};
          info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
          FixupStruct(f, info);
          XgpuBuffer buffer = nullptr;
          if (xgpuCreateBuffer(f.device, &info, nullptr, &buffer) != XGPU_SUCCESS) ++failures;
          xgpuDestroyBuffer(f.device, buffer, nullptr);
        }
      }
      if (xgpuEndCommandBuffer(cbs[t]) != XGPU_SUCCESS) ++failures;
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(failures == 0);
  f.ExpectNone();
}

}  // namespace vtest

namespace vtest {

TEST_CASE("command-buffer state: begin while recording, end when not recording, submit what is not executable, a one-shot twice") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuCommandBufferBeginInfo begin = {};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;

  XgpuCommandBuffer initial = f.InitialCommandBuffer();
  CHECK(xgpuEndCommandBuffer(initial) == XGPU_ERROR_INVALID_USAGE);
  f.ExpectOnly("XGPU-VUID-xgpuEndCommandBuffer-commandBuffer-recording");
  CHECK(f.log.Messages().at(0).text.find("in the initial state") != std::string::npos);
  f.log.Clear();
  XgpuSubmitInfo submits[2] = {};
  submits[0].sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submits[0].commandBuffer = initial;
  CHECK(xgpuQueueSubmit(f.queue, 1, submits) == XGPU_ERROR_INVALID_USAGE);
  f.ExpectOnly("XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-state");
  f.log.Clear();

  XgpuCommandBuffer cb = f.BegunCommandBuffer(f.device, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 0);
  CHECK(xgpuBeginCommandBuffer(cb, &begin) == XGPU_ERROR_INVALID_USAGE);
  f.ExpectOnly("XGPU-VUID-xgpuBeginCommandBuffer-commandBuffer-recording");
  f.log.Clear();
  CHECK(xgpuQueueSubmit(f.queue, 1, (submits[0].commandBuffer = cb, submits)) == XGPU_ERROR_INVALID_USAGE);
  f.ExpectOnly("XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-state");
  CHECK(f.log.Messages().at(0).text.find("in the recording state") != std::string::npos);
  f.log.Clear();
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  // Twice in one call: refused as a whole, so it may still be submitted once.
  submits[1] = submits[0];
  CHECK(xgpuQueueSubmit(f.queue, 2, submits) == XGPU_ERROR_INVALID_USAGE);
  f.ExpectOnly("XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-oneShot");
  CHECK(f.log.Messages().at(0).text.find("pSubmits[1].commandBuffer is") != std::string::npos);
  f.log.Clear();
  REQUIRE(xgpuQueueSubmit(f.queue, 1, submits) == XGPU_SUCCESS);
  CHECK(xgpuQueueSubmit(f.queue, 1, submits) == XGPU_ERROR_INVALID_USAGE);
  f.ExpectOnly("XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-oneShot");
  f.log.Clear();
  REQUIRE(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
  // Begun again, it records anew.
  REQUIRE(xgpuBeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  REQUIRE(xgpuQueueSubmit(f.queue, 1, submits) == XGPU_SUCCESS);

  // A reusable one is submitted any number of times, also twice in one call.
  XgpuCommandBuffer reusable = f.BegunCommandBuffer(f.device, XGPU_COMMAND_BUFFER_MODE_REUSABLE, 0);
  REQUIRE(xgpuEndCommandBuffer(reusable) == XGPU_SUCCESS);
  submits[0].commandBuffer = reusable;
  submits[1].commandBuffer = reusable;
  REQUIRE(xgpuQueueSubmit(f.queue, 2, submits) == XGPU_SUCCESS);
  REQUIRE(xgpuQueueSubmit(f.queue, 1, submits) == XGPU_SUCCESS);
  REQUIRE(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
  f.ExpectNone();
}

}  // namespace vtest

namespace vtest {

TEST_CASE("xgpuSetObjectName: an object of the device, of a type that has a device") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuDebugObjectNameInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO;
  info.pObjectName = "name";

  info.objectType = XGPU_OBJECT_TYPE_INSTANCE;
  info.objectHandle = reinterpret_cast<uintptr_t>(f.instance);
  CHECK(xgpuSetObjectName(f.device, &info) == XGPU_ERROR_INVALID_ARGUMENT);
  f.ExpectOnly("XGPU-VUID-xgpuSetObjectName-pNameInfo-objectType");
  CHECK(f.log.Messages().at(0).text.find("pNameInfo->objectType is XGPU_OBJECT_TYPE_INSTANCE, not an object of a device") !=
        std::string::npos);
  f.log.Clear();

  info.objectType = XGPU_OBJECT_TYPE_PIPELINE;
  info.objectHandle = reinterpret_cast<uintptr_t>(f.buffer);  // a live object, of another type
  CHECK(xgpuSetObjectName(f.device, &info) == XGPU_ERROR_INVALID_ARGUMENT);
  f.ExpectOnly("XGPU-VUID-xgpuSetObjectName-pNameInfo-objectHandle");
  CHECK(f.log.Messages().at(0).text.find("not a live XgpuPipeline: it is XgpuBuffer " + Hex(f.buffer)) !=
        std::string::npos);
  f.log.Clear();

  info.objectType = XGPU_OBJECT_TYPE_BUFFER;
  info.objectHandle = reinterpret_cast<uintptr_t>(f.other_buffer);  // another device's
  CHECK(xgpuSetObjectName(f.device, &info) == XGPU_ERROR_INVALID_ARGUMENT);
  f.ExpectOnly("XGPU-VUID-xgpuSetObjectName-pNameInfo-objectHandle");
  CHECK(f.log.Messages().at(0).text.find("an object of XgpuDevice " + Hex(f.other_device) + ", not of XgpuDevice " +
                                         Hex(f.device)) != std::string::npos);
  f.log.Clear();

  // The device itself and its queue may be named.
  info.objectType = XGPU_OBJECT_TYPE_QUEUE;
  info.objectHandle = reinterpret_cast<uintptr_t>(f.queue);
  CHECK(xgpuSetObjectName(f.device, &info) == XGPU_SUCCESS);
  info.objectType = XGPU_OBJECT_TYPE_DEVICE;
  info.objectHandle = reinterpret_cast<uintptr_t>(f.device);
  info.pObjectName = nullptr;
  CHECK(xgpuSetObjectName(f.device, &info) == XGPU_SUCCESS);
  f.ExpectNone();
}

}  // namespace vtest
