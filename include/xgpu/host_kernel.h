/*
 * xgpu host kernel ABI: the contract between host code objects (built by the
 * kernel toolchain from <xgpu/kernel.h> sources) and the CPU HSA runtime
 * (hsa-cpu) that loads and runs them.
 *
 * A host code object is an x86-64 ELF shared object. For each kernel `K` it
 * exports a data symbol named `K.kd` holding one xgpu_host_kernel_descriptor_t.
 * HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT of that kernel is the descriptor's
 * address, exactly as on AMDGPU where the kernel object is the address of the
 * amd_kernel_code_t / kernel descriptor.
 *
 * The code object exports one more data symbol, XGPU_HOST_CODE_OBJECT_SYMBOL,
 * holding an xgpu_host_code_object_info_t that names the ISA it was built for;
 * hsa-cpu refuses a code object whose ISA differs from its agents'.
 *
 * Running a dispatch: for every workgroup, the runtime fills an
 * xgpu_host_workgroup_t and either
 *   - calls `run_workgroup(kernarg, wg)` once, which loops over all work items
 *     of the workgroup itself (kernels without barriers: the loop is plain C
 *     that clang vectorizes); with XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS one
 *     call runs `wg->workgroup_run` consecutive workgroups along x, or
 *   - when XGPU_HOST_KERNEL_FLAG_USES_BARRIERS is set and
 *     XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS is not, runs every work item as
 *     a fiber calling `run_workitem(kernarg, wg, item)`; the kernel's
 *     xgpu_barrier() calls `wg->barrier(wg)`, which switches to the next fiber
 *     and returns once every work item of the workgroup reached the barrier.
 *   A barrier kernel with XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS has both
 *   entries: `run_workgroup` runs the whole workgroup as loops over its work
 *   items split at each barrier (built by the kernel toolchain's pass plugin,
 *   tools/xgpu-wiloop), and `run_workitem` stays for fiber mode.
 *
 * Thread-safety: a descriptor is immutable. One xgpu_host_workgroup_t is used
 * by one worker thread at a time.
 *
 * This header is C99 and is included by kernels (freestanding), by hsa-cpu
 * (C++20) and by tools; it must not include anything but <stdint.h>/<stddef.h>.
 */
#ifndef XGPU_HOST_KERNEL_H_
#define XGPU_HOST_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "XGHK" little-endian: first word of every descriptor. */
#define XGPU_HOST_KERNEL_MAGIC 0x4b484758u
/* Bumped whenever the layout of any struct in this header changes. */
#define XGPU_HOST_KERNEL_ABI_VERSION 1u

/* Name of the per-code-object info symbol. */
#define XGPU_HOST_CODE_OBJECT_SYMBOL "xgpu_host_code_object_info"
/* Suffix of kernel descriptor symbols, as on AMDGPU. */
#define XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX ".kd"

/* The kernel calls xgpu_barrier(): run work items as fibers, unless
 * XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS is also set. */
#define XGPU_HOST_KERNEL_FLAG_USES_BARRIERS 0x1u
/* run_workgroup runs the whole workgroup, barriers included (work-item
 * loops); run_workitem remains the fiber-mode entry of the same kernel. */
#define XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS 0x2u
/* run_workgroup runs a run of workgroups per call: the workgroups
 * (workgroup_id[0] + r, workgroup_id[1], workgroup_id[2]) for
 * r = 0 .. workgroup_run - 1 (0 counts as 1), all within workgroup_count[0],
 * in any order of their work items. It keeps `wg` naming what it is running,
 * so that after a fault the runtime knows: running the workgroups one after
 * another, it stores each one's workgroup_id[0] and item_count[0] and sets
 * workgroup_run to 1 before running it; interleaving the items of several
 * (rows as long as the run), it leaves `wg` naming the whole run and the
 * runtime reports the range. Kernels without barriers set it, and barrier
 * kernels with XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS whose run_workgroup
 * combines atomic adds across the run (tools/xgpu-wiloop: it runs the
 * workgroups one after another, then makes the run's deferred adds while
 * `wg` names the whole run); a runtime that runs such a kernel as fibers
 * gives run_workitem one workgroup as always. A runtime that leaves workgroup_run 0 (as runtimes before the flag
 * did with the field's reserved zero) gets one workgroup per call, so code
 * objects and runtimes of either side of the flag work together: the layout
 * and XGPU_HOST_KERNEL_ABI_VERSION are unchanged. */
#define XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS 0x4u

/* Read-only section of a host code object in which the work-item loop
 * pass (tools/xgpu-wiloop) records, per kernel it transformed, the paths it
 * took: records of "<kernel>\0<path>, <path>...\0" (both NUL-terminated),
 * concatenated. Informational (`xgpu-kernels inspect`); runtimes ignore it. */
#define XGPU_HOST_WILOOP_PATHS_SECTION ".xgpu_wiloop_paths"

/* Alignment of the group segment base handed to a workgroup (bytes). */
#define XGPU_HOST_GROUP_SEGMENT_ALIGNMENT 64u

/* Fiber mode stack of one work item (bytes): the runtime gives each fiber
 * max(XGPU_HOST_FIBER_STACK_MIN_BYTES,
 *     private_segment_size + XGPU_HOST_FIBER_STACK_RUNTIME_BYTES),
 * of which the runtime's own frames (entry, barrier, fiber switch) use at
 * most XGPU_HOST_FIBER_STACK_RUNTIME_BYTES. Kernel code therefore has at
 * least max(MIN - RUNTIME, private_segment_size) bytes; more overflows into
 * a guard page. The stack is fixed for the whole workgroup. */
#define XGPU_HOST_FIBER_STACK_MIN_BYTES 65536u
#define XGPU_HOST_FIBER_STACK_RUNTIME_BYTES 16384u

typedef struct xgpu_host_workgroup xgpu_host_workgroup_t;

/* Runs all work items of one workgroup (loop mode). */
typedef void (*xgpu_host_run_workgroup_fn)(const void* kernarg,
                                           xgpu_host_workgroup_t* wg);
/* Runs one work item (fiber mode); local_id is the item's id in the group. */
typedef void (*xgpu_host_run_workitem_fn)(const void* kernarg,
                                          xgpu_host_workgroup_t* wg,
                                          const uint32_t local_id[3]);
/* Provided by the runtime in fiber mode: blocks the calling work item until
 * every work item of the workgroup has called it. */
typedef void (*xgpu_host_barrier_fn)(xgpu_host_workgroup_t* wg);

/* What the runtime tells one workgroup. Filled by the runtime per workgroup. */
struct xgpu_host_workgroup {
  uint32_t workgroup_id[3];    /* this workgroup's id per dimension */
  uint32_t workgroup_size[3];  /* packet workgroup size (work items) per dimension */
  uint32_t grid_size[3];       /* packet grid size (work items) per dimension */
  uint32_t workgroup_count[3]; /* ceil(grid_size / workgroup_size) per dimension */
  uint32_t item_count[3];      /* work items in THIS workgroup per dimension
                                  (smaller than workgroup_size for a partial
                                  last workgroup) */
  uint32_t dimensions;         /* 1, 2 or 3 (packet setup dimensions) */
  void* group_segment;         /* group (LDS) memory for this workgroup:
                                  static bytes first, then dynamic bytes;
                                  XGPU_HOST_GROUP_SEGMENT_ALIGNMENT aligned;
                                  NULL when the size is 0 */
  uint32_t group_segment_size; /* bytes at group_segment (static + dynamic) */
  uint32_t workgroup_run;      /* workgroups this call runs along x
                                  (XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS;
                                  0 or 1: one); 0 for kernels without it */
  xgpu_host_barrier_fn barrier; /* fiber mode only; NULL in loop mode */
  void* runtime;               /* opaque to kernels: the runtime's state */
};

/* Exported as `K.kd` for every kernel K. Immutable. */
typedef struct xgpu_host_kernel_descriptor {
  uint32_t magic;                       /* XGPU_HOST_KERNEL_MAGIC */
  uint32_t abi_version;                 /* XGPU_HOST_KERNEL_ABI_VERSION */
  const char* name;                     /* kernel name without ".kd" */
  xgpu_host_run_workgroup_fn run_workgroup; /* loop-mode entry (always set) */
  xgpu_host_run_workitem_fn run_workitem;   /* fiber-mode entry (set when
                                               USES_BARRIERS) */
  uint32_t kernarg_size;                /* bytes of the kernarg struct */
  uint32_t kernarg_alignment;           /* alignment of the kernarg struct */
  uint32_t group_segment_size;          /* static group memory bytes */
  uint32_t private_segment_size;        /* per-work-item stack bytes the
                                           fiber mode needs (0 = default;
                                           see XGPU_HOST_FIBER_STACK_*) */
  uint32_t required_workgroup_size[3];  /* 0,0,0 when not fixed */
  uint32_t flags;                       /* XGPU_HOST_KERNEL_FLAG_* */
} xgpu_host_kernel_descriptor_t;

/* Exported once per host code object as XGPU_HOST_CODE_OBJECT_SYMBOL. */
typedef struct xgpu_host_code_object_info {
  uint32_t magic;       /* XGPU_HOST_KERNEL_MAGIC */
  uint32_t abi_version; /* XGPU_HOST_KERNEL_ABI_VERSION */
  const char* isa_name; /* HSA ISA name the code was built for, e.g.
                           "x86_64-unknown-linux-gnu" */
} xgpu_host_code_object_info_t;

#if defined(__cplusplus)
static_assert(sizeof(xgpu_host_workgroup_t) == 96, "host ABI layout");
static_assert(sizeof(xgpu_host_kernel_descriptor_t) == 64, "host ABI layout");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(xgpu_host_workgroup_t) == 96, "host ABI layout");
_Static_assert(sizeof(xgpu_host_kernel_descriptor_t) == 64, "host ABI layout");
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_HOST_KERNEL_H_ */
