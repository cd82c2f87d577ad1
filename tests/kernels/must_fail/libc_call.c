/* Must not build: a call to a libc function declared by hand. */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; } args_t;
int puts(const char* s);
XGPU_KERNEL(bad_libc, args_t, args) { args->out[0] = (uint32_t)puts("hi"); }
