// Loading the embedded device library for a device (see device_library.h).
#include "device_library.h"

#include <memory>
#include <string>

#include "xgpu_amdgpu/commands.h"
#if defined(XGPU_AMDGPU_DEVICE_LIBRARY_EMBEDDED)
#include "xgpu_amdgpu/device_library_blob.h"
#endif

namespace xgpu::amdgpu {

XgpuResult device_library_load(Device* device, DeviceLibrary** out_library) {
  *out_library = nullptr;
  auto library = std::make_unique<DeviceLibrary>();
#if defined(XGPU_AMDGPU_DEVICE_LIBRARY_EMBEDDED)
  size_t size = 0;
  const uint8_t* data = xgpu_amdgpu_device_library_data(&size);
  XgpuResult result = device_load_executable(device, data, size, &library->executable);
  if (result != XGPU_SUCCESS) {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kDeviceLibrary,
                  "loading the AMDGPU ICD's device library (builtin fill/copy/timestamp/indirect-patch "
                  "kernels) for this device's agent failed; see the previous message for the ISA");
    return result;
  }
  struct Lookup {
    const char* name;             // kernel symbol
    const KernelInfo** out;       // where to store it
  };
  const Lookup lookups[] = {
      {XGPU_AMDGPU_KERNEL_FILL, &library->fill},
      {XGPU_AMDGPU_KERNEL_COPY, &library->copy},
      {XGPU_AMDGPU_KERNEL_TIMESTAMP, &library->timestamp},
      {XGPU_AMDGPU_KERNEL_INDIRECT_PATCH, &library->indirect_patch},
  };
  for (const Lookup& lookup : lookups) {
    *lookup.out = loaded_executable_kernel(library->executable, lookup.name);
    if (!*lookup.out) {
      device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kDeviceLibrary,
                    std::string("the AMDGPU ICD's device library has no kernel '") + lookup.name + "'");
      device_unload_executable(device, library->executable);
      return XGPU_ERROR_INITIALIZATION_FAILED;
    }
  }
#else
  (void)device;
#endif
  *out_library = library.release();
  return XGPU_SUCCESS;
}

void device_library_destroy(Device* device, DeviceLibrary* library) {
  if (!library) return;
  if (library->executable) device_unload_executable(device, library->executable);
  delete library;
}

}  // namespace xgpu::amdgpu
