// ObjectTracker: every handle the layer has seen (chassis/object_map.h), its
// type, parent, instance, device and debug name. It checks the implicit
// handle and parent rules against them (a destroyed, never-created or
// foreign handle is reported, never dereferenced) and reports the objects
// still alive when their device or instance is destroyed (api.md 1.8). The
// records themselves - made when a command creates or retrieves an object,
// ended when one destroys it - are the state tracker's to write (state/).
//
// The handle and parent checks are generated from the registry
// (ObjectTrackerGenerated, generated/object_tracker_checks.inc);
// ObjectTracker adds the rules written by hand.
//
// Thread-safe: all state is in the object map.
#ifndef XGPU_LAYERS_VALIDATION_OBJECT_TRACKER_OBJECT_TRACKER_H_
#define XGPU_LAYERS_VALIDATION_OBJECT_TRACKER_OBJECT_TRACKER_H_

#include <cstdint>

#include "../chassis/hooks.h"
#include "../chassis/object_map.h"

namespace xgpu_validation {

class ObjectTrackerGenerated : public HookDefaults {
 public:
#include "../generated/object_tracker_decls.inc"

 protected:
  // The call's dispatchable handle (already looked up by the chassis).
  static bool CheckDispatchHandle(CallContext& ctx, Vuid vuid, const Field& field, bool optional) {
    if (ctx.dispatch_record != nullptr) [[likely]] return false;
    return ReportDispatchHandle(ctx, vuid, field, optional);
  }
  [[gnu::cold]] static bool ReportDispatchHandle(CallContext& ctx, Vuid vuid, const Field& field, bool optional);
  // A handle parameter or field: NULL (allowed when optional) or a live
  // object of `type`. Returns its record, or nullptr (having reported it in
  // *skip when it is not allowed).
  // Inline: a handle in the thread's lookup cache (a submission's command
  // buffer and bound buffers, submit after submit) takes no call.
  template <typename Handle>
  static const ObjectRecord* CheckHandle(CallContext& ctx, Vuid vuid, const Field& field, XgpuObjectType type,
                                         Handle handle, bool optional, bool* skip) {
    const uint64_t value = reinterpret_cast<uintptr_t>(handle);
    if (value != 0) {
      if (const ObjectRecord* record = ObjectMap::FindCached(type, value)) [[likely]] return record;
    }
    return CheckHandleValue(ctx, vuid, field, type, value, optional, skip);
  }
  static const ObjectRecord* CheckHandleValue(CallContext& ctx, Vuid vuid, const Field& field, XgpuObjectType type,
                                              uint64_t handle, bool optional, bool* skip);
  // `record` was created from the call's device (parent_type XGPU_OBJECT_TYPE_DEVICE) or instance.
  // Inline: a device-level object names its device directly (ObjectRecord::device, the
  // device record's own for the device itself), so the common case compares two pointers.
  static bool CheckParent(CallContext& ctx, Vuid vuid, const Field& field, const ObjectRecord* record,
                          XgpuObjectType parent_type) {
    if (parent_type == XGPU_OBJECT_TYPE_DEVICE && ctx.dispatch_record != nullptr && record->device != nullptr &&
        record->device == ctx.dispatch_record->device) [[likely]] {
      return false;
    }
    return CheckParentSlow(ctx, vuid, field, record, parent_type);
  }
  static bool CheckParentSlow(CallContext& ctx, Vuid vuid, const Field& field, const ObjectRecord* record,
                              XgpuObjectType parent_type);
};

class ObjectTracker : public ObjectTrackerGenerated {
 public:
  // Objects left alive when their device or instance is destroyed (api.md
  // 1.8) are reported, each by type and name, but the call is not refused:
  // the loader releases its own record of the device or instance whatever
  // the layer does, so a refused destroy would leave an object nothing can
  // destroy. Instead the layer destroys what was left, down the chain (the
  // PreRecord hooks), so the driver never sees a parent die under its children.
  bool ValidateDestroyDevice(CallContext& ctx, XgpuDevice device, const XgpuAllocationCallbacks* pAllocator) const;
  bool ValidateDestroyInstance(CallContext& ctx, XgpuInstance instance,
                               const XgpuAllocationCallbacks* pAllocator) const;
  void PreRecordDestroyDevice(CallContext& ctx, XgpuDevice device, const XgpuAllocationCallbacks* pAllocator);
  void PreRecordDestroyInstance(CallContext& ctx, XgpuInstance instance, const XgpuAllocationCallbacks* pAllocator);
  // Debug names, for messages; the object named must be one of the device's.
  bool ValidateSetObjectName(CallContext& ctx, XgpuDevice device, const XgpuDebugObjectNameInfo* pNameInfo) const;
};

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_OBJECT_TRACKER_OBJECT_TRACKER_H_
