// Runs every entry of the misuse catalogue twice, each time in a child
// process with a fresh instance and device: without the validation layer
// (the driver's answer: a driver-checked rule reports its ID and returns its
// error; other misuse may do anything but crash or hang, and the device's
// other queue still works), and with the layer (the entry's ID reported and
// the call's error returned; never a crash). The parent process never calls
// the API, so each child starts from nothing.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "misuse.h"

namespace misuse {
namespace {

constexpr unsigned kChildSeconds = 30;  // a child that runs longer hangs

int g_report = -1;  // the child's end of the pipe

void Line(const std::string& text) {
  std::string line = text + "\n";
  ssize_t unused = write(g_report, line.data(), line.size());
  (void)unused;
}

XgpuBool32 XGPU_API_CALL OnMessage(XgpuDebugMessageSeverityFlagBits severity, XgpuDebugMessageTypeFlags,
                                   const XgpuDebugMessageData* data, void*) {
  if (severity & (XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT)) {
    std::string text = data->pMessage ? data->pMessage : "";
    for (char& c : text) c = c == '\n' ? ' ' : c;
    Line(std::string("msg ") + (data->pMessageIdName ? data->pMessageIdName : "-") + " " + text);
  }
  return XGPU_FALSE;
}

void Require(bool ok, const char* what) {
  if (!ok) {
    Line(std::string("setup-failed ") + what);
    _exit(3);
  }
}

#define SETUP(call) Require((call) == XGPU_SUCCESS, #call)

void CreateEnv(Env& env, bool layer) {
  env.layer = layer;
  const char* layers[] = {"XGPU_LAYER_validation"};
  XgpuDebugMessengerCreateInfo messenger = {};
  messenger.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
  messenger.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT;
  messenger.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
  messenger.pfnUserCallback = OnMessage;
  XgpuInstanceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = &messenger;
  info.enabledLayerCount = layer ? 1 : 0;
  info.ppEnabledLayerNames = layer ? layers : nullptr;
  SETUP(xgpuCreateInstance(&info, nullptr, &env.instance));
  XgpuDebugMessenger handle = nullptr;
  SETUP(xgpuCreateDebugMessenger(env.instance, &messenger, nullptr, &handle));
  uint32_t count = 1;
  xgpuEnumeratePhysicalDevices(env.instance, &count, &env.physical);
  Require(env.physical != nullptr, "a physical device");
  XgpuPhysicalDeviceProperties properties = {};
  xgpuGetPhysicalDeviceProperties(env.physical, &properties);
  env.limits = properties.limits;
  uint32_t families = 1;
  XgpuQueueFamilyProperties family = {};
  xgpuGetPhysicalDeviceQueueFamilyProperties(env.physical, &families, &family);
  const uint32_t queues = family.queueCount >= 2 ? 2 : 1;
  XgpuDeviceQueueCreateInfo queue_info = {};
  queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueCount = queues;
  XgpuDeviceCreateInfo device_info = {};
  device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  SETUP(xgpuCreateDevice(env.physical, &device_info, nullptr, &env.device));
  SETUP(xgpuCreateDevice(env.physical, &device_info, nullptr, &env.other_device));
  xgpuGetDeviceQueue(env.device, 0, 0, &env.queue);
  xgpuGetDeviceQueue(env.device, 0, queues - 1, &env.health_queue);
  XgpuPhysicalDeviceMemoryProperties memory = {};
  xgpuGetPhysicalDeviceMemoryProperties(env.physical, &memory);
  while (env.host_type < memory.memoryTypeCount &&
         !(memory.memoryTypes[env.host_type].propertyFlags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
    ++env.host_type;
  }
  env.buffer = env.Buffer(4096);
  env.executable = env.LoadExecutable();
  env.pipeline = env.Pipeline();
  env.semaphore = env.Semaphore();
  env.pool = env.Pool();
}

// After the mistake: the device's other queue (or its only one) still runs
// work and the result is right.
bool Healthy(Env& env) {
  XgpuBufferCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = 256;
  info.usage = XGPU_BUFFER_USAGE_TRANSFER_DST_BIT | XGPU_BUFFER_USAGE_STORAGE_BIT;
  info.memoryTypeIndex = env.host_type;
  XgpuBuffer buffer = nullptr;
  if (xgpuCreateBuffer(env.device, &info, nullptr, &buffer) != XGPU_SUCCESS) return false;
  const uint32_t pattern = 0x600DF00Du;
  if (xgpuQueueFillBuffer(env.health_queue, nullptr, nullptr, buffer, 0, 256, &pattern, 4) != XGPU_SUCCESS) return false;
  if (xgpuQueueWaitIdle(env.health_queue) != XGPU_SUCCESS) return false;
  void* data = nullptr;
  if (xgpuMapBuffer(env.device, buffer, 0, XGPU_WHOLE_SIZE, &data) != XGPU_SUCCESS) return false;
  bool ok = true;
  for (int i = 0; i < 64; ++i) ok &= static_cast<const uint32_t*>(data)[i] == pattern;
  xgpuUnmapBuffer(env.device, buffer);
  xgpuDestroyBuffer(env.device, buffer, nullptr);
  return ok;
}

struct Outcome {
  bool exited = false;                 // the child exited (no signal)
  int status = 0;                      // its wait status
  bool setup_failed = false;           // it could not build its environment
  bool has_result = false;             // it reported the call's result
  int result = 0;                      // that result
  bool healthy = false;                // the other queue still worked
  std::vector<std::string> ids;        // message IDs, in order
  std::string messages;                // the messages, for failure output
};

Outcome RunChild(const Entry& entry, bool layer) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::fflush(nullptr);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    close(fds[0]);
    g_report = fds[1];
    alarm(kChildSeconds);
    signal(SIGALRM, SIG_DFL);
    signal(SIGSEGV, SIG_DFL);
    signal(SIGABRT, SIG_DFL);
    signal(SIGBUS, SIG_DFL);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);  // the loader's and the runtime's own lines
    Env env;
    CreateEnv(env, layer);
    Line("begin");
    const XgpuResult result = entry.run(env);
    Line("result " + std::to_string(static_cast<int>(result)));
    Line(Healthy(env) ? "healthy" : "unhealthy");
    _exit(0);  // no teardown: the mistake may have left objects behind
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0) text.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  Outcome out;
  REQUIRE(waitpid(child, &out.status, 0) == child);
  out.exited = WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0;
  bool begun = false;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line == "begin") {
      begun = true;
    } else if (line.rfind("setup-failed", 0) == 0) {
      out.setup_failed = true;
      out.messages += line + "\n";
    } else if (line.rfind("result ", 0) == 0) {
      out.has_result = true;
      out.result = std::atoi(line.c_str() + 7);
    } else if (line == "healthy") {
      out.healthy = true;
    } else if (line.rfind("msg ", 0) == 0 && begun && !out.has_result) {
      const std::string rest = line.substr(4);
      out.ids.push_back(rest.substr(0, rest.find(' ')));
      out.messages += "  " + rest + "\n";
    } else if (line.rfind("msg ", 0) == 0) {
      out.messages += "  (" + std::string(begun ? "after" : "before") + " the mistake) " + line.substr(4) + "\n";
    }
  }
  return out;
}

bool Saw(const Outcome& out, const char* id) {
  for (const std::string& seen : out.ids) {
    if (seen == id) return true;
  }
  return false;
}

// Mistakes whose answer without the layer breaks api.md today: the driver
// defects this catalogue found (README.md). Their run without the layer is
// skipped (it would hang, crash or lose the device) and, where the layer
// does not check the rule yet either, the run with it only has to survive.
const char* DriverIssue(const Entry& entry) {
  static const struct {
    const char* name;
    const char* issue;
  } kIssues[] = {
      {nullptr, nullptr},  // none known today
  };
  for (const auto& known : kIssues) {
    if (known.name != nullptr && std::strcmp(known.name, entry.name) == 0) return known.issue;
  }
  return nullptr;
}

// A mistake that hands the driver an object already destroyed (or
// deallocated). Without the layer the driver looks the handle up as the
// object it was (api.md 1.8: undefined), reading freed memory: harmless in a
// plain build, which runs these, but a sanitizer build stops there, so there
// their layer-off run is skipped (README.md, "Driver defects found").
bool UsesFreedObject(const Entry& entry) {
  const std::string name = entry.name;
  const bool freed = name.find("destroyed") != std::string::npos || name.find("after its dealloca") != std::string::npos;
  return freed && std::strstr(entry.name, "twice") == nullptr;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XGPU_MISUSE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define XGPU_MISUSE_ASAN 1
#endif
#ifdef XGPU_MISUSE_ASAN
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// Entries whose name contains MISUSE_FILTER (when set).
bool Selected(const Entry& entry) {
  const char* filter = std::getenv("MISUSE_FILTER");
  return filter == nullptr || std::strstr(entry.name, filter) != nullptr;
}

void CheckEntry(const Entry& entry, bool layer) {
  const char* issue = DriverIssue(entry);
  if (issue != nullptr && !layer) {
    MESSAGE("not run without the layer (driver defect): ", std::string(entry.name), ": ", std::string(issue));
    return;
  }
  if (kSanitized && !layer && UsesFreedObject(entry)) {
    MESSAGE("not run without the layer in a sanitizer build (the driver reads the freed object): ",
            std::string(entry.name));
    return;
  }
  const Outcome out = RunChild(entry, layer);
  const std::string label = std::string(entry.name) + (layer ? " (with the layer)" : " (without the layer)");
  INFO("entry: ", label);
  INFO("messages:\n", out.messages);
  CHECK_FALSE(out.setup_failed);
  CHECK_MESSAGE(out.exited, "the child crashed, hung or failed: wait status ", out.status);
  CHECK(out.has_result);
  CHECK_MESSAGE(out.healthy, "the device's other queue did not work after the mistake");
  const char* id = layer ? (entry.layer_id ? entry.layer_id : entry.driver_id) : entry.driver_id;
  if (issue != nullptr && entry.layer_id == nullptr) id = nullptr;  // the driver does not answer it yet
  if (id != nullptr) {
    const std::string expected = id;
    CHECK_MESSAGE(Saw(out, id), "expected ", expected);
    if (entry.error != kAny && entry.error != kVoid) CHECK(out.result == static_cast<int>(entry.error));
  }
}

}  // namespace

TEST_CASE("misuse catalogue: at least 100 mistakes") {
  CHECK(Catalogue().size() >= 100);
  size_t waiting = 0;
  size_t issues = 0;
  for (const Entry& e : Catalogue()) {
    waiting += e.waits_for != nullptr ? 1 : 0;
    issues += DriverIssue(e) != nullptr ? 1 : 0;
    // The layer's ID, or the rule it waits for, names every entry's mistake.
    CHECK((e.layer_id != nullptr || e.waits_for != nullptr));
  }
  MESSAGE(Catalogue().size(), " mistakes; ", waiting, " wait for rules the layer does not check yet; ", issues,
          " meet a driver defect without the layer");
}

TEST_CASE("misuse catalogue without the layer: driver-checked rules report their ID; nothing crashes") {
  for (const Entry& entry : Catalogue()) {
    if (Selected(entry)) CheckEntry(entry, false);
  }
}

TEST_CASE("misuse catalogue with the layer: each mistake reported by its ID; nothing crashes") {
  for (const Entry& entry : Catalogue()) {
    if (Selected(entry)) CheckEntry(entry, true);
  }
}

}  // namespace misuse
