// The ICD's builtin kernels for one device (fill, copy, timestamp,
// indirect-dispatch patch), loaded from the embedded device-library
// executable (icd/amdgpu/device) for the device's agent ISA.
//
// Thread-safety: immutable after device_library_load; thread-safe.
#pragma once

#include "seam.h"

namespace xgpu::amdgpu {

struct DeviceLibrary {
  LoadedExecutable* executable = nullptr;       // the loaded executable, nullptr when none is embedded
  const KernelInfo* fill = nullptr;             // xgpu_amdgpu_fill
  const KernelInfo* copy = nullptr;             // xgpu_amdgpu_copy
  const KernelInfo* timestamp = nullptr;        // xgpu_amdgpu_timestamp
  const KernelInfo* indirect_patch = nullptr;   // xgpu_amdgpu_indirect_patch
};

}  // namespace xgpu::amdgpu
