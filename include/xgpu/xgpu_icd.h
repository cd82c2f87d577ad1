/*
 * xgpu_icd.h: the interface between the loader (libxgpu) and drivers (ICDs).
 * spec/loader.md specifies the whole protocol; this header is its C form.
 *
 * A driver is a shared library named by a JSON manifest. It exports exactly:
 *   xgpu_icdNegotiateLoaderICDInterfaceVersion  - agree on an interface version
 *   xgpu_icdGetInstanceProcAddr                 - every other entry point
 * and nothing else the loader relies on (it must not depend on exporting the
 * xgpu* API names, which would collide with the loader's).
 *
 * Every dispatchable object a driver creates (instance, physical device,
 * device, queue, command buffer) starts with one pointer-sized word that the
 * driver sets to XGPU_ICD_LOADER_MAGIC; the loader later stores its dispatch
 * table pointer there. The driver never reads that word again.
 *
 * Thread-safety: the negotiate function is called once per load, before any
 * other; everything else follows the API's rules.
 */
#ifndef XGPU_ICD_H_
#define XGPU_ICD_H_ 1

#include "xgpu/xgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Interface versions the loader speaks, oldest to newest. */
#define XGPU_MIN_LOADER_ICD_INTERFACE_VERSION 1u
#define XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION 1u

/* Value of the first word of a dispatchable object before the loader sets it. */
#define XGPU_ICD_LOADER_MAGIC ((uintptr_t)0x01CDC0DEu)

/* The first word of every dispatchable object. */
typedef union XgpuLoaderData {
  uintptr_t loaderMagic; /* XGPU_ICD_LOADER_MAGIC while the driver owns it */
  void* loaderData;      /* the loader's dispatch table pointer afterwards */
} XgpuLoaderData;

static inline void xgpuSetLoaderMagicValue(void* object) {
  ((XgpuLoaderData*)object)->loaderMagic = XGPU_ICD_LOADER_MAGIC;
}

static inline int xgpuValidLoaderMagicValue(const void* object) {
  return ((const XgpuLoaderData*)object)->loaderMagic == XGPU_ICD_LOADER_MAGIC;
}

/* In: the newest version the loader supports. Out: the version the driver
 * will use (<= the input). Returns XGPU_ERROR_INCOMPATIBLE_DRIVER when the
 * driver supports no version the loader offers. */
typedef XgpuResult(XGPU_API_PTR* PFN_xgpu_icdNegotiateLoaderICDInterfaceVersion)(
    uint32_t* pSupportedVersion);
/* Returns the driver's global (instance == NULL), instance- and
 * physical-device-level functions, and xgpuGetDeviceProcAddr. */
typedef PFN_xgpuVoidFunction(XGPU_API_PTR* PFN_xgpu_icdGetInstanceProcAddr)(
    XgpuInstance instance, const char* pName);

#define XGPU_ICD_NEGOTIATE_SYMBOL "xgpu_icdNegotiateLoaderICDInterfaceVersion"
#define XGPU_ICD_GET_INSTANCE_PROC_ADDR_SYMBOL "xgpu_icdGetInstanceProcAddr"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_ICD_H_ */
