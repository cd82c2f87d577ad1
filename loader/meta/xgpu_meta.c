/*
 * The xgpu meta-loader (include/xgpu/xgpu_meta.h). C99 + dlfcn; the lists
 * between XGPU_META_GENERATED markers come from spec/gen/meta_gen.py.
 *
 * Thread-safety: see xgpu_meta.h.
 */
#define XGPU_META_NO_NAME_MACROS
#include "xgpu/xgpu_meta.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* XGPU_META_GENERATED_BEGIN definitions */
PFN_xgpuCreateInstance xgpumeta_xgpuCreateInstance;
PFN_xgpuEnumerateInstanceVersion xgpumeta_xgpuEnumerateInstanceVersion;
PFN_xgpuEnumerateInstanceLayerProperties xgpumeta_xgpuEnumerateInstanceLayerProperties;
PFN_xgpuGetInstanceProcAddr xgpumeta_xgpuGetInstanceProcAddr;
PFN_xgpuDestroyInstance xgpumeta_xgpuDestroyInstance;
PFN_xgpuEnumeratePhysicalDevices xgpumeta_xgpuEnumeratePhysicalDevices;
PFN_xgpuCreateDebugMessenger xgpumeta_xgpuCreateDebugMessenger;
PFN_xgpuDestroyDebugMessenger xgpumeta_xgpuDestroyDebugMessenger;
PFN_xgpuSubmitDebugMessage xgpumeta_xgpuSubmitDebugMessage;
PFN_xgpuGetPhysicalDeviceProperties xgpumeta_xgpuGetPhysicalDeviceProperties;
PFN_xgpuGetPhysicalDeviceMemoryProperties xgpumeta_xgpuGetPhysicalDeviceMemoryProperties;
PFN_xgpuGetPhysicalDeviceQueueFamilyProperties xgpumeta_xgpuGetPhysicalDeviceQueueFamilyProperties;
PFN_xgpuCreateDevice xgpumeta_xgpuCreateDevice;
PFN_xgpuGetDeviceProcAddr xgpumeta_xgpuGetDeviceProcAddr;
PFN_xgpuDestroyDevice xgpumeta_xgpuDestroyDevice;
PFN_xgpuGetDeviceQueue xgpumeta_xgpuGetDeviceQueue;
PFN_xgpuDeviceWaitIdle xgpumeta_xgpuDeviceWaitIdle;
PFN_xgpuSetObjectName xgpumeta_xgpuSetObjectName;
PFN_xgpuCreateBuffer xgpumeta_xgpuCreateBuffer;
PFN_xgpuDestroyBuffer xgpumeta_xgpuDestroyBuffer;
PFN_xgpuMapBuffer xgpumeta_xgpuMapBuffer;
PFN_xgpuUnmapBuffer xgpumeta_xgpuUnmapBuffer;
PFN_xgpuGetBufferDeviceAddress xgpumeta_xgpuGetBufferDeviceAddress;
PFN_xgpuCreateMemoryPool xgpumeta_xgpuCreateMemoryPool;
PFN_xgpuDestroyMemoryPool xgpumeta_xgpuDestroyMemoryPool;
PFN_xgpuTrimMemoryPool xgpumeta_xgpuTrimMemoryPool;
PFN_xgpuGetMemoryPoolStatistics xgpumeta_xgpuGetMemoryPoolStatistics;
PFN_xgpuCreateSemaphore xgpumeta_xgpuCreateSemaphore;
PFN_xgpuDestroySemaphore xgpumeta_xgpuDestroySemaphore;
PFN_xgpuSignalSemaphore xgpumeta_xgpuSignalSemaphore;
PFN_xgpuWaitSemaphores xgpumeta_xgpuWaitSemaphores;
PFN_xgpuGetSemaphoreValue xgpumeta_xgpuGetSemaphoreValue;
PFN_xgpuFailSemaphore xgpumeta_xgpuFailSemaphore;
PFN_xgpuCreateExecutable xgpumeta_xgpuCreateExecutable;
PFN_xgpuDestroyExecutable xgpumeta_xgpuDestroyExecutable;
PFN_xgpuCreatePipeline xgpumeta_xgpuCreatePipeline;
PFN_xgpuGetPipelineProperties xgpumeta_xgpuGetPipelineProperties;
PFN_xgpuDestroyPipeline xgpumeta_xgpuDestroyPipeline;
PFN_xgpuCreateCommandBuffer xgpumeta_xgpuCreateCommandBuffer;
PFN_xgpuDestroyCommandBuffer xgpumeta_xgpuDestroyCommandBuffer;
PFN_xgpuQueueSubmit xgpumeta_xgpuQueueSubmit;
PFN_xgpuQueueFillBuffer xgpumeta_xgpuQueueFillBuffer;
PFN_xgpuQueueCopyBuffer xgpumeta_xgpuQueueCopyBuffer;
PFN_xgpuQueueAlloca xgpumeta_xgpuQueueAlloca;
PFN_xgpuQueueDealloca xgpumeta_xgpuQueueDealloca;
PFN_xgpuQueueWaitIdle xgpumeta_xgpuQueueWaitIdle;
PFN_xgpuBeginCommandBuffer xgpumeta_xgpuBeginCommandBuffer;
PFN_xgpuEndCommandBuffer xgpumeta_xgpuEndCommandBuffer;
PFN_xgpuCmdBindPipeline xgpumeta_xgpuCmdBindPipeline;
PFN_xgpuCmdPushConstants xgpumeta_xgpuCmdPushConstants;
PFN_xgpuCmdBindBuffers xgpumeta_xgpuCmdBindBuffers;
PFN_xgpuCmdSetWorkgroupMemorySize xgpumeta_xgpuCmdSetWorkgroupMemorySize;
PFN_xgpuCmdDispatch xgpumeta_xgpuCmdDispatch;
PFN_xgpuCmdDispatchIndirect xgpumeta_xgpuCmdDispatchIndirect;
PFN_xgpuCmdFillBuffer xgpumeta_xgpuCmdFillBuffer;
PFN_xgpuCmdCopyBuffer xgpumeta_xgpuCmdCopyBuffer;
PFN_xgpuCmdUpdateBuffer xgpumeta_xgpuCmdUpdateBuffer;
PFN_xgpuCmdPipelineBarrier xgpumeta_xgpuCmdPipelineBarrier;
PFN_xgpuCmdMemoryBarrier xgpumeta_xgpuCmdMemoryBarrier;
PFN_xgpuCmdBeginDebugLabel xgpumeta_xgpuCmdBeginDebugLabel;
PFN_xgpuCmdEndDebugLabel xgpumeta_xgpuCmdEndDebugLabel;
PFN_xgpuCmdInsertDebugLabel xgpumeta_xgpuCmdInsertDebugLabel;
PFN_xgpuCmdWriteTimestamp xgpumeta_xgpuCmdWriteTimestamp;
PFN_xgpuGetDeviceFaultInfo xgpumeta_xgpuGetDeviceFaultInfo;
/* XGPU_META_GENERATED_END definitions */

static void* g_library;                /* handle from dlopen, or NULL */
static XgpuInstance g_loaded_instance; /* last xgpumetaLoadInstance */
static XgpuDevice g_loaded_device;     /* last xgpumetaLoadDevice */
static char g_error[512];              /* why the last initialization failed */

static void LoadGlobal(PFN_xgpuGetInstanceProcAddr load) {
  xgpumeta_xgpuGetInstanceProcAddr = load;
  /* XGPU_META_GENERATED_BEGIN load_global */
  xgpumeta_xgpuCreateInstance = (PFN_xgpuCreateInstance)load(NULL, "xgpuCreateInstance");
  xgpumeta_xgpuEnumerateInstanceVersion = (PFN_xgpuEnumerateInstanceVersion)load(NULL, "xgpuEnumerateInstanceVersion");
  xgpumeta_xgpuEnumerateInstanceLayerProperties = (PFN_xgpuEnumerateInstanceLayerProperties)load(NULL, "xgpuEnumerateInstanceLayerProperties");
  /* XGPU_META_GENERATED_END load_global */
}

static void ResetAll(void) {
  /* XGPU_META_GENERATED_BEGIN reset */
  xgpumeta_xgpuCreateInstance = NULL;
  xgpumeta_xgpuEnumerateInstanceVersion = NULL;
  xgpumeta_xgpuEnumerateInstanceLayerProperties = NULL;
  xgpumeta_xgpuGetInstanceProcAddr = NULL;
  xgpumeta_xgpuDestroyInstance = NULL;
  xgpumeta_xgpuEnumeratePhysicalDevices = NULL;
  xgpumeta_xgpuCreateDebugMessenger = NULL;
  xgpumeta_xgpuDestroyDebugMessenger = NULL;
  xgpumeta_xgpuSubmitDebugMessage = NULL;
  xgpumeta_xgpuGetPhysicalDeviceProperties = NULL;
  xgpumeta_xgpuGetPhysicalDeviceMemoryProperties = NULL;
  xgpumeta_xgpuGetPhysicalDeviceQueueFamilyProperties = NULL;
  xgpumeta_xgpuCreateDevice = NULL;
  xgpumeta_xgpuGetDeviceProcAddr = NULL;
  xgpumeta_xgpuDestroyDevice = NULL;
  xgpumeta_xgpuGetDeviceQueue = NULL;
  xgpumeta_xgpuDeviceWaitIdle = NULL;
  xgpumeta_xgpuSetObjectName = NULL;
  xgpumeta_xgpuCreateBuffer = NULL;
  xgpumeta_xgpuDestroyBuffer = NULL;
  xgpumeta_xgpuMapBuffer = NULL;
  xgpumeta_xgpuUnmapBuffer = NULL;
  xgpumeta_xgpuGetBufferDeviceAddress = NULL;
  xgpumeta_xgpuCreateMemoryPool = NULL;
  xgpumeta_xgpuDestroyMemoryPool = NULL;
  xgpumeta_xgpuTrimMemoryPool = NULL;
  xgpumeta_xgpuGetMemoryPoolStatistics = NULL;
  xgpumeta_xgpuCreateSemaphore = NULL;
  xgpumeta_xgpuDestroySemaphore = NULL;
  xgpumeta_xgpuSignalSemaphore = NULL;
  xgpumeta_xgpuWaitSemaphores = NULL;
  xgpumeta_xgpuGetSemaphoreValue = NULL;
  xgpumeta_xgpuFailSemaphore = NULL;
  xgpumeta_xgpuCreateExecutable = NULL;
  xgpumeta_xgpuDestroyExecutable = NULL;
  xgpumeta_xgpuCreatePipeline = NULL;
  xgpumeta_xgpuGetPipelineProperties = NULL;
  xgpumeta_xgpuDestroyPipeline = NULL;
  xgpumeta_xgpuCreateCommandBuffer = NULL;
  xgpumeta_xgpuDestroyCommandBuffer = NULL;
  xgpumeta_xgpuQueueSubmit = NULL;
  xgpumeta_xgpuQueueFillBuffer = NULL;
  xgpumeta_xgpuQueueCopyBuffer = NULL;
  xgpumeta_xgpuQueueAlloca = NULL;
  xgpumeta_xgpuQueueDealloca = NULL;
  xgpumeta_xgpuQueueWaitIdle = NULL;
  xgpumeta_xgpuBeginCommandBuffer = NULL;
  xgpumeta_xgpuEndCommandBuffer = NULL;
  xgpumeta_xgpuCmdBindPipeline = NULL;
  xgpumeta_xgpuCmdPushConstants = NULL;
  xgpumeta_xgpuCmdBindBuffers = NULL;
  xgpumeta_xgpuCmdSetWorkgroupMemorySize = NULL;
  xgpumeta_xgpuCmdDispatch = NULL;
  xgpumeta_xgpuCmdDispatchIndirect = NULL;
  xgpumeta_xgpuCmdFillBuffer = NULL;
  xgpumeta_xgpuCmdCopyBuffer = NULL;
  xgpumeta_xgpuCmdUpdateBuffer = NULL;
  xgpumeta_xgpuCmdPipelineBarrier = NULL;
  xgpumeta_xgpuCmdMemoryBarrier = NULL;
  xgpumeta_xgpuCmdBeginDebugLabel = NULL;
  xgpumeta_xgpuCmdEndDebugLabel = NULL;
  xgpumeta_xgpuCmdInsertDebugLabel = NULL;
  xgpumeta_xgpuCmdWriteTimestamp = NULL;
  xgpumeta_xgpuGetDeviceFaultInfo = NULL;
  /* XGPU_META_GENERATED_END reset */
  g_loaded_instance = NULL;
  g_loaded_device = NULL;
}

XgpuResult xgpumetaInitialize(void) {
  const char* path = getenv("XGPU_META_LOADER_LIBRARY");
  if (!path || !*path) path = "libxgpu.so.1";
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    snprintf(g_error, sizeof(g_error), "cannot load %s: %s", path, why ? why : "dlopen failed");
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  PFN_xgpuGetInstanceProcAddr gipa = (PFN_xgpuGetInstanceProcAddr)dlsym(library, "xgpuGetInstanceProcAddr");
  if (!gipa) {
    snprintf(g_error, sizeof(g_error), "%s does not export xgpuGetInstanceProcAddr", path);
    dlclose(library);
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  xgpumetaFinalize();
  g_library = library;
  g_error[0] = '\0';
  LoadGlobal(gipa);
  return XGPU_SUCCESS;
}

void xgpumetaInitializeCustom(PFN_xgpuGetInstanceProcAddr getInstanceProcAddr) {
  xgpumetaFinalize();
  g_error[0] = '\0';
  if (getInstanceProcAddr) LoadGlobal(getInstanceProcAddr);
}

void xgpumetaFinalize(void) {
  ResetAll();
  if (g_library) dlclose(g_library);
  g_library = NULL;
}

const char* xgpumetaInitializeError(void) { return g_error; }

uint32_t xgpumetaGetInstanceVersion(void) {
  uint32_t version = 0;
  if (xgpumeta_xgpuEnumerateInstanceVersion && xgpumeta_xgpuEnumerateInstanceVersion(&version) == XGPU_SUCCESS) {
    return version;
  }
  return 0;
}

void xgpumetaLoadInstance(XgpuInstance instance) {
  PFN_xgpuGetInstanceProcAddr load = xgpumeta_xgpuGetInstanceProcAddr;
  if (!load) return;
  g_loaded_instance = instance;
  g_loaded_device = NULL;
  /* XGPU_META_GENERATED_BEGIN load_instance */
  xgpumeta_xgpuDestroyInstance = (PFN_xgpuDestroyInstance)load(instance, "xgpuDestroyInstance");
  xgpumeta_xgpuEnumeratePhysicalDevices = (PFN_xgpuEnumeratePhysicalDevices)load(instance, "xgpuEnumeratePhysicalDevices");
  xgpumeta_xgpuCreateDebugMessenger = (PFN_xgpuCreateDebugMessenger)load(instance, "xgpuCreateDebugMessenger");
  xgpumeta_xgpuDestroyDebugMessenger = (PFN_xgpuDestroyDebugMessenger)load(instance, "xgpuDestroyDebugMessenger");
  xgpumeta_xgpuSubmitDebugMessage = (PFN_xgpuSubmitDebugMessage)load(instance, "xgpuSubmitDebugMessage");
  xgpumeta_xgpuGetPhysicalDeviceProperties = (PFN_xgpuGetPhysicalDeviceProperties)load(instance, "xgpuGetPhysicalDeviceProperties");
  xgpumeta_xgpuGetPhysicalDeviceMemoryProperties = (PFN_xgpuGetPhysicalDeviceMemoryProperties)load(instance, "xgpuGetPhysicalDeviceMemoryProperties");
  xgpumeta_xgpuGetPhysicalDeviceQueueFamilyProperties = (PFN_xgpuGetPhysicalDeviceQueueFamilyProperties)load(instance, "xgpuGetPhysicalDeviceQueueFamilyProperties");
  xgpumeta_xgpuCreateDevice = (PFN_xgpuCreateDevice)load(instance, "xgpuCreateDevice");
  xgpumeta_xgpuGetDeviceProcAddr = (PFN_xgpuGetDeviceProcAddr)load(instance, "xgpuGetDeviceProcAddr");
  xgpumeta_xgpuDestroyDevice = (PFN_xgpuDestroyDevice)load(instance, "xgpuDestroyDevice");
  xgpumeta_xgpuGetDeviceQueue = (PFN_xgpuGetDeviceQueue)load(instance, "xgpuGetDeviceQueue");
  xgpumeta_xgpuDeviceWaitIdle = (PFN_xgpuDeviceWaitIdle)load(instance, "xgpuDeviceWaitIdle");
  xgpumeta_xgpuSetObjectName = (PFN_xgpuSetObjectName)load(instance, "xgpuSetObjectName");
  xgpumeta_xgpuCreateBuffer = (PFN_xgpuCreateBuffer)load(instance, "xgpuCreateBuffer");
  xgpumeta_xgpuDestroyBuffer = (PFN_xgpuDestroyBuffer)load(instance, "xgpuDestroyBuffer");
  xgpumeta_xgpuMapBuffer = (PFN_xgpuMapBuffer)load(instance, "xgpuMapBuffer");
  xgpumeta_xgpuUnmapBuffer = (PFN_xgpuUnmapBuffer)load(instance, "xgpuUnmapBuffer");
  xgpumeta_xgpuGetBufferDeviceAddress = (PFN_xgpuGetBufferDeviceAddress)load(instance, "xgpuGetBufferDeviceAddress");
  xgpumeta_xgpuCreateMemoryPool = (PFN_xgpuCreateMemoryPool)load(instance, "xgpuCreateMemoryPool");
  xgpumeta_xgpuDestroyMemoryPool = (PFN_xgpuDestroyMemoryPool)load(instance, "xgpuDestroyMemoryPool");
  xgpumeta_xgpuTrimMemoryPool = (PFN_xgpuTrimMemoryPool)load(instance, "xgpuTrimMemoryPool");
  xgpumeta_xgpuGetMemoryPoolStatistics = (PFN_xgpuGetMemoryPoolStatistics)load(instance, "xgpuGetMemoryPoolStatistics");
  xgpumeta_xgpuCreateSemaphore = (PFN_xgpuCreateSemaphore)load(instance, "xgpuCreateSemaphore");
  xgpumeta_xgpuDestroySemaphore = (PFN_xgpuDestroySemaphore)load(instance, "xgpuDestroySemaphore");
  xgpumeta_xgpuSignalSemaphore = (PFN_xgpuSignalSemaphore)load(instance, "xgpuSignalSemaphore");
  xgpumeta_xgpuWaitSemaphores = (PFN_xgpuWaitSemaphores)load(instance, "xgpuWaitSemaphores");
  xgpumeta_xgpuGetSemaphoreValue = (PFN_xgpuGetSemaphoreValue)load(instance, "xgpuGetSemaphoreValue");
  xgpumeta_xgpuFailSemaphore = (PFN_xgpuFailSemaphore)load(instance, "xgpuFailSemaphore");
  xgpumeta_xgpuCreateExecutable = (PFN_xgpuCreateExecutable)load(instance, "xgpuCreateExecutable");
  xgpumeta_xgpuDestroyExecutable = (PFN_xgpuDestroyExecutable)load(instance, "xgpuDestroyExecutable");
  xgpumeta_xgpuCreatePipeline = (PFN_xgpuCreatePipeline)load(instance, "xgpuCreatePipeline");
  xgpumeta_xgpuGetPipelineProperties = (PFN_xgpuGetPipelineProperties)load(instance, "xgpuGetPipelineProperties");
  xgpumeta_xgpuDestroyPipeline = (PFN_xgpuDestroyPipeline)load(instance, "xgpuDestroyPipeline");
  xgpumeta_xgpuCreateCommandBuffer = (PFN_xgpuCreateCommandBuffer)load(instance, "xgpuCreateCommandBuffer");
  xgpumeta_xgpuDestroyCommandBuffer = (PFN_xgpuDestroyCommandBuffer)load(instance, "xgpuDestroyCommandBuffer");
  xgpumeta_xgpuQueueSubmit = (PFN_xgpuQueueSubmit)load(instance, "xgpuQueueSubmit");
  xgpumeta_xgpuQueueFillBuffer = (PFN_xgpuQueueFillBuffer)load(instance, "xgpuQueueFillBuffer");
  xgpumeta_xgpuQueueCopyBuffer = (PFN_xgpuQueueCopyBuffer)load(instance, "xgpuQueueCopyBuffer");
  xgpumeta_xgpuQueueAlloca = (PFN_xgpuQueueAlloca)load(instance, "xgpuQueueAlloca");
  xgpumeta_xgpuQueueDealloca = (PFN_xgpuQueueDealloca)load(instance, "xgpuQueueDealloca");
  xgpumeta_xgpuQueueWaitIdle = (PFN_xgpuQueueWaitIdle)load(instance, "xgpuQueueWaitIdle");
  xgpumeta_xgpuBeginCommandBuffer = (PFN_xgpuBeginCommandBuffer)load(instance, "xgpuBeginCommandBuffer");
  xgpumeta_xgpuEndCommandBuffer = (PFN_xgpuEndCommandBuffer)load(instance, "xgpuEndCommandBuffer");
  xgpumeta_xgpuCmdBindPipeline = (PFN_xgpuCmdBindPipeline)load(instance, "xgpuCmdBindPipeline");
  xgpumeta_xgpuCmdPushConstants = (PFN_xgpuCmdPushConstants)load(instance, "xgpuCmdPushConstants");
  xgpumeta_xgpuCmdBindBuffers = (PFN_xgpuCmdBindBuffers)load(instance, "xgpuCmdBindBuffers");
  xgpumeta_xgpuCmdSetWorkgroupMemorySize = (PFN_xgpuCmdSetWorkgroupMemorySize)load(instance, "xgpuCmdSetWorkgroupMemorySize");
  xgpumeta_xgpuCmdDispatch = (PFN_xgpuCmdDispatch)load(instance, "xgpuCmdDispatch");
  xgpumeta_xgpuCmdDispatchIndirect = (PFN_xgpuCmdDispatchIndirect)load(instance, "xgpuCmdDispatchIndirect");
  xgpumeta_xgpuCmdFillBuffer = (PFN_xgpuCmdFillBuffer)load(instance, "xgpuCmdFillBuffer");
  xgpumeta_xgpuCmdCopyBuffer = (PFN_xgpuCmdCopyBuffer)load(instance, "xgpuCmdCopyBuffer");
  xgpumeta_xgpuCmdUpdateBuffer = (PFN_xgpuCmdUpdateBuffer)load(instance, "xgpuCmdUpdateBuffer");
  xgpumeta_xgpuCmdPipelineBarrier = (PFN_xgpuCmdPipelineBarrier)load(instance, "xgpuCmdPipelineBarrier");
  xgpumeta_xgpuCmdMemoryBarrier = (PFN_xgpuCmdMemoryBarrier)load(instance, "xgpuCmdMemoryBarrier");
  xgpumeta_xgpuCmdBeginDebugLabel = (PFN_xgpuCmdBeginDebugLabel)load(instance, "xgpuCmdBeginDebugLabel");
  xgpumeta_xgpuCmdEndDebugLabel = (PFN_xgpuCmdEndDebugLabel)load(instance, "xgpuCmdEndDebugLabel");
  xgpumeta_xgpuCmdInsertDebugLabel = (PFN_xgpuCmdInsertDebugLabel)load(instance, "xgpuCmdInsertDebugLabel");
  xgpumeta_xgpuCmdWriteTimestamp = (PFN_xgpuCmdWriteTimestamp)load(instance, "xgpuCmdWriteTimestamp");
  xgpumeta_xgpuGetDeviceFaultInfo = (PFN_xgpuGetDeviceFaultInfo)load(instance, "xgpuGetDeviceFaultInfo");
  /* XGPU_META_GENERATED_END load_instance */
}

XgpuInstance xgpumetaGetLoadedInstance(void) { return g_loaded_instance; }

void xgpumetaLoadDeviceTable(XgpuDeviceDispatchTable* table, XgpuDevice device) {
  memset(table, 0, sizeof(*table));
  if (xgpumeta_xgpuGetDeviceProcAddr && device) {
    xgpuInitDeviceDispatchTable(table, xgpumeta_xgpuGetDeviceProcAddr, device);
  }
}

void xgpumetaLoadDevice(XgpuDevice device) {
  XgpuDeviceDispatchTable table;
  if (!xgpumeta_xgpuGetDeviceProcAddr || !device) return;
  xgpumetaLoadDeviceTable(&table, device);
  g_loaded_device = device;
  /* XGPU_META_GENERATED_BEGIN load_device */
  xgpumeta_xgpuGetDeviceProcAddr = table.GetDeviceProcAddr;
  xgpumeta_xgpuDestroyDevice = table.DestroyDevice;
  xgpumeta_xgpuGetDeviceQueue = table.GetDeviceQueue;
  xgpumeta_xgpuDeviceWaitIdle = table.DeviceWaitIdle;
  xgpumeta_xgpuSetObjectName = table.SetObjectName;
  xgpumeta_xgpuCreateBuffer = table.CreateBuffer;
  xgpumeta_xgpuDestroyBuffer = table.DestroyBuffer;
  xgpumeta_xgpuMapBuffer = table.MapBuffer;
  xgpumeta_xgpuUnmapBuffer = table.UnmapBuffer;
  xgpumeta_xgpuGetBufferDeviceAddress = table.GetBufferDeviceAddress;
  xgpumeta_xgpuCreateMemoryPool = table.CreateMemoryPool;
  xgpumeta_xgpuDestroyMemoryPool = table.DestroyMemoryPool;
  xgpumeta_xgpuTrimMemoryPool = table.TrimMemoryPool;
  xgpumeta_xgpuGetMemoryPoolStatistics = table.GetMemoryPoolStatistics;
  xgpumeta_xgpuCreateSemaphore = table.CreateSemaphore;
  xgpumeta_xgpuDestroySemaphore = table.DestroySemaphore;
  xgpumeta_xgpuSignalSemaphore = table.SignalSemaphore;
  xgpumeta_xgpuWaitSemaphores = table.WaitSemaphores;
  xgpumeta_xgpuGetSemaphoreValue = table.GetSemaphoreValue;
  xgpumeta_xgpuFailSemaphore = table.FailSemaphore;
  xgpumeta_xgpuCreateExecutable = table.CreateExecutable;
  xgpumeta_xgpuDestroyExecutable = table.DestroyExecutable;
  xgpumeta_xgpuCreatePipeline = table.CreatePipeline;
  xgpumeta_xgpuGetPipelineProperties = table.GetPipelineProperties;
  xgpumeta_xgpuDestroyPipeline = table.DestroyPipeline;
  xgpumeta_xgpuCreateCommandBuffer = table.CreateCommandBuffer;
  xgpumeta_xgpuDestroyCommandBuffer = table.DestroyCommandBuffer;
  xgpumeta_xgpuQueueSubmit = table.QueueSubmit;
  xgpumeta_xgpuQueueFillBuffer = table.QueueFillBuffer;
  xgpumeta_xgpuQueueCopyBuffer = table.QueueCopyBuffer;
  xgpumeta_xgpuQueueAlloca = table.QueueAlloca;
  xgpumeta_xgpuQueueDealloca = table.QueueDealloca;
  xgpumeta_xgpuQueueWaitIdle = table.QueueWaitIdle;
  xgpumeta_xgpuBeginCommandBuffer = table.BeginCommandBuffer;
  xgpumeta_xgpuEndCommandBuffer = table.EndCommandBuffer;
  xgpumeta_xgpuCmdBindPipeline = table.CmdBindPipeline;
  xgpumeta_xgpuCmdPushConstants = table.CmdPushConstants;
  xgpumeta_xgpuCmdBindBuffers = table.CmdBindBuffers;
  xgpumeta_xgpuCmdSetWorkgroupMemorySize = table.CmdSetWorkgroupMemorySize;
  xgpumeta_xgpuCmdDispatch = table.CmdDispatch;
  xgpumeta_xgpuCmdDispatchIndirect = table.CmdDispatchIndirect;
  xgpumeta_xgpuCmdFillBuffer = table.CmdFillBuffer;
  xgpumeta_xgpuCmdCopyBuffer = table.CmdCopyBuffer;
  xgpumeta_xgpuCmdUpdateBuffer = table.CmdUpdateBuffer;
  xgpumeta_xgpuCmdPipelineBarrier = table.CmdPipelineBarrier;
  xgpumeta_xgpuCmdMemoryBarrier = table.CmdMemoryBarrier;
  xgpumeta_xgpuCmdBeginDebugLabel = table.CmdBeginDebugLabel;
  xgpumeta_xgpuCmdEndDebugLabel = table.CmdEndDebugLabel;
  xgpumeta_xgpuCmdInsertDebugLabel = table.CmdInsertDebugLabel;
  xgpumeta_xgpuCmdWriteTimestamp = table.CmdWriteTimestamp;
  xgpumeta_xgpuGetDeviceFaultInfo = table.GetDeviceFaultInfo;
  /* XGPU_META_GENERATED_END load_device */
}

XgpuDevice xgpumetaGetLoadedDevice(void) { return g_loaded_device; }
