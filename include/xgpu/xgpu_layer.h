/*
 * xgpu_layer.h: the interface between the loader and layers.
 * spec/loader.md specifies the protocol; this header is its C form.
 *
 * A layer is a shared library named by a JSON manifest. It exports
 * xgpuNegotiateLoaderLayerInterfaceVersion, which fills in the layer's
 * GetInstanceProcAddr and GetDeviceProcAddr. The loader builds the chain
 * application -> layer 0 -> ... -> layer N-1 -> loader terminator / driver
 * and hands each layer the next link through the pNext chain of the create
 * info (XGPU_STRUCTURE_TYPE_LOADER_{INSTANCE,DEVICE}_CREATE_INFO with
 * function XGPU_LAYER_LINK_INFO). A layer advances the link
 * (`link->pLayerInfo = link->pLayerInfo->pNext`) before calling down.
 *
 * Thread-safety: negotiation happens once per load; the chain structures are
 * valid only during the create call.
 */
#ifndef XGPU_LAYER_H_
#define XGPU_LAYER_H_ 1

#include "xgpu/xgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XGPU_MIN_LOADER_LAYER_INTERFACE_VERSION 1u
#define XGPU_CURRENT_LOADER_LAYER_INTERFACE_VERSION 1u

/* What an XgpuLayer{Instance,Device}CreateInfo in the pNext chain carries. */
typedef enum XgpuLayerFunction {
  XGPU_LAYER_LINK_INFO = 0,          /* u.pLayerInfo: the next link of the chain */
  XGPU_LOADER_DATA_CALLBACK = 1,     /* u.pfnSet*LoaderData: for objects a layer creates itself */
  XGPU_LAYER_FUNCTION_MAX_ENUM = 0x7FFFFFFF
} XgpuLayerFunction;

/* Lets a layer that creates its own dispatchable objects give them the
 * loader's dispatch table. */
typedef XgpuResult(XGPU_API_PTR* PFN_xgpuSetInstanceLoaderData)(XgpuInstance instance, void* object);
typedef XgpuResult(XGPU_API_PTR* PFN_xgpuSetDeviceLoaderData)(XgpuDevice device, void* object);

typedef struct XgpuLayerInstanceLink {
  struct XgpuLayerInstanceLink* pNext;                /* link for the layer after the next */
  PFN_xgpuGetInstanceProcAddr pfnNextGetInstanceProcAddr; /* next element's GetInstanceProcAddr */
} XgpuLayerInstanceLink;

typedef struct XgpuLayerInstanceCreateInfo {
  XgpuStructureType sType; /* XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO */
  const void* pNext;       /* rest of the chain */
  XgpuLayerFunction function; /* which member of u is valid */
  union {
    XgpuLayerInstanceLink* pLayerInfo;                 /* XGPU_LAYER_LINK_INFO */
    PFN_xgpuSetInstanceLoaderData pfnSetInstanceLoaderData; /* XGPU_LOADER_DATA_CALLBACK */
  } u;
} XgpuLayerInstanceCreateInfo;

typedef struct XgpuLayerDeviceLink {
  struct XgpuLayerDeviceLink* pNext;                  /* link for the layer after the next */
  PFN_xgpuGetInstanceProcAddr pfnNextGetInstanceProcAddr; /* next element's GetInstanceProcAddr */
  PFN_xgpuGetDeviceProcAddr pfnNextGetDeviceProcAddr;     /* next element's GetDeviceProcAddr */
} XgpuLayerDeviceLink;

typedef struct XgpuLayerDeviceCreateInfo {
  XgpuStructureType sType; /* XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO */
  const void* pNext;       /* rest of the chain */
  XgpuLayerFunction function; /* which member of u is valid */
  union {
    XgpuLayerDeviceLink* pLayerInfo;                /* XGPU_LAYER_LINK_INFO */
    PFN_xgpuSetDeviceLoaderData pfnSetDeviceLoaderData; /* XGPU_LOADER_DATA_CALLBACK */
  } u;
} XgpuLayerDeviceCreateInfo;

/* Filled in by the layer's negotiate function. */
typedef struct XgpuNegotiateLayerInterface {
  uint32_t loaderLayerInterfaceVersion;            /* in: loader's newest; out: the layer's choice */
  PFN_xgpuGetInstanceProcAddr pfnGetInstanceProcAddr; /* out: the layer's GetInstanceProcAddr */
  PFN_xgpuGetDeviceProcAddr pfnGetDeviceProcAddr;     /* out: the layer's GetDeviceProcAddr */
} XgpuNegotiateLayerInterface;

typedef XgpuResult(XGPU_API_PTR* PFN_xgpuNegotiateLoaderLayerInterfaceVersion)(
    XgpuNegotiateLayerInterface* pVersionStruct);

#define XGPU_LAYER_NEGOTIATE_SYMBOL "xgpuNegotiateLoaderLayerInterfaceVersion"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_LAYER_H_ */
