/* Must not build: thread-local storage. */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; } args_t;
static _Thread_local uint32_t per_thread;
XGPU_KERNEL(bad_tls, args_t, args) { args->out[0] = ++per_thread; }
