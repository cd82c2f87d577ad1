#include "hsa_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace xgpu::amdgpu {

std::string HsaApi::status_string(hsa_status_t status) const {
  const char* text = nullptr;
  if (hsa_status_string && hsa_status_string(status, &text) == HSA_STATUS_SUCCESS && text) {
    return text;
  }
  return "HSA status " + std::to_string(static_cast<int>(status));
}

XgpuResult hsa_status_to_result(hsa_status_t status) {
  switch (status) {
    case HSA_STATUS_SUCCESS:
    case HSA_STATUS_INFO_BREAK:
      return XGPU_SUCCESS;
    case HSA_STATUS_ERROR_OUT_OF_RESOURCES:
      return XGPU_ERROR_OUT_OF_DEVICE_MEMORY;
    case HSA_STATUS_ERROR_INVALID_ARGUMENT:
    case HSA_STATUS_ERROR_INVALID_ALLOCATION:
    case HSA_STATUS_ERROR_INVALID_SIGNAL:
    case HSA_STATUS_ERROR_INVALID_QUEUE:
    case HSA_STATUS_ERROR_INVALID_AGENT:
    case HSA_STATUS_ERROR_INVALID_REGION:
    case HSA_STATUS_ERROR_INVALID_INDEX:
      return XGPU_ERROR_INVALID_ARGUMENT;
    case HSA_STATUS_ERROR_INVALID_CODE_OBJECT:
    case HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER:
    case HSA_STATUS_ERROR_INVALID_EXECUTABLE:
    case HSA_STATUS_ERROR_INVALID_SYMBOL_NAME:
    case HSA_STATUS_ERROR_VARIABLE_UNDEFINED:
    case HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED:
    case HSA_STATUS_ERROR_FROZEN_EXECUTABLE:
      return XGPU_ERROR_INVALID_EXECUTABLE;
    case HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS:
    case HSA_STATUS_ERROR_INVALID_ISA:
    case HSA_STATUS_ERROR_INVALID_ISA_NAME:
      return XGPU_ERROR_INCOMPATIBLE_EXECUTABLE;
    case HSA_STATUS_ERROR_EXCEPTION:
      return XGPU_ERROR_DEVICE_LOST;
    case HSA_STATUS_ERROR_NOT_INITIALIZED:
    case HSA_STATUS_ERROR_REFCOUNT_OVERFLOW:
      return XGPU_ERROR_INITIALIZATION_FAILED;
    default:
      return XGPU_ERROR_UNKNOWN;
  }
}

XgpuResult HsaApi::fail(const char* call, hsa_status_t status, std::string* out_error) const {
  if (out_error) *out_error = std::string(call) + " failed: " + status_string(status);
  return hsa_status_to_result(status);
}

XgpuResult HsaApi::check(const char* call, const char* detail, hsa_status_t status,
                         std::string* out_error) const {
  if (status == HSA_STATUS_SUCCESS) return XGPU_SUCCESS;
  if (out_error) *out_error = std::string(call) + "(" + detail + ") failed: " + status_string(status);
  const XgpuResult result = hsa_status_to_result(status);
  // A failure never reads as success (HSA_STATUS_INFO_BREAK is not one here).
  return result == XGPU_SUCCESS ? XGPU_ERROR_UNKNOWN : result;
}

bool hsa_api_load(const std::string& path, HsaApi* api, std::string* out_error) {
  *api = HsaApi{};
  // RTLD_NODELETE: HSA runtimes keep process-wide state and threads that
  // must not be unmapped under them; dlclose only drops our reference.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!library) {
    const char* why = dlerror();
    if (out_error) *out_error = "dlopen(" + path + ") failed: " + (why ? why : "unknown error");
    return false;
  }
  api->library = library;
  api->library_path = path;
  std::string missing;
  constexpr bool kRequired = true;
  constexpr bool kOptional = false;
#define XGPU_HSA_RESOLVE(name, need)                                              \
  api->name = reinterpret_cast<decltype(&::name)>(dlsym(library, #name));         \
  if (!api->name && (need)) missing += (missing.empty() ? "" : ", ") + std::string(#name);
#define XGPU_HSA_STATUS(name, need) XGPU_HSA_RESOLVE(name, need)
#define XGPU_HSA_VALUE(name, need) XGPU_HSA_RESOLVE(name, need)
#include "hsa_functions.def"
#undef XGPU_HSA_STATUS
#undef XGPU_HSA_VALUE
#undef XGPU_HSA_RESOLVE
  (void)kOptional;
  if (!missing.empty()) {
    if (out_error) *out_error = path + " lacks HSA entry points: " + missing;
    dlclose(library);
    *api = HsaApi{};
    return false;
  }
  // The file dlopen actually picked (for runtimeName), canonical: symbolic
  // links, "." and ".." resolved, so equal runtimes compare equal.
  if (api->hsa_init) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(api->hsa_init), &info) && info.dli_fname) {
      api->library_path = info.dli_fname;
    }
  }
  if (char* real = realpath(api->library_path.c_str(), nullptr)) {
    api->library_path = real;
    std::free(real);
  }
  return true;
}

bool hsa_api_unload(HsaApi* api, std::string* out_error) {
  bool ok = true;
  if (api->initialized && api->hsa_shut_down) ok = api->hsa_shut_down_checked(out_error) == XGPU_SUCCESS;
  if (api->library) dlclose(api->library);
  *api = HsaApi{};
  return ok;
}

}  // namespace xgpu::amdgpu
