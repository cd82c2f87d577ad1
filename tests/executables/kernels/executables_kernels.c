/* Kernels of the executable tests: what the fuzzer corrupts (a plain kernel
 * and one with groupshared memory and barriers, so that both host kernel
 * shapes and their layout records are in the code objects) and what the
 * many-executables test loads. */
#include <xgpu/kernel.h>

typedef struct executables_iota_args {
  uint32_t* out; /* binding 0: n words */
  uint32_t n;    /* element count */
  uint32_t pad;  /* zero */
} executables_iota_args_t;

typedef struct executables_sum_args {
  uint32_t* out; /* binding 0: one word per workgroup */
} executables_sum_args_t;

typedef struct executables_shared {
  uint32_t words[64]; /* one per work item */
} executables_shared_t;

/* out[i] = i for i < n. */
XGPU_KERNEL(executables_iota, executables_iota_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(executables_iota, 1);

/* out[workgroup] = the sum of the local ids 0..63, through groupshared memory. */
XGPU_KERNEL_GROUPSHARED(executables_sum, executables_sum_args_t, args, executables_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  shared->words[lid] = lid;
  xgpu_barrier();
  if (lid == 0) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 64; ++i) sum += shared->words[i];
    args->out[xgpu_workgroup_id(0)] = sum;
  }
}
XGPU_KERNEL_BINDINGS(executables_sum, 1);
