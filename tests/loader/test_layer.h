/*
 * The control interface of the test layers (test_layer.cpp), shared with the
 * tests. The same source builds layers "A" and "B" (two libraries). A layer
 * intercepts xgpuGetPhysicalDeviceProperties (appends "+<ID>" to deviceName
 * after calling down) and xgpuCreateBuffer (counts, then calls down), and
 * passes everything else through.
 *
 * Thread-compatible: tests configure and read it from one thread.
 */
#ifndef XGPU_TESTS_LOADER_TEST_LAYER_H_
#define XGPU_TESTS_LOADER_TEST_LAYER_H_

#include "xgpu/xgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct XgpuTestLayerControl {
  /* Configuration (reset values in brackets). */
  XgpuResult negotiateResult;   /* what negotiation returns [XGPU_SUCCESS] */
  uint32_t negotiateVersion;    /* interface version chosen; 0 keeps the loader's [0] */
  int omitDeviceProcAddr;       /* negotiation leaves pfnGetDeviceProcAddr NULL [0] */
  /* Observations. */
  uint32_t negotiateCalls;          /* xgpuNegotiateLoaderLayerInterfaceVersion calls */
  uint32_t customNegotiateCalls;    /* calls of the renamed negotiate function */
  uint32_t createInstanceCalls;     /* xgpuCreateInstance calls */
  uint32_t destroyInstanceCalls;    /* xgpuDestroyInstance calls */
  uint32_t createDeviceCalls;       /* xgpuCreateDevice calls */
  uint32_t destroyDeviceCalls;      /* xgpuDestroyDevice calls */
  uint32_t createBufferCalls;       /* xgpuCreateBuffer calls */
  uint32_t propertiesCalls;         /* xgpuGetPhysicalDeviceProperties calls */
  uint32_t sawInstanceDataCallback; /* xgpuCreateInstance found pfnSetInstanceLoaderData */
  uint32_t sawDeviceDataCallback;   /* xgpuCreateDevice found pfnSetDeviceLoaderData */
  uint32_t deviceKeyedBeforeReturn; /* the device's first word was set when the call down returned */
} XgpuTestLayerControl;

typedef XgpuTestLayerControl* (*PFN_xgpu_test_layer_control)(void);
typedef void (*PFN_xgpu_test_layer_reset)(void);
typedef PFN_xgpuVoidFunction (*PFN_xgpu_test_layer_function)(const char* name);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_TESTS_LOADER_TEST_LAYER_H_ */
