#include "object_tracker.h"

#include <algorithm>
#include <atomic>
#include <cstdio>

namespace xgpu_validation {
namespace {


// Why (type, handle) names no live object.
std::string DeadHandleText(XgpuObjectType type, uint64_t handle) {
  std::string text = hex(handle) + ", not a live " + TypeName(type) + ": ";
  if (auto destroyed = Objects().FindDestroyed(type, handle)) {
    text += std::string("it was destroyed by ") + NameOf(destroyed->destroyed_by);
    if (!destroyed->name.empty()) text += " (it was named \"" + destroyed->name + "\")";
    return text;
  }
  std::vector<const ObjectRecord*> others = Objects().FindAnyType(handle);
  if (!others.empty()) return text + "it is " + Describe(others.front());
  return text + "no such object was created (or it was destroyed long ago)";
}

const ObjectRecord* AncestorOfType(const ObjectRecord* record, XgpuObjectType type) {
  for (; record != nullptr; record = record->parent) {
    if (record->type == type) return record;
  }
  return nullptr;
}

}  // namespace

bool ObjectTrackerGenerated::ReportDispatchHandle(CallContext& ctx, Vuid vuid, const Field& field, bool optional) {
  if (ctx.dispatch_handle == nullptr) return optional ? false : ctx.Report(vuid, field, "NULL");
  return ctx.Report(vuid, field, DeadHandleText(ctx.dispatch_type, reinterpret_cast<uintptr_t>(ctx.dispatch_handle)));
}

const ObjectRecord* ObjectTrackerGenerated::CheckHandleValue(CallContext& ctx, Vuid vuid, const Field& field,
                                                             XgpuObjectType type, uint64_t handle, bool optional,
                                                             bool* skip) {
  if (handle == 0) {
    if (!optional) *skip |= ctx.Report(vuid, field, "XGPU_NULL_HANDLE");
    return nullptr;
  }
  if (const ObjectRecord* record = Objects().Find(type, handle)) return record;
  *skip |= ctx.Report(vuid, field, DeadHandleText(type, handle), {{type, handle}});
  return nullptr;
}

bool ObjectTrackerGenerated::CheckParentSlow(CallContext& ctx, Vuid vuid, const Field& field,
                                             const ObjectRecord* record, XgpuObjectType parent_type) {
  const ObjectRecord* expected = AncestorOfType(ctx.dispatch_record, parent_type);
  if (expected == nullptr) return false;  // the call's own handle is not live: reported as such
  const ObjectRecord* actual = AncestorOfType(record, parent_type);
  if (actual == expected) return false;
  std::string value = Describe(record) + ", created from " +
                      (actual ? Describe(actual) : std::string("another ") + TypeName(parent_type)) + ", not from " +
                      Describe(expected);
  return ctx.Report(vuid, field, value, {{record->type, record->handle}});
}

#include "../generated/object_tracker_checks.inc"

namespace {

// The live objects `selects` picks, in a stable order (type, then handle).
std::vector<const ObjectRecord*> Select(const std::function<bool(const ObjectRecord&)>& selects) {
  std::vector<const ObjectRecord*> out;
  Objects().ForEach([&](const ObjectRecord& r) {
    if (selects(r)) out.push_back(&r);
  });
  std::sort(out.begin(), out.end(), [](const ObjectRecord* a, const ObjectRecord* b) {
    return a->type != b->type ? a->type < b->type : a->handle < b->handle;
  });
  return out;
}

// Reports each object left alive. The call is not refused (ObjectTracker explains why).
bool IsDeviceChild(const ObjectRecord& r, const LayerDevice* device) {
  return r.device == device && r.type != XGPU_OBJECT_TYPE_DEVICE && r.type != XGPU_OBJECT_TYPE_QUEUE;
}

// Reports each object left alive (a device with the objects it still has).
// The call is not refused (ObjectTracker explains why).
void ReportAlive(CallContext& ctx, Vuid vuid, const char* field, const std::vector<const ObjectRecord*>& alive) {
  constexpr size_t kListed = 8;  // a device's objects named in its message
  for (const ObjectRecord* child : alive) {
    std::string value = Describe(ctx.dispatch_record) + ", which still has " + Describe(child);
    if (child->type == XGPU_OBJECT_TYPE_DEVICE) {
      const LayerDevice* device = child->device;
      std::vector<const ObjectRecord*> own = Select([&](const ObjectRecord& r) { return IsDeviceChild(r, device); });
      if (!own.empty()) {
        value += " with " + std::to_string(own.size()) + " object(s) of its own (";
        for (size_t n = 0; n < own.size() && n < kListed; ++n) value += (n ? ", " : "") + Describe(own[n]);
        value += own.size() > kListed ? ", ...)" : ")";
      }
    }
    value += " (the layer destroys it)";
    ctx.Report(vuid, Field{field}, value, {{child->type, child->handle}});
  }
}

#include "../generated/destroy_down.inc"

// Destroys down the chain what the application left of `device`: first the
// queue-ordered allocations (on their queues), then, once the device is idle,
// everything else, newest first (so a pipeline goes before its executable and
// a buffer before its memory pool). The wait is bounded (DrainDevice): work
// still running after it may use any of them, so they are left to the
// driver, whose xgpuDestroyDevice abandons that work and leaks what it uses.
void DestroyChildrenDown(CallContext& ctx, LayerDevice& device) {
  std::vector<const ObjectRecord*> children = Select([&](const ObjectRecord& r) { return IsDeviceChild(r, &device); });
  if (children.empty()) return;
  std::sort(children.begin(), children.end(),
            [](const ObjectRecord* a, const ObjectRecord* b) { return a->serial > b->serial; });
  for (const ObjectRecord* child : children) {
    if (child->made_on_type == XGPU_OBJECT_TYPE_QUEUE) DestroyDown(*child, device);
  }
  const size_t left = size_t(std::count_if(children.begin(), children.end(), [](const ObjectRecord* child) {
    return child->made_on_type != XGPU_OBJECT_TYPE_QUEUE;
  }));
  if (left == 0) return;
  if (!DrainDevice(device)) {
    const ObjectRecord* device_record = Objects().Find(XGPU_OBJECT_TYPE_DEVICE, uint64_t(reinterpret_cast<uintptr_t>(device.handle)));
    ctx.Report(Vuid::xgpuDestroyDevice_device_idle, Field{"device"},
               (device_record ? Describe(device_record) : std::string("the device")) + ", whose queues still run work after " +
                   std::to_string(kDestroyDrainNs / 1'000'000) + " ms: the layer leaves its " + std::to_string(left) +
                   " object(s) alive to the driver, which abandons that work (nothing it may use is freed under it)");
    return;
  }
  for (const ObjectRecord* child : children) {
    if (child->made_on_type != XGPU_OBJECT_TYPE_QUEUE) DestroyDown(*child, device);
  }
}

}  // namespace

bool ObjectTracker::ValidateDestroyDevice(CallContext& ctx, XgpuDevice device,
                                          const XgpuAllocationCallbacks* pAllocator) const {
  bool skip = ObjectTrackerGenerated::ValidateDestroyDevice(ctx, device, pAllocator);
  if (ctx.dispatch_record == nullptr) return skip;
  const LayerDevice* layer_device = ctx.device;
  ReportAlive(ctx, Vuid::xgpuDestroyDevice_device_children, "device",
              Select([&](const ObjectRecord& r) { return IsDeviceChild(r, layer_device); }));
  return skip;
}

void ObjectTracker::PreRecordDestroyDevice(CallContext& ctx, XgpuDevice device,
                                           const XgpuAllocationCallbacks* pAllocator) {
  if (ctx.device != nullptr) DestroyChildrenDown(ctx, *ctx.device);
  (void)device;
  (void)pAllocator;
}

void ObjectTracker::PreRecordDestroyInstance(CallContext& ctx, XgpuInstance instance,
                                             const XgpuAllocationCallbacks* pAllocator) {
  const LayerInstance* layer_instance = ctx.instance;
  std::vector<const ObjectRecord*> devices = Select([&](const ObjectRecord& r) {
    return r.instance == layer_instance && r.type == XGPU_OBJECT_TYPE_DEVICE;
  });
  for (const ObjectRecord* record : devices) {
    LayerDevice* device = record->device;
    DestroyChildrenDown(ctx, *device);
    device->next.DestroyDevice(device->handle, record->Allocator());
    delete device;
  }
  (void)instance;
  (void)pAllocator;
}

bool ObjectTracker::ValidateDestroyInstance(CallContext& ctx, XgpuInstance instance,
                                            const XgpuAllocationCallbacks* pAllocator) const {
  bool skip = ObjectTrackerGenerated::ValidateDestroyInstance(ctx, instance, pAllocator);
  if (ctx.dispatch_record == nullptr) return skip;
  const LayerInstance* layer_instance = ctx.instance;
  ReportAlive(ctx, Vuid::xgpuDestroyInstance_instance_devices, "instance", Select([&](const ObjectRecord& r) {
                return r.instance == layer_instance && r.type == XGPU_OBJECT_TYPE_DEVICE;
              }));
  ReportAlive(ctx, Vuid::xgpuDestroyInstance_instance_messengers, "instance", Select([&](const ObjectRecord& r) {
                return r.instance == layer_instance && r.type == XGPU_OBJECT_TYPE_DEBUG_MESSENGER;
              }));
  return skip;
}

bool ObjectTracker::ValidateSetObjectName(CallContext& ctx, XgpuDevice device,
                                          const XgpuDebugObjectNameInfo* pNameInfo) const {
  bool skip = ObjectTrackerGenerated::ValidateSetObjectName(ctx, device, pNameInfo);
  if (!IsUsablePointer(pNameInfo) || ctx.dispatch_record == nullptr) return skip;
  const XgpuObjectType type = pNameInfo->objectType;
  if (!IsValidXgpuObjectType(type)) return skip;  // the implicit enum rule
  switch (type) {
    case XGPU_OBJECT_TYPE_UNKNOWN:
    case XGPU_OBJECT_TYPE_INSTANCE:
    case XGPU_OBJECT_TYPE_PHYSICAL_DEVICE:
    case XGPU_OBJECT_TYPE_DEBUG_MESSENGER:
      return skip | ctx.Report(Vuid::xgpuSetObjectName_pNameInfo_objectType, Field{"pNameInfo->objectType"},
                               std::string(NameOfXgpuObjectType(type)) + ", not an object of a device");
    default:
      break;
  }
  const Field field{"pNameInfo->objectHandle"};
  const ObjectRecord* record = Objects().Find(type, pNameInfo->objectHandle);
  if (record == nullptr) {
    return skip | ctx.Report(Vuid::xgpuSetObjectName_pNameInfo_objectHandle, field,
                             DeadHandleText(type, pNameInfo->objectHandle), {{type, pNameInfo->objectHandle}});
  }
  const ObjectRecord* owner = AncestorOfType(record, XGPU_OBJECT_TYPE_DEVICE);
  if (owner != ctx.dispatch_record) {
    return skip | ctx.Report(Vuid::xgpuSetObjectName_pNameInfo_objectHandle, field,
                             Describe(record) + ", an object of " +
                                 (owner ? Describe(owner) : std::string("no device")) + ", not of " +
                                 Describe(ctx.dispatch_record),
                             {{record->type, record->handle}});
  }
  return skip;
}

}  // namespace xgpu_validation
