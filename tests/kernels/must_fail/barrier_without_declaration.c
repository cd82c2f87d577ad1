/* Must not build: xgpu_barrier() in a kernel declared without barriers (on
 * the host it would run in loop mode, where a barrier cannot work). */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; uint32_t reserved[2]; } args_t;
XGPU_KERNEL(bad_barrier, args_t, args) {
  args->out[xgpu_global_id(0)] = 1;
  xgpu_barrier();
}
