/*
 * The control interface of the test drivers (test_driver.cpp), shared with
 * the tests. A test dlopens the driver library itself, configures it through
 * xgpu_test_driver_control() before creating an instance, and reads the
 * counters afterwards. The same source builds drivers "A", "B" and "C" (three
 * libraries, so several can be loaded at once), "nosym" (exports only this
 * control interface, not the ICD entry points) and "nogipa" (exports the
 * negotiate function but not xgpu_icdGetInstanceProcAddr).
 *
 * Thread-compatible: tests configure and read it from one thread.
 */
#ifndef XGPU_TESTS_LOADER_TEST_DRIVER_H_
#define XGPU_TESTS_LOADER_TEST_DRIVER_H_

#include "xgpu/xgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Objects the driver creates without XGPU_ICD_LOADER_MAGIC (skipMagic bits). */
#define XGPU_TEST_SKIP_MAGIC_INSTANCE 0x1u
#define XGPU_TEST_SKIP_MAGIC_PHYSICAL_DEVICE 0x2u
#define XGPU_TEST_SKIP_MAGIC_DEVICE 0x4u
#define XGPU_TEST_SKIP_MAGIC_QUEUE 0x8u
#define XGPU_TEST_SKIP_MAGIC_COMMAND_BUFFER 0x10u

typedef struct XgpuTestDriverControl {
  /* Configuration (reset values in brackets). */
  XgpuResult negotiateResult;       /* what negotiation returns [XGPU_SUCCESS] */
  uint32_t negotiateVersion;        /* interface version chosen; 0 keeps the loader's [0] */
  uint32_t physicalDeviceCount;     /* physical devices reported [1] */
  uint32_t skipMagic;               /* XGPU_TEST_SKIP_MAGIC_* bits [0] */
  XgpuResult createInstanceResult;  /* what xgpuCreateInstance returns [XGPU_SUCCESS] */
  int emitMessageOnCreateDevice;    /* xgpuCreateDevice calls the app's messengers [0] */
  int hideGlobalCreateInstance;     /* xgpu_icdGetInstanceProcAddr(NULL, "xgpuCreateInstance") is NULL [0] */
  /* Observations. */
  uint32_t negotiateCalls;           /* xgpu_icdNegotiateLoaderICDInterfaceVersion calls */
  uint32_t createInstanceCalls;      /* xgpuCreateInstance calls */
  uint32_t destroyInstanceCalls;     /* xgpuDestroyInstance calls */
  uint32_t createDeviceCalls;        /* xgpuCreateDevice calls */
  uint32_t destroyDeviceCalls;       /* xgpuDestroyDevice calls */
  uint32_t createBufferCalls;        /* xgpuCreateBuffer calls */
  uint32_t cmdDispatchCalls;         /* xgpuCmdDispatch calls */
  uint32_t queueSubmitCalls;         /* xgpuQueueSubmit calls */
  uint32_t createMessengerCalls;     /* xgpuCreateDebugMessenger calls */
  uint32_t destroyMessengerCalls;    /* xgpuDestroyDebugMessenger calls */
  uint32_t sawLoaderStructure;       /* a XGPU_STRUCTURE_TYPE_LOADER_* struct reached the driver */
  uint32_t sawLayerNames;            /* xgpuCreateInstance saw enabledLayerCount != 0 */
  uint32_t sawApplicationMessenger;  /* xgpuCreateInstance saw the app's pNext messenger */
} XgpuTestDriverControl;

typedef XgpuTestDriverControl* (*PFN_xgpu_test_driver_control)(void);
typedef void (*PFN_xgpu_test_driver_reset)(void);
typedef PFN_xgpuVoidFunction (*PFN_xgpu_test_driver_function)(const char* name);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_TESTS_LOADER_TEST_DRIVER_H_ */
