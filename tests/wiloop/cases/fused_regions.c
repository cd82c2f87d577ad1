/* Fused regions (tools/xgpu-wiloop/fused_regions.cpp, spec/kernels.md
 * "Work-item loops" step 8). Legality: in a kernel without a dispatcher, a
 * region that ends at a barrier and the region after it run as one x loop
 * of a one-row workgroup when an order of the items keeps every
 * conflicting pair of their group-memory accesses in barrier order: both
 * regions only compute, load and store group memory and the item's own
 * stack, and load the kernarg and the record; neither narrows its x loop;
 * every group address is base + scale * (x + c). A pair of accesses of
 * items j (first region) and i (second) touches one element only when
 * x_j - x_i = d, a constant: d > 0 asks for descending x, d < 0 ascending;
 * pairs that need both orders are not fused. A descending loop whose
 * pairs all have one d is split at d. */
#include <xgpu/kernel.h>

typedef struct scan_args {
  const uint32_t* in;
  uint32_t* out;
  uint32_t n, k;
} scan_args_t;
typedef struct scan_shared {
  uint32_t v[256];
} scan_shared_t;

/* Fires: Hillis-Steele's scan, each step `left = v[x - off]; barrier;
 * v[x] += left; barrier` one descending loop split at off. (Region 0
 * loads the input: not fused with region 1.) */
XGPU_KERNEL_GROUPSHARED(scan, scan_args_t, args, scan_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  for (uint32_t off = 1; off < 64u; off <<= 1) {
    const uint32_t left = lid >= off ? sh->v[lid - off] : 0u;
    xgpu_barrier();
    sh->v[lid] += left;
    xgpu_barrier();
  }
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(scan, 2);
// REMARK: kernel 'scan': not fused-regions: regions 0 and 1: a store to memory other than group memory and the item's own stack, or a load of memory other than group memory, the kernarg and the record
// REMARK: kernel 'scan': fused-regions: regions 1 and 2 as one loop over the items in descending order, split at item 1{{$}}
// REMARK: kernel 'scan': fused-regions: regions 3 and 4 as one loop over the items in descending order, split at item 2{{$}}
// REMARK: kernel 'scan': fused-regions: regions 5 and 6 as one loop over the items in descending order, split at item 4{{$}}
// REMARK: kernel 'scan': fused-regions: regions 7 and 8 as one loop over the items in descending order, split at item 8{{$}}
// REMARK: kernel 'scan': fused-regions: regions 9 and 10 as one loop over the items in descending order, split at item 16{{$}}
// REMARK: kernel 'scan': fused-regions: regions 11 and 12 as one loop over the items in descending order, split at item 32{{$}}
// REMARK-NOT: kernel 'scan': {{(not )?}}fused-regions:
// REMARK: kernel 'scan': work-item-loops:

/* Fires: one step, off = 4: `left = x >= 4 ? v[x - 4] : 0; barrier;
 * v[x] += left` (d = 4), split at item 4. */
XGPU_KERNEL_GROUPSHARED(scan_step, scan_args_t, args, scan_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  const uint32_t left = lid >= 4u ? sh->v[lid - 4u] : 0u;
  xgpu_barrier();
  sh->v[lid] += left;
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(scan_step, 2);
// REMARK: kernel 'scan_step': fused-regions: regions 1 and 2 as one loop over the items in descending order, split at item 4{{$}}
// REMARK: kernel 'scan_step': work-item-loops:
// The items from 4 up, descending, in i64; x - 4 indexes group memory.
// IR-LABEL: define internal void @scan_step_xgpu_wi_(
// IR: [[X:%xgpu.x64[0-9]*]] = phi i64
// IR-NEXT: {{%[^ ]+}} = add nsw i64 [[X]], -4
// IR: {{%[^ ]+}} = add nsw i64 [[X]], -1
// IR-NEXT: {{%[^ ]+}} = icmp eq i64 [[X]], 4
// IR-LABEL: define internal void @scan_step_xgpu_run_workgroup_(

/* Fires, ascending: region 0 stores the item's own element and region 1
 * reads the one 4 items down (d = -4), which the ascending loop has
 * stored already. (Fusing regions 0 and 1 leaves region 2 unpaired.) */
XGPU_KERNEL_GROUPSHARED(scan_seed, scan_args_t, args, scan_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid] = lid * 3u;
  xgpu_barrier();
  const uint32_t left = lid >= 4u ? sh->v[lid - 4u] : 0u;
  xgpu_barrier();
  sh->v[lid] += left;
  xgpu_barrier();
  args->out[xgpu_global_id(0)] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(scan_seed, 2);
// REMARK: kernel 'scan_seed': fused-regions: regions 0 and 1 as one loop over the items in ascending order{{$}}
// REMARK: kernel 'scan_seed': not fused-regions: regions 2 and 3: a store to memory other than group memory
// REMARK: kernel 'scan_seed': work-item-loops:

/* Fires, ascending: each item reads its right neighbour's element before
 * that item overwrites it (d = -1). The fused loop counts the items in
 * i64 and indexes group memory with that counter. */
XGPU_KERNEL_GROUPSHARED(shift_down, scan_args_t, args, scan_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  const uint32_t right = sh->v[lid + 1u];
  xgpu_barrier();
  sh->v[lid] = right * 3u;
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(shift_down, 2);
// REMARK: kernel 'shift_down': fused-regions: regions 1 and 2 as one loop over the items in ascending order{{$}}
// REMARK: kernel 'shift_down': work-item-loops:
// IR-LABEL: define internal void @shift_down_xgpu_wi_(
// IR: %xgpu.x64 = phi i64
// IR: getelementptr inbounds [256 x i32], ptr %{{[0-9]+}}, i64 0, i64 %xgpu.x.index
// IR-LABEL: define internal void @shift_down_xgpu_run_workgroup_(

/* Near miss: accesses that need both orders (the left neighbour's element
 * asks for descending x, the right one's for ascending). */
XGPU_KERNEL_GROUPSHARED(both_orders, scan_args_t, args, scan_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid + 1u] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  const uint32_t around = sh->v[lid] + sh->v[lid + 2u];
  xgpu_barrier();
  sh->v[lid + 1u] = around;
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid + 1u];
}
XGPU_KERNEL_BINDINGS(both_orders, 2);
// REMARK: kernel 'both_orders': not fused-regions: regions 1 and 2: conflicting group accesses need both orders of the items
// REMARK-NOT: kernel 'both_orders': fused-regions:
// REMARK: kernel 'both_orders': work-item-loops:

/* Near miss: a global store in a region. */
XGPU_KERNEL_GROUPSHARED(global_store, scan_args_t, args, scan_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  const uint32_t left = lid >= 4u ? sh->v[lid - 4u] : 0u;
  if (g < args->n) args->out[g] = left;
  xgpu_barrier();
  sh->v[lid] += left;
  xgpu_barrier();
  if (g < args->n) args->out[g] += sh->v[lid];
}
XGPU_KERNEL_BINDINGS(global_store, 2);
// REMARK: kernel 'global_store': not fused-regions: regions 1 and 2: a store to memory other than group memory and the item's own stack, or a load of memory other than group memory, the kernarg and the record
// REMARK-NOT: kernel 'global_store': fused-regions:
// REMARK: kernel 'global_store': work-item-loops:

/* Near miss: a group access not of the form base + scale * (x + c) (the
 * mirrored element). */
XGPU_KERNEL_GROUPSHARED(reversed, scan_args_t, args, scan_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  const uint32_t mirror = sh->v[255u - lid];
  xgpu_barrier();
  sh->v[lid] = mirror;
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(reversed, 2);
// REMARK: kernel 'reversed': not fused-regions: regions 1 and 2: a group address that is not base + scale * (x + c)
// REMARK-NOT: kernel 'reversed': fused-regions:
// REMARK: kernel 'reversed': work-item-loops:

/* Near miss: the same with a stride (2x). */
XGPU_KERNEL_GROUPSHARED(strided, scan_args_t, args, scan_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  const uint32_t pair = sh->v[(2u * lid) % 256u];
  xgpu_barrier();
  sh->v[lid] = pair;
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(strided, 2);
// REMARK: kernel 'strided': not fused-regions: regions 1 and 2: a group address that is not base + scale * (x + c)
// REMARK: kernel 'strided': work-item-loops:

/* Near miss: a conflicting pair of accesses of different element sizes. */
typedef union halves_shared {
  uint32_t v[256];
  uint16_t h[512];
} halves_shared_t;
XGPU_KERNEL_GROUPSHARED(halves, scan_args_t, args, halves_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  const uint32_t half = sh->h[lid + 1u];
  xgpu_barrier();
  sh->v[lid] = half;
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(halves, 2);
// REMARK: kernel 'halves': not fused-regions: regions 1 and 2: group accesses of different element sizes
// REMARK: kernel 'halves': work-item-loops:

/* Near miss: the first region narrows its x loop (`if (lid < 32)`), which
 * fusion leaves alone without a word. */
XGPU_KERNEL_GROUPSHARED(narrowed, scan_args_t, args, scan_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid] = lid;
  xgpu_barrier();
  if (lid < 32u) sh->v[lid] += sh->v[lid + 32u];
  xgpu_barrier();
  sh->v[lid] *= 3u;
  xgpu_barrier();
  args->out[xgpu_global_id(0)] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(narrowed, 2);
// REMARK: kernel 'narrowed': narrowed-region: region 1 runs the items x < 32 only
// REMARK-NOT: kernel 'narrowed': fused-regions: regions 1 and 2
// REMARK: kernel 'narrowed': work-item-loops:
