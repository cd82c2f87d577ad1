/*
 * xgpu_meta.h: the xgpu meta-loader. An application compiles
 * loader/meta/xgpu_meta.c into itself instead of linking libxgpu: it dlopens
 * libxgpu at run time and fetches every entry point once into the function
 * pointers below; after xgpumetaLoadDevice, device, queue and command-buffer
 * calls go straight to the first layer or the driver, skipping libxgpu's
 * trampolines.
 *
 *   xgpumetaInitialize();                 // libxgpu.so.1 or $XGPU_META_LOADER_LIBRARY
 *   xgpuCreateInstance(&info, NULL, &instance);
 *   xgpumetaLoadInstance(instance);       // instance-level functions (and trampolines for the rest)
 *   xgpuCreateDevice(physicalDevice, &deviceInfo, NULL, &device);
 *   xgpumetaLoadDevice(device);           // device-level functions, direct
 *
 * Each xgpuFoo name is a macro for the pointer xgpumeta_xgpuFoo (define
 * XGPU_META_NO_NAME_MACROS to use the prefixed names only), so the
 * application's symbols never collide with libxgpu's exports. Include this
 * header instead of xgpu.h (it includes xgpu.h without prototypes).
 * Applications with several devices use xgpumetaLoadDeviceTable instead of the
 * global device pointers. Table layouts never depend on compile-time defines.
 *
 * Thread-safety: xgpumetaInitialize*, xgpumetaLoad* (except
 * xgpumetaLoadDeviceTable) and xgpumetaFinalize write the global pointers:
 * call them before other threads use the API, or synchronize externally.
 * xgpumetaLoadDeviceTable writes only the table it is given. Calls through
 * the pointers follow the API's rules.
 */
#ifndef XGPU_META_H_
#define XGPU_META_H_ 1

#if defined(XGPU_H_) && !defined(XGPU_NO_PROTOTYPES)
#error "include xgpu/xgpu_meta.h before xgpu/xgpu.h, or define XGPU_NO_PROTOTYPES before including xgpu.h"
#endif
#ifndef XGPU_NO_PROTOTYPES
#define XGPU_NO_PROTOTYPES
#endif

#include "xgpu/xgpu.h"
#include "xgpu/xgpu_dispatch_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads libxgpu: the file named by $XGPU_META_LOADER_LIBRARY when set, else
 * "libxgpu.so.1" through the dynamic linker's search, and fetches the global
 * functions. Returns XGPU_ERROR_INITIALIZATION_FAILED when the library or its
 * xgpuGetInstanceProcAddr cannot be found (xgpumetaInitializeError says why). */
XgpuResult xgpumetaInitialize(void);

/* Uses getInstanceProcAddr instead of loading a library (for an application
 * that links libxgpu itself, or a test). */
void xgpumetaInitializeCustom(PFN_xgpuGetInstanceProcAddr getInstanceProcAddr);

/* Clears every pointer and closes the library xgpumetaInitialize opened. */
void xgpumetaFinalize(void);

/* Why the last xgpumetaInitialize failed, or "" after a success. */
const char* xgpumetaInitializeError(void);

/* xgpuEnumerateInstanceVersion's answer, or 0 before initialization. */
uint32_t xgpumetaGetInstanceVersion(void);

/* Fetches every instance-, physical-device- and device-level function through
 * xgpuGetInstanceProcAddr(instance, ...): device-level calls then go through
 * libxgpu's trampolines, which work for any device. */
void xgpumetaLoadInstance(XgpuInstance instance);

/* The instance given to the last xgpumetaLoadInstance, or NULL. */
XgpuInstance xgpumetaGetLoadedInstance(void);

/* Replaces the device-, queue- and command-buffer-level pointers with
 * xgpuGetDeviceProcAddr(device, ...): the first layer's or the driver's
 * functions, valid for device and its queues and command buffers only.
 * Requires xgpumetaLoadInstance first. */
void xgpumetaLoadDevice(XgpuDevice device);

/* The device given to the last xgpumetaLoadDevice, or NULL. */
XgpuDevice xgpumetaGetLoadedDevice(void);

/* Fills table with xgpuGetDeviceProcAddr(device, ...) for every device-level
 * command, leaving the global pointers alone (one table per device).
 * Requires xgpumetaLoadInstance first; zeroes table otherwise. */
void xgpumetaLoadDeviceTable(XgpuDeviceDispatchTable* table, XgpuDevice device);

/* One pointer per entry point of spec/xgpu.json. */
/* XGPU_META_GENERATED_BEGIN declarations */
extern PFN_xgpuCreateInstance xgpumeta_xgpuCreateInstance;
extern PFN_xgpuEnumerateInstanceVersion xgpumeta_xgpuEnumerateInstanceVersion;
extern PFN_xgpuEnumerateInstanceLayerProperties xgpumeta_xgpuEnumerateInstanceLayerProperties;
extern PFN_xgpuGetInstanceProcAddr xgpumeta_xgpuGetInstanceProcAddr;
extern PFN_xgpuDestroyInstance xgpumeta_xgpuDestroyInstance;
extern PFN_xgpuEnumeratePhysicalDevices xgpumeta_xgpuEnumeratePhysicalDevices;
extern PFN_xgpuCreateDebugMessenger xgpumeta_xgpuCreateDebugMessenger;
extern PFN_xgpuDestroyDebugMessenger xgpumeta_xgpuDestroyDebugMessenger;
extern PFN_xgpuSubmitDebugMessage xgpumeta_xgpuSubmitDebugMessage;
extern PFN_xgpuGetPhysicalDeviceProperties xgpumeta_xgpuGetPhysicalDeviceProperties;
extern PFN_xgpuGetPhysicalDeviceMemoryProperties xgpumeta_xgpuGetPhysicalDeviceMemoryProperties;
extern PFN_xgpuGetPhysicalDeviceQueueFamilyProperties xgpumeta_xgpuGetPhysicalDeviceQueueFamilyProperties;
extern PFN_xgpuCreateDevice xgpumeta_xgpuCreateDevice;
extern PFN_xgpuGetDeviceProcAddr xgpumeta_xgpuGetDeviceProcAddr;
extern PFN_xgpuDestroyDevice xgpumeta_xgpuDestroyDevice;
extern PFN_xgpuGetDeviceQueue xgpumeta_xgpuGetDeviceQueue;
extern PFN_xgpuDeviceWaitIdle xgpumeta_xgpuDeviceWaitIdle;
extern PFN_xgpuSetObjectName xgpumeta_xgpuSetObjectName;
extern PFN_xgpuCreateBuffer xgpumeta_xgpuCreateBuffer;
extern PFN_xgpuDestroyBuffer xgpumeta_xgpuDestroyBuffer;
extern PFN_xgpuMapBuffer xgpumeta_xgpuMapBuffer;
extern PFN_xgpuUnmapBuffer xgpumeta_xgpuUnmapBuffer;
extern PFN_xgpuGetBufferDeviceAddress xgpumeta_xgpuGetBufferDeviceAddress;
extern PFN_xgpuCreateMemoryPool xgpumeta_xgpuCreateMemoryPool;
extern PFN_xgpuDestroyMemoryPool xgpumeta_xgpuDestroyMemoryPool;
extern PFN_xgpuTrimMemoryPool xgpumeta_xgpuTrimMemoryPool;
extern PFN_xgpuGetMemoryPoolStatistics xgpumeta_xgpuGetMemoryPoolStatistics;
extern PFN_xgpuCreateSemaphore xgpumeta_xgpuCreateSemaphore;
extern PFN_xgpuDestroySemaphore xgpumeta_xgpuDestroySemaphore;
extern PFN_xgpuSignalSemaphore xgpumeta_xgpuSignalSemaphore;
extern PFN_xgpuWaitSemaphores xgpumeta_xgpuWaitSemaphores;
extern PFN_xgpuGetSemaphoreValue xgpumeta_xgpuGetSemaphoreValue;
extern PFN_xgpuFailSemaphore xgpumeta_xgpuFailSemaphore;
extern PFN_xgpuCreateExecutable xgpumeta_xgpuCreateExecutable;
extern PFN_xgpuDestroyExecutable xgpumeta_xgpuDestroyExecutable;
extern PFN_xgpuCreatePipeline xgpumeta_xgpuCreatePipeline;
extern PFN_xgpuGetPipelineProperties xgpumeta_xgpuGetPipelineProperties;
extern PFN_xgpuDestroyPipeline xgpumeta_xgpuDestroyPipeline;
extern PFN_xgpuCreateCommandBuffer xgpumeta_xgpuCreateCommandBuffer;
extern PFN_xgpuDestroyCommandBuffer xgpumeta_xgpuDestroyCommandBuffer;
extern PFN_xgpuQueueSubmit xgpumeta_xgpuQueueSubmit;
extern PFN_xgpuQueueFillBuffer xgpumeta_xgpuQueueFillBuffer;
extern PFN_xgpuQueueCopyBuffer xgpumeta_xgpuQueueCopyBuffer;
extern PFN_xgpuQueueAlloca xgpumeta_xgpuQueueAlloca;
extern PFN_xgpuQueueDealloca xgpumeta_xgpuQueueDealloca;
extern PFN_xgpuQueueWaitIdle xgpumeta_xgpuQueueWaitIdle;
extern PFN_xgpuBeginCommandBuffer xgpumeta_xgpuBeginCommandBuffer;
extern PFN_xgpuEndCommandBuffer xgpumeta_xgpuEndCommandBuffer;
extern PFN_xgpuCmdBindPipeline xgpumeta_xgpuCmdBindPipeline;
extern PFN_xgpuCmdPushConstants xgpumeta_xgpuCmdPushConstants;
extern PFN_xgpuCmdBindBuffers xgpumeta_xgpuCmdBindBuffers;
extern PFN_xgpuCmdSetWorkgroupMemorySize xgpumeta_xgpuCmdSetWorkgroupMemorySize;
extern PFN_xgpuCmdDispatch xgpumeta_xgpuCmdDispatch;
extern PFN_xgpuCmdDispatchIndirect xgpumeta_xgpuCmdDispatchIndirect;
extern PFN_xgpuCmdFillBuffer xgpumeta_xgpuCmdFillBuffer;
extern PFN_xgpuCmdCopyBuffer xgpumeta_xgpuCmdCopyBuffer;
extern PFN_xgpuCmdUpdateBuffer xgpumeta_xgpuCmdUpdateBuffer;
extern PFN_xgpuCmdPipelineBarrier xgpumeta_xgpuCmdPipelineBarrier;
extern PFN_xgpuCmdMemoryBarrier xgpumeta_xgpuCmdMemoryBarrier;
extern PFN_xgpuCmdBeginDebugLabel xgpumeta_xgpuCmdBeginDebugLabel;
extern PFN_xgpuCmdEndDebugLabel xgpumeta_xgpuCmdEndDebugLabel;
extern PFN_xgpuCmdInsertDebugLabel xgpumeta_xgpuCmdInsertDebugLabel;
extern PFN_xgpuCmdWriteTimestamp xgpumeta_xgpuCmdWriteTimestamp;
extern PFN_xgpuGetDeviceFaultInfo xgpumeta_xgpuGetDeviceFaultInfo;
/* XGPU_META_GENERATED_END declarations */

#ifndef XGPU_META_NO_NAME_MACROS
/* XGPU_META_GENERATED_BEGIN names */
#define xgpuCreateInstance xgpumeta_xgpuCreateInstance
#define xgpuEnumerateInstanceVersion xgpumeta_xgpuEnumerateInstanceVersion
#define xgpuEnumerateInstanceLayerProperties xgpumeta_xgpuEnumerateInstanceLayerProperties
#define xgpuGetInstanceProcAddr xgpumeta_xgpuGetInstanceProcAddr
#define xgpuDestroyInstance xgpumeta_xgpuDestroyInstance
#define xgpuEnumeratePhysicalDevices xgpumeta_xgpuEnumeratePhysicalDevices
#define xgpuCreateDebugMessenger xgpumeta_xgpuCreateDebugMessenger
#define xgpuDestroyDebugMessenger xgpumeta_xgpuDestroyDebugMessenger
#define xgpuSubmitDebugMessage xgpumeta_xgpuSubmitDebugMessage
#define xgpuGetPhysicalDeviceProperties xgpumeta_xgpuGetPhysicalDeviceProperties
#define xgpuGetPhysicalDeviceMemoryProperties xgpumeta_xgpuGetPhysicalDeviceMemoryProperties
#define xgpuGetPhysicalDeviceQueueFamilyProperties xgpumeta_xgpuGetPhysicalDeviceQueueFamilyProperties
#define xgpuCreateDevice xgpumeta_xgpuCreateDevice
#define xgpuGetDeviceProcAddr xgpumeta_xgpuGetDeviceProcAddr
#define xgpuDestroyDevice xgpumeta_xgpuDestroyDevice
#define xgpuGetDeviceQueue xgpumeta_xgpuGetDeviceQueue
#define xgpuDeviceWaitIdle xgpumeta_xgpuDeviceWaitIdle
#define xgpuSetObjectName xgpumeta_xgpuSetObjectName
#define xgpuCreateBuffer xgpumeta_xgpuCreateBuffer
#define xgpuDestroyBuffer xgpumeta_xgpuDestroyBuffer
#define xgpuMapBuffer xgpumeta_xgpuMapBuffer
#define xgpuUnmapBuffer xgpumeta_xgpuUnmapBuffer
#define xgpuGetBufferDeviceAddress xgpumeta_xgpuGetBufferDeviceAddress
#define xgpuCreateMemoryPool xgpumeta_xgpuCreateMemoryPool
#define xgpuDestroyMemoryPool xgpumeta_xgpuDestroyMemoryPool
#define xgpuTrimMemoryPool xgpumeta_xgpuTrimMemoryPool
#define xgpuGetMemoryPoolStatistics xgpumeta_xgpuGetMemoryPoolStatistics
#define xgpuCreateSemaphore xgpumeta_xgpuCreateSemaphore
#define xgpuDestroySemaphore xgpumeta_xgpuDestroySemaphore
#define xgpuSignalSemaphore xgpumeta_xgpuSignalSemaphore
#define xgpuWaitSemaphores xgpumeta_xgpuWaitSemaphores
#define xgpuGetSemaphoreValue xgpumeta_xgpuGetSemaphoreValue
#define xgpuFailSemaphore xgpumeta_xgpuFailSemaphore
#define xgpuCreateExecutable xgpumeta_xgpuCreateExecutable
#define xgpuDestroyExecutable xgpumeta_xgpuDestroyExecutable
#define xgpuCreatePipeline xgpumeta_xgpuCreatePipeline
#define xgpuGetPipelineProperties xgpumeta_xgpuGetPipelineProperties
#define xgpuDestroyPipeline xgpumeta_xgpuDestroyPipeline
#define xgpuCreateCommandBuffer xgpumeta_xgpuCreateCommandBuffer
#define xgpuDestroyCommandBuffer xgpumeta_xgpuDestroyCommandBuffer
#define xgpuQueueSubmit xgpumeta_xgpuQueueSubmit
#define xgpuQueueFillBuffer xgpumeta_xgpuQueueFillBuffer
#define xgpuQueueCopyBuffer xgpumeta_xgpuQueueCopyBuffer
#define xgpuQueueAlloca xgpumeta_xgpuQueueAlloca
#define xgpuQueueDealloca xgpumeta_xgpuQueueDealloca
#define xgpuQueueWaitIdle xgpumeta_xgpuQueueWaitIdle
#define xgpuBeginCommandBuffer xgpumeta_xgpuBeginCommandBuffer
#define xgpuEndCommandBuffer xgpumeta_xgpuEndCommandBuffer
#define xgpuCmdBindPipeline xgpumeta_xgpuCmdBindPipeline
#define xgpuCmdPushConstants xgpumeta_xgpuCmdPushConstants
#define xgpuCmdBindBuffers xgpumeta_xgpuCmdBindBuffers
#define xgpuCmdSetWorkgroupMemorySize xgpumeta_xgpuCmdSetWorkgroupMemorySize
#define xgpuCmdDispatch xgpumeta_xgpuCmdDispatch
#define xgpuCmdDispatchIndirect xgpumeta_xgpuCmdDispatchIndirect
#define xgpuCmdFillBuffer xgpumeta_xgpuCmdFillBuffer
#define xgpuCmdCopyBuffer xgpumeta_xgpuCmdCopyBuffer
#define xgpuCmdUpdateBuffer xgpumeta_xgpuCmdUpdateBuffer
#define xgpuCmdPipelineBarrier xgpumeta_xgpuCmdPipelineBarrier
#define xgpuCmdMemoryBarrier xgpumeta_xgpuCmdMemoryBarrier
#define xgpuCmdBeginDebugLabel xgpumeta_xgpuCmdBeginDebugLabel
#define xgpuCmdEndDebugLabel xgpumeta_xgpuCmdEndDebugLabel
#define xgpuCmdInsertDebugLabel xgpumeta_xgpuCmdInsertDebugLabel
#define xgpuCmdWriteTimestamp xgpumeta_xgpuCmdWriteTimestamp
#define xgpuGetDeviceFaultInfo xgpumeta_xgpuGetDeviceFaultInfo
/* XGPU_META_GENERATED_END names */
#endif /* XGPU_META_NO_NAME_MACROS */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_META_H_ */
