/* Invariant loads of item loops (tools/xgpu-wiloop/invariant_loads.cpp,
 * spec/kernels.md "Work-item loops" step 10). Legality: the iterations of
 * an item loop are different work items; a plain load of one address that
 * every item makes before it writes anything reads the same value in every
 * iteration of a program without data races (another item's write to it,
 * with nothing ordering the two, is a race), so it is made once, in the
 * preheader of the rotated loop (which runs only when an item does). Not
 * where the loop holds a fence, an atomic of acquire or stronger order or
 * a call (they may order another item's write before the load), where a
 * write may come first in the iteration, where not every item makes the
 * load, nor for loads of the function's own stack. */
#include <xgpu/kernel.h>

typedef struct state {
  uint32_t count;
  uint32_t flag;
} state_t;
typedef struct args {
  const uint32_t* in;
  uint32_t* out;
  state_t* state;
} args_t;

// REMARK-NOT: function 'store_first_xgpu_run_workgroup_': invariant-loads
// REMARK-NOT: function 'acquire_in_loop_xgpu_run_workgroup_': invariant-loads
// REMARK-NOT: function 'some_items_xgpu_run_workgroup_': invariant-loads

/* Fires: the bound an indirect dispatch's kernel reads from a buffer (the
 * state pointer from the kernarg copy, then its count); then the item loop
 * is versioned on the check against it. */
XGPU_KERNEL(bound_from_buffer, args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->state->count) return;
  args->out[i] = args->in[i] * 3u;
}
XGPU_KERNEL_BINDINGS(bound_from_buffer, 3);
// REMARK: function 'bound_from_buffer_xgpu_run_workgroup_': invariant-loads: {{[1-9]}} load(s) every item makes of one address before it writes, made once per item loop
// REMARK-NEXT: function 'bound_from_buffer_xgpu_run_workgroup_': bound-checks: an item loop versioned

/* Near miss: each item writes before it reads the count (the count its own
 * write may have changed). */
XGPU_KERNEL(store_first, args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  args->out[i] = 1u;
  if (i >= args->state->count) return;
  args->out[i] = args->in[i];
}
XGPU_KERNEL_BINDINGS(store_first, 3);

/* Near miss: an acquire load in the loop may order another item's release
 * before the count's load. */
XGPU_KERNEL(acquire_in_loop, args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  const uint32_t flag = xgpu_atomic_load(&args->state->flag, XGPU_ORDER_ACQUIRE, XGPU_SCOPE_AGENT);
  if (i >= args->state->count) return;
  args->out[i] = args->in[i] + flag;
}
XGPU_KERNEL_BINDINGS(acquire_in_loop, 3);

/* Near miss: only odd items read the count (an even-only grid reads it
 * nowhere, and the pointer may not be valid then). */
XGPU_KERNEL(some_items, args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  uint32_t v = args->in[i];
  if (i & 1u) v += args->state->count;
  args->out[i] = v;
}
XGPU_KERNEL_BINDINGS(some_items, 3);
// REMARK-NOT: function 'store_first_xgpu_run_workgroup_': invariant-loads
// REMARK-NOT: function 'acquire_in_loop_xgpu_run_workgroup_': invariant-loads
// REMARK-NOT: function 'some_items_xgpu_run_workgroup_': invariant-loads
