// N executables (default 4,096) loaded at once in one process on hsa-cpu,
// each a separate load of the same host code object: every
// xgpuCreateExecutable succeeds, pipelines resolve in the first, the last
// and every 512th, and what one executable costs (resident memory and
// mappings) is printed. Then a resource running out is answered as one: with
// no file descriptor left the next xgpuCreateExecutable returns
// XGPU_ERROR_OUT_OF_DEVICE_MEMORY (hsa-cpu's out of resources), not
// XGPU_ERROR_INVALID_EXECUTABLE. Prints PASSED on success.
//
//   xgpu_many_executables_test [N]
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <string>
#include <vector>

#include "xgpu/xgpu.h"

namespace {

int failures = 0;

#define EXPECT(condition, ...)                                       \
  do {                                                               \
    if (!(condition)) {                                              \
      std::printf("FAILED %s:%d: %s: ", __FILE__, __LINE__, #condition); \
      std::printf(__VA_ARGS__);                                      \
      std::printf("\n");                                             \
      ++failures;                                                    \
    }                                                                \
  } while (0)

std::string last_message;

XgpuBool32 XGPU_API_PTR on_message(XgpuDebugMessageSeverityFlagBits, XgpuDebugMessageTypeFlags,
                                   const XgpuDebugMessageData* data, void*) {
  last_message = data && data->pMessage ? data->pMessage : "";
  return XGPU_FALSE;
}

// Resident bytes of the process (/proc/self/statm).
uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Mappings of the process (/proc/self/maps lines).
uint64_t mapping_count() {
  std::ifstream maps("/proc/self/maps");
  uint64_t lines = 0;
  for (std::string line; std::getline(maps, line);) ++lines;
  return lines;
}

// Highest open file descriptor + 1.
int open_fd_limit() {
  int highest = -1;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return 1024;
  while (dirent* entry = readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    if (fd > highest) highest = fd;
  }
  closedir(dir);
  return highest + 1;
}

std::vector<char> read_all(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t count = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 4096;
  const std::vector<char> code = read_all(XGPU_MANY_KERNELS);
  if (code.empty()) {
    std::printf("FAILED: cannot read %s\n", XGPU_MANY_KERNELS);
    return 1;
  }

  XgpuInstanceCreateInfo instance_info{};
  instance_info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  XgpuInstance instance = nullptr;
  if (xgpuCreateInstance(&instance_info, nullptr, &instance) != XGPU_SUCCESS) return 1;
  XgpuDebugMessengerCreateInfo messenger_info{};
  messenger_info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
  messenger_info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;
  messenger_info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
  messenger_info.pfnUserCallback = on_message;
  XgpuDebugMessenger messenger = nullptr;
  if (xgpuCreateDebugMessenger(instance, &messenger_info, nullptr, &messenger) != XGPU_SUCCESS) return 1;
  uint32_t physical_count = 1;
  XgpuPhysicalDevice physical = nullptr;
  const XgpuResult enumerated = xgpuEnumeratePhysicalDevices(instance, &physical_count, &physical);
  if ((enumerated != XGPU_SUCCESS && enumerated != XGPU_INCOMPLETE) || physical_count == 0) return 1;
  XgpuDeviceQueueCreateInfo queue_info{};
  queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueCount = 1;
  XgpuDeviceCreateInfo device_info{};
  device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  XgpuDevice device = nullptr;
  if (xgpuCreateDevice(physical, &device_info, nullptr, &device) != XGPU_SUCCESS) return 1;

  XgpuExecutableCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  info.pCode = code.data();
  info.codeSize = code.size();

  const uint64_t resident_before = resident_bytes();
  const uint64_t mappings_before = mapping_count();
  std::vector<XgpuExecutable> executables;
  executables.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    XgpuExecutable executable = nullptr;
    const XgpuResult result = xgpuCreateExecutable(device, &info, nullptr, &executable);
    if (result != XGPU_SUCCESS) {
      EXPECT(result == XGPU_SUCCESS, "executable %u of %u: result %d: %s", i, count, result, last_message.c_str());
      break;
    }
    executables.push_back(executable);
  }
  const uint64_t resident_after = resident_bytes();
  const uint64_t mappings_after = mapping_count();
  const uint64_t loaded = executables.size();
  std::printf("%llu executables of %zu bytes loaded at once: %.1f KiB resident and %.1f mappings each "
              "(%.1f MiB, %llu mappings in all)\n",
              static_cast<unsigned long long>(loaded), code.size(),
              loaded ? double(resident_after - resident_before) / 1024.0 / double(loaded) : 0.0,
              loaded ? double(mappings_after - mappings_before) / double(loaded) : 0.0,
              double(resident_after - resident_before) / 1048576.0,
              static_cast<unsigned long long>(mappings_after - mappings_before));
  EXPECT(loaded == count, "loaded %llu of %u", static_cast<unsigned long long>(loaded), count);

  // Every executable is its own load: pipelines resolve in any of them.
  for (uint64_t i = 0; i < loaded; i += (i + 1 == loaded || i + 512 < loaded) ? 512 : loaded - 1 - i) {
    XgpuPipelineCreateInfo pipeline_info{};
    pipeline_info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
    pipeline_info.executable = executables[i];
    pipeline_info.pEntryPoint = "executables_iota";
    pipeline_info.workgroupSize[0] = 64;
    pipeline_info.workgroupSize[1] = pipeline_info.workgroupSize[2] = 1;
    XgpuPipeline pipeline = nullptr;
    const XgpuResult result = xgpuCreatePipeline(device, &pipeline_info, nullptr, &pipeline);
    EXPECT(result == XGPU_SUCCESS, "pipeline of executable %llu: %d: %s", static_cast<unsigned long long>(i),
           result, last_message.c_str());
    xgpuDestroyPipeline(device, pipeline, nullptr);
    if (i + 1 == loaded) break;
  }

  // No file descriptor left (hsa-cpu loads a code object through a memfd):
  // a resource error, never "invalid".
  rlimit saved{};
  getrlimit(RLIMIT_NOFILE, &saved);
  rlimit tight = saved;
  tight.rlim_cur = static_cast<rlim_t>(open_fd_limit());
  if (setrlimit(RLIMIT_NOFILE, &tight) == 0) {
    // Fill the free numbers below the limit.
    std::vector<int> fillers;
    for (int fd; (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) fillers.push_back(fd);
    XgpuExecutable executable = nullptr;
    last_message.clear();
    const XgpuResult result = xgpuCreateExecutable(device, &info, nullptr, &executable);
    for (int fd : fillers) close(fd);
    setrlimit(RLIMIT_NOFILE, &saved);
    EXPECT(result == XGPU_ERROR_OUT_OF_DEVICE_MEMORY, "with no file descriptor left: result %d: %s", result,
           last_message.c_str());
    EXPECT(last_message.find("xgpuCreateExecutable") != std::string::npos, "message: %s", last_message.c_str());
    std::printf("with no file descriptor left: result %d: %s\n", result, last_message.c_str());
    xgpuDestroyExecutable(device, executable, nullptr);
  }

  for (XgpuExecutable executable : executables) xgpuDestroyExecutable(device, executable, nullptr);
  xgpuDestroyDevice(device, nullptr);
  xgpuDestroyDebugMessenger(instance, messenger, nullptr);
  xgpuDestroyInstance(instance, nullptr);
  if (failures == 0) std::printf("PASSED\n");
  return failures == 0 ? 0 : 1;
}
