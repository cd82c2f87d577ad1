// The two exported entry points of the ICD (xgpu_icd.h).
#include "xgpu/xgpu_icd.h"

#define XGPU_ICD_EXPORT extern "C" __attribute__((visibility("default")))

XGPU_ICD_EXPORT XgpuResult xgpu_icdNegotiateLoaderICDInterfaceVersion(uint32_t* pSupportedVersion) {
  if (!pSupportedVersion || *pSupportedVersion < XGPU_MIN_LOADER_ICD_INTERFACE_VERSION) {
    return XGPU_ERROR_INCOMPATIBLE_DRIVER;
  }
  if (*pSupportedVersion > XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION) {
    *pSupportedVersion = XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION;
  }
  return XGPU_SUCCESS;
}

XGPU_ICD_EXPORT PFN_xgpuVoidFunction xgpu_icdGetInstanceProcAddr(XgpuInstance instance, const char* pName) {
  return nullptr;
}
