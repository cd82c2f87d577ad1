/* The meta-loader side of the loader-call benchmark: the device-level
 * pointers of include/xgpu/xgpu_meta.h (fetched once with
 * xgpuGetDeviceProcAddr), called directly. Its own translation unit, since
 * xgpu_meta.h replaces xgpu.h's prototypes. */
#define XGPU_META_NO_NAME_MACROS 1
#include <xgpu/xgpu_meta.h>

#include "loader_call_shared.h"

void meta_side_load(PFN_xgpuGetInstanceProcAddr get_instance_proc_addr, XgpuInstance instance, XgpuDevice device);
void meta_side_push(XgpuCommandBuffer cb, uint32_t count);

void meta_side_load(PFN_xgpuGetInstanceProcAddr get_instance_proc_addr, XgpuInstance instance, XgpuDevice device) {
  xgpumetaInitializeCustom(get_instance_proc_addr);
  xgpumetaLoadInstance(instance);
  xgpumetaLoadDevice(device);
}

/* `count` calls of xgpuCmdPushConstants through the meta-loader's pointer. */
void meta_side_push(XgpuCommandBuffer cb, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    const loader_call_constants_t c = loader_call_constants(i);
    xgpumeta_xgpuCmdPushConstants(cb, 0, sizeof c, &c);
  }
}
