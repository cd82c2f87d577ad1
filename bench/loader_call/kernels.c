/* The loader-call benchmark's kernel (C17): copies its 16 bytes of
 * constants into the output, so the last push of a recording is checked. */
#include <xgpu/kernel.h>

#include "loader_call_shared.h"

typedef struct store_args {
  uint32_t* out;              /* binding 0: 4 uint32 */
  loader_call_constants_t c;  /* 16 bytes of constants */
} store_args_t;

XGPU_KERNEL_SIZED(store_constants, store_args_t, args, 1u, 1u, 1u) {
  for (uint32_t i = 0; i < 4u; ++i) args->out[i] = args->c.v[i];
}
XGPU_KERNEL_BINDINGS(store_constants, 1);
