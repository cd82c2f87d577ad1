/* Hand-written host code object for the hsa-cpu tests: kernels written
 * directly against include/xgpu/host_kernel.h (no kernel toolchain).
 * TEST_ISA_NAME selects the ISA the object claims to be built for. */
#define _GNU_SOURCE /* gettid */
#include <stdint.h>
#include <time.h>
#include <unistd.h>

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

/* group_where: out[wg] = the address of the group segment it ran with;
 * every thread that runs workgroups has its own, so it names the thread.
 * 64 static group bytes. */
typedef struct { uint64_t* out; } group_where_args_t;
static void group_where_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  const group_where_args_t* args = (const group_where_args_t*)kernarg;
  args->out[wg->workgroup_id[0]] = (uint64_t)(uintptr_t)wg->group_segment;
}
KERNEL_DESCRIPTOR(group_where, 64, 0, group_where_workgroup, 0, group_where_args_t);

/* busy: each workgroup runs `rounds` rounds of a dependent chain the
 * compiler cannot fold (a workgroup of known, steady cost), and writes the
 * result to out[wg]. */
typedef struct { uint64_t* out; uint64_t rounds; } busy_args_t;
static void busy_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  const busy_args_t* args = (const busy_args_t*)kernarg;
  uint64_t x = wg->workgroup_id[0] + 1;
  for (uint64_t i = 0; i < args->rounds; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    __asm__ volatile("" : "+r"(x));
  }
  args->out[wg->workgroup_id[0]] = x;
}
KERNEL_DESCRIPTOR(busy, 0, 0, busy_workgroup, 0, busy_args_t);

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

/* Waits (sleeping 50 us at a time) until *word is at least `target`, for at
 * most 10 s, so a failing test cannot hang. Returns 1 when reached. */
static int wait_at_least(const uint32_t* word, uint32_t target) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) >= target) return 1;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= 10) return 0;
    struct timespec pause = {0, 50000};
    nanosleep(&pause, 0);
  }
}

/* thread_id: out[0] = the id of the thread running the workgroup (a
 * single-workgroup dispatch runs on its queue's packet processor). */
typedef struct { int32_t* out; } thread_id_args_t;
static void thread_id_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  (void)wg;
  ((const thread_id_args_t*)kernarg)->out[0] = (int32_t)gettid();
}
KERNEL_DESCRIPTOR(thread_id, 0, 0, thread_id_workgroup, 0, thread_id_args_t);

/* gate: keeps a dispatch in flight after its queue's processor moved on.
 * A workgroup on the processor thread (processor_tid) does not block: it
 * waits until a worker holds another workgroup of the dispatch, then
 * returns. Workgroups on workers count themselves in *held and block until
 * *release is non-zero. Every workgroup adds 1 to *finished at its end. */
typedef struct {
  uint32_t* held;
  const uint32_t* release;
  uint32_t* finished;
  int32_t processor_tid;
} gate_args_t;
static void gate_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  (void)wg;
  const gate_args_t* args = (const gate_args_t*)kernarg;
  if ((int32_t)gettid() == args->processor_tid) {
    wait_at_least(args->held, 1);
  } else {
    __atomic_fetch_add(args->held, 1, __ATOMIC_SEQ_CST);
    wait_at_least(args->release, 1);
  }
  __atomic_fetch_add(args->finished, 1, __ATOMIC_SEQ_CST);
}
KERNEL_DESCRIPTOR(gate, 0, 0, gate_workgroup, 0, gate_args_t);

/* snapshot: out[0] = *counter + 1 when the workgroup runs (0: not run). */
typedef struct { const uint32_t* counter; uint32_t* out; } snapshot_args_t;
static void snapshot_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  (void)wg;
  const snapshot_args_t* args = (const snapshot_args_t*)kernarg;
  args->out[0] = __atomic_load_n(args->counter, __ATOMIC_SEQ_CST) + 1;
}
KERNEL_DESCRIPTOR(snapshot, 0, 0, snapshot_workgroup, 0, snapshot_args_t);

/* group_owner: each workgroup fills its whole group segment with its id,
 * waits until `concurrent` workgroups have filled theirs (at most 10 s),
 * holds on 1 ms more, then checks its segment still holds only its id.
 * out[wg] = 1 when intact, 2 when another workgroup wrote into it;
 * *max_running = the most workgroups seen holding their segment at once. */
typedef struct {
  uint32_t* out;
  uint32_t* running;
  uint32_t* max_running;
  uint32_t concurrent;
} group_owner_args_t;
static void group_owner_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  const group_owner_args_t* args = (const group_owner_args_t*)kernarg;
  const uint32_t id = wg->workgroup_id[0] + 1;
  uint32_t* group = (uint32_t*)wg->group_segment;
  const uint32_t words = wg->group_segment_size / 4;
  for (uint32_t i = 0; i < words; ++i) __atomic_store_n(&group[i], id, __ATOMIC_RELAXED);
  const uint32_t running = __atomic_add_fetch(args->running, 1, __ATOMIC_SEQ_CST);
  uint32_t seen = __atomic_load_n(args->max_running, __ATOMIC_RELAXED);
  while (running > seen &&
         !__atomic_compare_exchange_n(args->max_running, &seen, running, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  wait_at_least(args->max_running, args->concurrent);
  struct timespec hold = {0, 1000000};
  nanosleep(&hold, 0);
  uint32_t intact = 1;
  for (uint32_t i = 0; i < words; ++i) intact &= __atomic_load_n(&group[i], __ATOMIC_RELAXED) == id;
  __atomic_sub_fetch(args->running, 1, __ATOMIC_SEQ_CST);
  args->out[wg->workgroup_id[0]] = intact ? 1 : 2;
}
KERNEL_DESCRIPTOR(group_owner, 0, 0, group_owner_workgroup, 0, group_owner_args_t);

/* fault: workgroup `faulting_group` (x) faults the way `mode` says; every
 * other workgroup sets ran[workgroup] = 1. Modes: */
#define FAULT_READ 0u           /* load from `address` */
#define FAULT_WRITE 1u          /* store to `address` */
#define FAULT_DIVIDE 2u         /* integer division by `divisor` (0) */
#define FAULT_ILLEGAL 3u        /* an undefined instruction (ud2) */
#define FAULT_STACK_OVERFLOW 4u /* unbounded recursion */
#define FAULT_NONE 5u           /* nothing faults */
typedef struct {
  uint64_t address;        /* what FAULT_READ / FAULT_WRITE access */
  uint32_t* ran;           /* ran[workgroup] = 1 when it finished */
  uint32_t mode;           /* FAULT_* */
  uint32_t faulting_group; /* x id of the workgroup that faults */
  uint32_t divisor;        /* 0 for FAULT_DIVIDE */
  uint32_t depth;          /* out: deepest recursion level reached */
} fault_args_t;

/* Recursion until the stack's guard page, half a KiB per level (frames
 * smaller than the guard page, so no level steps over it). Not
 * instrumented: ASan would move the frames to its fake stack. */
__attribute__((noinline, no_sanitize("address"))) static uint32_t recurse(volatile uint32_t* depth,
                                                                          uint32_t level) {
  volatile char page[512];
  page[0] = (char)level;
  *depth = level;
  if (level == UINT32_MAX) return 0; /* never: the stack ends long before */
  return recurse(depth, level + 1) + page[0];
}

/* The faults are the CPU's own, sanitizers or not (UBSan would report the
 * division first; ASan's checks of the bad addresses are left out). */
__attribute__((no_sanitize("address", "undefined"))) static void fault_now(const fault_args_t* args,
                                                                           volatile uint32_t* depth) {
  switch (args->mode) {
    case FAULT_READ: (void)*(volatile uint32_t*)(uintptr_t)args->address; break;
    case FAULT_WRITE: *(volatile uint32_t*)(uintptr_t)args->address = 1; break;
    case FAULT_DIVIDE: { /* divl: #DE on a zero divisor */
      uint32_t quotient = 100u;
      __asm__ volatile("xorl %%edx, %%edx\n\tdivl %1" : "+a"(quotient) : "r"(args->divisor) : "rdx", "cc");
      (void)quotient;
      break;
    }
    case FAULT_ILLEGAL: __builtin_trap();
    case FAULT_STACK_OVERFLOW: (void)recurse(depth, 1); break;
    default: break;
  }
}

static void fault_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  const fault_args_t* args = (const fault_args_t*)kernarg;
  if (wg->workgroup_id[0] == args->faulting_group)
    fault_now(args, (volatile uint32_t*)&((fault_args_t*)kernarg)->depth);
  __atomic_store_n(&args->ran[wg->workgroup_id[0]], 1u, __ATOMIC_RELEASE);
}
KERNEL_DESCRIPTOR(fault, 0, 0, fault_workgroup, 0, fault_args_t);

/* fault_runs: `fault` taking runs of workgroups along x
 * (XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS), running them one after another
 * and recording each one in `wg` before running it, as the contract says. */
static void fault_runs_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  const fault_args_t* args = (const fault_args_t*)kernarg;
  const uint32_t run = wg->workgroup_run > 1u ? wg->workgroup_run : 1u;
  const uint32_t first = wg->workgroup_id[0];
  *(volatile uint32_t*)&wg->workgroup_run = 1u;
  for (uint32_t r = 0; r < run; ++r) {
    const uint32_t id = first + r;
    *(volatile uint32_t*)&wg->workgroup_id[0] = id;
    if (id == args->faulting_group) fault_now(args, (volatile uint32_t*)&((fault_args_t*)kernarg)->depth);
    __atomic_store_n(&args->ran[id], 1u, __ATOMIC_RELEASE);
  }
}
KERNEL_DESCRIPTOR(fault_runs, 0, XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS, fault_runs_workgroup, 0, fault_args_t);

/* fault_runs_whole: the same, leaving `wg` naming the whole run (as a kernel
 * that interleaves the run's work items does). */
static void fault_runs_whole_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  const fault_args_t* args = (const fault_args_t*)kernarg;
  const uint32_t run = wg->workgroup_run > 1u ? wg->workgroup_run : 1u;
  for (uint32_t r = 0; r < run; ++r) {
    const uint32_t id = wg->workgroup_id[0] + r;
    if (id == args->faulting_group) fault_now(args, (volatile uint32_t*)&((fault_args_t*)kernarg)->depth);
    __atomic_store_n(&args->ran[id], 1u, __ATOMIC_RELEASE);
  }
}
KERNEL_DESCRIPTOR(fault_runs_whole, 0, XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS, fault_runs_whole_workgroup, 0,
                  fault_args_t);

/* fault_fiber (fiber mode): every item reaches a barrier; then item 0 of
 * workgroup `faulting_group` faults (on its fiber's stack) while the
 * others wait at a second barrier; every other workgroup sets ran[]. */
static void fault_fiber_workitem(const void* kernarg, xgpu_host_workgroup_t* wg, const uint32_t local_id[3]) {
  const fault_args_t* args = (const fault_args_t*)kernarg;
  wg->barrier(wg);
  if (wg->workgroup_id[0] == args->faulting_group && local_id[0] == 0)
    fault_now(args, (volatile uint32_t*)&((fault_args_t*)kernarg)->depth);
  wg->barrier(wg);
  if (local_id[0] == 0) __atomic_store_n(&args->ran[wg->workgroup_id[0]], 1u, __ATOMIC_RELEASE);
}
static void fault_fiber_unused(const void* kernarg, xgpu_host_workgroup_t* wg) {
  (void)kernarg;
  (void)wg;
}
KERNEL_DESCRIPTOR(fault_fiber, 0, XGPU_HOST_KERNEL_FLAG_USES_BARRIERS, fault_fiber_unused, fault_fiber_workitem,
                  fault_args_t);

/* fault_line: workgroup `faulting_group` (x) reads or writes `address` in
 * a statement marked with a comment the test looks for in this file
 * (test_faults.cpp: hsa_cpu_queue_get_kernel_fault names that line). */
typedef struct {
  uint64_t address;        /* what the faulting workgroup accesses */
  uint32_t* sink;          /* where a read's value would go */
  uint32_t write;          /* 1: store to `address`; 0: load from it */
  uint32_t faulting_group; /* x id of the workgroup that faults */
} fault_line_args_t;
__attribute__((no_sanitize("address", "undefined"))) static void fault_line_workgroup(const void* kernarg,
                                                                                      xgpu_host_workgroup_t* wg) {
  const fault_line_args_t* args = (const fault_line_args_t*)kernarg;
  if (wg->workgroup_id[0] != args->faulting_group) return;
  if (args->write)
    *(volatile uint32_t*)(uintptr_t)args->address = 1u; /* fault_line: write */
  else
    *args->sink = *(volatile const uint32_t*)(uintptr_t)args->address; /* fault_line: read */
}
KERNEL_DESCRIPTOR(fault_line, 0, 0, fault_line_workgroup, 0, fault_line_args_t);

/* fault_line_fiber (fiber mode): the same, by item 1 of the workgroup
 * after a barrier, while the others wait at a second one. */
__attribute__((no_sanitize("address", "undefined"))) static void fault_line_fiber_workitem(
    const void* kernarg, xgpu_host_workgroup_t* wg, const uint32_t local_id[3]) {
  const fault_line_args_t* args = (const fault_line_args_t*)kernarg;
  wg->barrier(wg);
  if (wg->workgroup_id[0] == args->faulting_group && local_id[0] == 1) {
    if (args->write)
      *(volatile uint32_t*)(uintptr_t)args->address = 2u; /* fault_line_fiber: write */
    else
      *args->sink = *(volatile const uint32_t*)(uintptr_t)args->address; /* fault_line_fiber: read */
  }
  wg->barrier(wg);
}
static void fault_line_fiber_unused(const void* kernarg, xgpu_host_workgroup_t* wg) {
  (void)kernarg;
  (void)wg;
}
KERNEL_DESCRIPTOR(fault_line_fiber, 0, XGPU_HOST_KERNEL_FLAG_USES_BARRIERS, fault_line_fiber_unused,
                  fault_line_fiber_workitem, fault_line_args_t);
