#include "parameter_values.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../chassis/object_map.h"
#include "../kernels/kernel_metadata.h"
#include "../stateless/stateless_validation.h"

namespace xgpu_validation {
namespace {

ObjectRef RefOf(const ObjectRecord* record) { return ObjectRef{record->type, record->handle}; }

// The record of a buffer of the call's device (one of another device breaks
// the parent rule, which the object tracker reports).
const ObjectRecord* FindBuffer(const CallContext& ctx, XgpuBuffer buffer) {
  const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(buffer));
  return record != nullptr && record->device == ctx.device ? record : nullptr;
}

const XgpuPhysicalDeviceLimits* LimitsOf(const CallContext& ctx) {
  return ctx.device != nullptr ? &ctx.device->properties.limits : nullptr;
}

// FNV-1a of a message ID name (api.md 1.5).
int32_t Fnv1a(const char* text) {
  uint32_t hash = 0x811C9DC5u;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(text); *p != 0; ++p) {
    hash ^= *p;
    hash *= 0x01000193u;
  }
  return static_cast<int32_t>(hash);
}

bool PatternSizeValid(uint32_t patternSize) { return patternSize == 1 || patternSize == 2 || patternSize == 4; }

// The family of the call's queue (its record's queue_family), or nullptr when
// the layer does not know it.
const XgpuQueueFamilyProperties* FamilyOfQueue(const CallContext& ctx) {
  const ObjectRecord* queue = ctx.dispatch_record;
  if (queue == nullptr || queue->type != XGPU_OBJECT_TYPE_QUEUE || ctx.device == nullptr ||
      queue->queue_family >= ctx.device->families.size()) {
    return nullptr;
  }
  return &ctx.device->families[queue->queue_family];
}

// The queue-capability rule of a queue transfer: the queue's family has
// XGPU_QUEUE_TRANSFER_BIT. Returns whether the call must be skipped.
bool CheckTransferQueue(CallContext& ctx, Vuid vuid) {
  const XgpuQueueFamilyProperties* family = FamilyOfQueue(ctx);
  if (family == nullptr || (family->queueFlags & XGPU_QUEUE_TRANSFER_BIT) != 0) return false;
  return ctx.Report(vuid, Field{"queue"},
                    Describe(ctx.dispatch_record) + ", of queue family " +
                        std::to_string(ctx.dispatch_record->queue_family) + " (queueFlags " +
                        hex(family->queueFlags) + "), which has no XGPU_QUEUE_TRANSFER_BIT");
}

// The range [offset, offset + size) lies inside `bytes` (size not XGPU_WHOLE_SIZE).
bool Inside(uint64_t offset, uint64_t size, uint64_t bytes) { return offset <= bytes && size <= bytes - offset; }

}  // namespace

// ---- instances, messengers, devices, queues ----

bool ParameterValues::ValidateCreateInstance(CallContext& ctx, const XgpuInstanceCreateInfo* pCreateInfo,
                                             const XgpuAllocationCallbacks*, XgpuInstance*) const {
  if (!IsUsablePointer(pCreateInfo)) return false;
  bool skip = false;
  if (IsUsablePointer(pCreateInfo->pApplicationInfo)) {
    const uint32_t version = pCreateInfo->pApplicationInfo->apiVersion;
    if (version != 0 && (XGPU_API_VERSION_VARIANT(version) != 0 || XGPU_API_VERSION_MAJOR(version) != 1)) {
      skip |= ctx.Report(Vuid::xgpuCreateInstance_pCreateInfo_pApplicationInfo_apiVersion,
                         Field{"pCreateInfo->pApplicationInfo->apiVersion"},
                         hex(version) + " (variant " + std::to_string(XGPU_API_VERSION_VARIANT(version)) +
                             ", major " + std::to_string(XGPU_API_VERSION_MAJOR(version)) + ")");
    }
  }
  if (IsUsablePointer(pCreateInfo->ppEnabledLayerNames)) {
    const char* const* names = pCreateInfo->ppEnabledLayerNames;
    for (uint32_t i = 0; i < pCreateInfo->enabledLayerCount; ++i) {
      if (names[i] == nullptr) continue;
      for (uint32_t k = 0; k < i; ++k) {
        if (names[k] != nullptr && std::strcmp(names[k], names[i]) == 0) {
          skip |= ctx.Report(Vuid::xgpuCreateInstance_pCreateInfo_ppEnabledLayerNames_unique,
                             Field{"pCreateInfo->ppEnabledLayerNames[i]", i},
                             "\"" + std::string(names[i]) + "\", also pCreateInfo->ppEnabledLayerNames[" +
                                 std::to_string(k) + "]");
          break;
        }
      }
    }
  }
  return skip;
}

bool ParameterValues::ValidateCreateDebugMessenger(CallContext& ctx, XgpuInstance,
                                                   const XgpuDebugMessengerCreateInfo* pCreateInfo,
                                                   const XgpuAllocationCallbacks*, XgpuDebugMessenger*) const {
  if (!IsUsablePointer(pCreateInfo)) return false;
  bool skip = false;
  if (pCreateInfo->messageSeverity == 0) {
    skip |= ctx.Report(Vuid::xgpuCreateDebugMessenger_pCreateInfo_messageSeverity,
                       Field{"pCreateInfo->messageSeverity"}, "0");
  }
  if (pCreateInfo->messageType == 0) {
    skip |= ctx.Report(Vuid::xgpuCreateDebugMessenger_pCreateInfo_messageType, Field{"pCreateInfo->messageType"}, "0");
  }
  return skip;
}

bool ParameterValues::ValidateSubmitDebugMessage(CallContext& ctx, XgpuInstance, XgpuDebugMessageSeverityFlagBits,
                                                 XgpuDebugMessageTypeFlags messageTypes,
                                                 const XgpuDebugMessageData* pMessageData) const {
  bool skip = false;
  if (messageTypes == 0) skip |= ctx.Report(Vuid::xgpuSubmitDebugMessage_messageTypes, Field{"messageTypes"}, "0");
  // A name that is not UTF-8 breaks the implicit rule instead.
  if (IsUsablePointer(pMessageData) &&
      (pMessageData->pMessageIdName == nullptr || FirstInvalidUtf8(pMessageData->pMessageIdName) < 0)) {
    const int32_t expected = pMessageData->pMessageIdName != nullptr ? Fnv1a(pMessageData->pMessageIdName) : 0;
    if (pMessageData->messageIdNumber != expected) {
      skip |= ctx.Report(Vuid::xgpuSubmitDebugMessage_pMessageData_messageIdNumber,
                         Field{"pMessageData->messageIdNumber"},
                         std::to_string(pMessageData->messageIdNumber) + ", not " + std::to_string(expected) +
                             (pMessageData->pMessageIdName != nullptr
                                  ? " (the FNV-1a hash of \"" + std::string(pMessageData->pMessageIdName) + "\")"
                                  : " (pMessageIdName is NULL)"));
    }
  }
  return skip;
}

bool ParameterValues::ValidateCreateDevice(CallContext& ctx, XgpuPhysicalDevice physicalDevice,
                                           const XgpuDeviceCreateInfo* pCreateInfo, const XgpuAllocationCallbacks*,
                                           XgpuDevice*) const {
  if (!IsUsablePointer(pCreateInfo)) return false;
  bool skip = false;
  if (pCreateInfo->queueCreateInfoCount == 0) {
    skip |= ctx.Report(Vuid::xgpuCreateDevice_pCreateInfo_queueCreateInfoCount,
                       Field{"pCreateInfo->queueCreateInfoCount"}, "0");
  }
  const XgpuDeviceSize print = pCreateInfo->printBufferSize;
  if (print != 0 && (print < XGPU_MIN_PRINT_BUFFER_SIZE || print > XGPU_MAX_PRINT_BUFFER_SIZE || print % 8 != 0)) {
    skip |= ctx.Report(Vuid::xgpuCreateDevice_pCreateInfo_printBufferSize, Field{"pCreateInfo->printBufferSize"},
                       std::to_string(print));
  }
  if (!IsUsablePointer(pCreateInfo->pQueueCreateInfos) || ctx.instance == nullptr || ctx.dispatch_record == nullptr) {
    return skip;
  }
  uint32_t family_count = 0;
  ctx.InstanceTable().GetPhysicalDeviceQueueFamilyProperties(physicalDevice, &family_count, nullptr);
  std::vector<XgpuQueueFamilyProperties> families(family_count);
  ctx.InstanceTable().GetPhysicalDeviceQueueFamilyProperties(physicalDevice, &family_count, families.data());
  families.resize(family_count);
  for (uint32_t i = 0; i < pCreateInfo->queueCreateInfoCount; ++i) {
    const XgpuDeviceQueueCreateInfo& queue = pCreateInfo->pQueueCreateInfos[i];
    if (queue.queueFamilyIndex >= family_count) {
      skip |= ctx.Report(Vuid::xgpuCreateDevice_pCreateInfo_pQueueCreateInfos_queueFamilyIndex,
                         Field{"pCreateInfo->pQueueCreateInfos[i].queueFamilyIndex", i},
                         std::to_string(queue.queueFamilyIndex) + ", but the physical device has " +
                             std::to_string(family_count) + " queue families");
      continue;
    }
    if (queue.queueCount == 0 || queue.queueCount > families[queue.queueFamilyIndex].queueCount) {
      skip |= ctx.Report(Vuid::xgpuCreateDevice_pCreateInfo_pQueueCreateInfos_queueCount,
                         Field{"pCreateInfo->pQueueCreateInfos[i].queueCount", i},
                         std::to_string(queue.queueCount) + "; family " + std::to_string(queue.queueFamilyIndex) +
                             " has " + std::to_string(families[queue.queueFamilyIndex].queueCount) + " queues");
    }
    for (uint32_t k = 0; k < i; ++k) {
      if (pCreateInfo->pQueueCreateInfos[k].queueFamilyIndex == queue.queueFamilyIndex) {
        skip |= ctx.Report(Vuid::xgpuCreateDevice_pCreateInfo_pQueueCreateInfos_unique,
                           Field{"pCreateInfo->pQueueCreateInfos[i].queueFamilyIndex", i},
                           std::to_string(queue.queueFamilyIndex) + ", also that of pCreateInfo->pQueueCreateInfos[" +
                               std::to_string(k) + "]");
        break;
      }
    }
  }
  return skip;
}

bool ParameterValues::ValidateGetDeviceQueue(CallContext& ctx, XgpuDevice, uint32_t queueFamilyIndex,
                                             uint32_t queueIndex, XgpuQueue*) const {
  const LayerDevice* device = ctx.device;
  if (device == nullptr || ctx.dispatch_record == nullptr) return false;
  if (queueFamilyIndex >= device->queue_counts.size() || device->queue_counts[queueFamilyIndex] == 0) {
    return ctx.Report(Vuid::xgpuGetDeviceQueue_queueFamilyIndex, Field{"queueFamilyIndex"},
                      std::to_string(queueFamilyIndex) + ", a family the device was not created with queues of");
  }
  if (queueIndex >= device->queue_counts[queueFamilyIndex]) {
    return ctx.Report(Vuid::xgpuGetDeviceQueue_queueIndex, Field{"queueIndex"},
                      std::to_string(queueIndex) + ", but the device was created with " +
                          std::to_string(device->queue_counts[queueFamilyIndex]) + " queue(s) of family " +
                          std::to_string(queueFamilyIndex));
  }
  return false;
}

// ---- buffers ----

bool ParameterValues::ValidateCreateBuffer(CallContext& ctx, XgpuDevice, const XgpuBufferCreateInfo* pCreateInfo,
                                           const XgpuAllocationCallbacks*, XgpuBuffer*) const {
  const LayerDevice* device = ctx.device;
  if (!IsUsablePointer(pCreateInfo) || device == nullptr) return false;
  bool skip = false;
  const uint64_t max = device->properties.limits.maxBufferSize;
  if (pCreateInfo->size == 0 || pCreateInfo->size > max) {
    skip |= ctx.Report(Vuid::xgpuCreateBuffer_pCreateInfo_size, Field{"pCreateInfo->size"},
                       size_text(pCreateInfo->size) + (pCreateInfo->size == 0 ? "" : ", more than limits.maxBufferSize " +
                                                                                    std::to_string(max)));
  }
  if (pCreateInfo->usage == 0) {
    skip |= ctx.Report(Vuid::xgpuCreateBuffer_pCreateInfo_usage, Field{"pCreateInfo->usage"}, "0");
  }
  if (pCreateInfo->memoryTypeIndex >= device->memory.memoryTypeCount) {
    skip |= ctx.Report(Vuid::xgpuCreateBuffer_pCreateInfo_memoryTypeIndex, Field{"pCreateInfo->memoryTypeIndex"},
                       std::to_string(pCreateInfo->memoryTypeIndex) + ", but the device has " +
                           std::to_string(device->memory.memoryTypeCount) + " memory types");
  }
  return skip;
}

bool ParameterValues::ValidateDestroyBuffer(CallContext& ctx, XgpuDevice, XgpuBuffer buffer,
                                            const XgpuAllocationCallbacks* pAllocator) const {
  const ObjectRecord* record = FindBuffer(ctx, buffer);
  if (record == nullptr) return false;
  if (record->queue_allocated) {
    return ctx.Report(Vuid::xgpuDestroyBuffer_buffer_queueAllocated, Field{"buffer"},
                      Describe(record) + ", made by xgpuQueueAlloca (xgpuQueueDealloca ends it)", {RefOf(record)});
  }
  return CheckAllocator(ctx, Vuid::xgpuDestroyBuffer_pAllocator_compatible, record, pAllocator);
}

bool ParameterValues::ValidateMapBuffer(CallContext& ctx, XgpuDevice, XgpuBuffer buffer, XgpuDeviceSize offset,
                                        XgpuDeviceSize size, void**) const {
  const ObjectRecord* record = FindBuffer(ctx, buffer);
  if (record == nullptr) return false;
  bool skip = false;
  const uint64_t bytes = record->buffer_size;
  if (offset >= bytes) {
    skip |= ctx.Report(Vuid::xgpuMapBuffer_offset, Field{"offset"},
                       size_text(offset) + ", not less than the size of " + Describe(record) + " (" + std::to_string(bytes) +
                           " bytes)",
                       {RefOf(record)});
  } else if (size != XGPU_WHOLE_SIZE && (size == 0 || size > bytes - offset)) {
    skip |= ctx.Report(Vuid::xgpuMapBuffer_size, Field{"size"},
                       size_text(size) + (size == 0 ? "" : ": offset " + size_text(offset) + " + size beyond the " +
                                                         std::to_string(bytes) + " bytes of " + Describe(record)),
                       {RefOf(record)});
  }
  if (record->mapped.load(std::memory_order_relaxed)) {
    skip |= ctx.Report(Vuid::xgpuMapBuffer_buffer_mapped, Field{"buffer"}, Describe(record) + ", already mapped",
                       {RefOf(record)});
  }
  return skip;
}

bool ParameterValues::ValidateUnmapBuffer(CallContext& ctx, XgpuDevice, XgpuBuffer buffer) const {
  const ObjectRecord* record = FindBuffer(ctx, buffer);
  if (record == nullptr || record->mapped.load(std::memory_order_relaxed)) return false;
  return ctx.Report(Vuid::xgpuUnmapBuffer_buffer_mapped, Field{"buffer"}, Describe(record) + ", not mapped",
                    {RefOf(record)});
}

// ---- memory pools ----

bool ParameterValues::ValidateCreateMemoryPool(CallContext& ctx, XgpuDevice,
                                               const XgpuMemoryPoolCreateInfo* pCreateInfo,
                                               const XgpuAllocationCallbacks*, XgpuMemoryPool*) const {
  const LayerDevice* device = ctx.device;
  if (!IsUsablePointer(pCreateInfo) || device == nullptr) return false;
  bool skip = false;
  if (pCreateInfo->memoryTypeIndex >= device->memory.memoryTypeCount) {
    skip |= ctx.Report(Vuid::xgpuCreateMemoryPool_pCreateInfo_memoryTypeIndex, Field{"pCreateInfo->memoryTypeIndex"},
                       std::to_string(pCreateInfo->memoryTypeIndex) + ", but the device has " +
                           std::to_string(device->memory.memoryTypeCount) + " memory types");
  }
  const uint64_t max = device->properties.limits.maxBufferSize;
  if (pCreateInfo->blockSize > max) {
    skip |= ctx.Report(Vuid::xgpuCreateMemoryPool_pCreateInfo_blockSize, Field{"pCreateInfo->blockSize"},
                       size_text(pCreateInfo->blockSize) + ", more than limits.maxBufferSize " + std::to_string(max));
  } else if (pCreateInfo->maxSize != 0 && pCreateInfo->blockSize > pCreateInfo->maxSize) {
    skip |= ctx.Report(Vuid::xgpuCreateMemoryPool_pCreateInfo_blockSize, Field{"pCreateInfo->blockSize"},
                       size_text(pCreateInfo->blockSize) + ", more than pCreateInfo->maxSize " + size_text(pCreateInfo->maxSize));
  }
  if (pCreateInfo->maxSize != 0 && pCreateInfo->retainSize > pCreateInfo->maxSize) {
    skip |= ctx.Report(Vuid::xgpuCreateMemoryPool_pCreateInfo_retainSize, Field{"pCreateInfo->retainSize"},
                       size_text(pCreateInfo->retainSize) + ", more than pCreateInfo->maxSize " + size_text(pCreateInfo->maxSize));
  }
  return skip;
}

// ---- semaphores ----

bool ParameterValues::ValidateWaitSemaphores(CallContext& ctx, XgpuDevice, const XgpuSemaphoreWaitInfo* pWaitInfo,
                                             uint64_t) const {
  if (!IsUsablePointer(pWaitInfo) || pWaitInfo->semaphoreCount != 0) return false;
  return ctx.Report(Vuid::xgpuWaitSemaphores_pWaitInfo_semaphoreCount, Field{"pWaitInfo->semaphoreCount"}, "0");
}

bool ParameterValues::ValidateFailSemaphore(CallContext& ctx, XgpuDevice, XgpuSemaphore, XgpuResult status) const {
  if (status < 0 || !IsValidXgpuResult(status)) return false;  // not a result: the implicit rule
  return ctx.Report(Vuid::xgpuFailSemaphore_status, Field{"status"},
                    std::string(NameOfXgpuResult(status) ? NameOfXgpuResult(status) : "") + " (" +
                        std::to_string(static_cast<int32_t>(status)) + "), not negative");
}

// ---- executables, pipelines, command buffers ----

bool ParameterValues::ValidateCreateExecutable(CallContext& ctx, XgpuDevice, const XgpuExecutableCreateInfo* pCreateInfo,
                                               const XgpuAllocationCallbacks*, XgpuExecutable*) const {
  if (!IsUsablePointer(pCreateInfo)) return false;
  bool skip = false;
  const bool code = pCreateInfo->pCode != nullptr;
  const bool path = pCreateInfo->pFilePath != nullptr;
  if (code == path) {
    skip |= ctx.Report(Vuid::xgpuCreateExecutable_pCreateInfo_source, Field{"pCreateInfo->pCode"},
                       code ? "both pCreateInfo->pCode and pCreateInfo->pFilePath are given"
                            : "neither pCreateInfo->pCode nor pCreateInfo->pFilePath is given");
  }
  if (code ? pCreateInfo->codeSize == 0 : pCreateInfo->codeSize != 0) {
    skip |= ctx.Report(Vuid::xgpuCreateExecutable_pCreateInfo_codeSize, Field{"pCreateInfo->codeSize"},
                       std::to_string(pCreateInfo->codeSize) +
                           (code ? " with pCreateInfo->pCode given" : " with pCreateInfo->pCode NULL"));
  }
  return skip;
}

bool ParameterValues::ValidateCreatePipeline(CallContext& ctx, XgpuDevice, const XgpuPipelineCreateInfo* pCreateInfo,
                                             const XgpuAllocationCallbacks*, XgpuPipeline*) const {
  const XgpuPhysicalDeviceLimits* limits = LimitsOf(ctx);
  if (!IsUsablePointer(pCreateInfo) || limits == nullptr) return false;
  bool skip = false;
  // The layout as given (a declared one: ValidatePipelineKernel).
  const bool given = pCreateInfo->bindingCount != 0 || pCreateInfo->constantSize != 0;
  bool given_layout_ok = true;
  if (given && pCreateInfo->bindingCount > limits->maxBindings) {
    given_layout_ok = false;
    skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_bindingCount, Field{"pCreateInfo->bindingCount"},
                       std::to_string(pCreateInfo->bindingCount) + ", more than limits.maxBindings " +
                           std::to_string(limits->maxBindings));
  }
  if (given && (pCreateInfo->constantSize % 4 != 0 || pCreateInfo->constantSize > limits->maxPushConstantsSize)) {
    given_layout_ok = false;
    skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_constantSize, Field{"pCreateInfo->constantSize"},
                       std::to_string(pCreateInfo->constantSize) +
                           (pCreateInfo->constantSize % 4 != 0
                                ? ", not a multiple of 4"
                                : ", more than limits.maxPushConstantsSize " +
                                      std::to_string(limits->maxPushConstantsSize)));
  }
  const uint32_t* size = pCreateInfo->workgroupSize;
  if (size[0] != 0 || size[1] != 0 || size[2] != 0) {
    std::string problem;
    uint64_t product = 1;
    for (int d = 0; d < 3 && problem.empty(); ++d) {
      product *= size[d];
      if (size[d] == 0) problem = "workgroupSize[" + std::to_string(d) + "] is 0 and another is not";
      if (size[d] > limits->maxWorkgroupSize[d]) {
        problem = "workgroupSize[" + std::to_string(d) + "] " + std::to_string(size[d]) +
                  " is more than limits.maxWorkgroupSize[" + std::to_string(d) + "] " +
                  std::to_string(limits->maxWorkgroupSize[d]);
      }
    }
    if (problem.empty() && product > limits->maxWorkgroupInvocations) {
      problem = "the product " + std::to_string(product) + " is more than limits.maxWorkgroupInvocations " +
                std::to_string(limits->maxWorkgroupInvocations);
    }
    if (!problem.empty()) {
      skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_workgroupSize, Field{"pCreateInfo->workgroupSize"},
                         "(" + std::to_string(size[0]) + ", " + std::to_string(size[1]) + ", " +
                             std::to_string(size[2]) + "): " + problem);
    }
  }
  // The rules that need the kernel's metadata (kernels/kernel_metadata.h).
  skip |= ValidatePipelineKernel(ctx, *pCreateInfo, *limits, given_layout_ok);
  return skip;
}

bool ParameterValues::ValidateCreateCommandBuffer(CallContext& ctx, XgpuDevice,
                                                  const XgpuCommandBufferCreateInfo* pCreateInfo,
                                                  const XgpuAllocationCallbacks*, XgpuCommandBuffer*) const {
  const LayerDevice* device = ctx.device;
  if (!IsUsablePointer(pCreateInfo) || device == nullptr) return false;
  const uint32_t family = pCreateInfo->queueFamilyIndex;
  if (family < device->queue_counts.size() && device->queue_counts[family] != 0) return false;
  return ctx.Report(Vuid::xgpuCreateCommandBuffer_pCreateInfo_queueFamilyIndex, Field{"pCreateInfo->queueFamilyIndex"},
                    std::to_string(family) + ", a family the device was not created with queues of");
}

bool ParameterValues::ValidateQueueSubmit(CallContext& ctx, XgpuQueue, uint32_t submitCount,
                                          const XgpuSubmitInfo* pSubmits) const {
  const XgpuQueueFamilyProperties* family = FamilyOfQueue(ctx);
  if (family == nullptr || !IsUsablePointer(pSubmits)) return false;
  const uint32_t queue_family = ctx.dispatch_record->queue_family;
  bool skip = false;
  for (uint32_t i = 0; i < submitCount; ++i) {
    const ObjectRecord* cb = Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER,
                                            reinterpret_cast<uintptr_t>(pSubmits[i].commandBuffer));
    if (cb == nullptr || cb->device != ctx.device || cb->queue_family == queue_family) continue;
    skip |= ctx.Report(Vuid::xgpuQueueSubmit_pSubmits_commandBuffer_queueFamily, Field{"pSubmits[i].commandBuffer", i},
                       Describe(cb) + ", created for queue family " + std::to_string(cb->queue_family) +
                           ", but the queue is of family " + std::to_string(queue_family),
                       {RefOf(cb)});
  }
  return skip;
}

// ---- queue transfers and queue-ordered allocation ----

bool ParameterValues::ValidateQueueFillBuffer(CallContext& ctx, XgpuQueue, const XgpuSemaphoreList*,
                                              const XgpuSemaphoreList*, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset,
                                              XgpuDeviceSize size, const void*, uint32_t patternSize) const {
  bool skip = CheckTransferQueue(ctx, Vuid::xgpuQueueFillBuffer_queue_flags);
  const bool pattern_ok = PatternSizeValid(patternSize);
  if (!pattern_ok) {
    skip |= ctx.Report(Vuid::xgpuQueueFillBuffer_patternSize, Field{"patternSize"},
                       std::to_string(patternSize) + ", not 1, 2 or 4");
  }
  const ObjectRecord* buffer = FindBuffer(ctx, dstBuffer);
  if (buffer == nullptr) return skip;
  const uint64_t bytes = buffer->buffer_size;
  if (dstOffset >= bytes || (pattern_ok && dstOffset % patternSize != 0)) {
    skip |= ctx.Report(Vuid::xgpuQueueFillBuffer_dstOffset, Field{"dstOffset"},
                       size_text(dstOffset) + (dstOffset >= bytes ? ", not less than the size of " + Describe(buffer) + " (" +
                                                                  std::to_string(bytes) + " bytes)"
                                                            : ", not a multiple of patternSize " +
                                                                  std::to_string(patternSize)),
                       {RefOf(buffer)});
  } else if (size != XGPU_WHOLE_SIZE &&
             (size == 0 || (pattern_ok && size % patternSize != 0) || !Inside(dstOffset, size, bytes))) {
    skip |= ctx.Report(Vuid::xgpuQueueFillBuffer_size, Field{"size"},
                       size_text(size) + " at dstOffset " + size_text(dstOffset) + " in " + Describe(buffer) + " (" +
                           std::to_string(bytes) + " bytes), patternSize " + std::to_string(patternSize),
                       {RefOf(buffer)});
  }
  if ((buffer->buffer_usage & XGPU_BUFFER_USAGE_TRANSFER_DST_BIT) == 0) {
    skip |= ctx.Report(Vuid::xgpuQueueFillBuffer_dstBuffer_usage, Field{"dstBuffer"},
                       Describe(buffer) + ", created without XGPU_BUFFER_USAGE_TRANSFER_DST_BIT", {RefOf(buffer)});
  }
  return skip;
}

bool ParameterValues::ValidateQueueCopyBuffer(CallContext& ctx, XgpuQueue, const XgpuSemaphoreList*,
                                              const XgpuSemaphoreList*, XgpuBuffer srcBuffer, XgpuDeviceSize srcOffset,
                                              XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset,
                                              XgpuDeviceSize size) const {
  bool skip = CheckTransferQueue(ctx, Vuid::xgpuQueueCopyBuffer_queue_flags);
  if (size == 0) skip |= ctx.Report(Vuid::xgpuQueueCopyBuffer_size, Field{"size"}, "0");
  const ObjectRecord* src = FindBuffer(ctx, srcBuffer);
  const ObjectRecord* dst = FindBuffer(ctx, dstBuffer);
  if (src != nullptr) {
    if (!Inside(srcOffset, size, src->buffer_size)) {
      skip |= ctx.Report(Vuid::xgpuQueueCopyBuffer_srcRange, Field{"srcOffset"},
                         "srcOffset " + size_text(srcOffset) + " + size " + size_text(size) + " beyond the " +
                             std::to_string(src->buffer_size) + " bytes of " + Describe(src),
                         {RefOf(src)});
    }
    if ((src->buffer_usage & XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT) == 0) {
      skip |= ctx.Report(Vuid::xgpuQueueCopyBuffer_srcBuffer_usage, Field{"srcBuffer"},
                         Describe(src) + ", created without XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT", {RefOf(src)});
    }
  }
  if (dst != nullptr) {
    if (!Inside(dstOffset, size, dst->buffer_size)) {
      skip |= ctx.Report(Vuid::xgpuQueueCopyBuffer_dstRange, Field{"dstOffset"},
                         "dstOffset " + size_text(dstOffset) + " + size " + size_text(size) + " beyond the " +
                             std::to_string(dst->buffer_size) + " bytes of " + Describe(dst),
                         {RefOf(dst)});
    }
    if ((dst->buffer_usage & XGPU_BUFFER_USAGE_TRANSFER_DST_BIT) == 0) {
      skip |= ctx.Report(Vuid::xgpuQueueCopyBuffer_dstBuffer_usage, Field{"dstBuffer"},
                         Describe(dst) + ", created without XGPU_BUFFER_USAGE_TRANSFER_DST_BIT", {RefOf(dst)});
    }
  }
  if (src != nullptr && src == dst && size != 0 && srcOffset < dstOffset + size && dstOffset < srcOffset + size) {
    skip |= ctx.Report(Vuid::xgpuQueueCopyBuffer_overlap, Field{"dstOffset"},
                       "[" + size_text(srcOffset) + ", " + size_text(srcOffset + size) + ") and [" + size_text(dstOffset) + ", " +
                           size_text(dstOffset + size) + ") overlap in " + Describe(src),
                       {RefOf(src)});
  }
  return skip;
}

bool ParameterValues::ValidateQueueAlloca(CallContext& ctx, XgpuQueue, const XgpuSemaphoreList*,
                                          const XgpuSemaphoreList*, XgpuMemoryPool, XgpuDeviceSize size,
                                          XgpuBufferUsageFlags usage, XgpuBuffer*) const {
  const XgpuPhysicalDeviceLimits* limits = LimitsOf(ctx);
  bool skip = false;
  if (limits != nullptr && (size == 0 || size > limits->maxBufferSize)) {
    skip |= ctx.Report(Vuid::xgpuQueueAlloca_size, Field{"size"},
                       size_text(size) + (size == 0 ? "" : ", more than limits.maxBufferSize " +
                                                         std::to_string(limits->maxBufferSize)));
  }
  if (usage == 0) skip |= ctx.Report(Vuid::xgpuQueueAlloca_usage, Field{"usage"}, "0");
  return skip;
}

bool ParameterValues::ValidateQueueDealloca(CallContext& ctx, XgpuQueue, const XgpuSemaphoreList*,
                                            const XgpuSemaphoreList*, XgpuBuffer buffer) const {
  const ObjectRecord* record = FindBuffer(ctx, buffer);
  if (record == nullptr) return false;
  bool skip = false;
  if (!record->queue_allocated) {
    skip |= ctx.Report(Vuid::xgpuQueueDealloca_buffer_queueAllocated, Field{"buffer"},
                       Describe(record) + ", made by xgpuCreateBuffer, not xgpuQueueAlloca", {RefOf(record)});
  }
  if (record->mapped.load(std::memory_order_relaxed)) {
    skip |= ctx.Report(Vuid::xgpuQueueDealloca_buffer_mapped, Field{"buffer"}, Describe(record) + ", mapped",
                       {RefOf(record)});
  }
  return skip;
}

}  // namespace xgpu_validation
