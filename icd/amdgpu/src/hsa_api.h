// HsaApi: the table of hsa_* entry points, filled with dlopen/dlsym from one
// HSA runtime library (ROCR or hsa-cpu). The ICD never links against HSA; it
// includes the HSA headers for types only and calls through this table.
//
// Thread-safety: immutable after hsa_api_load; thread-safe to read.
#pragma once

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <string>

#include "xgpu/xgpu.h"

namespace xgpu::amdgpu {

struct HsaApi {
#define XGPU_HSA_STATUS(name, need) decltype(&::name) name = nullptr;  // dlsym'd entry point
#define XGPU_HSA_VALUE(name, need) decltype(&::name) name = nullptr;   // dlsym'd entry point
#include "hsa_functions.def"
#undef XGPU_HSA_STATUS
#undef XGPU_HSA_VALUE

  void* library = nullptr;   // dlopen handle (owned)
  std::string library_path;  // canonical path (realpath) of the library that was opened
  bool initialized = false;  // hsa_init succeeded (hsa_shut_down pending)

  // The HSA status as text ("HSA_STATUS_ERROR_OUT_OF_RESOURCES: ..."), also
  // for statuses the runtime does not know.
  std::string status_string(hsa_status_t status) const;

  // Checked calls: `<name>_checked(&error, args...)` calls the entry point and,
  // when it does not return HSA_STATUS_SUCCESS, returns the matching
  // XgpuResult and sets *out_error to "<name> failed: <status string>".
  // out_error may be nullptr.
#define XGPU_HSA_STATUS(name, need)                                             \
  template <typename... Args>                                                   \
  XgpuResult name##_checked(std::string* out_error, Args... args) const {       \
    hsa_status_t status = name(args...);                                        \
    if (status == HSA_STATUS_SUCCESS) return XGPU_SUCCESS;                      \
    return fail(#name, status, out_error);                                      \
  }
#define XGPU_HSA_VALUE(name, need)
#include "hsa_functions.def"
#undef XGPU_HSA_STATUS
#undef XGPU_HSA_VALUE

  // Maps a failing status of `call` to an XgpuResult and a message.
  XgpuResult fail(const char* call, hsa_status_t status, std::string* out_error) const;
  // For a status already obtained from `call` about `detail` (an attribute
  // name): XGPU_SUCCESS, or the matching XgpuResult with *out_error set to
  // "<call>(<detail>) failed: <status string>". out_error may be nullptr.
  XgpuResult check(const char* call, const char* detail, hsa_status_t status, std::string* out_error) const;
};

// The XgpuResult for an HSA status (out of resources -> OUT_OF_DEVICE_MEMORY,
// invalid argument -> INVALID_ARGUMENT, invalid code object ->
// INVALID_EXECUTABLE, incompatible ISA -> INCOMPATIBLE_EXECUTABLE, exception
// -> DEVICE_LOST, else INITIALIZATION_FAILED / UNKNOWN).
XgpuResult hsa_status_to_result(hsa_status_t status);

// Opens `path` and resolves every entry point of hsa_functions.def. On
// failure returns false with *out_error naming the path or missing symbol;
// `api` is then left closed.
bool hsa_api_load(const std::string& path, HsaApi* api, std::string* out_error);
// Calls hsa_shut_down (when initialized) and dlcloses the library (which
// stays mapped: it is opened with RTLD_NODELETE). Returns false with
// *out_error naming the call and status when hsa_shut_down failed (the
// library is unloaded anyway); out_error may be nullptr.
bool hsa_api_unload(HsaApi* api, std::string* out_error = nullptr);

}  // namespace xgpu::amdgpu
