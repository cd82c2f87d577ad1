#include "semaphore_values.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "../chassis/object_map.h"

namespace xgpu_validation {
namespace {

template <typename Handle>
uint64_t H(Handle handle) {
  return reinterpret_cast<uintptr_t>(handle);
}

bool UsableList(const XgpuSemaphoreList* list) {
  return IsUsablePointer(list) && (list->count == 0 || (IsUsablePointer(list->pSemaphores) &&
                                                         IsUsablePointer(list->pValues)));
}

std::string SemaphoreText(uint64_t handle) {
  if (const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_SEMAPHORE, handle)) return Describe(record);
  return "a semaphore";
}

// A semaphore of `owner` may be used with `user` (api.md 10, "Sharing"): the
// same device, or physical devices with the same driverName and runtimeName.
bool SharesDriver(const LayerDevice* owner, const LayerDevice* user) {
  if (owner == user) return true;
  return std::strncmp(owner->properties.driverName, user->properties.driverName,
                      sizeof(owner->properties.driverName)) == 0 &&
         std::strncmp(owner->properties.runtimeName, user->properties.runtimeName,
                      sizeof(owner->properties.runtimeName)) == 0;
}

// "XgpuSemaphore 0x.., created from a device of driverName "..", runtimeName "..", but the
// call's device is of driverName "..", runtimeName ".."" for the device rules.
std::string ForeignText(const ObjectRecord* semaphore, const LayerDevice* user) {
  auto names = [](const LayerDevice* device) {
    return std::string(" of driverName \"") +
           std::string(device->properties.driverName, strnlen(device->properties.driverName,
                                                              sizeof(device->properties.driverName))) +
           "\", runtimeName \"" +
           std::string(device->properties.runtimeName, strnlen(device->properties.runtimeName,
                                                               sizeof(device->properties.runtimeName))) +
           "\"";
  };
  return Describe(semaphore) + ", created from a device" + names(semaphore->device) + ", but the call's device is" +
         names(user);
}

// The device rule of the semaphores of `list` (`field`, e.g.
// "pSubmits[i].waitSemaphores.pSemaphores[j]" at submission i, or
// "pWaitSemaphores->pSemaphores[i]") used with the call's device.
bool CheckListDevice(CallContext& ctx, const XgpuSemaphoreList* list, const char* field, uint64_t i, Vuid vuid) {
  if (!UsableList(list) || ctx.device == nullptr) return false;
  bool skip = false;
  for (uint32_t j = 0; j < list->count; ++j) {
    const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_SEMAPHORE, H(list->pSemaphores[j]));
    if (record == nullptr || record->device == nullptr || SharesDriver(record->device, ctx.device)) continue;
    // A list of a submission ("pSubmits[i]...[j]") or of a queue operation ("...->pSemaphores[i]").
    const Field at = std::strstr(field, "[j]") != nullptr ? Field{field, i, j} : Field{field, j};
    skip |= ctx.Report(vuid, at, ForeignText(record, ctx.device), {{record->type, record->handle}});
  }
  return skip;
}

}  // namespace

void SemaphoreValues::PostRecordCreateSemaphore(CallContext&, XgpuDevice, const XgpuSemaphoreCreateInfo* pCreateInfo,
                                                const XgpuAllocationCallbacks*, XgpuSemaphore* pSemaphore,
                                                XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pSemaphore) || !IsUsablePointer(pCreateInfo)) return;
  std::lock_guard lock(mutex_);
  states_[H(*pSemaphore)] = State{pCreateInfo->initialValue, {}};
}

void SemaphoreValues::PostRecordDestroySemaphore(CallContext&, XgpuDevice, XgpuSemaphore semaphore,
                                                 const XgpuAllocationCallbacks*) {
  std::lock_guard lock(mutex_);
  states_.erase(H(semaphore));
}

bool SemaphoreValues::ValidateSignalSemaphore(CallContext& ctx, XgpuDevice device,
                                              const XgpuSemaphoreSignalInfo* pSignalInfo) const {
  if (!IsUsablePointer(pSignalInfo) || ctx.device == nullptr) return false;
  const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_SEMAPHORE, H(pSignalInfo->semaphore));
  if (record == nullptr || record->device == nullptr) return false;  // the object tracker reports it
  if (!SharesDriver(record->device, ctx.device)) {
    return ctx.Report(Vuid::xgpuSignalSemaphore_pSignalInfo_semaphore_device, Field{"pSignalInfo->semaphore"},
                      ForeignText(record, ctx.device), {{record->type, record->handle}});
  }
  uint64_t current = 0;
  if (record->device->next.GetSemaphoreValue(record->device->handle, pSignalInfo->semaphore, &current) !=
      XGPU_SUCCESS) {
    return false;  // a failed semaphore: the driver answers
  }
  const uint64_t value = pSignalInfo->value;
  if (value <= current) {
    return ctx.Report(Vuid::xgpuSignalSemaphore_pSignalInfo_value, Field{"pSignalInfo->value"},
                      std::to_string(value) + ", not greater than the current payload " + std::to_string(current) +
                          " of " + Describe(record),
                      {{record->type, record->handle}});
  }
  std::lock_guard lock(mutex_);
  auto it = states_.find(record->handle);
  if (it == states_.end()) return false;
  uint64_t lowest_pending = UINT64_MAX;
  for (uint64_t payload : it->second.queued) {
    if (payload > current) lowest_pending = std::min(lowest_pending, payload);
  }
  if (value >= lowest_pending) {
    return ctx.Report(Vuid::xgpuSignalSemaphore_pSignalInfo_value, Field{"pSignalInfo->value"},
                      std::to_string(value) + ", not less than the payload " + std::to_string(lowest_pending) +
                          " a queue operation will still signal on " + Describe(record),
                      {{record->type, record->handle}});
  }
  return false;
}

void SemaphoreValues::PostRecordSignalSemaphore(CallContext&, XgpuDevice, const XgpuSemaphoreSignalInfo* pSignalInfo,
                                                XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pSignalInfo)) return;
  std::lock_guard lock(mutex_);
  auto it = states_.find(H(pSignalInfo->semaphore));
  if (it == states_.end()) return;
  State& state = it->second;
  state.largest = std::max(state.largest, pSignalInfo->value);
  // Queued payloads at or below the new value are signalled already or never will be.
  state.queued.erase(std::remove_if(state.queued.begin(), state.queued.end(),
                                    [&](uint64_t p) { return p <= pSignalInfo->value; }),
                     state.queued.end());
}

bool SemaphoreValues::CheckSignalList(CallContext& ctx, const XgpuSemaphoreList* list, const char* field, uint64_t i,
                                      Vuid unique_vuid, Vuid value_vuid, std::map<uint64_t, uint64_t>* seen) const {
  if (!UsableList(list) || list->count == 0) return false;
  bool skip = false;
  // Composed only for a message. field: "pSubmits[i].signalSemaphores." or "pSignalSemaphores->".
  const std::string_view base = field;
  const bool indexed = base.find("[i]") != std::string_view::npos;
  auto at = [&](const std::string& path, uint64_t j) { return indexed ? Field{path.c_str(), i, j} : Field{path.c_str(), j}; };
  for (uint32_t j = 0; j < list->count; ++j) {
    const uint64_t semaphore = H(list->pSemaphores[j]);
    const uint64_t payload = list->pValues[j];
    bool twice = false;
    for (uint32_t k = 0; k < j; ++k) {
      if (H(list->pSemaphores[k]) == semaphore) {
        const std::string path = std::string(base) + "pSemaphores[j]";
        skip |= ctx.Report(unique_vuid, at(path, j),
                           SemaphoreText(semaphore) + ", also at index " + std::to_string(k) + " of the list");
        twice = true;
        break;
      }
    }
    if (twice) continue;
    uint64_t largest = 0;
    if (auto s = seen->find(semaphore); s != seen->end()) {
      largest = s->second;
    } else if (auto it = states_.find(semaphore); it != states_.end()) {
      largest = it->second.largest;
    } else {
      continue;  // not a semaphore the layer knows: the object tracker reports it
    }
    if (payload <= largest) {
      const std::string path = std::string(base) + "pValues[j]";
      skip |= ctx.Report(value_vuid, at(path, j),
                         std::to_string(payload) + ", not greater than " + std::to_string(largest) +
                             ", a payload " + SemaphoreText(semaphore) +
                             " already has or is already to be signalled (payloads only grow)",
                         {{XGPU_OBJECT_TYPE_SEMAPHORE, semaphore}});
    }
    (*seen)[semaphore] = std::max(largest, payload);
  }
  return skip;
}

bool SemaphoreValues::ValidateWaitSemaphores(CallContext& ctx, XgpuDevice, const XgpuSemaphoreWaitInfo* pWaitInfo,
                                             uint64_t) const {
  if (!IsUsablePointer(pWaitInfo) || !IsUsablePointer(pWaitInfo->pSemaphores) || ctx.device == nullptr) return false;
  bool skip = false;
  for (uint32_t i = 0; i < pWaitInfo->semaphoreCount; ++i) {
    const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_SEMAPHORE, H(pWaitInfo->pSemaphores[i]));
    if (record == nullptr || record->device == nullptr || SharesDriver(record->device, ctx.device)) continue;
    skip |= ctx.Report(Vuid::xgpuWaitSemaphores_pWaitInfo_pSemaphores_device, Field{"pWaitInfo->pSemaphores[i]", i},
                       ForeignText(record, ctx.device), {{record->type, record->handle}});
  }
  return skip;
}

bool SemaphoreValues::ValidateQueueSubmit(CallContext& ctx, XgpuQueue, uint32_t submitCount,
                                          const XgpuSubmitInfo* pSubmits) const {
  if (!IsUsablePointer(pSubmits)) return false;
  bool skip = false;
  for (uint32_t i = 0; i < submitCount; ++i) {
    skip |= CheckListDevice(ctx, &pSubmits[i].waitSemaphores, "pSubmits[i].waitSemaphores.pSemaphores[j]", i,
                            Vuid::xgpuQueueSubmit_pSubmits_waitSemaphores_device);
    skip |= CheckListDevice(ctx, &pSubmits[i].signalSemaphores, "pSubmits[i].signalSemaphores.pSemaphores[j]", i,
                            Vuid::xgpuQueueSubmit_pSubmits_waitSemaphores_device);
  }
  // The payload rules need the semaphores' state only where a submission signals.
  bool signals = false;
  for (uint32_t i = 0; i < submitCount; ++i) signals |= pSubmits[i].signalSemaphores.count != 0;
  if (!signals) return skip;
  std::map<uint64_t, uint64_t> seen;
  std::lock_guard lock(mutex_);
  for (uint32_t i = 0; i < submitCount; ++i) {
    skip |= CheckSignalList(ctx, &pSubmits[i].signalSemaphores, "pSubmits[i].signalSemaphores.", i,
                            Vuid::xgpuQueueSubmit_pSubmits_signalSemaphores_unique,
                            Vuid::xgpuQueueSubmit_pSubmits_signalSemaphores_value, &seen);
  }
  return skip;
}

bool SemaphoreValues::CheckOperation(CallContext& ctx, const XgpuSemaphoreList* wait,
                                     const XgpuSemaphoreList* signal, Vuid vuid) const {
  bool skip = CheckListDevice(ctx, wait, "pWaitSemaphores->pSemaphores[i]", 0, vuid);
  skip |= CheckListDevice(ctx, signal, "pSignalSemaphores->pSemaphores[i]", 0, vuid);
  if (skip) return true;
  std::map<uint64_t, uint64_t> seen;
  std::lock_guard lock(mutex_);
  return CheckSignalList(ctx, signal, "pSignalSemaphores->", 0, vuid, vuid, &seen);
}

void SemaphoreValues::Queued(const XgpuSemaphoreList* list) {
  if (!UsableList(list) || list->count == 0) return;
  std::lock_guard lock(mutex_);
  for (uint32_t j = 0; j < list->count; ++j) {
    auto it = states_.find(H(list->pSemaphores[j]));
    if (it == states_.end()) continue;
    it->second.largest = std::max(it->second.largest, list->pValues[j]);
    it->second.queued.push_back(list->pValues[j]);
  }
}

void SemaphoreValues::PostRecordQueueSubmit(CallContext&, XgpuQueue, uint32_t submitCount,
                                            const XgpuSubmitInfo* pSubmits, XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pSubmits)) return;
  for (uint32_t i = 0; i < submitCount; ++i) Queued(&pSubmits[i].signalSemaphores);
}

bool SemaphoreValues::ValidateQueueFillBuffer(CallContext& ctx, XgpuQueue, const XgpuSemaphoreList* pWaitSemaphores,
                                              const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer, XgpuDeviceSize,
                                              XgpuDeviceSize, const void*, uint32_t) const {
  return CheckOperation(ctx, pWaitSemaphores, pSignalSemaphores, Vuid::xgpuQueueFillBuffer_semaphores);
}
void SemaphoreValues::PostRecordQueueFillBuffer(CallContext&, XgpuQueue, const XgpuSemaphoreList*,
                                                const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer,
                                                XgpuDeviceSize, XgpuDeviceSize, const void*, uint32_t,
                                                XgpuResult result) {
  if (result >= 0) Queued(pSignalSemaphores);
}
bool SemaphoreValues::ValidateQueueCopyBuffer(CallContext& ctx, XgpuQueue, const XgpuSemaphoreList* pWaitSemaphores,
                                              const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer, XgpuDeviceSize,
                                              XgpuBuffer, XgpuDeviceSize, XgpuDeviceSize) const {
  return CheckOperation(ctx, pWaitSemaphores, pSignalSemaphores, Vuid::xgpuQueueCopyBuffer_semaphores);
}
void SemaphoreValues::PostRecordQueueCopyBuffer(CallContext&, XgpuQueue, const XgpuSemaphoreList*,
                                                const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer,
                                                XgpuDeviceSize, XgpuBuffer, XgpuDeviceSize, XgpuDeviceSize,
                                                XgpuResult result) {
  if (result >= 0) Queued(pSignalSemaphores);
}
bool SemaphoreValues::ValidateQueueAlloca(CallContext& ctx, XgpuQueue, const XgpuSemaphoreList* pWaitSemaphores,
                                          const XgpuSemaphoreList* pSignalSemaphores, XgpuMemoryPool, XgpuDeviceSize,
                                          XgpuBufferUsageFlags, XgpuBuffer*) const {
  return CheckOperation(ctx, pWaitSemaphores, pSignalSemaphores, Vuid::xgpuQueueAlloca_semaphores);
}
void SemaphoreValues::PostRecordQueueAlloca(CallContext&, XgpuQueue, const XgpuSemaphoreList*,
                                            const XgpuSemaphoreList* pSignalSemaphores, XgpuMemoryPool,
                                            XgpuDeviceSize, XgpuBufferUsageFlags, XgpuBuffer*, XgpuResult result) {
  if (result >= 0) Queued(pSignalSemaphores);
}
bool SemaphoreValues::ValidateQueueDealloca(CallContext& ctx, XgpuQueue, const XgpuSemaphoreList* pWaitSemaphores,
                                            const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer) const {
  return CheckOperation(ctx, pWaitSemaphores, pSignalSemaphores, Vuid::xgpuQueueDealloca_semaphores);
}
void SemaphoreValues::PostRecordQueueDealloca(CallContext&, XgpuQueue, const XgpuSemaphoreList*,
                                              const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer,
                                              XgpuResult result) {
  if (result >= 0) Queued(pSignalSemaphores);
}

}  // namespace xgpu_validation
