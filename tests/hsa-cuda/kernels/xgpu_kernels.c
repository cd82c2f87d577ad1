/* <xgpu/kernel.h> kernels built for nvptx64-nvidia-cuda (sm_90): the nvptx
 * target's built-ins, partial workgroups, barriers, groupshared memory
 * (static and dynamic) and ordered atomics, run through hsa-cuda. */
#include <xgpu/kernel.h>

typedef struct ids_args {
  uint32_t* out;  /* per work item: 4 words */
  uint32_t* grid; /* per dimension: grid size, workgroup count, 0 */
} ids_args_t;

/* A 2D grid: each item records its global linear id and its workgroup's
 * item count in x; item (0,0) records grid sizes and workgroup counts. */
#define IDS_BODY                                                      \
  uint32_t linear = xgpu_global_linear_id();                          \
  args->out[linear * 4 + 0] = linear;                                 \
  args->out[linear * 4 + 1] = xgpu_workgroup_item_count(0);           \
  args->out[linear * 4 + 2] = xgpu_local_linear_id();                 \
  args->out[linear * 4 + 3] = xgpu_workgroup_linear_id();             \
  if (linear == 0) {                                                  \
    for (uint32_t d = 0; d < 3; ++d) {                                \
      args->grid[d * 2 + 0] = xgpu_grid_size(d);                      \
      args->grid[d * 2 + 1] = xgpu_workgroup_count(d);                \
    }                                                                 \
  }
XGPU_KERNEL(ids, ids_args_t, args) { IDS_BODY }
XGPU_KERNEL_BINDINGS(ids, 2);

/* The same with a required workgroup size of 32 x 2 x 1: its ids use the
 * size as constants (the local id in z is 0); a dispatch of another size is
 * refused. */
XGPU_KERNEL_SIZED(ids_sized, ids_args_t, args, 32u, 2u, 1u) { IDS_BODY }
XGPU_KERNEL_BINDINGS(ids_sized, 2);

typedef struct reverse_args {
  const uint32_t* in;
  uint32_t* out;
} reverse_args_t;
typedef struct reverse_shared {
  uint32_t values[256];
} reverse_shared_t;

/* Reverses each workgroup's items through groupshared memory; a partial last
 * workgroup reverses only its items. */
XGPU_KERNEL_GROUPSHARED(reverse, reverse_args_t, args, reverse_shared_t, shared) {
  uint32_t local = xgpu_local_id(0);
  uint32_t count = xgpu_workgroup_item_count(0);
  uint32_t base = xgpu_workgroup_id(0) * xgpu_workgroup_size(0);
  shared->values[local] = args->in[base + local];
  xgpu_barrier();
  args->out[base + local] = shared->values[count - 1 - local];
}

typedef struct rotate_args {
  uint32_t* out;
} rotate_args_t;

/* Dynamic groupshared: each item stores its id, then reads its neighbour's. */
XGPU_KERNEL_BARRIERS(rotate, rotate_args_t, args) {
  uint32_t* slots = (uint32_t*)xgpu_dynamic_groupshared();
  uint32_t local = xgpu_local_id(0);
  uint32_t size = xgpu_workgroup_size(0);
  slots[local] = xgpu_global_id(0) * 10u;
  xgpu_barrier();
  args->out[xgpu_global_id(0)] = slots[(local + 1) % size];
}

typedef struct atomics_args {
  uint32_t* counter; /* [0] sum, [1] max, [2] tickets handed out in order */
  uint32_t* order;   /* per item: its ticket */
} atomics_args_t;

XGPU_KERNEL(atomics, atomics_args_t, args) {
  uint32_t id = xgpu_global_id(0);
  xgpu_atomic_fetch_add(&args->counter[0], id, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  xgpu_atomic_fetch_max(&args->counter[1], id, XGPU_ORDER_ACQ_REL, XGPU_SCOPE_AGENT);
  args->order[id] = xgpu_atomic_fetch_add(&args->counter[2], 1u, XGPU_ORDER_SEQ_CST, XGPU_SCOPE_SYSTEM);
}
