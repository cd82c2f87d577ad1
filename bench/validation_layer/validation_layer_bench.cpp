// What the validation layer costs a program, in one run: the layer off; on
// with the default settings (costly checks on, synchronization-hazard
// warnings off); on with the hazard warnings on as well; on with the costly
// checks off (hazards off).
//
//   validation_layer_bench [--smoke] [--json]     (BENCH_RUNS=<n>: runs of each, default 9)
//   validation_layer_bench --profile=<off|on|hazards|costly-off>   one configuration, untimed (README.md)
//
// Recording: a one-shot command buffer, the pipeline and two buffers bound
// once, then 1000 x (push 8 bytes of constants, dispatch, memory barrier);
// the time from begin to end per (push + dispatch + barrier). Submission: a
// reusable command buffer of one dispatch submitted 200 times back to back
// (with its binding table), the time in xgpuQueueSubmit per call; then the
// queue drains. Submit + wait: the same command buffer submitted and waited
// for (xgpuQueueWaitIdle) 50 times, per round trip. Whole sample: each
// sample program of the build run as a child process, wall time.
// All device-level calls go through pointers from xgpuGetDeviceProcAddr, as
// an engine calls them. The configurations run in turns, each run of one
// followed by the same run of the others; each figure is the median of the
// runs, min and max beside it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "validation_layer_kernels.h"
#include "xgpu/xgpu.h"

namespace {

struct Stats {
  double median, min, max;  // nanoseconds
};

Stats Summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

#define CHECK_OK(call)                                                          \
  do {                                                                          \
    XgpuResult r_ = (call);                                                     \
    if (r_ != XGPU_SUCCESS) {                                                   \
      std::fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, r_); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

int g_messages = 0;  // error and warning messages seen (the run must have none)

XgpuBool32 XGPU_API_CALL CountMessage(XgpuDebugMessageSeverityFlagBits, XgpuDebugMessageTypeFlags,
                                      const XgpuDebugMessageData* data, void*) {
  ++g_messages;
  std::fprintf(stderr, "message: %s\n", data->pMessage);
  return XGPU_FALSE;
}


struct Setup {
  XgpuInstance instance = nullptr;
  XgpuDevice device = nullptr;
  XgpuQueue queue = nullptr;
  XgpuBuffer x = nullptr, y = nullptr;
  XgpuExecutable executable = nullptr;
  XgpuPipeline pipeline = nullptr;
  PFN_xgpuCreateCommandBuffer CreateCommandBuffer;
  PFN_xgpuDestroyCommandBuffer DestroyCommandBuffer;
  PFN_xgpuBeginCommandBuffer BeginCommandBuffer;
  PFN_xgpuEndCommandBuffer EndCommandBuffer;
  PFN_xgpuCmdBindPipeline CmdBindPipeline;
  PFN_xgpuCmdBindBuffers CmdBindBuffers;
  PFN_xgpuCmdPushConstants CmdPushConstants;
  PFN_xgpuCmdDispatch CmdDispatch;
  PFN_xgpuCmdMemoryBarrier CmdMemoryBarrier;
  PFN_xgpuQueueSubmit QueueSubmit;
  PFN_xgpuQueueWaitIdle QueueWaitIdle;

  // costly: XgpuValidationSettings::costlyChecks (the layer's default is on);
  // hazards: its synchronizationHazards (default off).
  Setup(bool with_layer, bool costly, bool hazards, bool gpu_assisted = false) {
    const char* layers[] = {"XGPU_LAYER_validation"};
    XgpuDebugMessengerCreateInfo messenger = {};
    messenger.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
    messenger.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT;
    messenger.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
    messenger.pfnUserCallback = CountMessage;
    XgpuInstanceCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    XgpuValidationSettings settings = {};
    settings.sType = XGPU_STRUCTURE_TYPE_VALIDATION_SETTINGS;
    settings.duplicateMessageLimit = 10;
    settings.errorAction = XGPU_VALIDATION_ERROR_ACTION_CONTINUE;
    settings.costlyChecks = costly ? XGPU_TRUE : XGPU_FALSE;
    settings.synchronizationHazards = hazards ? XGPU_TRUE : XGPU_FALSE;
    settings.gpuAssistedValidation = gpu_assisted ? XGPU_TRUE : XGPU_FALSE;
    messenger.pNext = &settings;
    info.pNext = &messenger;
    info.enabledLayerCount = with_layer ? 1 : 0;
    info.ppEnabledLayerNames = with_layer ? layers : nullptr;
    CHECK_OK(xgpuCreateInstance(&info, nullptr, &instance));
    uint32_t count = 1;
    XgpuPhysicalDevice physical = nullptr;
    XgpuResult r = xgpuEnumeratePhysicalDevices(instance, &count, &physical);
    if ((r != XGPU_SUCCESS && r != XGPU_INCOMPLETE) || !physical) {
      std::fprintf(stderr, "no physical device\n");
      std::exit(1);
    }
    XgpuDeviceQueueCreateInfo queue_info = {};
    queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueCount = 1;
    XgpuDeviceCreateInfo device_info = {};
    device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    CHECK_OK(xgpuCreateDevice(physical, &device_info, nullptr, &device));
    xgpuGetDeviceQueue(device, 0, 0, &queue);
    XgpuPhysicalDeviceMemoryProperties memory = {};
    xgpuGetPhysicalDeviceMemoryProperties(physical, &memory);
    uint32_t type = 0;
    while (type < memory.memoryTypeCount &&
           !(memory.memoryTypes[type].propertyFlags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
      ++type;
    }
    XgpuBufferCreateInfo buffer_info = {};
    buffer_info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    buffer_info.size = 4096;
    buffer_info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
    buffer_info.memoryTypeIndex = type;
    CHECK_OK(xgpuCreateBuffer(device, &buffer_info, nullptr, &x));
    CHECK_OK(xgpuCreateBuffer(device, &buffer_info, nullptr, &y));
    XgpuExecutableCreateInfo executable_info = {};
    executable_info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
    executable_info.codeSize = validation_layer_kernels_size;
    executable_info.pCode = validation_layer_kernels;
    CHECK_OK(xgpuCreateExecutable(device, &executable_info, nullptr, &executable));
    XgpuPipelineCreateInfo pipeline_info = {};
    pipeline_info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
    pipeline_info.executable = executable;
    pipeline_info.pEntryPoint = "bench_scale";
    pipeline_info.bindingCount = 2;
    pipeline_info.constantSize = 8;
    pipeline_info.workgroupSize[0] = 64;
    pipeline_info.workgroupSize[1] = 1;
    pipeline_info.workgroupSize[2] = 1;
    CHECK_OK(xgpuCreatePipeline(device, &pipeline_info, nullptr, &pipeline));
#define LOAD(name) name = reinterpret_cast<PFN_xgpu##name>(xgpuGetDeviceProcAddr(device, "xgpu" #name))
    LOAD(CreateCommandBuffer);
    LOAD(DestroyCommandBuffer);
    LOAD(BeginCommandBuffer);
    LOAD(EndCommandBuffer);
    LOAD(CmdBindPipeline);
    LOAD(CmdBindBuffers);
    LOAD(CmdPushConstants);
    LOAD(CmdDispatch);
    LOAD(CmdMemoryBarrier);
    LOAD(QueueSubmit);
    LOAD(QueueWaitIdle);
#undef LOAD
  }
  ~Setup() {
    xgpuDestroyPipeline(device, pipeline, nullptr);
    xgpuDestroyExecutable(device, executable, nullptr);
    xgpuDestroyBuffer(device, y, nullptr);
    xgpuDestroyBuffer(device, x, nullptr);
    xgpuDestroyDevice(device, nullptr);
    xgpuDestroyInstance(instance, nullptr);
  }

  XgpuCommandBuffer NewCommandBuffer() {
    XgpuCommandBufferCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
    XgpuCommandBuffer cb = nullptr;
    CHECK_OK(CreateCommandBuffer(device, &info, nullptr, &cb));
    return cb;
  }

  // Nanoseconds per (push constants + dispatch + memory barrier) of one
  // recording of `groups` of them (begin, binds and end included in the time).
  double Record(XgpuCommandBuffer cb, uint32_t groups) {
    XgpuCommandBufferBeginInfo begin = {};
    begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
    const XgpuBufferRef refs[2] = {xgpuBufferRefWhole(x), xgpuBufferRefWhole(y)};
    const struct {
      float a;
      uint32_t n;
    } constants = {2.0f, 1024};
    auto start = std::chrono::steady_clock::now();
    CHECK_OK(BeginCommandBuffer(cb, &begin));
    CmdBindPipeline(cb, pipeline);
    CmdBindBuffers(cb, 0, 2, refs);
    for (uint32_t i = 0; i < groups; ++i) {
      CmdPushConstants(cb, 0, sizeof(constants), &constants);
      CmdDispatch(cb, 16, 1, 1);
      CmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT);
    }
    CHECK_OK(EndCommandBuffer(cb));
    auto end = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(end - start).count() / groups;
  }

  // Nanoseconds per xgpuQueueSubmit of a one-dispatch reusable command buffer.
  double Submit(XgpuCommandBuffer cb, uint32_t submissions) {
    XgpuBufferBinding table[2] = {{.buffer = x, .offset = 0, .size = XGPU_WHOLE_SIZE},
                                  {.buffer = y, .offset = 0, .size = XGPU_WHOLE_SIZE}};
    XgpuSubmitInfo submit = {};
    submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBuffer = cb;
    submit.bindingCount = 2;
    submit.pBindings = table;
    double total = 0;
    for (uint32_t i = 0; i < submissions; ++i) {
      auto start = std::chrono::steady_clock::now();
      CHECK_OK(QueueSubmit(queue, 1, &submit));
      total += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    }
    CHECK_OK(QueueWaitIdle(queue));
    return total / submissions;
  }

  // Nanoseconds per xgpuQueueSubmit + xgpuQueueWaitIdle of the same command buffer.
  double SubmitWait(XgpuCommandBuffer cb, uint32_t round_trips) {
    XgpuBufferBinding table[2] = {{.buffer = x, .offset = 0, .size = XGPU_WHOLE_SIZE},
                                  {.buffer = y, .offset = 0, .size = XGPU_WHOLE_SIZE}};
    XgpuSubmitInfo submit = {};
    submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBuffer = cb;
    submit.bindingCount = 2;
    submit.pBindings = table;
    auto start = std::chrono::steady_clock::now();
    for (uint32_t i = 0; i < round_trips; ++i) {
      CHECK_OK(QueueSubmit(queue, 1, &submit));
      CHECK_OK(QueueWaitIdle(queue));
    }
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / round_trips;
  }
};

struct Figures {
  Stats record, submit, submit_wait;
};

// The reusable one-dispatch command buffer the submissions use.
XgpuCommandBuffer RecordReusable(Setup& s) {
  XgpuCommandBuffer reusable = s.NewCommandBuffer();
  XgpuCommandBufferBeginInfo begin = {};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE;
  begin.bindingCapacity = 2;
  CHECK_OK(s.BeginCommandBuffer(reusable, &begin));
  const XgpuBufferRef slots[2] = {xgpuBufferRefSlot(0, 0, XGPU_WHOLE_SIZE), xgpuBufferRefSlot(1, 0, XGPU_WHOLE_SIZE)};
  const struct {
    float a;
    uint32_t n;
  } constants = {2.0f, 1024};
  s.CmdBindPipeline(reusable, s.pipeline);
  s.CmdBindBuffers(reusable, 0, 2, slots);
  s.CmdPushConstants(reusable, 0, sizeof(constants), &constants);
  s.CmdDispatch(reusable, 16, 1, 1);
  CHECK_OK(s.EndCommandBuffer(reusable));
  return reusable;
}

// Measures the given setups in turns (run r of each before run r + 1 of any),
// so load from elsewhere falls on all of them alike.
std::vector<Figures> Measure(std::vector<Setup*> setups, int runs, uint32_t groups, uint32_t submissions,
                             uint32_t round_trips) {
  const size_t n = setups.size();
  std::vector<std::vector<double>> record(n), submit(n), submit_wait(n);
  std::vector<XgpuCommandBuffer> one_shot(n), reusable(n);
  for (size_t k = 0; k < n; ++k) {
    one_shot[k] = setups[k]->NewCommandBuffer();
    setups[k]->Record(one_shot[k], groups);  // warm the driver's block pool
    reusable[k] = RecordReusable(*setups[k]);
    setups[k]->Submit(reusable[k], submissions);
  }
  for (int r = 0; r < runs; ++r) {
    for (size_t k = 0; k < n; ++k) record[k].push_back(setups[k]->Record(one_shot[k], groups));
    for (size_t k = 0; k < n; ++k) submit[k].push_back(setups[k]->Submit(reusable[k], submissions));
    for (size_t k = 0; k < n; ++k) submit_wait[k].push_back(setups[k]->SubmitWait(reusable[k], round_trips));
  }
  std::vector<Figures> out;
  for (size_t k = 0; k < n; ++k) {
    setups[k]->DestroyCommandBuffer(setups[k]->device, reusable[k], nullptr);
    setups[k]->DestroyCommandBuffer(setups[k]->device, one_shot[k], nullptr);
    out.push_back({Summarize(record[k]), Summarize(submit[k]), Summarize(submit_wait[k])});
  }
  return out;
}

// The configurations, in the order of the columns.
constexpr int kModes = 4;
const char* const kModeNames[kModes] = {"off", "on", "on, hazards on", "on, costly off"};
const char* const kProfileNames[kModes] = {"off", "on", "hazards", "costly-off"};
const char* const kModeSides[kModes] = {"without the layer", "xgpu", "xgpu, hazards on", "xgpu, costly checks off"};

// Wall nanoseconds of one run of `program` (stdout discarded) with the
// layer as `mode` says: 0 off, 1 on (defaults), 2 on with the hazard
// warnings on, 3 on with the costly checks off.
double RunSample(const char* program, int mode) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "XGPU_INSTANCE_LAYERS=", 21) != 0 && std::strncmp(*e, "XGPU_VALIDATION_COSTLY_CHECKS=", 30) != 0 &&
        std::strncmp(*e, "XGPU_VALIDATION_HAZARDS=", 24) != 0) {
      env_strings.emplace_back(*e);
    }
  }
  if (mode >= 1) env_strings.emplace_back("XGPU_INSTANCE_LAYERS=XGPU_LAYER_validation");
  if (mode == 2) env_strings.emplace_back("XGPU_VALIDATION_HAZARDS=1");
  if (mode == 3) env_strings.emplace_back("XGPU_VALIDATION_COSTLY_CHECKS=0");
  std::vector<char*> env;
  for (std::string& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  char* argv[] = {const_cast<char*>(program), nullptr};
  auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, program, &actions, nullptr, argv, env.data()) != 0) {
    std::fprintf(stderr, "cannot run %s\n", program);
    std::exit(1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  posix_spawn_file_actions_destroy(&actions);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "%s (layer mode %d) failed with status %d\n", program, mode, status);
    std::exit(1);
  }
  return ns;
}

bool g_json = false;  // --json: one JSON object per figure and side (bench/run.py's lines)

// GPU-assisted validation's cost: one dispatch of bench_axpy over `n`
// elements (z = a * x + y: two loads and a store per element), submitted and
// waited for, in a setup with the layer off, on with GPU-assisted
// validation off, and on with it on (the kernel's bounds-checked copy).
struct Axpy {
  Setup& s;
  uint32_t n;
  XgpuBuffer x = nullptr, y = nullptr, z = nullptr;
  float* zs = nullptr;
  XgpuPipeline pipeline = nullptr;
  XgpuCommandBuffer cb = nullptr;

  Axpy(Setup& setup, uint32_t elements) : s(setup), n(elements) {
    XgpuPhysicalDeviceMemoryProperties memory = {};
    uint32_t count = 1;
    XgpuPhysicalDevice physical = nullptr;
    xgpuEnumeratePhysicalDevices(s.instance, &count, &physical);
    xgpuGetPhysicalDeviceMemoryProperties(physical, &memory);
    uint32_t type = 0;
    while (type < memory.memoryTypeCount &&
           !(memory.memoryTypes[type].propertyFlags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
      ++type;
    }
    XgpuBufferCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = uint64_t(n) * sizeof(float);
    info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
    info.memoryTypeIndex = type;
    XgpuBuffer* buffers[3] = {&x, &y, &z};
    for (int b = 0; b < 3; ++b) {
      CHECK_OK(xgpuCreateBuffer(s.device, &info, nullptr, buffers[b]));
      void* data = nullptr;
      CHECK_OK(xgpuMapBuffer(s.device, *buffers[b], 0, info.size, &data));
      auto* f = static_cast<float*>(data);
      for (uint32_t i = 0; i < n; ++i) f[i] = b == 2 ? 0.0f : float((i * (b + 3u)) % 1000u);
      if (b == 2) zs = f;
    }
    XgpuPipelineCreateInfo pipeline_info = {};
    pipeline_info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
    pipeline_info.executable = s.executable;
    pipeline_info.pEntryPoint = "bench_axpy";
    pipeline_info.workgroupSize[0] = 256;
    pipeline_info.workgroupSize[1] = 1;
    pipeline_info.workgroupSize[2] = 1;
    CHECK_OK(xgpuCreatePipeline(s.device, &pipeline_info, nullptr, &pipeline));
    cb = s.NewCommandBuffer();
    XgpuCommandBufferBeginInfo begin = {};
    begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE;
    CHECK_OK(s.BeginCommandBuffer(cb, &begin));
    const XgpuBufferRef refs[3] = {xgpuBufferRefWhole(x), xgpuBufferRefWhole(y), xgpuBufferRefWhole(z)};
    const struct {
      float a;
      uint32_t n;
    } constants = {1.5f, n};
    s.CmdBindPipeline(cb, pipeline);
    s.CmdBindBuffers(cb, 0, 3, refs);
    s.CmdPushConstants(cb, 0, sizeof(constants), &constants);
    s.CmdDispatch(cb, (n + 255) / 256, 1, 1);
    CHECK_OK(s.EndCommandBuffer(cb));
  }
  ~Axpy() {
    s.DestroyCommandBuffer(s.device, cb, nullptr);
    xgpuDestroyPipeline(s.device, pipeline, nullptr);
    for (XgpuBuffer b : {x, y, z}) xgpuDestroyBuffer(s.device, b, nullptr);
  }
  // Nanoseconds of one submit + wait.
  double Run() {
    XgpuSubmitInfo submit = {};
    submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBuffer = cb;
    auto start = std::chrono::steady_clock::now();
    CHECK_OK(s.QueueSubmit(s.queue, 1, &submit));
    CHECK_OK(s.QueueWaitIdle(s.queue));
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  }
};

void JsonSide(const char* figure, const char* side, const Stats& s, double scale, const char* unit) {
  std::printf("{\"bench\": \"validation_layer\", \"figure\": \"%s\", \"unit\": \"%s\", \"better\": \"lower\", "
              "\"side\": \"%s\", \"median\": %.3f, \"min\": %.3f, \"max\": %.3f}\n",
              figure, unit, side, s.median / scale, s.min / scale, s.max / scale);
}

// One row: the figure in each configuration (kModes of them, in order), the
// ratio of each "on" to "off", and whether the default ("on") meets `goal`.
void PrintRow(const char* what, const Stats* by_mode, double scale, const char* unit, const char* goal,
              double goal_ratio) {
  if (g_json) {
    for (int m = 0; m < kModes; ++m) JsonSide(what, kModeSides[m], by_mode[m], scale, unit);
    return;
  }
  std::printf("  %-34s", what);
  for (int m = 0; m < kModes; ++m) {
    const Stats& s = by_mode[m];
    std::printf(" %s %.1f (%.1f..%.1f)", kModeNames[m], s.median / scale, s.min / scale, s.max / scale);
    if (m > 0) std::printf(" x%.2f", s.median / by_mode[0].median);
    std::printf(" |");
  }
  if (goal != nullptr) {
    std::printf(" goal %s: %s", goal, by_mode[1].median / by_mode[0].median <= goal_ratio ? "met" : "NOT met");
  }
  std::printf(" [%s]\n", unit);
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    smoke |= std::strcmp(argv[i], "--smoke") == 0;
    g_json |= std::strcmp(argv[i], "--json") == 0;
  }
  const int runs = smoke ? 1 : (std::getenv("BENCH_RUNS") ? std::atoi(std::getenv("BENCH_RUNS")) : 9);
  const uint32_t groups = smoke ? 100 : 1000;
  const uint32_t submissions = smoke ? 10 : 200;
  const uint32_t round_trips = smoke ? 5 : 50;
  unsetenv("XGPU_INSTANCE_LAYERS");
  unsetenv("XGPU_VALIDATION_COSTLY_CHECKS");  // the settings structure decides
  unsetenv("XGPU_VALIDATION_HAZARDS");
  unsetenv("XGPU_VALIDATION_GPU_ASSISTED");
  // --profile=<mode>: only one configuration's recordings and submissions,
  // untimed, for an instruction-count profiler (README.md).
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--profile=", 10) != 0) continue;
    int mode = -1;
    for (int m = 0; m < kModes; ++m)
      if (std::strcmp(argv[i] + 10, kProfileNames[m]) == 0) mode = m;
    if (mode < 0) {
      std::fprintf(stderr, "--profile: unknown configuration \"%s\" (off, on, hazards, costly-off)\n", argv[i] + 10);
      return 2;
    }
    Setup setup(mode != 0, mode != 3, mode == 2);
    XgpuCommandBuffer one_shot = setup.NewCommandBuffer();
    XgpuCommandBuffer reusable = RecordReusable(setup);
    for (int r = 0; r < runs; ++r) {
      setup.Record(one_shot, groups);
      setup.Submit(reusable, submissions);
    }
    setup.DestroyCommandBuffer(setup.device, reusable, nullptr);
    setup.DestroyCommandBuffer(setup.device, one_shot, nullptr);
    std::printf("profiled configuration %s: %d x (one recording of %u triples, %u submissions)\n",
                kModeNames[mode], runs, groups, submissions);
    return g_messages == 0 ? 0 : 1;
  }
  Setup without_layer(false, false, false);
  Setup with_layer(true, true, false);          // the defaults
  Setup with_hazards(true, true, true);
  Setup without_costly(true, false, false);
  const std::vector<Figures> figures =
      Measure({&without_layer, &with_layer, &with_hazards, &without_costly}, runs, groups, submissions, round_trips);
  if (!g_json) {
    std::printf("validation layer cost: off; on (default settings: costly checks on, hazard warnings off); on with "
                "the hazard warnings on; on with costly checks off; median of %d runs (min..max)\n", runs);
  }
  Stats record[kModes], submit[kModes], submit_wait[kModes];
  for (int m = 0; m < kModes; ++m) {
    record[m] = figures[m].record;
    submit[m] = figures[m].submit;
    submit_wait[m] = figures[m].submit_wait;
  }
  PrintRow("recording, push+dispatch+barrier", record, 1.0, "ns", "<= 2x", 2.0);
  PrintRow("xgpuQueueSubmit, per call", submit, 1.0, "ns", "<= 1.3x", 1.3);
  PrintRow("submit + wait idle, per round trip", submit_wait, 1000.0, "us", nullptr, 0);

  // GPU-assisted validation: the same dispatch, its kernel unchecked (layer
  // off; layer on with the option off) and checked (option on).
  {
    const uint32_t n = smoke ? (1u << 16) : (1u << 22);
    Setup assisted(true, true, false, true);
    Axpy axpy[3] = {Axpy(without_layer, n), Axpy(with_layer, n), Axpy(assisted, n)};
    std::vector<double> times[3];
    for (int k = 0; k < 3; ++k) axpy[k].Run();  // warm: pages, caches
    for (int r = 0; r < runs; ++r)
      for (int k = 0; k < 3; ++k) times[k].push_back(axpy[k].Run());
    for (int k = 1; k < 3; ++k) {
      if (std::memcmp(axpy[0].zs, axpy[k].zs, size_t(n) * sizeof(float)) != 0) {
        std::fprintf(stderr, "bench_axpy: the results of configuration %d differ from the layer-off run's\n", k);
        return 1;
      }
    }
    const Stats off = Summarize(times[0]), on = Summarize(times[1]), checked = Summarize(times[2]);
    const double accesses = 3.0 * n;
    if (g_json) {
      JsonSide("GPU-assisted validation, axpy dispatch", "without the layer", off, 1000.0, "us");
      JsonSide("GPU-assisted validation, axpy dispatch", "xgpu", on, 1000.0, "us");
      JsonSide("GPU-assisted validation, axpy dispatch", "xgpu, GPU-assisted on", checked, 1000.0, "us");
    } else {
      std::printf("  GPU-assisted validation, one axpy dispatch of %u elements (3 accesses each), submit + wait: "
                  "layer off %.1f (%.1f..%.1f) | on, GPU-assisted off %.1f (%.1f..%.1f) x%.2f | on, GPU-assisted on "
                  "%.1f (%.1f..%.1f) x%.2f [us]; per checked access %.3f ns; results equal\n",
                  n, off.median / 1e3, off.min / 1e3, off.max / 1e3, on.median / 1e3, on.min / 1e3, on.max / 1e3,
                  on.median / off.median, checked.median / 1e3, checked.min / 1e3, checked.max / 1e3,
                  checked.median / off.median, (checked.median - on.median) / accesses);
    }
  }

  // The whole samples, as child processes.
  const char* samples[] = {XGPU_BENCH_SAMPLES};
  for (const char* sample : samples) {
    if (sample[0] == '\0') continue;
    std::vector<double> times[kModes];
    for (int r = 0; r < (smoke ? 1 : runs); ++r) {
      for (int mode = 0; mode < kModes; ++mode) times[mode].push_back(RunSample(sample, mode));
    }
    const char* name = std::strrchr(sample, '/') ? std::strrchr(sample, '/') + 1 : sample;
    std::string label = std::string("whole sample ") + name;
    Stats whole[kModes];
    for (int m = 0; m < kModes; ++m) whole[m] = Summarize(times[m]);
    PrintRow(label.c_str(), whole, 1e6, "ms", nullptr, 0);
  }
  if (g_json) {
    std::printf("{\"bench\": \"validation_layer\", \"check\": \"the layer stayed silent on valid calls\", "
                "\"ok\": %s}\n", g_messages == 0 ? "true" : "false");
  }
  if (g_messages != 0) {
    std::fprintf(stderr, "%d error/warning message(s): the benchmark's calls must be valid\n", g_messages);
    return 1;
  }
  return 0;
}
