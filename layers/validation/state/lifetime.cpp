// The objects' records themselves: made when a command creates or
// retrieves an object (a queue, a physical device), ended when one destroys
// it (with everything under a device or an instance). The hooks that call
// these are generated from the registry (generated/state_lifetime_hooks.inc)
// and run first among the state tracker's hooks (spec/gen/vlayer_gen.py).
#include "state_tracker.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../chassis/object_map.h"

namespace xgpu_validation {
namespace {

// A record's end: its handle, name and the command that destroyed it stay
// known (ObjectMap::RememberDestroyed), so that a later use is reported as
// the use of a destroyed object.
void Forget(CallContext& ctx, std::unique_ptr<ObjectRecord> record) {
  std::string name;
  {
    std::lock_guard lock(NamesMutex());
    name = record->name;
  }
  Objects().RememberDestroyed({record->type, record->handle, std::move(name), ctx.command});
}

}  // namespace

ObjectRecord* StateTracker::TrackValue(CallContext& ctx, XgpuObjectType type, uint64_t handle,
                                                 XgpuObjectType parent_type, const XgpuAllocationCallbacks* allocator) {
  ObjectRecord* parent = nullptr;
  for (ObjectRecord* r = ctx.dispatch_record; r != nullptr && parent_type != XGPU_OBJECT_TYPE_UNKNOWN; r = r->parent) {
    if (r->type == parent_type) {
      parent = r;
      break;
    }
  }
  return TrackValueUnder(ctx, type, handle, parent, allocator);
}

ObjectRecord* StateTracker::TrackValueUnder(CallContext& ctx, XgpuObjectType type, uint64_t handle,
                                                      ObjectRecord* parent, const XgpuAllocationCallbacks* allocator) {
  static std::atomic<uint64_t> serials{0};
  // Queues and physical devices are retrieved again and again: the same object.
  if (ObjectRecord* existing = Objects().Find(type, handle); existing != nullptr && existing->parent == parent)
    return existing;
  auto record = std::make_unique<ObjectRecord>();
  record->type = type;
  record->handle = handle;
  record->parent = parent;
  record->instance = type == XGPU_OBJECT_TYPE_INSTANCE && ctx.creation != nullptr ? ctx.creation->new_instance : parent ? parent->instance : ctx.instance;
  record->device = type == XGPU_OBJECT_TYPE_DEVICE && ctx.creation != nullptr ? ctx.creation->new_device : parent ? parent->device : nullptr;
  record->serial = serials.fetch_add(1, std::memory_order_relaxed);
  record->made_on = reinterpret_cast<uintptr_t>(ctx.dispatch_handle);
  record->made_on_type = ctx.dispatch_type;
  if (IsUsablePointer(allocator)) {
    record->has_allocator = true;
    record->allocator = *allocator;
  }
  ObjectRecord* tracked = record.get();
  if (std::unique_ptr<ObjectRecord> stale = Objects().Insert(std::move(record))) Forget(ctx, std::move(stale));
  return tracked;
}

void StateTracker::TrackCreatedDevice(CallContext& ctx, XgpuDevice device, const XgpuAllocationCallbacks* allocator) {
  LayerDevice* data = ctx.creation != nullptr ? ctx.creation->new_device : nullptr;
  ObjectRecord* record = nullptr;
  try {
    // (The record the generated lifetime hook's Track then finds.)
    record = TrackValue(ctx, XGPU_OBJECT_TYPE_DEVICE, reinterpret_cast<uintptr_t>(device),
                        XGPU_OBJECT_TYPE_PHYSICAL_DEVICE, allocator);
    for (uint32_t family = 0; family < data->queue_counts.size(); ++family) {
      for (uint32_t index = 0; index < data->queue_counts[family]; ++index) {
        XgpuQueue queue = XGPU_NULL_HANDLE;
        data->next.GetDeviceQueue(device, family, index, &queue);
        if (queue == XGPU_NULL_HANDLE) continue;
        ObjectRecord* queue_record =
            TrackValueUnder(ctx, XGPU_OBJECT_TYPE_QUEUE, reinterpret_cast<uintptr_t>(queue), record, nullptr);
        queue_record->queue_family = family;
      }
    }
  } catch (const std::bad_alloc&) {
    // (Forgetting what was tracked may allocate too: the records then stay
    // until the instance goes, naming a device handle that is never given out.)
    if (record != nullptr) {
      try {
        UntrackValue(ctx, XGPU_OBJECT_TYPE_DEVICE, reinterpret_cast<uintptr_t>(device));
      } catch (const std::bad_alloc&) {
      }
    }
    throw;
  }
}

void StateTracker::UntrackValue(CallContext& ctx, XgpuObjectType type, uint64_t handle) {
  std::unique_ptr<ObjectRecord> removed = Objects().Remove(type, handle);
  if (!removed) return;
  std::vector<std::unique_ptr<ObjectRecord>> under;
  if (type == XGPU_OBJECT_TYPE_DEVICE) {
    LayerDevice* device = removed->device;
    under = Objects().RemoveIf([device](const ObjectRecord& r) { return r.device == device; });
  } else if (type == XGPU_OBJECT_TYPE_INSTANCE) {
    LayerInstance* instance = removed->instance;
    under = Objects().RemoveIf([instance](const ObjectRecord& r) { return r.instance == instance; });
  }
  for (auto& record : under) Forget(ctx, std::move(record));
  Forget(ctx, std::move(removed));
}

#include "../generated/state_lifetime_hooks.inc"

}  // namespace xgpu_validation
