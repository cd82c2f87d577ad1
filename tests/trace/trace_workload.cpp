// A small program for the trace tests: two queues of one device, a chain of
// timeline-semaphore waits between them and the host, fills and copies (the
// driver's builtin kernels), queue-ordered allocation. It checks its own
// results and exits non-zero when they are wrong, so a traced run that
// breaks the program fails the test too.
//
//   trace_workload [--iterations N] [--instances N] [--exit-after-device]
//
// Per iteration i (1..N), semaphore `chain` and the host gate `gate`:
//   queue 0: xgpuQueueFillBuffer(a, i)      waits gate >= i   signals chain = 3i-2
//   queue 1: xgpuQueueCopyBuffer(a -> b)    waits chain >= 3i-2 signals chain = 3i-1
//   queue 1: xgpuQueueAlloca(scratch), xgpuQueueCopyBuffer(b -> scratch),
//            xgpuQueueDealloca(scratch)                       signals chain = 3i
//   host:    xgpuSignalSemaphore(gate, i), xgpuWaitSemaphores(chain >= 3i),
//            checks b.
// --instances N: all of it N times, each in an instance of its own created
// after the previous one was destroyed (the loader closes the driver in
// between).
// --exit-after-device: destroys the device, then leaves with _exit(0)
// (instance not destroyed, no static destructors): what a process that dies
// early leaves in the trace file.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "xgpu/xgpu.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "trace_workload: %s\n", what.c_str());
  std::exit(EXIT_FAILURE);
}

void check(XgpuResult result, const char* call) {
  if (result != XGPU_SUCCESS) fail(std::string(call) + " returned " + std::to_string(int(result)));
}
#define CHECK(call) check((call), #call)

constexpr uint64_t kTimeoutNs = 30'000'000'000ull;
constexpr XgpuDeviceSize kBytes = 1 << 20;

XgpuSemaphoreList list(const XgpuSemaphore* semaphore, const uint64_t* value) {
  return XgpuSemaphoreList{semaphore ? 1u : 0u, semaphore, value};
}

void run(uint32_t iterations, bool exit_after_device) {
  XgpuInstanceCreateInfo instance_info{};
  instance_info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  XgpuInstance instance = nullptr;
  CHECK(xgpuCreateInstance(&instance_info, nullptr, &instance));
  uint32_t count = 1;
  XgpuPhysicalDevice physical = nullptr;
  const XgpuResult enumerated = xgpuEnumeratePhysicalDevices(instance, &count, &physical);
  if (enumerated != XGPU_INCOMPLETE) CHECK(enumerated);
  if (count == 0) fail("no device");

  XgpuDeviceQueueCreateInfo queue_info{};
  queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = 0;
  queue_info.queueCount = 2;
  XgpuDeviceCreateInfo device_info{};
  device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  XgpuDevice device = nullptr;
  CHECK(xgpuCreateDevice(physical, &device_info, nullptr, &device));
  XgpuQueue queues[2];
  xgpuGetDeviceQueue(device, 0, 0, &queues[0]);
  xgpuGetDeviceQueue(device, 0, 1, &queues[1]);

  XgpuPhysicalDeviceMemoryProperties memory{};
  xgpuGetPhysicalDeviceMemoryProperties(physical, &memory);
  uint32_t host_type = memory.memoryTypeCount;
  for (uint32_t i = 0; i < memory.memoryTypeCount && host_type == memory.memoryTypeCount; ++i)
    if (memory.memoryTypes[i].propertyFlags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT) host_type = i;
  if (host_type == memory.memoryTypeCount) fail("no host-visible memory type");

  const XgpuBufferUsageFlags usage = XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT;
  XgpuBufferCreateInfo buffer_info{};
  buffer_info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = kBytes;
  buffer_info.usage = usage;
  buffer_info.memoryTypeIndex = host_type;
  XgpuBuffer a = nullptr, b = nullptr;
  CHECK(xgpuCreateBuffer(device, &buffer_info, nullptr, &a));
  CHECK(xgpuCreateBuffer(device, &buffer_info, nullptr, &b));
  uint32_t* b_data = nullptr;
  CHECK(xgpuMapBuffer(device, b, 0, XGPU_WHOLE_SIZE, reinterpret_cast<void**>(&b_data)));

  XgpuMemoryPoolCreateInfo pool_info{};
  pool_info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  pool_info.memoryTypeIndex = host_type;
  XgpuMemoryPool pool = nullptr;
  CHECK(xgpuCreateMemoryPool(device, &pool_info, nullptr, &pool));

  XgpuSemaphoreCreateInfo semaphore_info{};
  semaphore_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore chain = nullptr, gate = nullptr;
  CHECK(xgpuCreateSemaphore(device, &semaphore_info, nullptr, &chain));
  CHECK(xgpuCreateSemaphore(device, &semaphore_info, nullptr, &gate));

  for (uint32_t i = 1; i <= iterations; ++i) {
    const uint32_t pattern = i * 0x01010101u;
    const uint64_t gate_value = i, filled = 3ull * i - 2, copied = 3ull * i - 1, done = 3ull * i;
    XgpuSemaphoreList wait = list(&gate, &gate_value), signal = list(&chain, &filled);
    CHECK(xgpuQueueFillBuffer(queues[0], &wait, &signal, a, 0, XGPU_WHOLE_SIZE, &pattern, sizeof(pattern)));
    wait = list(&chain, &filled);
    signal = list(&chain, &copied);
    CHECK(xgpuQueueCopyBuffer(queues[1], &wait, &signal, a, 0, b, 0, kBytes));
    XgpuBuffer scratch = nullptr;
    CHECK(xgpuQueueAlloca(queues[1], nullptr, nullptr, pool, kBytes, usage, &scratch));
    CHECK(xgpuQueueCopyBuffer(queues[1], nullptr, nullptr, b, 0, scratch, 0, kBytes));
    signal = list(&chain, &done);
    CHECK(xgpuQueueDealloca(queues[1], nullptr, &signal, scratch));

    XgpuSemaphoreSignalInfo signal_info{};
    signal_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
    signal_info.semaphore = gate;
    signal_info.value = gate_value;
    CHECK(xgpuSignalSemaphore(device, &signal_info));
    XgpuSemaphoreWaitInfo wait_info{};
    wait_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    wait_info.semaphoreCount = 1;
    wait_info.pSemaphores = &chain;
    wait_info.pValues = &done;
    CHECK(xgpuWaitSemaphores(device, &wait_info, kTimeoutNs));
    for (XgpuDeviceSize w = 0; w < kBytes / sizeof(uint32_t); ++w)
      if (b_data[w] != pattern)
        fail("iteration " + std::to_string(i) + ": word " + std::to_string(w) + " is " + std::to_string(b_data[w]) +
             ", expected " + std::to_string(pattern));
  }

  CHECK(xgpuDeviceWaitIdle(device));
  xgpuDestroySemaphore(device, gate, nullptr);
  xgpuDestroySemaphore(device, chain, nullptr);
  xgpuDestroyMemoryPool(device, pool, nullptr);
  xgpuUnmapBuffer(device, b);
  xgpuDestroyBuffer(device, b, nullptr);
  xgpuDestroyBuffer(device, a, nullptr);
  xgpuDestroyDevice(device, nullptr);
  if (exit_after_device) _exit(EXIT_SUCCESS);
  xgpuDestroyInstance(instance, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t iterations = 8, instances = 1;
  bool exit_after_device = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--iterations") && i + 1 < argc)
      iterations = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (!std::strcmp(argv[i], "--instances") && i + 1 < argc)
      instances = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (!std::strcmp(argv[i], "--exit-after-device"))
      exit_after_device = true;
    else
      fail(std::string("unknown argument ") + argv[i]);
  }
  for (uint32_t i = 0; i < instances; ++i) run(iterations, exit_after_device);
  std::printf("trace_workload: %u instance(s) of %u iterations OK\n", instances, iterations);
  return EXIT_SUCCESS;
}
