/*
 * The embedded device-library executable (spec/executable-format.md): one
 * code object per configured AMDGPU target and host level, holding the
 * kernels named in commands.h. Immutable; thread-safe.
 */
#ifndef XGPU_AMDGPU_DEVICE_LIBRARY_BLOB_H_
#define XGPU_AMDGPU_DEVICE_LIBRARY_BLOB_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The executable file's bytes; *out_size receives its size in bytes. */
const uint8_t* xgpu_amdgpu_device_library_data(size_t* out_size);

#ifdef __cplusplus
}
#endif

#endif /* XGPU_AMDGPU_DEVICE_LIBRARY_BLOB_H_ */
