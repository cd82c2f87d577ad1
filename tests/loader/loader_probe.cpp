// A child process for the loader tests: creates an instance with the layers
// named on its command line, prints one physical device name per line on
// stdout, and exits 0. On failure it prints the XgpuResult on stderr and
// exits 1. Its environment (XGPU_*, LD_LIBRARY_PATH) is the test's.
#include <cstdio>
#include <vector>

#include "xgpu/xgpu.h"

int main(int argc, char** argv) {
  std::vector<const char*> layers(argv + 1, argv + argc);
  XgpuInstanceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  XgpuInstance instance = nullptr;
  XgpuResult result = xgpuCreateInstance(&info, nullptr, &instance);
  if (result != XGPU_SUCCESS) {
    std::fprintf(stderr, "xgpuCreateInstance returned %d\n", result);
    return 1;
  }
  uint32_t count = 0;
  result = xgpuEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<XgpuPhysicalDevice> devices(count);
  if (result == XGPU_SUCCESS && count) result = xgpuEnumeratePhysicalDevices(instance, &count, devices.data());
  if (result != XGPU_SUCCESS) {
    std::fprintf(stderr, "xgpuEnumeratePhysicalDevices returned %d\n", result);
    xgpuDestroyInstance(instance, nullptr);
    return 1;
  }
  for (XgpuPhysicalDevice device : devices) {
    XgpuPhysicalDeviceProperties properties;
    xgpuGetPhysicalDeviceProperties(device, &properties);
    std::printf("%s\n", properties.deviceName);
  }
  xgpuDestroyInstance(instance, nullptr);
  return 0;
}
