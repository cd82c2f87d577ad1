/* Accessor for the embedded device-library executable. */
#include "xgpu_amdgpu/device_library_blob.h"

#include "xgpu_amdgpu_device_library_executable.h"

const uint8_t* xgpu_amdgpu_device_library_data(size_t* out_size) {
  *out_size = xgpu_amdgpu_device_library_executable_size;
  return xgpu_amdgpu_device_library_executable;
}
