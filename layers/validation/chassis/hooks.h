// HookDefaults: a no-op of every hook (generated from the registry). Each
// validation object derives from it and declares, under the same names, the
// hooks it implements; the chassis calls the objects' hooks by name.
#ifndef XGPU_LAYERS_VALIDATION_CHASSIS_HOOKS_H_
#define XGPU_LAYERS_VALIDATION_CHASSIS_HOOKS_H_

#include "layer.h"

namespace xgpu_validation {

#include "../generated/hook_defaults.inc"

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_CHASSIS_HOOKS_H_
