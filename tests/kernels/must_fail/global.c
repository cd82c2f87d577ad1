/* Must not build: a writable global. */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; } args_t;
int counter;
XGPU_KERNEL(bad_global, args_t, args) { args->out[0] = (uint32_t)++counter; }
