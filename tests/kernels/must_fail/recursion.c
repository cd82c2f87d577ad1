/* Must not build for AMDGPU: recursion needs a dynamic stack. */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; uint32_t n; uint32_t reserved; } args_t;
__attribute__((noinline)) static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
XGPU_KERNEL(bad_recursion, args_t, args) { args->out[xgpu_global_id(0)] = fib(args->n); }
