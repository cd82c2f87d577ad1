/* Must not build: libc headers are not available to kernels. */
#include <stdio.h>
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; } args_t;
XGPU_KERNEL(bad_stdio, args_t, args) { args->out[0] = (uint32_t)printf("hi\n"); }
