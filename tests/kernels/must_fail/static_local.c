/* Must not build: a static variable in a kernel. */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; } args_t;
XGPU_KERNEL(bad_static, args_t, args) {
  static uint32_t calls;
  args->out[0] = ++calls;
}
