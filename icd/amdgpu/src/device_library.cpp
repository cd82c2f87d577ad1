// The device library (builtin kernels) of one device (stub).
#include "seam.h"

namespace xgpu::amdgpu {

XgpuResult device_library_load(Device*, DeviceLibrary** out_library) {
  *out_library = nullptr;
  return XGPU_SUCCESS;
}
void device_library_destroy(Device*, DeviceLibrary*) {}

}  // namespace xgpu::amdgpu
