// xgpuCreateExecutable with a pFilePath that names no executable file: a
// folder, a FIFO with no writer, /dev/zero, /proc/self/mem, an empty file, a
// 64 GiB sparse file, a missing file. Each returns
// XGPU_ERROR_INVALID_EXECUTABLE at once with a message naming the function,
// the argument, the path and what it is; nothing blocks or reads the sparse
// file (the ctest TIMEOUT fails a hang). `xgpu-kernels check` (given as the
// first argument) answers the same paths with exit status 1 and a message.
// Run with and without the validation layer (which reads the path too).
// Prints PASSED on success.
//
//   xgpu_executable_file_types_test <xgpu-kernels>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "xgpu/xgpu.h"

namespace {

int failures = 0;

#define EXPECT(condition, ...)                                           \
  do {                                                                   \
    if (!(condition)) {                                                  \
      std::printf("FAILED %s:%d: %s: ", __FILE__, __LINE__, #condition); \
      std::printf(__VA_ARGS__);                                          \
      std::printf("\n");                                                 \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

std::vector<std::string> messages;

XgpuBool32 XGPU_API_PTR on_message(XgpuDebugMessageSeverityFlagBits severity, XgpuDebugMessageTypeFlags,
                                   const XgpuDebugMessageData* data, void*) {
  if (severity & XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT) messages.push_back(data && data->pMessage ? data->pMessage : "");
  return XGPU_FALSE;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string tool = argc > 1 ? argv[1] : "";
  const char* base = std::getenv("TMPDIR");
  std::string dir = std::string(base && *base ? base : "/tmp") + "/xgpu-file-types-XXXXXX";
  if (!mkdtemp(dir.data())) return 1;
  const std::string fifo = dir + "/fifo.xgpux";
  const std::string empty = dir + "/empty.xgpux";
  const std::string sparse = dir + "/sparse.xgpux";
  mkfifo(fifo.c_str(), 0600);
  close(open(empty.c_str(), O_CREAT | O_WRONLY, 0600));
  const int fd = open(sparse.c_str(), O_CREAT | O_WRONLY, 0600);
  const bool have_sparse = fd >= 0 && ftruncate(fd, off_t{64} << 30) == 0;
  if (fd >= 0) close(fd);

  struct Case {
    std::string path;  // what pFilePath names
    std::string what;  // what the message must say about it
  };
  std::vector<Case> cases = {
      {dir, "is a folder, not a regular file"},
      {fifo, "is a FIFO, not a regular file"},
      {"/dev/zero", "is a character device, not a regular file"},
      {"/proc/self/mem", "is empty (or reports no size, as /proc files do)"},
      {empty, "is empty"},
      {dir + "/missing.xgpux", "No such file or directory"},
  };
  if (have_sparse) cases.push_back({sparse, "is 68719476736 bytes, more than the 1073741824 bytes"});

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
  uint32_t count = 1;
  XgpuPhysicalDevice physical = nullptr;
  const XgpuResult enumerated = xgpuEnumeratePhysicalDevices(instance, &count, &physical);
  if ((enumerated != XGPU_SUCCESS && enumerated != XGPU_INCOMPLETE) || count == 0) return 1;
  XgpuDeviceQueueCreateInfo queue_info{};
  queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueCount = 1;
  XgpuDeviceCreateInfo device_info{};
  device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  XgpuDevice device = nullptr;
  if (xgpuCreateDevice(physical, &device_info, nullptr, &device) != XGPU_SUCCESS) return 1;

  for (const Case& c : cases) {
    messages.clear();
    XgpuExecutableCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
    info.pFilePath = c.path.c_str();
    XgpuExecutable executable = nullptr;
    const auto start = std::chrono::steady_clock::now();
    const XgpuResult result = xgpuCreateExecutable(device, &info, nullptr, &executable);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string message = messages.empty() ? "" : messages.back();
    std::printf("%s: %d in %.3f s: %s\n", c.path.c_str(), result, seconds, message.c_str());
    EXPECT(result == XGPU_ERROR_INVALID_EXECUTABLE, "%s: result %d", c.path.c_str(), result);
    EXPECT(executable == nullptr, "%s: an executable was written", c.path.c_str());
    EXPECT(seconds < 2.0, "%s: took %.3f s", c.path.c_str(), seconds);
    EXPECT(contains(message, "xgpuCreateExecutable: pCreateInfo->pFilePath: ") && contains(message, c.path) &&
               contains(message, c.what),
           "%s: message '%s' does not name the function, the argument, the path and '%s'", c.path.c_str(),
           message.c_str(), c.what.c_str());
  }

  xgpuDestroyDevice(device, nullptr);
  xgpuDestroyDebugMessenger(instance, messenger, nullptr);
  xgpuDestroyInstance(instance, nullptr);

  // The tool, on the same paths.
  for (const Case& c : tool.empty() ? std::vector<Case>{} : cases) {
    const std::string out = dir + "/tool.txt";
    const std::string command = "'" + tool + "' check '" + c.path + "' >'" + out + "' 2>&1";
    const int status = std::system(command.c_str());
    FILE* file = std::fopen(out.c_str(), "r");
    char line[1024] = {};
    if (file) {
      if (!std::fgets(line, sizeof(line), file)) line[0] = 0;
      std::fclose(file);
    }
    std::printf("xgpu-kernels check %s: %s", c.path.c_str(), line);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 1, "xgpu-kernels check %s: status %d", c.path.c_str(), status);
    EXPECT(contains(line, "xgpu-kernels check: ") && contains(line, c.what), "xgpu-kernels check %s: '%s'",
           c.path.c_str(), line);
  }

  (void)!std::system(("rm -rf '" + dir + "'").c_str());
  if (failures == 0) std::printf("PASSED\n");
  return failures == 0 ? 0 : 1;
}
