/* Hand-written host code object for the hsa-cpu tests: kernels written
 * directly against include/xgpu/host_kernel.h (no kernel toolchain).
 * TEST_ISA_NAME selects the ISA the object claims to be built for. */
#include <stdint.h>
#include <time.h>

#include <xgpu/host_kernel.h>

#define EXPORT __attribute__((visibility("default")))
#define KERNEL_DESCRIPTOR(kname, group, flags_, workgroup_fn, workitem_fn, args_type) \
  EXPORT const xgpu_host_kernel_descriptor_t kname##_kd __asm__(#kname ".kd") = {   \
      XGPU_HOST_KERNEL_MAGIC, XGPU_HOST_KERNEL_ABI_VERSION, #kname, workgroup_fn,     \
      workitem_fn, sizeof(args_type), _Alignof(args_type), group, 0, {0, 0, 0}, flags_}

EXPORT const xgpu_host_code_object_info_t xgpu_host_code_object_info = {
    XGPU_HOST_KERNEL_MAGIC, XGPU_HOST_KERNEL_ABI_VERSION, TEST_ISA_NAME};

/* A variable symbol (HSA_SYMBOL_KIND_VARIABLE). */
EXPORT uint32_t test_variable = 7;

/* empty: does nothing (dispatch overhead). */
typedef struct { uint32_t unused; } empty_args_t;
static void empty_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  (void)kernarg;
  (void)wg;
}
KERNEL_DESCRIPTOR(empty, 0, 0, empty_workgroup, 0, empty_args_t);

/* write_ids: out[linear global id] += linear + 1 for every work item, so a
 * missing or repeated item shows. */
typedef struct { uint32_t* out; } write_ids_args_t;
static void write_ids_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  const write_ids_args_t* args = (const write_ids_args_t*)kernarg;
  for (uint32_t z = 0; z < wg->item_count[2]; ++z)
    for (uint32_t y = 0; y < wg->item_count[1]; ++y)
      for (uint32_t x = 0; x < wg->item_count[0]; ++x) {
        const uint64_t gx = (uint64_t)wg->workgroup_id[0] * wg->workgroup_size[0] + x;
        const uint64_t gy = (uint64_t)wg->workgroup_id[1] * wg->workgroup_size[1] + y;
        const uint64_t gz = (uint64_t)wg->workgroup_id[2] * wg->workgroup_size[2] + z;
        const uint64_t linear = gx + wg->grid_size[0] * (gy + (uint64_t)wg->grid_size[1] * gz);
        __atomic_fetch_add(&args->out[linear], (uint32_t)(linear + 1), __ATOMIC_RELAXED);
      }
}
KERNEL_DESCRIPTOR(write_ids, 0, 0, write_ids_workgroup, 0, write_ids_args_t);

/* wg_reduce (fiber mode): out[workgroup] = sum of in[] over the workgroup's
 * items, by a tree reduction in group memory with a barrier per level. */
typedef struct { const uint32_t* in; uint32_t* out; } wg_reduce_args_t;
static void wg_reduce_workitem(const void* kernarg, xgpu_host_workgroup_t* wg,
                               const uint32_t local_id[3]) {
  const wg_reduce_args_t* args = (const wg_reduce_args_t*)kernarg;
  uint32_t* lds = (uint32_t*)wg->group_segment;
  const uint32_t n = wg->item_count[0];
  const uint32_t local = local_id[0];
  const uint32_t global = wg->workgroup_id[0] * wg->workgroup_size[0] + local;
  lds[local] = args->in[global];
  wg->barrier(wg);
  uint32_t width = 1;
  while (width < wg->workgroup_size[0]) width <<= 1;
  for (uint32_t s = width / 2; s > 0; s >>= 1) {
    if (local < s && local + s < n) lds[local] += lds[local + s];
    wg->barrier(wg);
  }
  if (local == 0) args->out[wg->workgroup_id[0]] = lds[0];
}
static void wg_reduce_unused(const void* kernarg, xgpu_host_workgroup_t* wg) {
  (void)kernarg;
  (void)wg;
}
KERNEL_DESCRIPTOR(wg_reduce, 0, XGPU_HOST_KERNEL_FLAG_USES_BARRIERS, wg_reduce_unused,
                  wg_reduce_workitem, wg_reduce_args_t);

/* group_probe: out[2*wg] = group segment bytes, out[2*wg+1] = 1 when the
 * segment is non-null and aligned; 256 static group bytes. */
typedef struct { uint32_t* out; } group_probe_args_t;
static void group_probe_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  const group_probe_args_t* args = (const group_probe_args_t*)kernarg;
  const uint32_t id = wg->workgroup_id[0];
  unsigned char* group = (unsigned char*)wg->group_segment;
  for (uint32_t i = 0; i < wg->group_segment_size; ++i) group[i] = (unsigned char)i;
  args->out[2 * id] = wg->group_segment_size;
  args->out[2 * id + 1] =
      group != 0 && ((uintptr_t)group % XGPU_HOST_GROUP_SEGMENT_ALIGNMENT) == 0;
}
KERNEL_DESCRIPTOR(group_probe, 256, 0, group_probe_workgroup, 0, group_probe_args_t);

/* record_order: every workgroup sleeps delay_us, then takes a ticket:
 * tickets[wg] = (*counter)++. */
typedef struct { uint32_t* counter; uint32_t* tickets; uint32_t delay_us; } record_order_args_t;
static void record_order_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  const record_order_args_t* args = (const record_order_args_t*)kernarg;
  if (args->delay_us != 0) {
    struct timespec ts = {0, (long)args->delay_us * 1000};
    nanosleep(&ts, 0);
  }
  args->tickets[wg->workgroup_id[0]] = __atomic_fetch_add(args->counter, 1, __ATOMIC_SEQ_CST);
}
KERNEL_DESCRIPTOR(record_order, 0, 0, record_order_workgroup, 0, record_order_args_t);
