// What the validation layer costs a program: the time per recorded command
// and per submission, with the layer off and on, in the same run.
//
//   validation_layer_bench [--smoke]     (BENCH_RUNS=<n>: runs of each, default 9)
//
// Recording: a one-shot command buffer of 1000 x (bind pipeline, bind two
// buffers, push 8 bytes of constants, dispatch), begun and ended; the time is
// per recording command (begin and end included). Submission: a reusable
// command buffer of one dispatch submitted 200 times (with its binding table),
// the time spent in xgpuQueueSubmit per call; then the queue drains.
// Both through function pointers from xgpuGetDeviceProcAddr, as an engine
// would call them. The two configurations run in turns, each run of one
// followed by the same run of the other; each figure is the median of the
// runs, min and max beside it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

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
  PFN_xgpuQueueSubmit QueueSubmit;
  PFN_xgpuQueueWaitIdle QueueWaitIdle;

  explicit Setup(bool with_layer) {
    const char* layers[] = {"XGPU_LAYER_validation"};
    XgpuDebugMessengerCreateInfo messenger = {};
    messenger.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
    messenger.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT;
    messenger.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
    messenger.pfnUserCallback = CountMessage;
    XgpuInstanceCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
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

  // Nanoseconds per recording command for one recording of `groups` x 4 commands.
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
    for (uint32_t i = 0; i < groups; ++i) {
      CmdBindPipeline(cb, pipeline);
      CmdBindBuffers(cb, 0, 2, refs);
      CmdPushConstants(cb, 0, sizeof(constants), &constants);
      CmdDispatch(cb, 16, 1, 1);
    }
    CHECK_OK(EndCommandBuffer(cb));
    auto end = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(end - start).count() / (groups * 4.0 + 2.0);
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
};

struct Figures {
  Stats record, submit;
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
std::vector<Figures> Measure(std::vector<Setup*> setups, int runs, uint32_t groups, uint32_t submissions) {
  const size_t n = setups.size();
  std::vector<std::vector<double>> record(n), submit(n);
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
  }
  std::vector<Figures> out;
  for (size_t k = 0; k < n; ++k) {
    setups[k]->DestroyCommandBuffer(setups[k]->device, reusable[k], nullptr);
    setups[k]->DestroyCommandBuffer(setups[k]->device, one_shot[k], nullptr);
    out.push_back({Summarize(record[k]), Summarize(submit[k])});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
  const int runs = smoke ? 1 : (std::getenv("BENCH_RUNS") ? std::atoi(std::getenv("BENCH_RUNS")) : 9);
  const uint32_t groups = smoke ? 100 : 1000;
  const uint32_t submissions = smoke ? 10 : 200;
  unsetenv("XGPU_INSTANCE_LAYERS");
  Setup without_layer(false);
  Setup with_layer(true);
  const std::vector<Figures> figures = Measure({&without_layer, &with_layer}, runs, groups, submissions);
  const Figures& off = figures[0];
  const Figures& on = figures[1];
  std::printf("validation layer cost (median of %d runs, min..max), ns\n", runs);
  std::printf("  recording, per command: without %7.1f (%.1f..%.1f)   with %7.1f (%.1f..%.1f)   x%.2f\n",
              off.record.median, off.record.min, off.record.max, on.record.median, on.record.min, on.record.max,
              on.record.median / off.record.median);
  std::printf("  xgpuQueueSubmit, per call: without %7.1f (%.1f..%.1f)   with %7.1f (%.1f..%.1f)   x%.2f\n",
              off.submit.median, off.submit.min, off.submit.max, on.submit.median, on.submit.min, on.submit.max,
              on.submit.median / off.submit.median);
  if (g_messages != 0) {
    std::fprintf(stderr, "%d error/warning message(s): the benchmark's calls must be valid\n", g_messages);
    return 1;
  }
  return 0;
}
