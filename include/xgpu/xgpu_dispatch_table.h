/*
 * xgpu_dispatch_table.h: instance- and device-level dispatch tables.
 *
 * The layout never depends on compile-time defines. A table is filled once
 * and read-only afterwards (thread-safe to read).
 *
 * Generated from spec/xgpu.json by spec/generate.py. Do not edit: change the
 * registry (or the generator) and run `python3 spec/generate.py`.
 */

#ifndef XGPU_DISPATCH_TABLE_H_
#define XGPU_DISPATCH_TABLE_H_ 1

#include <string.h>

#include "xgpu/xgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entry points of the instance and physical-device level. */
typedef struct XgpuInstanceDispatchTable {
    PFN_xgpuDestroyInstance DestroyInstance;
    PFN_xgpuEnumeratePhysicalDevices EnumeratePhysicalDevices;
    PFN_xgpuCreateDebugMessenger CreateDebugMessenger;
    PFN_xgpuDestroyDebugMessenger DestroyDebugMessenger;
    PFN_xgpuSubmitDebugMessage SubmitDebugMessage;
    PFN_xgpuGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
    PFN_xgpuGetPhysicalDeviceMemoryProperties GetPhysicalDeviceMemoryProperties;
    PFN_xgpuGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
    PFN_xgpuCreateDevice CreateDevice;
} XgpuInstanceDispatchTable;

/* Fills every entry of table with gpa(instance, name); missing ones are NULL. */
static inline void xgpuInitInstanceDispatchTable(XgpuInstanceDispatchTable* table, PFN_xgpuGetInstanceProcAddr gpa, XgpuInstance instance) {
    table->DestroyInstance = (PFN_xgpuDestroyInstance)gpa(instance, "xgpuDestroyInstance");
    table->EnumeratePhysicalDevices = (PFN_xgpuEnumeratePhysicalDevices)gpa(instance, "xgpuEnumeratePhysicalDevices");
    table->CreateDebugMessenger = (PFN_xgpuCreateDebugMessenger)gpa(instance, "xgpuCreateDebugMessenger");
    table->DestroyDebugMessenger = (PFN_xgpuDestroyDebugMessenger)gpa(instance, "xgpuDestroyDebugMessenger");
    table->SubmitDebugMessage = (PFN_xgpuSubmitDebugMessage)gpa(instance, "xgpuSubmitDebugMessage");
    table->GetPhysicalDeviceProperties = (PFN_xgpuGetPhysicalDeviceProperties)gpa(instance, "xgpuGetPhysicalDeviceProperties");
    table->GetPhysicalDeviceMemoryProperties = (PFN_xgpuGetPhysicalDeviceMemoryProperties)gpa(instance, "xgpuGetPhysicalDeviceMemoryProperties");
    table->GetPhysicalDeviceQueueFamilyProperties = (PFN_xgpuGetPhysicalDeviceQueueFamilyProperties)gpa(instance, "xgpuGetPhysicalDeviceQueueFamilyProperties");
    table->CreateDevice = (PFN_xgpuCreateDevice)gpa(instance, "xgpuCreateDevice");
}

/* The entry of table named name ("xgpuFoo"), or NULL when name is not in the table. */
static inline PFN_xgpuVoidFunction xgpuLookupInstanceDispatchTable(const XgpuInstanceDispatchTable* table, const char* name) {
    if (!name || strncmp(name, "xgpu", 4) != 0) return NULL;
    name += 4;
    if (strcmp(name, "DestroyInstance") == 0) return (PFN_xgpuVoidFunction)table->DestroyInstance;
    if (strcmp(name, "EnumeratePhysicalDevices") == 0) return (PFN_xgpuVoidFunction)table->EnumeratePhysicalDevices;
    if (strcmp(name, "CreateDebugMessenger") == 0) return (PFN_xgpuVoidFunction)table->CreateDebugMessenger;
    if (strcmp(name, "DestroyDebugMessenger") == 0) return (PFN_xgpuVoidFunction)table->DestroyDebugMessenger;
    if (strcmp(name, "SubmitDebugMessage") == 0) return (PFN_xgpuVoidFunction)table->SubmitDebugMessage;
    if (strcmp(name, "GetPhysicalDeviceProperties") == 0) return (PFN_xgpuVoidFunction)table->GetPhysicalDeviceProperties;
    if (strcmp(name, "GetPhysicalDeviceMemoryProperties") == 0) return (PFN_xgpuVoidFunction)table->GetPhysicalDeviceMemoryProperties;
    if (strcmp(name, "GetPhysicalDeviceQueueFamilyProperties") == 0) return (PFN_xgpuVoidFunction)table->GetPhysicalDeviceQueueFamilyProperties;
    if (strcmp(name, "CreateDevice") == 0) return (PFN_xgpuVoidFunction)table->CreateDevice;
    return NULL;
}

/* Entry points of the device, queue and command-buffer level. */
typedef struct XgpuDeviceDispatchTable {
    PFN_xgpuGetDeviceProcAddr GetDeviceProcAddr;
    PFN_xgpuDestroyDevice DestroyDevice;
    PFN_xgpuGetDeviceQueue GetDeviceQueue;
    PFN_xgpuDeviceWaitIdle DeviceWaitIdle;
    PFN_xgpuSetObjectName SetObjectName;
    PFN_xgpuCreateBuffer CreateBuffer;
    PFN_xgpuDestroyBuffer DestroyBuffer;
    PFN_xgpuMapBuffer MapBuffer;
    PFN_xgpuUnmapBuffer UnmapBuffer;
    PFN_xgpuGetBufferDeviceAddress GetBufferDeviceAddress;
    PFN_xgpuCreateMemoryPool CreateMemoryPool;
    PFN_xgpuDestroyMemoryPool DestroyMemoryPool;
    PFN_xgpuTrimMemoryPool TrimMemoryPool;
    PFN_xgpuGetMemoryPoolStatistics GetMemoryPoolStatistics;
    PFN_xgpuCreateSemaphore CreateSemaphore;
    PFN_xgpuDestroySemaphore DestroySemaphore;
    PFN_xgpuSignalSemaphore SignalSemaphore;
    PFN_xgpuWaitSemaphores WaitSemaphores;
    PFN_xgpuGetSemaphoreValue GetSemaphoreValue;
    PFN_xgpuFailSemaphore FailSemaphore;
    PFN_xgpuCreateExecutable CreateExecutable;
    PFN_xgpuDestroyExecutable DestroyExecutable;
    PFN_xgpuCreatePipeline CreatePipeline;
    PFN_xgpuGetPipelineProperties GetPipelineProperties;
    PFN_xgpuDestroyPipeline DestroyPipeline;
    PFN_xgpuCreateCommandBuffer CreateCommandBuffer;
    PFN_xgpuDestroyCommandBuffer DestroyCommandBuffer;
    PFN_xgpuQueueSubmit QueueSubmit;
    PFN_xgpuQueueFillBuffer QueueFillBuffer;
    PFN_xgpuQueueCopyBuffer QueueCopyBuffer;
    PFN_xgpuQueueAlloca QueueAlloca;
    PFN_xgpuQueueDealloca QueueDealloca;
    PFN_xgpuQueueWaitIdle QueueWaitIdle;
    PFN_xgpuBeginCommandBuffer BeginCommandBuffer;
    PFN_xgpuEndCommandBuffer EndCommandBuffer;
    PFN_xgpuCmdBindPipeline CmdBindPipeline;
    PFN_xgpuCmdPushConstants CmdPushConstants;
    PFN_xgpuCmdBindBuffers CmdBindBuffers;
    PFN_xgpuCmdSetWorkgroupMemorySize CmdSetWorkgroupMemorySize;
    PFN_xgpuCmdDispatch CmdDispatch;
    PFN_xgpuCmdDispatchIndirect CmdDispatchIndirect;
    PFN_xgpuCmdFillBuffer CmdFillBuffer;
    PFN_xgpuCmdCopyBuffer CmdCopyBuffer;
    PFN_xgpuCmdUpdateBuffer CmdUpdateBuffer;
    PFN_xgpuCmdPipelineBarrier CmdPipelineBarrier;
    PFN_xgpuCmdMemoryBarrier CmdMemoryBarrier;
    PFN_xgpuCmdBeginDebugLabel CmdBeginDebugLabel;
    PFN_xgpuCmdEndDebugLabel CmdEndDebugLabel;
    PFN_xgpuCmdInsertDebugLabel CmdInsertDebugLabel;
    PFN_xgpuCmdWriteTimestamp CmdWriteTimestamp;
    PFN_xgpuGetDeviceFaultInfo GetDeviceFaultInfo;
} XgpuDeviceDispatchTable;

/* Fills every entry of table with gpa(device, name); missing ones are NULL. */
static inline void xgpuInitDeviceDispatchTable(XgpuDeviceDispatchTable* table, PFN_xgpuGetDeviceProcAddr gpa, XgpuDevice device) {
    table->GetDeviceProcAddr = (PFN_xgpuGetDeviceProcAddr)gpa(device, "xgpuGetDeviceProcAddr");
    table->DestroyDevice = (PFN_xgpuDestroyDevice)gpa(device, "xgpuDestroyDevice");
    table->GetDeviceQueue = (PFN_xgpuGetDeviceQueue)gpa(device, "xgpuGetDeviceQueue");
    table->DeviceWaitIdle = (PFN_xgpuDeviceWaitIdle)gpa(device, "xgpuDeviceWaitIdle");
    table->SetObjectName = (PFN_xgpuSetObjectName)gpa(device, "xgpuSetObjectName");
    table->CreateBuffer = (PFN_xgpuCreateBuffer)gpa(device, "xgpuCreateBuffer");
    table->DestroyBuffer = (PFN_xgpuDestroyBuffer)gpa(device, "xgpuDestroyBuffer");
    table->MapBuffer = (PFN_xgpuMapBuffer)gpa(device, "xgpuMapBuffer");
    table->UnmapBuffer = (PFN_xgpuUnmapBuffer)gpa(device, "xgpuUnmapBuffer");
    table->GetBufferDeviceAddress = (PFN_xgpuGetBufferDeviceAddress)gpa(device, "xgpuGetBufferDeviceAddress");
    table->CreateMemoryPool = (PFN_xgpuCreateMemoryPool)gpa(device, "xgpuCreateMemoryPool");
    table->DestroyMemoryPool = (PFN_xgpuDestroyMemoryPool)gpa(device, "xgpuDestroyMemoryPool");
    table->TrimMemoryPool = (PFN_xgpuTrimMemoryPool)gpa(device, "xgpuTrimMemoryPool");
    table->GetMemoryPoolStatistics = (PFN_xgpuGetMemoryPoolStatistics)gpa(device, "xgpuGetMemoryPoolStatistics");
    table->CreateSemaphore = (PFN_xgpuCreateSemaphore)gpa(device, "xgpuCreateSemaphore");
    table->DestroySemaphore = (PFN_xgpuDestroySemaphore)gpa(device, "xgpuDestroySemaphore");
    table->SignalSemaphore = (PFN_xgpuSignalSemaphore)gpa(device, "xgpuSignalSemaphore");
    table->WaitSemaphores = (PFN_xgpuWaitSemaphores)gpa(device, "xgpuWaitSemaphores");
    table->GetSemaphoreValue = (PFN_xgpuGetSemaphoreValue)gpa(device, "xgpuGetSemaphoreValue");
    table->FailSemaphore = (PFN_xgpuFailSemaphore)gpa(device, "xgpuFailSemaphore");
    table->CreateExecutable = (PFN_xgpuCreateExecutable)gpa(device, "xgpuCreateExecutable");
    table->DestroyExecutable = (PFN_xgpuDestroyExecutable)gpa(device, "xgpuDestroyExecutable");
    table->CreatePipeline = (PFN_xgpuCreatePipeline)gpa(device, "xgpuCreatePipeline");
    table->GetPipelineProperties = (PFN_xgpuGetPipelineProperties)gpa(device, "xgpuGetPipelineProperties");
    table->DestroyPipeline = (PFN_xgpuDestroyPipeline)gpa(device, "xgpuDestroyPipeline");
    table->CreateCommandBuffer = (PFN_xgpuCreateCommandBuffer)gpa(device, "xgpuCreateCommandBuffer");
    table->DestroyCommandBuffer = (PFN_xgpuDestroyCommandBuffer)gpa(device, "xgpuDestroyCommandBuffer");
    table->QueueSubmit = (PFN_xgpuQueueSubmit)gpa(device, "xgpuQueueSubmit");
    table->QueueFillBuffer = (PFN_xgpuQueueFillBuffer)gpa(device, "xgpuQueueFillBuffer");
    table->QueueCopyBuffer = (PFN_xgpuQueueCopyBuffer)gpa(device, "xgpuQueueCopyBuffer");
    table->QueueAlloca = (PFN_xgpuQueueAlloca)gpa(device, "xgpuQueueAlloca");
    table->QueueDealloca = (PFN_xgpuQueueDealloca)gpa(device, "xgpuQueueDealloca");
    table->QueueWaitIdle = (PFN_xgpuQueueWaitIdle)gpa(device, "xgpuQueueWaitIdle");
    table->BeginCommandBuffer = (PFN_xgpuBeginCommandBuffer)gpa(device, "xgpuBeginCommandBuffer");
    table->EndCommandBuffer = (PFN_xgpuEndCommandBuffer)gpa(device, "xgpuEndCommandBuffer");
    table->CmdBindPipeline = (PFN_xgpuCmdBindPipeline)gpa(device, "xgpuCmdBindPipeline");
    table->CmdPushConstants = (PFN_xgpuCmdPushConstants)gpa(device, "xgpuCmdPushConstants");
    table->CmdBindBuffers = (PFN_xgpuCmdBindBuffers)gpa(device, "xgpuCmdBindBuffers");
    table->CmdSetWorkgroupMemorySize = (PFN_xgpuCmdSetWorkgroupMemorySize)gpa(device, "xgpuCmdSetWorkgroupMemorySize");
    table->CmdDispatch = (PFN_xgpuCmdDispatch)gpa(device, "xgpuCmdDispatch");
    table->CmdDispatchIndirect = (PFN_xgpuCmdDispatchIndirect)gpa(device, "xgpuCmdDispatchIndirect");
    table->CmdFillBuffer = (PFN_xgpuCmdFillBuffer)gpa(device, "xgpuCmdFillBuffer");
    table->CmdCopyBuffer = (PFN_xgpuCmdCopyBuffer)gpa(device, "xgpuCmdCopyBuffer");
    table->CmdUpdateBuffer = (PFN_xgpuCmdUpdateBuffer)gpa(device, "xgpuCmdUpdateBuffer");
    table->CmdPipelineBarrier = (PFN_xgpuCmdPipelineBarrier)gpa(device, "xgpuCmdPipelineBarrier");
    table->CmdMemoryBarrier = (PFN_xgpuCmdMemoryBarrier)gpa(device, "xgpuCmdMemoryBarrier");
    table->CmdBeginDebugLabel = (PFN_xgpuCmdBeginDebugLabel)gpa(device, "xgpuCmdBeginDebugLabel");
    table->CmdEndDebugLabel = (PFN_xgpuCmdEndDebugLabel)gpa(device, "xgpuCmdEndDebugLabel");
    table->CmdInsertDebugLabel = (PFN_xgpuCmdInsertDebugLabel)gpa(device, "xgpuCmdInsertDebugLabel");
    table->CmdWriteTimestamp = (PFN_xgpuCmdWriteTimestamp)gpa(device, "xgpuCmdWriteTimestamp");
    table->GetDeviceFaultInfo = (PFN_xgpuGetDeviceFaultInfo)gpa(device, "xgpuGetDeviceFaultInfo");
}

/* The entry of table named name ("xgpuFoo"), or NULL when name is not in the table. */
static inline PFN_xgpuVoidFunction xgpuLookupDeviceDispatchTable(const XgpuDeviceDispatchTable* table, const char* name) {
    if (!name || strncmp(name, "xgpu", 4) != 0) return NULL;
    name += 4;
    if (strcmp(name, "GetDeviceProcAddr") == 0) return (PFN_xgpuVoidFunction)table->GetDeviceProcAddr;
    if (strcmp(name, "DestroyDevice") == 0) return (PFN_xgpuVoidFunction)table->DestroyDevice;
    if (strcmp(name, "GetDeviceQueue") == 0) return (PFN_xgpuVoidFunction)table->GetDeviceQueue;
    if (strcmp(name, "DeviceWaitIdle") == 0) return (PFN_xgpuVoidFunction)table->DeviceWaitIdle;
    if (strcmp(name, "SetObjectName") == 0) return (PFN_xgpuVoidFunction)table->SetObjectName;
    if (strcmp(name, "CreateBuffer") == 0) return (PFN_xgpuVoidFunction)table->CreateBuffer;
    if (strcmp(name, "DestroyBuffer") == 0) return (PFN_xgpuVoidFunction)table->DestroyBuffer;
    if (strcmp(name, "MapBuffer") == 0) return (PFN_xgpuVoidFunction)table->MapBuffer;
    if (strcmp(name, "UnmapBuffer") == 0) return (PFN_xgpuVoidFunction)table->UnmapBuffer;
    if (strcmp(name, "GetBufferDeviceAddress") == 0) return (PFN_xgpuVoidFunction)table->GetBufferDeviceAddress;
    if (strcmp(name, "CreateMemoryPool") == 0) return (PFN_xgpuVoidFunction)table->CreateMemoryPool;
    if (strcmp(name, "DestroyMemoryPool") == 0) return (PFN_xgpuVoidFunction)table->DestroyMemoryPool;
    if (strcmp(name, "TrimMemoryPool") == 0) return (PFN_xgpuVoidFunction)table->TrimMemoryPool;
    if (strcmp(name, "GetMemoryPoolStatistics") == 0) return (PFN_xgpuVoidFunction)table->GetMemoryPoolStatistics;
    if (strcmp(name, "CreateSemaphore") == 0) return (PFN_xgpuVoidFunction)table->CreateSemaphore;
    if (strcmp(name, "DestroySemaphore") == 0) return (PFN_xgpuVoidFunction)table->DestroySemaphore;
    if (strcmp(name, "SignalSemaphore") == 0) return (PFN_xgpuVoidFunction)table->SignalSemaphore;
    if (strcmp(name, "WaitSemaphores") == 0) return (PFN_xgpuVoidFunction)table->WaitSemaphores;
    if (strcmp(name, "GetSemaphoreValue") == 0) return (PFN_xgpuVoidFunction)table->GetSemaphoreValue;
    if (strcmp(name, "FailSemaphore") == 0) return (PFN_xgpuVoidFunction)table->FailSemaphore;
    if (strcmp(name, "CreateExecutable") == 0) return (PFN_xgpuVoidFunction)table->CreateExecutable;
    if (strcmp(name, "DestroyExecutable") == 0) return (PFN_xgpuVoidFunction)table->DestroyExecutable;
    if (strcmp(name, "CreatePipeline") == 0) return (PFN_xgpuVoidFunction)table->CreatePipeline;
    if (strcmp(name, "GetPipelineProperties") == 0) return (PFN_xgpuVoidFunction)table->GetPipelineProperties;
    if (strcmp(name, "DestroyPipeline") == 0) return (PFN_xgpuVoidFunction)table->DestroyPipeline;
    if (strcmp(name, "CreateCommandBuffer") == 0) return (PFN_xgpuVoidFunction)table->CreateCommandBuffer;
    if (strcmp(name, "DestroyCommandBuffer") == 0) return (PFN_xgpuVoidFunction)table->DestroyCommandBuffer;
    if (strcmp(name, "QueueSubmit") == 0) return (PFN_xgpuVoidFunction)table->QueueSubmit;
    if (strcmp(name, "QueueFillBuffer") == 0) return (PFN_xgpuVoidFunction)table->QueueFillBuffer;
    if (strcmp(name, "QueueCopyBuffer") == 0) return (PFN_xgpuVoidFunction)table->QueueCopyBuffer;
    if (strcmp(name, "QueueAlloca") == 0) return (PFN_xgpuVoidFunction)table->QueueAlloca;
    if (strcmp(name, "QueueDealloca") == 0) return (PFN_xgpuVoidFunction)table->QueueDealloca;
    if (strcmp(name, "QueueWaitIdle") == 0) return (PFN_xgpuVoidFunction)table->QueueWaitIdle;
    if (strcmp(name, "BeginCommandBuffer") == 0) return (PFN_xgpuVoidFunction)table->BeginCommandBuffer;
    if (strcmp(name, "EndCommandBuffer") == 0) return (PFN_xgpuVoidFunction)table->EndCommandBuffer;
    if (strcmp(name, "CmdBindPipeline") == 0) return (PFN_xgpuVoidFunction)table->CmdBindPipeline;
    if (strcmp(name, "CmdPushConstants") == 0) return (PFN_xgpuVoidFunction)table->CmdPushConstants;
    if (strcmp(name, "CmdBindBuffers") == 0) return (PFN_xgpuVoidFunction)table->CmdBindBuffers;
    if (strcmp(name, "CmdSetWorkgroupMemorySize") == 0) return (PFN_xgpuVoidFunction)table->CmdSetWorkgroupMemorySize;
    if (strcmp(name, "CmdDispatch") == 0) return (PFN_xgpuVoidFunction)table->CmdDispatch;
    if (strcmp(name, "CmdDispatchIndirect") == 0) return (PFN_xgpuVoidFunction)table->CmdDispatchIndirect;
    if (strcmp(name, "CmdFillBuffer") == 0) return (PFN_xgpuVoidFunction)table->CmdFillBuffer;
    if (strcmp(name, "CmdCopyBuffer") == 0) return (PFN_xgpuVoidFunction)table->CmdCopyBuffer;
    if (strcmp(name, "CmdUpdateBuffer") == 0) return (PFN_xgpuVoidFunction)table->CmdUpdateBuffer;
    if (strcmp(name, "CmdPipelineBarrier") == 0) return (PFN_xgpuVoidFunction)table->CmdPipelineBarrier;
    if (strcmp(name, "CmdMemoryBarrier") == 0) return (PFN_xgpuVoidFunction)table->CmdMemoryBarrier;
    if (strcmp(name, "CmdBeginDebugLabel") == 0) return (PFN_xgpuVoidFunction)table->CmdBeginDebugLabel;
    if (strcmp(name, "CmdEndDebugLabel") == 0) return (PFN_xgpuVoidFunction)table->CmdEndDebugLabel;
    if (strcmp(name, "CmdInsertDebugLabel") == 0) return (PFN_xgpuVoidFunction)table->CmdInsertDebugLabel;
    if (strcmp(name, "CmdWriteTimestamp") == 0) return (PFN_xgpuVoidFunction)table->CmdWriteTimestamp;
    if (strcmp(name, "GetDeviceFaultInfo") == 0) return (PFN_xgpuVoidFunction)table->GetDeviceFaultInfo;
    return NULL;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_DISPATCH_TABLE_H_ */
