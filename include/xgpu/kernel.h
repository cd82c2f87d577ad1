/*
 * xgpu kernel language: write a kernel once in C17 (or C++), build it for every
 * AMDGPU target and for the host CPU device (hsa-cpu).
 *
 * Kernels include this header and nothing but clang's freestanding headers
 * (<stdint.h>, <stddef.h>, <stdbool.h>, <float.h>, <limits.h>): no libc, no
 * globals, no thread-local storage. The build (cmake/XgpuKernels.cmake)
 * compiles with -ffreestanding -nostdlibinc and rejects any code object with
 * writable data or undefined symbols. spec/kernels.md is the reference.
 *
 *   typedef struct saxpy_args {
 *     const float* x;   // binding: n floats
 *     float* y;         // binding: n floats
 *     float a;          // constant
 *     uint32_t n;       // constant: element count
 *   } saxpy_args_t;
 *
 *   XGPU_KERNEL(saxpy, saxpy_args_t, args) {
 *     uint32_t i = xgpu_global_id(0);
 *     if (i < args->n) args->y[i] = args->a * args->x[i] + args->y[i];
 *   }
 *   XGPU_KERNEL_BINDINGS(saxpy, 2);
 *
 * ABI: a kernel takes one struct, binding pointers first (8 bytes each), then
 * constants. The struct's bytes are the kernarg segment on every target: on
 * amdgcn the struct is the kernel's only (by-value) argument, on the host the
 * runtime passes a pointer to the same bytes. No hidden kernel arguments.
 * Inside the body, `args` is a `const T*` on every target.
 * XGPU_KERNEL_BINDINGS(name, count) declares how many of the struct's leading
 * 8-byte fields are bindings, so pipelines can take the layout from the
 * kernel.
 *
 * Built-ins need per-work-item state on the host. Kernel bodies receive it as
 * a hidden parameter; a helper function that calls built-ins declares
 * XGPU_CTX_PARAM in its parameter list and is called with XGPU_CTX:
 *
 *   static inline uint32_t row(XGPU_CTX_PARAM, uint32_t width) {
 *     return xgpu_global_id(1) * width;
 *   }
 *   ... row(XGPU_CTX, args->width) ...
 *
 * xgpu_barrier() is only available in kernels declared with a barrier variant
 * (XGPU_KERNEL_BARRIERS*, XGPU_KERNEL_GROUPSHARED*); elsewhere it does not
 * compile. Helpers that call
 * it use XGPU_CTX_BARRIER_PARAM / XGPU_CTX_BARRIER instead.
 *
 * xgpu_printf(format, ...) and xgpu_assert(condition) write records into a
 * print buffer the driver provides and formats (<xgpu/kernel_print.h>); they
 * compile where the build loads its pass plugin (see "Printing and asserts"
 * below).
 *
 * Thread-safety: not applicable (compile-time definitions only). Every
 * built-in reads per-work-item state; the atomics are the only way work items
 * communicate besides groupshared memory ordered by xgpu_barrier().
 */
#ifndef XGPU_KERNEL_H_
#define XGPU_KERNEL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xgpu/executable_format.h>
#include <xgpu/kernel_print.h>

/* ---------------------------------------------------------------------------
 * Target selection: the only place that looks at the compiler's target.
 * ------------------------------------------------------------------------- */

#if defined(__AMDGCN__)
#define XGPU_KERNEL_TARGET_AMDGCN 1
#elif defined(__NVPTX__)
#define XGPU_KERNEL_TARGET_NVPTX 1
#elif defined(__x86_64__)
#define XGPU_KERNEL_TARGET_HOST 1
#include <xgpu/host_kernel.h>
#else
#error "xgpu kernels build for amdgcn-amd-amdhsa, nvptx64-nvidia-cuda or x86_64 only"
#endif

#if defined(__cplusplus)
#define XGPU_KERNEL_STATIC_ASSERT_(e, m) static_assert(e, m)
#define XGPU_KERNEL_EXTERN_C_ extern "C"
#define XGPU_KERNEL_RESTRICT_ __restrict
#define XGPU_KERNEL_ALIGNOF_(type) alignof(type)
#else
#define XGPU_KERNEL_STATIC_ASSERT_(e, m) _Static_assert(e, m)
#define XGPU_KERNEL_EXTERN_C_
#define XGPU_KERNEL_RESTRICT_ restrict
#define XGPU_KERNEL_ALIGNOF_(type) _Alignof(type)
#endif

XGPU_KERNEL_STATIC_ASSERT_(sizeof(void*) == 8, "xgpu bindings are 8-byte pointers");

/* Kernel builds (xgpu_add_kernels defines XGPU_KERNEL_BUILD) reject
 * thread-local storage at compile time on every target: amdgcn has none, and
 * on the host it would be per worker thread, not per work item. */
#if defined(XGPU_KERNEL_BUILD)
#define _Thread_local \
  _Pragma("GCC error \"xgpu kernels must not use thread-local storage (_Thread_local, thread_local, __thread)\"")
#define __thread _Thread_local
#define thread_local _Thread_local
#endif

#define XGPU_KERNEL_INLINE_ static inline __attribute__((always_inline))

/* ---------------------------------------------------------------------------
 * Memory orders and scopes for the atomics.
 * ------------------------------------------------------------------------- */

#define XGPU_ORDER_RELAXED __ATOMIC_RELAXED
#define XGPU_ORDER_ACQUIRE __ATOMIC_ACQUIRE
#define XGPU_ORDER_RELEASE __ATOMIC_RELEASE
#define XGPU_ORDER_ACQ_REL __ATOMIC_ACQ_REL
#define XGPU_ORDER_SEQ_CST __ATOMIC_SEQ_CST

/* Visible to the issuing work item only. */
#define XGPU_SCOPE_WORKITEM __MEMORY_SCOPE_SINGLE
/* Visible to the work items of the same workgroup. */
#define XGPU_SCOPE_WORKGROUP __MEMORY_SCOPE_WRKGRP
/* Visible to every work item on the agent (device). */
#define XGPU_SCOPE_AGENT __MEMORY_SCOPE_DEVICE
/* Visible to other agents and the host. */
#define XGPU_SCOPE_SYSTEM __MEMORY_SCOPE_SYSTEM

/* Atomic read-modify-write on an integer (or, for add/sub, float) object in
 * global or groupshared memory. `order` and `scope` must be constants. Each
 * returns the previous value. */
#define xgpu_atomic_load(ptr, order, scope) \
  __scoped_atomic_load_n((ptr), (order), (scope))
#define xgpu_atomic_store(ptr, value, order, scope) \
  __scoped_atomic_store_n((ptr), (value), (order), (scope))
#define xgpu_atomic_exchange(ptr, value, order, scope) \
  __scoped_atomic_exchange_n((ptr), (value), (order), (scope))
#define xgpu_atomic_fetch_add(ptr, value, order, scope) \
  __scoped_atomic_fetch_add((ptr), (value), (order), (scope))
#define xgpu_atomic_fetch_sub(ptr, value, order, scope) \
  __scoped_atomic_fetch_sub((ptr), (value), (order), (scope))
#define xgpu_atomic_fetch_and(ptr, value, order, scope) \
  __scoped_atomic_fetch_and((ptr), (value), (order), (scope))
#define xgpu_atomic_fetch_or(ptr, value, order, scope) \
  __scoped_atomic_fetch_or((ptr), (value), (order), (scope))
#define xgpu_atomic_fetch_xor(ptr, value, order, scope) \
  __scoped_atomic_fetch_xor((ptr), (value), (order), (scope))
#define xgpu_atomic_fetch_min(ptr, value, order, scope) \
  __scoped_atomic_fetch_min((ptr), (value), (order), (scope))
#define xgpu_atomic_fetch_max(ptr, value, order, scope) \
  __scoped_atomic_fetch_max((ptr), (value), (order), (scope))
/* Strong compare-exchange: returns true and stores `desired` when *ptr equals
 * *expected, otherwise writes the current value to *expected. */
#define xgpu_atomic_compare_exchange(ptr, expected, desired, success_order, \
                                     failure_order, scope)                  \
  __scoped_atomic_compare_exchange_n((ptr), (expected), (desired), false,   \
                                     (success_order), (failure_order),      \
                                     (scope))

/* ---------------------------------------------------------------------------
 * Kernel declaration flags.
 * ------------------------------------------------------------------------- */

/* The kernel calls xgpu_barrier(): on the host its work items run as fibers. */
#define XGPU_KERNEL_USES_BARRIERS 0x1u

#define XGPU_KERNEL_MAX4_(a) ((a) > 4u ? (a) : 4u)
/* Kernarg alignment as AMDGPU reports it: the struct's alignment, at least 4. */
#define XGPU_KERNEL_KERNARG_ALIGNMENT_(args_type) \
  XGPU_KERNEL_MAX4_((uint32_t)XGPU_KERNEL_ALIGNOF_(args_type))

/* What every kernel declaration emits before its entry points: the kernel's
 * argument type under a name derived from the kernel's (so that
 * XGPU_KERNEL_BINDINGS, given only the kernel name, can check the count
 * against the struct), and the compile-time rules. AMDGPU pads the kernarg
 * segment to 4 bytes, so a struct of another size would differ between
 * targets. */
#define XGPU_KERNEL_DECLARATION_(name, args_type)                             \
  typedef args_type name##_xgpu_args_t;                                       \
  XGPU_KERNEL_STATIC_ASSERT_(sizeof(args_type) % 4u == 0,                    \
                             "xgpu kernel argument structs are a multiple "  \
                             "of 4 bytes: add a uint32_t reserved field")

/* Token that only barrier-enabled kernel bodies receive: xgpu_barrier()
 * names it, so it does not compile in a kernel declared without barriers. */
typedef struct xgpu_barrier_permit {
  int unused; /* no state: only its presence matters */
} xgpu_barrier_permit_t;

/* The declaration macros take `barriers` = BARRIERS_ or NO_BARRIERS_ and
 * paste it onto these to add (or not) the permit parameter. */
#define XGPU_KERNEL_PERMIT_DECL_NO_BARRIERS_
#define XGPU_KERNEL_PERMIT_DECL_BARRIERS_ \
  , const xgpu_barrier_permit_t* const xgpu_barrier_permit_
#define XGPU_KERNEL_PERMIT_DEF_NO_BARRIERS_
#define XGPU_KERNEL_PERMIT_DEF_BARRIERS_ \
  , __attribute__((unused)) const xgpu_barrier_permit_t* const xgpu_barrier_permit_
#define XGPU_KERNEL_PERMIT_ARG_NO_BARRIERS_
#define XGPU_KERNEL_PERMIT_ARG_BARRIERS_ , (const xgpu_barrier_permit_t*)0
#define XGPU_KERNEL_FLAGS_NO_BARRIERS_ 0u
#define XGPU_KERNEL_FLAGS_BARRIERS_ XGPU_KERNEL_USES_BARRIERS

#if defined(XGPU_KERNEL_TARGET_AMDGCN)
/* ===========================================================================
 * amdgcn
 * ======================================================================== */

#define XGPU_KERNEL_CONSTANT_AS_ __attribute__((address_space(4)))
#define XGPU_KERNEL_GROUP_AS_ __attribute__((address_space(3)))

/* hsa_kernel_dispatch_packet_t, as far as kernels read it (hsa.h layout). */
typedef struct xgpu_dispatch_packet {
  uint16_t header;             /* AQL packet header */
  uint16_t setup;              /* dimensions in bits 0..1 */
  uint16_t workgroup_size[3];  /* work items per workgroup, x y z */
  uint16_t reserved0;          /* zero */
  uint32_t grid_size[3];       /* work items in the grid, x y z */
  uint32_t private_segment_size; /* bytes per work item */
  uint32_t group_segment_size; /* bytes per workgroup (static + dynamic) */
} xgpu_dispatch_packet_t;
_Static_assert(offsetof(xgpu_dispatch_packet_t, workgroup_size) == 4,
               "hsa_kernel_dispatch_packet_t.workgroup_size_x offset");
_Static_assert(offsetof(xgpu_dispatch_packet_t, grid_size) == 12,
               "hsa_kernel_dispatch_packet_t.grid_size_x offset");
_Static_assert(offsetof(xgpu_dispatch_packet_t, group_segment_size) == 28,
               "hsa_kernel_dispatch_packet_t.group_segment_size offset");

/* Per-work-item state: none on amdgcn (the hardware holds it); the pointer
 * exists so that code written for the host compiles unchanged. */
typedef struct xgpu_context {
  int unused; /* never read */
} xgpu_context_t;

XGPU_KERNEL_INLINE_ const XGPU_KERNEL_CONSTANT_AS_ xgpu_dispatch_packet_t*
xgpu_dispatch_packet_(void) {
  return (const XGPU_KERNEL_CONSTANT_AS_ xgpu_dispatch_packet_t*)
      __builtin_amdgcn_dispatch_ptr();
}

XGPU_KERNEL_INLINE_ uint32_t xgpu_amdgcn_local_id_(uint32_t d) {
  return d == 0 ? __builtin_amdgcn_workitem_id_x()
       : d == 1 ? __builtin_amdgcn_workitem_id_y()
                : __builtin_amdgcn_workitem_id_z();
}
XGPU_KERNEL_INLINE_ uint32_t xgpu_amdgcn_workgroup_id_(uint32_t d) {
  return d == 0 ? __builtin_amdgcn_workgroup_id_x()
       : d == 1 ? __builtin_amdgcn_workgroup_id_y()
                : __builtin_amdgcn_workgroup_id_z();
}
XGPU_KERNEL_INLINE_ uint32_t xgpu_amdgcn_workgroup_size_(uint32_t d) {
  return xgpu_dispatch_packet_()->workgroup_size[d];
}
XGPU_KERNEL_INLINE_ uint32_t xgpu_amdgcn_grid_size_(uint32_t d) {
  return xgpu_dispatch_packet_()->grid_size[d];
}

/* A print slot before the kernarg segment (<xgpu/kernel_print.h>): the
 * print buffer's address or the dispatch's tag; integer arithmetic, since
 * the slots lie outside the kernarg object. */
XGPU_KERNEL_INLINE_ uint64_t xgpu_amdgcn_print_slot_(uint64_t offset) {
  const uint64_t slot = (uint64_t)(uintptr_t)__builtin_amdgcn_kernarg_segment_ptr() - offset;
  return *(const XGPU_KERNEL_CONSTANT_AS_ uint64_t*)(uintptr_t)slot;
}

#define XGPU_KERNEL_CTX_USE_(expr) ((void)xgpu_ctx_, (expr))
#define XGPU_KERNEL_PRINT_BUFFER_() \
  XGPU_KERNEL_CTX_USE_(xgpu_amdgcn_print_slot_(XGPU_PRINT_BUFFER_SLOT_OFFSET))
#define XGPU_KERNEL_PRINT_DISPATCH_() \
  XGPU_KERNEL_CTX_USE_(xgpu_amdgcn_print_slot_(XGPU_PRINT_DISPATCH_SLOT_OFFSET))
#define xgpu_local_id(d) XGPU_KERNEL_CTX_USE_(xgpu_amdgcn_local_id_(d))
#define xgpu_workgroup_id(d) XGPU_KERNEL_CTX_USE_(xgpu_amdgcn_workgroup_id_(d))
#define xgpu_workgroup_size(d) \
  XGPU_KERNEL_CTX_USE_(xgpu_amdgcn_workgroup_size_(d))
#define xgpu_grid_size(d) XGPU_KERNEL_CTX_USE_(xgpu_amdgcn_grid_size_(d))

XGPU_KERNEL_INLINE_ void xgpu_amdgcn_barrier_(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
#define xgpu_barrier() \
  ((void)xgpu_ctx_, (void)xgpu_barrier_permit_, xgpu_amdgcn_barrier_())

/* Dynamic group memory starts right after the static part. */
#define xgpu_dynamic_groupshared()                                          \
  XGPU_KERNEL_CTX_USE_((void*)(XGPU_KERNEL_GROUP_AS_ char*)(uintptr_t)     \
                           __builtin_amdgcn_groupstaticsize())

/* Memory fence; `order` and `scope` must be constants. */
#define xgpu_atomic_fence(order, scope)                                 \
  do {                                                                  \
    if ((scope) == XGPU_SCOPE_WORKITEM)                                 \
      __atomic_signal_fence(order);                                     \
    else if ((scope) == XGPU_SCOPE_WORKGROUP)                           \
      __builtin_amdgcn_fence((order), "workgroup");                     \
    else if ((scope) == XGPU_SCOPE_AGENT)                               \
      __builtin_amdgcn_fence((order), "agent");                         \
    else                                                                \
      __builtin_amdgcn_fence((order), "");                              \
  } while (0)

#define XGPU_KERNEL_AMDGCN_ENTRY_ \
  XGPU_KERNEL_EXTERN_C_ __attribute__((amdgpu_kernel, visibility("protected")))

/* Emits the body prototype, the amdgcn kernel entry, and opens the body. */
#define XGPU_KERNEL_DEFINE_(name, args_type, args, barriers, req_x, req_y,    \
                            req_z)                                            \
  XGPU_KERNEL_DECLARATION_(name, args_type);                                  \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      const xgpu_context_t* const xgpu_ctx_                                   \
          XGPU_KERNEL_PERMIT_DECL_##barriers);                                \
  XGPU_KERNEL_AMDGCN_ENTRY_ void name(args_type xgpu_kernarg_) {              \
    name##_xgpu_body_(&xgpu_kernarg_,                                         \
                      (const xgpu_context_t*)0 XGPU_KERNEL_PERMIT_ARG_##barriers); \
  }                                                                           \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      __attribute__((unused)) const xgpu_context_t* const xgpu_ctx_           \
          XGPU_KERNEL_PERMIT_DEF_##barriers)

#define XGPU_KERNEL_GROUPSHARED_DEFINE_(name, args_type, args, shared_type,    \
                                        shared, req_x, req_y, req_z)          \
  XGPU_KERNEL_DECLARATION_(name, args_type);                                  \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      const xgpu_context_t* const xgpu_ctx_                                   \
          XGPU_KERNEL_PERMIT_DECL_BARRIERS_,                                  \
      shared_type* const shared);                                             \
  XGPU_KERNEL_AMDGCN_ENTRY_ void name(args_type xgpu_kernarg_) {              \
    static XGPU_KERNEL_GROUP_AS_ __attribute__((loader_uninitialized))        \
    shared_type xgpu_groupshared_;                                            \
    name##_xgpu_body_(&xgpu_kernarg_,                                         \
                      (const xgpu_context_t*)0 XGPU_KERNEL_PERMIT_ARG_BARRIERS_, \
                      (shared_type*)&xgpu_groupshared_);                      \
  }                                                                           \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      __attribute__((unused)) const xgpu_context_t* const xgpu_ctx_           \
          XGPU_KERNEL_PERMIT_DEF_BARRIERS_,                                   \
      shared_type* const shared)

#elif defined(XGPU_KERNEL_TARGET_NVPTX)
/* ===========================================================================
 * nvptx (PTX text run by hsa-cuda). The entry takes the argument struct by
 * value and, second, the dispatch's grid size in work items: CUDA launches
 * whole workgroups, so hsa-cuda passes AQL's grid_size (spec/kernels.md,
 * "nvptx"). Work items past the grid's edge return before the body runs.
 * ======================================================================== */

#define XGPU_KERNEL_GROUP_AS_ __attribute__((address_space(3)))

/* The entry's second parameter, filled by hsa-cuda from the AQL packet. */
typedef struct xgpu_nvptx_grid {
  uint32_t size[3];         /* grid_size_x, _y, _z of the dispatch packet */
  uint32_t reserved;        /* zero */
  uint64_t kernarg_address; /* the packet's kernarg_address: the print slots
                               lie before it (<xgpu/kernel_print.h>) */
} xgpu_nvptx_grid_t;

/* Per-work-item state the built-ins read: the grid size, which no special
 * register holds, where the print slots are, and the workgroup size: the
 * kernel's required size (XGPU_KERNEL_SIZED and the like) as constants the
 * compiler folds (a dimension of size 1 has local id 0), else %ntid.
 * hsa-cuda refuses a dispatch whose workgroup size is not the required one. */
typedef struct xgpu_context {
  uint32_t grid_size[3];
  uint64_t kernarg_address;
  uint32_t workgroup_size[3]; /* the kernel's required size, else %ntid */
  uint32_t one_wide[3];       /* the required size is 1 in this dimension */
} xgpu_context_t;

/* A print slot before the kernarg segment (<xgpu/kernel_print.h>), read
 * through the kernarg segment's address (host memory the device maps). */
XGPU_KERNEL_INLINE_ uint64_t xgpu_nvptx_print_slot_(const xgpu_context_t* ctx, uint64_t offset) {
  if (ctx->kernarg_address == 0) return 0;
  return *(const uint64_t*)(uintptr_t)(ctx->kernarg_address - offset);
}
#define XGPU_KERNEL_PRINT_BUFFER_() xgpu_nvptx_print_slot_(xgpu_ctx_, XGPU_PRINT_BUFFER_SLOT_OFFSET)
#define XGPU_KERNEL_PRINT_DISPATCH_() xgpu_nvptx_print_slot_(xgpu_ctx_, XGPU_PRINT_DISPATCH_SLOT_OFFSET)

XGPU_KERNEL_INLINE_ uint32_t xgpu_nvptx_local_id_(uint32_t d) {
  return d == 0 ? __nvvm_read_ptx_sreg_tid_x()
       : d == 1 ? __nvvm_read_ptx_sreg_tid_y()
                : __nvvm_read_ptx_sreg_tid_z();
}
XGPU_KERNEL_INLINE_ uint32_t xgpu_nvptx_workgroup_id_(uint32_t d) {
  return d == 0 ? __nvvm_read_ptx_sreg_ctaid_x()
       : d == 1 ? __nvvm_read_ptx_sreg_ctaid_y()
                : __nvvm_read_ptx_sreg_ctaid_z();
}
XGPU_KERNEL_INLINE_ uint32_t xgpu_nvptx_workgroup_size_(uint32_t d) {
  return d == 0 ? __nvvm_read_ptx_sreg_ntid_x()
       : d == 1 ? __nvvm_read_ptx_sreg_ntid_y()
                : __nvvm_read_ptx_sreg_ntid_z();
}

#define XGPU_KERNEL_CTX_USE_(expr) ((void)xgpu_ctx_, (expr))
#define xgpu_local_id(d) (xgpu_ctx_->one_wide[(d)] ? 0u : xgpu_nvptx_local_id_(d))
#define xgpu_workgroup_id(d) XGPU_KERNEL_CTX_USE_(xgpu_nvptx_workgroup_id_(d))
#define xgpu_workgroup_size(d) (xgpu_ctx_->workgroup_size[(d)])
#define xgpu_grid_size(d) (xgpu_ctx_->grid_size[(d)])

/* bar.sync orders shared memory among the workgroup's items; the fences
 * make global memory follow the same order, as on amdgcn. */
XGPU_KERNEL_INLINE_ void xgpu_nvptx_barrier_(void) {
  __nvvm_membar_cta();
  __nvvm_bar_sync(0);
  __nvvm_membar_cta();
}
#define xgpu_barrier() \
  ((void)xgpu_ctx_, (void)xgpu_barrier_permit_, xgpu_nvptx_barrier_())

/* Dynamic group memory: the launch's dynamic shared memory, which CUDA
 * places after the static part. */
extern XGPU_KERNEL_GROUP_AS_ __attribute__((aligned(16))) char xgpu_nvptx_dynamic_groupshared_[];
#define xgpu_dynamic_groupshared() \
  XGPU_KERNEL_CTX_USE_((void*)(char*)xgpu_nvptx_dynamic_groupshared_)

XGPU_KERNEL_INLINE_ void xgpu_nvptx_fence_(int scope) {
  if (scope == XGPU_SCOPE_WORKGROUP)
    __nvvm_membar_cta();
  else if (scope == XGPU_SCOPE_AGENT)
    __nvvm_membar_gl();
  else if (scope != XGPU_SCOPE_WORKITEM)
    __nvvm_membar_sys();
}
/* Memory fence; `order` and `scope` must be constants. A work item's own
 * fence orders the compiler only: an empty asm that clobbers memory (clang
 * 19's nvptx back end selects no single-thread fence). */
#define xgpu_atomic_fence(order, scope)      \
  do {                                       \
    if ((scope) == XGPU_SCOPE_WORKITEM) {    \
      (void)(order);                         \
      __asm__ __volatile__("" ::: "memory"); \
    } else if ((order) != XGPU_ORDER_RELAXED) \
      xgpu_nvptx_fence_(scope);              \
  } while (0)

/* clang-19's nvptx back end selects no ordered atomic loads and stores and
 * emits every read-modify-write as relaxed: each atomic is issued relaxed,
 * with a fence of its scope before (release) and after (acquire). */
#define XGPU_NVPTX_ORDERED_(order, scope, expr)                                   \
  __extension__({                                                                 \
    if ((order) == XGPU_ORDER_RELEASE || (order) == XGPU_ORDER_ACQ_REL ||         \
        (order) == XGPU_ORDER_SEQ_CST)                                            \
      xgpu_nvptx_fence_(scope);                                                   \
    __auto_type xgpu_nvptx_result_ = (expr);                                      \
    if ((order) == XGPU_ORDER_ACQUIRE || (order) == XGPU_ORDER_ACQ_REL ||         \
        (order) == XGPU_ORDER_SEQ_CST)                                            \
      xgpu_nvptx_fence_(scope);                                                   \
    /* An assignment as the value: an atomic used as a statement inside   */    \
    /* another macro's argument is then not "expression result unused". */      \
    xgpu_nvptx_result_ = xgpu_nvptx_result_;                                      \
  })
#undef xgpu_atomic_load
#undef xgpu_atomic_store
#undef xgpu_atomic_exchange
#undef xgpu_atomic_fetch_add
#undef xgpu_atomic_fetch_sub
#undef xgpu_atomic_fetch_and
#undef xgpu_atomic_fetch_or
#undef xgpu_atomic_fetch_xor
#undef xgpu_atomic_fetch_min
#undef xgpu_atomic_fetch_max
#undef xgpu_atomic_compare_exchange
#define xgpu_atomic_load(ptr, order, scope) \
  XGPU_NVPTX_ORDERED_(order, scope, __scoped_atomic_load_n((ptr), XGPU_ORDER_RELAXED, (scope)))
#define xgpu_atomic_store(ptr, value, order, scope)                                     \
  do {                                                                                  \
    if ((order) != XGPU_ORDER_RELAXED) xgpu_nvptx_fence_(scope);                        \
    __scoped_atomic_store_n((ptr), (value), XGPU_ORDER_RELAXED, (scope));               \
    if ((order) == XGPU_ORDER_SEQ_CST) xgpu_nvptx_fence_(scope);                        \
  } while (0)
#define xgpu_atomic_exchange(ptr, value, order, scope) \
  XGPU_NVPTX_ORDERED_(order, scope, __scoped_atomic_exchange_n((ptr), (value), XGPU_ORDER_RELAXED, (scope)))
#define xgpu_atomic_fetch_add(ptr, value, order, scope) \
  XGPU_NVPTX_ORDERED_(order, scope, __scoped_atomic_fetch_add((ptr), (value), XGPU_ORDER_RELAXED, (scope)))
#define xgpu_atomic_fetch_sub(ptr, value, order, scope) \
  XGPU_NVPTX_ORDERED_(order, scope, __scoped_atomic_fetch_sub((ptr), (value), XGPU_ORDER_RELAXED, (scope)))
#define xgpu_atomic_fetch_and(ptr, value, order, scope) \
  XGPU_NVPTX_ORDERED_(order, scope, __scoped_atomic_fetch_and((ptr), (value), XGPU_ORDER_RELAXED, (scope)))
#define xgpu_atomic_fetch_or(ptr, value, order, scope) \
  XGPU_NVPTX_ORDERED_(order, scope, __scoped_atomic_fetch_or((ptr), (value), XGPU_ORDER_RELAXED, (scope)))
#define xgpu_atomic_fetch_xor(ptr, value, order, scope) \
  XGPU_NVPTX_ORDERED_(order, scope, __scoped_atomic_fetch_xor((ptr), (value), XGPU_ORDER_RELAXED, (scope)))
#define xgpu_atomic_fetch_min(ptr, value, order, scope) \
  XGPU_NVPTX_ORDERED_(order, scope, __scoped_atomic_fetch_min((ptr), (value), XGPU_ORDER_RELAXED, (scope)))
#define xgpu_atomic_fetch_max(ptr, value, order, scope) \
  XGPU_NVPTX_ORDERED_(order, scope, __scoped_atomic_fetch_max((ptr), (value), XGPU_ORDER_RELAXED, (scope)))
#define xgpu_atomic_compare_exchange(ptr, expected, desired, success_order, failure_order, scope) \
  XGPU_NVPTX_ORDERED_(success_order, scope,                                                      \
                      __scoped_atomic_compare_exchange_n((ptr), (expected), (desired), false,     \
                                                         XGPU_ORDER_RELAXED, XGPU_ORDER_RELAXED, (scope)))

#define XGPU_KERNEL_NVPTX_ENTRY_ \
  XGPU_KERNEL_EXTERN_C_ __attribute__((nvptx_kernel, visibility("default")))

/* True for a work item inside the grid; false for the rest of a partial
 * last workgroup, which returns at once. The three comparisons are combined
 * with & (no short circuit): one branch rather than three in a row. */
/* The local id in dimension d (0 where the required size is 1 wide). */
#define XGPU_KERNEL_NVPTX_LID_(d, req) ((req) == 1u ? 0u : xgpu_nvptx_local_id_(d))
#define XGPU_KERNEL_NVPTX_IN_GRID_(grid, wg, req_x, req_y, req_z)               \
  ((xgpu_nvptx_workgroup_id_(0) * (wg)[0] + XGPU_KERNEL_NVPTX_LID_(0, req_x) <  \
    (grid).size[0]) &                                                           \
   (xgpu_nvptx_workgroup_id_(1) * (wg)[1] + XGPU_KERNEL_NVPTX_LID_(1, req_y) <  \
    (grid).size[1]) &                                                           \
   (xgpu_nvptx_workgroup_id_(2) * (wg)[2] + XGPU_KERNEL_NVPTX_LID_(2, req_z) <  \
    (grid).size[2]))

/* The entry's first statements: the workgroup size (the required one as
 * constants, else %ntid), the return of items past the grid's edge, and
 * the context the body's built-ins read (xgpu_context_). */
#define XGPU_KERNEL_NVPTX_PROLOGUE_(req_x, req_y, req_z)                       \
  const uint32_t xgpu_wg_[3] = {                                              \
      (req_x) ? (req_x) : xgpu_nvptx_workgroup_size_(0),                      \
      (req_y) ? (req_y) : xgpu_nvptx_workgroup_size_(1),                      \
      (req_z) ? (req_z) : xgpu_nvptx_workgroup_size_(2)};                     \
  if (!XGPU_KERNEL_NVPTX_IN_GRID_(xgpu_grid_, xgpu_wg_, req_x, req_y, req_z)) \
    return;                                                                   \
  const xgpu_context_t xgpu_context_ = {                                      \
      {xgpu_grid_.size[0], xgpu_grid_.size[1], xgpu_grid_.size[2]},           \
      xgpu_grid_.kernarg_address,                                             \
      {xgpu_wg_[0], xgpu_wg_[1], xgpu_wg_[2]},                                \
      {(req_x) == 1u, (req_y) == 1u, (req_z) == 1u}}

/* The required workgroup size (0,0,0: none), as an array the executable
 * reader finds by name in the PTX: PTX has no other place for it. */
#define XGPU_KERNEL_NVPTX_REQUIRED_SIZE_(name, req_x, req_y, req_z)            \
  __attribute__((used)) static const uint32_t name##_xgpu_required_size_[3] = \
      {(req_x), (req_y), (req_z)}

/* Emits the body prototype, the nvptx kernel entry, and opens the body. */
#define XGPU_KERNEL_DEFINE_(name, args_type, args, barriers, req_x, req_y,    \
                            req_z)                                            \
  XGPU_KERNEL_DECLARATION_(name, args_type);                                  \
  XGPU_KERNEL_NVPTX_REQUIRED_SIZE_(name, req_x, req_y, req_z);                \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      const xgpu_context_t* const xgpu_ctx_                                   \
          XGPU_KERNEL_PERMIT_DECL_##barriers);                                \
  XGPU_KERNEL_NVPTX_ENTRY_ void name(args_type xgpu_kernarg_,                 \
                                     xgpu_nvptx_grid_t xgpu_grid_) {          \
    XGPU_KERNEL_NVPTX_PROLOGUE_(req_x, req_y, req_z);                         \
    name##_xgpu_body_(&xgpu_kernarg_,                                         \
                      &xgpu_context_ XGPU_KERNEL_PERMIT_ARG_##barriers);      \
  }                                                                           \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      __attribute__((unused)) const xgpu_context_t* const xgpu_ctx_           \
          XGPU_KERNEL_PERMIT_DEF_##barriers)

#define XGPU_KERNEL_GROUPSHARED_DEFINE_(name, args_type, args, shared_type,    \
                                        shared, req_x, req_y, req_z)          \
  XGPU_KERNEL_DECLARATION_(name, args_type);                                  \
  XGPU_KERNEL_NVPTX_REQUIRED_SIZE_(name, req_x, req_y, req_z);                \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      const xgpu_context_t* const xgpu_ctx_                                   \
          XGPU_KERNEL_PERMIT_DECL_BARRIERS_,                                  \
      shared_type* const shared);                                             \
  XGPU_KERNEL_NVPTX_ENTRY_ void name(args_type xgpu_kernarg_,                 \
                                     xgpu_nvptx_grid_t xgpu_grid_) {          \
    static XGPU_KERNEL_GROUP_AS_ __attribute__((loader_uninitialized))        \
    shared_type xgpu_groupshared_;                                            \
    XGPU_KERNEL_NVPTX_PROLOGUE_(req_x, req_y, req_z);                         \
    name##_xgpu_body_(&xgpu_kernarg_,                                         \
                      &xgpu_context_ XGPU_KERNEL_PERMIT_ARG_BARRIERS_,        \
                      (shared_type*)&xgpu_groupshared_);                      \
  }                                                                           \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      __attribute__((unused)) const xgpu_context_t* const xgpu_ctx_           \
          XGPU_KERNEL_PERMIT_DEF_BARRIERS_,                                   \
      shared_type* const shared)

#else /* XGPU_KERNEL_TARGET_HOST */
/* ===========================================================================
 * host (x86-64 shared object loaded by hsa-cpu, <xgpu/host_kernel.h>)
 * ======================================================================== */

/* Per-work-item state the built-ins read. Copied from the runtime's
 * xgpu_host_workgroup_t once per workgroup (loop mode) or work item (fiber
 * mode) so that the optimizer sees plain local values in the item loop. */
typedef struct xgpu_context {
  uint32_t local_id[3];        /* this work item's id in its workgroup */
  uint32_t workgroup_id[3];    /* this workgroup's id */
  uint32_t workgroup_size[3];  /* dispatch workgroup size (work items) */
  uint32_t grid_size[3];       /* dispatch grid size (work items) */
  uint8_t* dynamic_group;      /* first byte after the static group memory */
  xgpu_host_workgroup_t* wg;   /* the runtime's workgroup (barrier) */
  uint32_t workitem_loops;     /* 1 in the work-item function that the build
                                  turns into work-item loops, else 0 */
  const uint64_t* print_slot;  /* the 16 bytes before the kernarg segment:
                                  [0] the dispatch's tag, [1] the print
                                  buffer's address or 0
                                  (<xgpu/kernel_print.h>); read only by
                                  xgpu_printf and xgpu_assert. Last, so that
                                  the fields before keep their offsets. */
} xgpu_context_t;

#if defined(XGPU_KERNEL_WORKITEM_LOOPS)
/* Markers of the work-item function (K_xgpu_wi_) that the build's pass plugin
 * (tools/xgpu-wiloop) turns into loops over the work items of a workgroup,
 * split at each barrier. Never defined: the pass replaces every call, or
 * deletes the function and the kernel keeps fiber mode. */
XGPU_KERNEL_EXTERN_C_ uint32_t xgpu_wiloop_local_id_(uint32_t dimension)
    __attribute__((const, nothrow));
XGPU_KERNEL_EXTERN_C_ void xgpu_wiloop_barrier_(void)
    __attribute__((convergent, nothrow));
#endif

/* `kernarg` is the runtime's kernarg pointer (the packet's kernarg
 * address), not a copy of the arguments: the print slot lies before it. */
XGPU_KERNEL_INLINE_ void xgpu_host_context_init_(xgpu_context_t* c,
                                                 xgpu_host_workgroup_t* wg,
                                                 const void* kernarg,
                                                 uint32_t static_group_size) {
  for (int d = 0; d < 3; ++d) {
    c->local_id[d] = 0;
    c->workgroup_id[d] = wg->workgroup_id[d];
    c->workgroup_size[d] = wg->workgroup_size[d];
    c->grid_size[d] = wg->grid_size[d];
  }
  /* A dispatch without group memory may get no group segment at all. */
  c->dynamic_group = wg->group_segment
                         ? (uint8_t*)wg->group_segment + static_group_size
                         : (uint8_t*)0;
  c->wg = wg;
  /* Integer arithmetic: the slot lies outside the kernarg object. */
  c->print_slot =
      (const uint64_t*)((uintptr_t)kernarg - XGPU_PRINT_DISPATCH_SLOT_OFFSET);
  c->workitem_loops = 0;
}

#define xgpu_local_id(d) (xgpu_ctx_->local_id[d])
#define xgpu_workgroup_id(d) (xgpu_ctx_->workgroup_id[d])
#define xgpu_workgroup_size(d) (xgpu_ctx_->workgroup_size[d])
#define xgpu_grid_size(d) (xgpu_ctx_->grid_size[d])
#define XGPU_KERNEL_PRINT_BUFFER_() (xgpu_ctx_->print_slot[1])
#define XGPU_KERNEL_PRINT_DISPATCH_() (xgpu_ctx_->print_slot[0])

XGPU_KERNEL_INLINE_ void xgpu_host_barrier_(const xgpu_context_t* c) {
#if defined(XGPU_KERNEL_WORKITEM_LOOPS)
  if (c->workitem_loops) {
    xgpu_wiloop_barrier_();
    return;
  }
#endif
  __atomic_thread_fence(__ATOMIC_RELEASE);
  /* Loop mode (no runtime barrier) may only run barrier kernels for
   * workgroups of a single work item, where a barrier is a no-op; anything
   * else is a runtime bug that would silently give wrong results. */
  xgpu_host_workgroup_t* wg = c->wg;
  if (wg->barrier) {
    wg->barrier(wg);
  } else if (wg->item_count[0] * wg->item_count[1] * wg->item_count[2] > 1u) {
    __builtin_trap();
  }
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
}
#define xgpu_barrier() ((void)xgpu_barrier_permit_, xgpu_host_barrier_(xgpu_ctx_))

#define xgpu_dynamic_groupshared() ((void*)xgpu_ctx_->dynamic_group)

/* Work items of one workgroup share a thread; wider scopes need a real fence. */
#define xgpu_atomic_fence(order, scope)                               \
  do {                                                                \
    if ((scope) == XGPU_SCOPE_WORKITEM)                               \
      __atomic_signal_fence(order);                                   \
    else                                                              \
      __atomic_thread_fence(order);                                   \
  } while (0)

#define XGPU_KERNEL_HOST_DESCRIPTOR_(name, args_type, flags, group_size,     \
                                     workitem_fn, req_x, req_y, req_z)       \
  XGPU_KERNEL_EXTERN_C_ __attribute__((visibility("default"), used))         \
  const xgpu_host_kernel_descriptor_t name##_xgpu_kd_ __asm__(#name ".kd") = { \
      XGPU_HOST_KERNEL_MAGIC,                                                \
      XGPU_HOST_KERNEL_ABI_VERSION,                                          \
      #name,                                                                 \
      name##_xgpu_run_workgroup_,                                            \
      workitem_fn,                                                           \
      (uint32_t)sizeof(args_type),                                           \
      XGPU_KERNEL_KERNARG_ALIGNMENT_(args_type),                             \
      (uint32_t)(group_size),                                                \
      /* private_segment_size: 0 = the runtime's default fiber stack, 48  \
       * KiB for kernel code (XGPU_HOST_FIBER_STACK_*); xgpu-kernels check \
       * compares it with the AMDGPU private segment size. */              \
      0u,                                                                    \
      {(req_x), (req_y), (req_z)},                                           \
      (((flags) & XGPU_KERNEL_USES_BARRIERS) ? XGPU_HOST_KERNEL_FLAG_USES_BARRIERS \
                                             : 0u) |                         \
          ((flags) & XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS),                  \
  }

/* The item loop of one workgroup (loop mode). `invoke` runs the body for the
 * item whose id is in `c.local_id`. */
#define XGPU_KERNEL_HOST_LOOP_(wg, invoke)                         \
  const uint32_t xgpu_nx_ = (wg)->item_count[0];                   \
  const uint32_t xgpu_ny_ = (wg)->item_count[1];                   \
  const uint32_t xgpu_nz_ = (wg)->item_count[2];                   \
  for (uint32_t xgpu_z_ = 0; xgpu_z_ < xgpu_nz_; ++xgpu_z_) {      \
    for (uint32_t xgpu_y_ = 0; xgpu_y_ < xgpu_ny_; ++xgpu_y_) {    \
      for (uint32_t xgpu_x_ = 0; xgpu_x_ < xgpu_nx_; ++xgpu_x_) {  \
        xgpu_context_t xgpu_item_ = c;                             \
        xgpu_item_.local_id[0] = xgpu_x_;                          \
        xgpu_item_.local_id[1] = xgpu_y_;                          \
        xgpu_item_.local_id[2] = xgpu_z_;                          \
        invoke;                                                    \
      }                                                            \
    }                                                              \
  }

/* Marks the item loops below (loops over work items, whose iterations share
 * no ordering but through atomics) for the build's pass plugin
 * (tools/xgpu-wiloop), which may interleave them (unroll-and-jam). The mark is
 * a software-pipelining hint with a value no one writes by hand: x86-64 code
 * generation never reads it, and the pass removes it. */
#if defined(XGPU_KERNEL_WORKITEM_LOOPS)
#define XGPU_KERNEL_ITEM_LOOP_ _Pragma("clang loop pipeline_initiation_interval(30823)")
#else
#define XGPU_KERNEL_ITEM_LOOP_
#endif

/* The item loop of a kernel without barriers: runs the run of workgroups
 * along x that `wg` names (XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS; one
 * workgroup when workgroup_run is 0 or 1). The innermost loop is over x with
 * the work-item id as its induction variable, y and z fixed: the loop clang
 * widens.
 * - Workgroups one item high and deep (and single workgroups) run one after
 *   another; before each, its x id is stored into `wg` (workgroup_id[0],
 *   item_count[0], workgroup_run = 1), so that a fault names it.
 * - Workgroups of several rows run interleaved: for each row (y, z), one
 *   x loop over the whole run's items (global x id; workgroup and local id
 *   derived from it, a division that folds away when the body uses only
 *   global ids), so that rows are as long as the run, not the workgroup.
 *   `wg` keeps naming the whole run.
 * `invoke` runs the body for the item whose ids are in `xgpu_item_`. */
#define XGPU_KERNEL_HOST_RUN_LOOP_(wg, invoke)                                 \
  const uint32_t xgpu_run_ = (wg)->workgroup_run > 1u ? (wg)->workgroup_run : 1u; \
  const uint32_t xgpu_first_ = c.workgroup_id[0];                             \
  const uint32_t xgpu_wsx_ = c.workgroup_size[0];                             \
  const uint32_t xgpu_ny_ = (wg)->item_count[1];                              \
  const uint32_t xgpu_nz_ = (wg)->item_count[2];                              \
  if (xgpu_run_ == 1u || (xgpu_ny_ == 1u && xgpu_nz_ == 1u)) {                \
    /* volatile: stored before each workgroup runs, not sunk past the loop. */ \
    *(volatile uint32_t*)&(wg)->workgroup_run = 1u;                           \
    for (uint32_t xgpu_r_ = 0; xgpu_r_ < xgpu_run_; ++xgpu_r_) {              \
      const uint32_t xgpu_gx_ = xgpu_first_ + xgpu_r_;                        \
      const uint64_t xgpu_left_ =                                             \
          (uint64_t)c.grid_size[0] - (uint64_t)xgpu_gx_ * xgpu_wsx_;          \
      const uint32_t xgpu_nx_ =                                               \
          xgpu_left_ < xgpu_wsx_ ? (uint32_t)xgpu_left_ : xgpu_wsx_;          \
      *(volatile uint32_t*)&(wg)->workgroup_id[0] = xgpu_gx_;                 \
      *(volatile uint32_t*)&(wg)->item_count[0] = xgpu_nx_;                   \
      c.workgroup_id[0] = xgpu_gx_;                                           \
      for (uint32_t xgpu_z_ = 0; xgpu_z_ < xgpu_nz_; ++xgpu_z_) {             \
        for (uint32_t xgpu_y_ = 0; xgpu_y_ < xgpu_ny_; ++xgpu_y_) {           \
          XGPU_KERNEL_ITEM_LOOP_                                              \
          for (uint32_t xgpu_x_ = 0; xgpu_x_ < xgpu_nx_; ++xgpu_x_) {         \
            xgpu_context_t xgpu_item_ = c;                                    \
            xgpu_item_.local_id[0] = xgpu_x_;                                 \
            xgpu_item_.local_id[1] = xgpu_y_;                                 \
            xgpu_item_.local_id[2] = xgpu_z_;                                 \
            invoke;                                                           \
          }                                                                   \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  } else {                                                                    \
    const uint32_t xgpu_begin_ = xgpu_first_ * xgpu_wsx_;                     \
    const uint64_t xgpu_stop_ = (uint64_t)(xgpu_first_ + xgpu_run_) * xgpu_wsx_; \
    const uint32_t xgpu_end_ = xgpu_stop_ < c.grid_size[0]                    \
                                   ? (uint32_t)xgpu_stop_                     \
                                   : c.grid_size[0];                          \
    for (uint32_t xgpu_z_ = 0; xgpu_z_ < xgpu_nz_; ++xgpu_z_) {               \
      for (uint32_t xgpu_y_ = 0; xgpu_y_ < xgpu_ny_; ++xgpu_y_) {             \
        XGPU_KERNEL_ITEM_LOOP_                                                \
        for (uint32_t xgpu_gx_ = xgpu_begin_; xgpu_gx_ < xgpu_end_; ++xgpu_gx_) { \
          const uint32_t xgpu_wid_ = xgpu_gx_ / xgpu_wsx_;                    \
          xgpu_context_t xgpu_item_ = c;                                      \
          xgpu_item_.workgroup_id[0] = xgpu_wid_;                             \
          xgpu_item_.local_id[0] = xgpu_gx_ - xgpu_wid_ * xgpu_wsx_;          \
          xgpu_item_.local_id[1] = xgpu_y_;                                   \
          xgpu_item_.local_id[2] = xgpu_z_;                                   \
          invoke;                                                             \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  }
/* Kernels without barriers run runs of workgroups; barrier kernels one
 * workgroup per call (loop mode only for single-item workgroups). */
#define XGPU_KERNEL_HOST_ITEMS_NO_BARRIERS_ XGPU_KERNEL_HOST_RUN_LOOP_
#define XGPU_KERNEL_HOST_ITEMS_BARRIERS_ XGPU_KERNEL_HOST_LOOP_
#define XGPU_KERNEL_HOST_RUNS_NO_BARRIERS_ XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS
#define XGPU_KERNEL_HOST_RUNS_BARRIERS_ 0u

/* The work-item function of a kernel (one item's code; local ids and
 * barriers are markers), which the build's pass plugin turns into the
 * kernel's workgroup function: always for a barrier kernel, and for a
 * kernel without barriers when it aggregates an atomic add (otherwise the
 * pass deletes it). `invoke` runs the body with context `c`. */
#if defined(XGPU_KERNEL_WORKITEM_LOOPS)
#define XGPU_KERNEL_HOST_WORKITEM_FN_(name, static_group_size, invoke)       \
  /* An assembler name, so that the pass finds it also in C++. */            \
  static void name##_xgpu_wi_(const void* kernarg,                            \
                              xgpu_host_workgroup_t* wg)                      \
      __asm__(#name "_xgpu_wi_");                                             \
  __attribute__((used)) static void name##_xgpu_wi_(                          \
      const void* kernarg, xgpu_host_workgroup_t* wg) {                       \
    xgpu_context_t c;                                                         \
    xgpu_host_context_init_(&c, wg, kernarg, (static_group_size));            \
    c.workitem_loops = 1;                                                     \
    c.local_id[0] = xgpu_wiloop_local_id_(0);                                 \
    c.local_id[1] = xgpu_wiloop_local_id_(1);                                 \
    c.local_id[2] = xgpu_wiloop_local_id_(2);                                 \
    invoke;                                                                   \
  }
#else
#define XGPU_KERNEL_HOST_WORKITEM_FN_(name, static_group_size, invoke)
#endif
#define XGPU_KERNEL_HOST_WORKITEM_FN_NO_BARRIERS_(name, args_type)           \
  XGPU_KERNEL_HOST_WORKITEM_FN_(name, 0u,                                     \
      name##_xgpu_body_((const args_type*)kernarg,                            \
                        &c XGPU_KERNEL_PERMIT_ARG_NO_BARRIERS_))
#define XGPU_KERNEL_HOST_WORKITEM_FN_BARRIERS_(name, args_type)               \
  XGPU_KERNEL_HOST_WORKITEM_FN_(name, 0u,                                     \
      name##_xgpu_body_((const args_type*)kernarg,                            \
                        &c XGPU_KERNEL_PERMIT_ARG_BARRIERS_))

#define XGPU_KERNEL_DEFINE_(name, args_type, args, barriers, req_x, req_y,    \
                            req_z)                                            \
  XGPU_KERNEL_DECLARATION_(name, args_type);                                  \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      const xgpu_context_t* const xgpu_ctx_                                   \
          XGPU_KERNEL_PERMIT_DECL_##barriers);                                \
  XGPU_KERNEL_HOST_WORKITEM_FN_##barriers(name, args_type)                    \
  XGPU_KERNEL_INLINE_ void name##_xgpu_loop_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args, const void* kernarg, \
      xgpu_host_workgroup_t* wg) {                                            \
    xgpu_context_t c;                                                         \
    xgpu_host_context_init_(&c, wg, kernarg, 0);                              \
    XGPU_KERNEL_HOST_ITEMS_##barriers(wg, name##_xgpu_body_(args, &xgpu_item_ \
                                   XGPU_KERNEL_PERMIT_ARG_##barriers))        \
  }                                                                           \
  static void name##_xgpu_run_workgroup_(const void* kernarg,                 \
                                         xgpu_host_workgroup_t* wg) {         \
    /* A local copy: its fields are known readable on every iteration, so  \
     * loads in conditional code hoist out of the item loop. Copied inline: \
     * host code objects have no memcpy. */                                  \
    args_type xgpu_args_;                                                     \
    __builtin_memcpy_inline(&xgpu_args_, kernarg, sizeof(args_type));         \
    name##_xgpu_loop_(&xgpu_args_, kernarg, wg);                              \
  }                                                                           \
  static void name##_xgpu_run_workitem_(const void* kernarg,                  \
                                        xgpu_host_workgroup_t* wg,            \
                                        const uint32_t local_id[3]) {         \
    xgpu_context_t c;                                                         \
    xgpu_host_context_init_(&c, wg, kernarg, 0);                              \
    c.local_id[0] = local_id[0];                                              \
    c.local_id[1] = local_id[1];                                              \
    c.local_id[2] = local_id[2];                                              \
    name##_xgpu_body_((const args_type*)kernarg,                              \
                      &c XGPU_KERNEL_PERMIT_ARG_##barriers);                  \
  }                                                                           \
  XGPU_KERNEL_HOST_DESCRIPTOR_(                                               \
      name, args_type,                                                        \
      XGPU_KERNEL_FLAGS_##barriers | XGPU_KERNEL_HOST_RUNS_##barriers, 0u,    \
      (XGPU_KERNEL_FLAGS_##barriers) ? name##_xgpu_run_workitem_ : 0,         \
      req_x, req_y, req_z);                                                   \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      __attribute__((unused)) const xgpu_context_t* const xgpu_ctx_           \
          XGPU_KERNEL_PERMIT_DEF_##barriers)

#define XGPU_KERNEL_GROUPSHARED_DEFINE_(name, args_type, args, shared_type,    \
                                        shared, req_x, req_y, req_z)          \
  XGPU_KERNEL_DECLARATION_(name, args_type);                                  \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      const xgpu_context_t* const xgpu_ctx_                                   \
          XGPU_KERNEL_PERMIT_DECL_BARRIERS_,                                  \
      shared_type* const shared);                                             \
  XGPU_KERNEL_HOST_WORKITEM_FN_(name, (uint32_t)sizeof(shared_type),          \
      name##_xgpu_body_((const args_type*)kernarg,                            \
                        &c XGPU_KERNEL_PERMIT_ARG_BARRIERS_,                  \
                        (shared_type*)wg->group_segment))                     \
  static void name##_xgpu_run_workgroup_(const void* kernarg,                 \
                                         xgpu_host_workgroup_t* wg) {         \
    xgpu_context_t c;                                                         \
    xgpu_host_context_init_(&c, wg, kernarg, (uint32_t)sizeof(shared_type));  \
    XGPU_KERNEL_HOST_LOOP_(wg, name##_xgpu_body_(                             \
        (const args_type*)kernarg, &xgpu_item_ XGPU_KERNEL_PERMIT_ARG_BARRIERS_, \
        (shared_type*)wg->group_segment))                                     \
  }                                                                           \
  static void name##_xgpu_run_workitem_(const void* kernarg,                  \
                                        xgpu_host_workgroup_t* wg,            \
                                        const uint32_t local_id[3]) {         \
    xgpu_context_t c;                                                         \
    xgpu_host_context_init_(&c, wg, kernarg, (uint32_t)sizeof(shared_type));  \
    c.local_id[0] = local_id[0];                                              \
    c.local_id[1] = local_id[1];                                              \
    c.local_id[2] = local_id[2];                                              \
    name##_xgpu_body_((const args_type*)kernarg,                              \
                      &c XGPU_KERNEL_PERMIT_ARG_BARRIERS_,                    \
                      (shared_type*)wg->group_segment);                       \
  }                                                                           \
  XGPU_KERNEL_HOST_DESCRIPTOR_(name, args_type, XGPU_KERNEL_USES_BARRIERS,    \
                               sizeof(shared_type), name##_xgpu_run_workitem_, \
                               req_x, req_y, req_z);                          \
  XGPU_KERNEL_INLINE_ void name##_xgpu_body_(                                 \
      const args_type* const XGPU_KERNEL_RESTRICT_ args,                      \
      __attribute__((unused)) const xgpu_context_t* const xgpu_ctx_           \
          XGPU_KERNEL_PERMIT_DEF_BARRIERS_,                                   \
      shared_type* const shared)

#endif /* target */

/* ---------------------------------------------------------------------------
 * Target-independent part.
 * ------------------------------------------------------------------------- */

/* Declares a kernel without barriers: on the host, one loop over the
 * workgroup's work items that clang can vectorize. */
#define XGPU_KERNEL(name, args_type, args) \
  XGPU_KERNEL_DEFINE_(name, args_type, args, NO_BARRIERS_, 0u, 0u, 0u)

/* Declares a kernel that calls xgpu_barrier(): on the host each work item
 * runs on its own fiber. */
#define XGPU_KERNEL_BARRIERS(name, args_type, args) \
  XGPU_KERNEL_DEFINE_(name, args_type, args, BARRIERS_, 0u, 0u, 0u)

/* Declares a kernel with static groupshared (LDS) memory: `shared` is a
 * `shared_type*` to one workgroup-wide instance of the struct, uninitialized
 * at workgroup start. The static group segment size is sizeof(shared_type)
 * on every target. Implies barriers. */
#define XGPU_KERNEL_GROUPSHARED(name, args_type, args, shared_type, shared)     \
  XGPU_KERNEL_GROUPSHARED_DEFINE_(name, args_type, args, shared_type, shared, \
                                  0u, 0u, 0u)

/* The same with a required workgroup size x*y*z (recorded in the host
 * descriptor; dispatches must use exactly this size). */
#define XGPU_KERNEL_SIZED(name, args_type, args, x, y, z) \
  XGPU_KERNEL_DEFINE_(name, args_type, args, NO_BARRIERS_, x, y, z)
#define XGPU_KERNEL_BARRIERS_SIZED(name, args_type, args, x, y, z) \
  XGPU_KERNEL_DEFINE_(name, args_type, args, BARRIERS_, x, y, z)
#define XGPU_KERNEL_GROUPSHARED_SIZED(name, args_type, args, shared_type,       \
                                      shared, x, y, z)                        \
  XGPU_KERNEL_GROUPSHARED_DEFINE_(name, args_type, args, shared_type, shared, \
                                  x, y, z)

/* Declares the layout of kernel `name` (defined above in the same source):
 * its argument struct starts with `count` binding pointers (8 bytes each);
 * the rest of the struct, tail padding included, is its constants. Written
 * once per kernel at file scope after the kernel's body:
 *
 *   XGPU_KERNEL(saxpy, saxpy_args_t, args) { ... }
 *   XGPU_KERNEL_BINDINGS(saxpy, 2);
 *
 * A pipeline created with bindingCount = constantSize = 0 then takes
 * bindingCount = count and constantSize = sizeof(args) - 8 * count from the
 * kernel (spec/api.md, xgpuCreatePipeline), so the application never has to
 * recompute sizeof of the constants part, which C's tail padding makes
 * error-prone.
 *
 * It emits one record (<xgpu/executable_format.h>,
 * xgpu_kernel_layout_record_t followed by the name) into the read-only
 * section XGPU_KERNEL_LAYOUT_SECTION of every code object, AMDGPU and host
 * alike. `used` and `retain` keep the record, which nothing references,
 * through LTO and the linker's section garbage collection. */
#define XGPU_KERNEL_LAYOUT_NAME_SIZE_(name_literal)                 \
  ((sizeof(name_literal) + XGPU_KERNEL_LAYOUT_ALIGNMENT - 1u) /     \
   XGPU_KERNEL_LAYOUT_ALIGNMENT * XGPU_KERNEL_LAYOUT_ALIGNMENT)
#define XGPU_KERNEL_BINDINGS(name, count)                                     \
  XGPU_KERNEL_STATIC_ASSERT_(                                                 \
      (uint64_t)(count) * XGPU_KERNEL_LAYOUT_BINDING_SIZE <=                  \
          sizeof(name##_xgpu_args_t),                                         \
      "XGPU_KERNEL_BINDINGS(" #name ", " #count "): " #count " binding "      \
      "pointers of 8 bytes do not fit in the kernel's argument struct");      \
  XGPU_KERNEL_STATIC_ASSERT_(sizeof(#name) <= XGPU_KERNEL_LAYOUT_MAX_NAME_SIZE, \
                             "kernel name too long for its layout record");   \
  typedef struct name##_xgpu_layout_record {                                  \
    xgpu_kernel_layout_record_t header; /* magic, size, layout */             \
    char name_field[XGPU_KERNEL_LAYOUT_NAME_SIZE_(#name)]; /* NUL-padded */   \
  } name##_xgpu_layout_record_t;                                              \
  XGPU_KERNEL_STATIC_ASSERT_(sizeof(name##_xgpu_layout_record_t) ==           \
                                 sizeof(xgpu_kernel_layout_record_t) +        \
                                     XGPU_KERNEL_LAYOUT_NAME_SIZE_(#name),    \
                             "layout records concatenate without gaps");      \
  __attribute__((used, retain, section(XGPU_KERNEL_LAYOUT_SECTION),           \
                 aligned(XGPU_KERNEL_LAYOUT_ALIGNMENT)))                      \
  static const name##_xgpu_layout_record_t name##_xgpu_layout_ = {            \
      {XGPU_KERNEL_LAYOUT_MAGIC,                                              \
       (uint32_t)sizeof(name##_xgpu_layout_record_t), (uint32_t)(count),     \
       (uint32_t)sizeof(name##_xgpu_args_t)},                                 \
      #name}

/* Declares how kernel `name` accesses memory through each of its bindings,
 * where the build's pass plugin cannot see it (spec/kernels.md, "Binding
 * access"): one value per binding, in order, each a combination of
 *
 *   XGPU_KERNEL_ACCESS_READ, XGPU_KERNEL_ACCESS_WRITE,
 *   XGPU_KERNEL_ACCESS_ATOMIC (or XGPU_KERNEL_ACCESS_NONE)
 *
 * Written at file scope after XGPU_KERNEL_BINDINGS:
 *
 *   XGPU_KERNEL_BINDINGS(gather, 3);
 *   XGPU_KERNEL_BINDING_ACCESS(gather, XGPU_KERNEL_ACCESS_READ, XGPU_KERNEL_ACCESS_READ,
 *                              XGPU_KERNEL_ACCESS_WRITE);
 *
 * The plugin checks the declaration against the code on every target: a
 * binding whose code (as far as the plugin follows it) reads, writes or
 * makes atomic accesses the declaration does not allow is a build error
 * naming the kernel, the binding and both; so is a count that differs from
 * XGPU_KERNEL_BINDINGS'. Where the plugin cannot follow a binding (its
 * pointer escapes: the record would say "unknown"), the declaration is
 * taken as the kernel's contract and recorded instead, so that the
 * driver and the validation layer's hazard checks see the access the
 * author states. A build without the plugin ignores it. */
#define XGPU_KERNEL_ACCESS_NONE 0u
#define XGPU_KERNEL_ACCESS_READ 1u
#define XGPU_KERNEL_ACCESS_WRITE 2u
#define XGPU_KERNEL_ACCESS_ATOMIC 4u
#define XGPU_KERNEL_BINDING_ACCESS(name, ...)                                 \
  XGPU_KERNEL_STATIC_ASSERT_(sizeof(name##_xgpu_args_t) > 0,                  \
                             "XGPU_KERNEL_BINDING_ACCESS names a kernel");    \
  __attribute__((used)) static const unsigned char name##_xgpu_access_decl_[] = {__VA_ARGS__}

/* Parameter list entry / argument for helpers that call built-ins. */
#define XGPU_CTX_PARAM \
  __attribute__((unused)) const xgpu_context_t* const xgpu_ctx_
#define XGPU_CTX xgpu_ctx_
/* Same for helpers that also call xgpu_barrier(). */
#define XGPU_CTX_BARRIER_PARAM                                     \
  XGPU_CTX_PARAM, __attribute__((unused)) const xgpu_barrier_permit_t* const \
                      xgpu_barrier_permit_
#define XGPU_CTX_BARRIER xgpu_ctx_, xgpu_barrier_permit_

/* ---------------------------------------------------------------------------
 * Printing and asserts (spec/kernels.md, "Printing and asserts").
 *
 *   xgpu_printf("item %u of %u: %f %s\n", xgpu_global_id(0), args->n, v, name);
 *   xgpu_assert(i < args->n);
 *
 * Each call writes one record into the print buffer the driver provides
 * (<xgpu/kernel_print.h>): the work item's ids, the format and up to 15
 * values, each tagged by its type, and the bytes of every string (char*)
 * value. The driver formats the records on the host after the dispatch. A
 * failed xgpu_assert writes an assert record (condition text, file, line)
 * and the work item continues: the driver fails the submission.
 *
 * Which kernels print is recorded by the build's pass plugin (a flags record
 * per kernel that reaches xgpu_print_emit_, <xgpu/executable_format.h>), so
 * the macros compile only where the build loads it (XGPU_KERNEL_PRINT_PASS).
 * Kernel bodies and helpers declared with
 * XGPU_CTX_PARAM may use them.
 * ------------------------------------------------------------------------- */

#if !defined(XGPU_KERNEL_PRINT_PASS)
XGPU_KERNEL_EXTERN_C_ void xgpu_print_unavailable_(void) __attribute__((unavailable(
    "xgpu_printf and xgpu_assert need the build's pass plugin xgpu-wiloop (tools/xgpu-wiloop, built when "
    "llvm-19-dev is installed), which records the kernels that print; this compile did not load it "
    "(XGPU_KERNEL_PRINT_PASS is not defined)")));
#define xgpu_printf(...) xgpu_print_unavailable_()
#define xgpu_assert(cond) xgpu_print_unavailable_()
#else

/* One value of a record as its argument gave it. */
typedef struct xgpu_print_value {
  uint64_t bits; /* the value, converted as its tag says */
  uint32_t tag;  /* XGPU_PRINT_TAG_* */
} xgpu_print_value_t;

/* What a call site hands the emitting function. */
typedef struct xgpu_print_request {
  uint64_t buffer;                          /* the print buffer's address, 0: none */
  uint64_t dispatch;                        /* the dispatch's tag */
  uint64_t tags;                            /* XGPU_PRINT_TAG_* of value i at bits 4i.. */
  uint32_t kind;                            /* XGPU_PRINT_KIND_* */
  uint32_t count;                           /* values, 1..XGPU_PRINT_MAX_VALUES */
  uint32_t workgroup_id[3];                 /* the work item's workgroup id */
  uint32_t local_id[3];                     /* its local id */
  uint64_t values[XGPU_PRINT_MAX_VALUES];   /* the values (strings: their address) */
} xgpu_print_request_t;

/* Bytes a record gives the string at `text`, its NUL included: at most
 * XGPU_PRINT_MAX_STRING; 1 (an empty string) for a null pointer. */
XGPU_KERNEL_INLINE_ uint32_t xgpu_print_string_size_(const char* text) {
  uint32_t length = 0;
  if (text)
    while (length < XGPU_PRINT_MAX_STRING - 1u && text[length] != '\0') ++length;
  return length + 1u;
}

#if defined(XGPU_KERNEL_TARGET_NVPTX)
/* Reserves `size` bytes of the record area for each lane of the warp that
 * calls together: one atomic add on `head` for the warp's total (the lowest
 * lane's), each lane's offset that base plus the sizes of the lower lanes -
 * what one add per lane in lane order would give. The buffer is host memory
 * on hsa-cuda, where every atomic is a bus round trip. */
XGPU_KERNEL_INLINE_ uint64_t xgpu_print_reserve_(xgpu_print_buffer_header_t* buffer, uint64_t size) {
  const uint32_t mask = __nvvm_activemask();
  const uint32_t lane = __nvvm_read_ptx_sreg_laneid();
  const uint32_t leader = (uint32_t)__builtin_ctz(mask);
  uint64_t below = 0, total = 0;
  for (uint32_t rest = mask; rest != 0; rest &= rest - 1u) {
    const uint32_t other = (uint32_t)__builtin_ctz(rest);
    const uint64_t other_size = (uint64_t)(uint32_t)__nvvm_shfl_sync_idx_i32(mask, (int)(uint32_t)size, (int)other, 31);
    if (other < lane) below += other_size;
    total += other_size;
  }
  uint64_t base = 0;
  if (lane == leader) base = xgpu_atomic_fetch_add(&buffer->head, total, XGPU_ORDER_RELAXED, XGPU_SCOPE_SYSTEM);
  const uint32_t low = (uint32_t)__nvvm_shfl_sync_idx_i32(mask, (int)(uint32_t)base, (int)leader, 31);
  const uint32_t high = (uint32_t)__nvvm_shfl_sync_idx_i32(mask, (int)(uint32_t)(base >> 32), (int)leader, 31);
  return (((uint64_t)high << 32) | low) + below;
}
#else
XGPU_KERNEL_INLINE_ uint64_t xgpu_print_reserve_(xgpu_print_buffer_header_t* buffer, uint64_t size) {
  return xgpu_atomic_fetch_add(&buffer->head, size, XGPU_ORDER_RELAXED, XGPU_SCOPE_SYSTEM);
}
#endif

/* Reserves the record (xgpu_print_reserve_), counts it in `dropped` when
 * it does not fit (and marks the end of the records), else writes it. */
XGPU_KERNEL_INLINE_ void xgpu_print_emit_body_(const xgpu_print_request_t* request) {
  if (request->buffer == 0) return;
  xgpu_print_buffer_header_t* const buffer =
      (xgpu_print_buffer_header_t*)(uintptr_t)request->buffer;
  const uint32_t count = request->count;
  /* Each string's bytes, measured once: the copy below writes exactly them. */
  uint32_t string_bytes[XGPU_PRINT_MAX_VALUES];
  uint64_t size = (uint64_t)sizeof(xgpu_print_record_t) + 8u * (uint64_t)count;
  for (uint32_t i = 0; i < count; ++i) {
    string_bytes[i] = 0;
    if (((request->tags >> (XGPU_PRINT_TAG_BITS * i)) & XGPU_PRINT_TAG_MASK) == XGPU_PRINT_TAG_STR)
      string_bytes[i] = xgpu_print_string_size_((const char*)(uintptr_t)request->values[i]);
    size += string_bytes[i];
  }
  size = (size + XGPU_PRINT_RECORD_ALIGNMENT - 1u) & ~(uint64_t)(XGPU_PRINT_RECORD_ALIGNMENT - 1u);
  const uint64_t offset = xgpu_print_reserve_(buffer, size);
  const uint64_t capacity = buffer->capacity;
  uint8_t* const area = (uint8_t*)(buffer + 1);
  if (offset > capacity || size > capacity - offset) {
    xgpu_atomic_fetch_add(&buffer->dropped, (uint64_t)1, XGPU_ORDER_RELAXED, XGPU_SCOPE_SYSTEM);
    /* The reservation is this item's alone: its first 8 bytes, where they
     * fit, end the records (size 0). */
    if (offset <= capacity && capacity - offset >= XGPU_PRINT_RECORD_ALIGNMENT)
      *(uint64_t*)(area + offset) = 0;
    return;
  }
  xgpu_print_record_t* const record = (xgpu_print_record_t*)(area + offset);
  record->size = (uint32_t)size;
  record->kind = (uint16_t)request->kind;
  record->count = (uint16_t)count;
  for (int d = 0; d < 3; ++d) {
    record->workgroup_id[d] = request->workgroup_id[d];
    record->local_id[d] = request->local_id[d];
  }
  record->tags = request->tags;
  record->dispatch = request->dispatch;
  uint64_t* const values = (uint64_t*)(record + 1);
  for (uint32_t i = 0; i < count; ++i) values[i] = request->values[i];
  /* The strings, each with its NUL, then zeros to the record's end, written
   * 8 bytes at a time (the text starts 8-byte aligned; the record's size is
   * a multiple of 8, so the last partial word holds all the padding). */
  uint64_t* text = values + count;
  uint64_t word = 0;
  uint32_t filled = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (string_bytes[i] == 0) continue;
    const char* const source = (const char*)(uintptr_t)request->values[i];
    for (uint32_t b = 0; b < string_bytes[i]; ++b) {
      /* A NUL that another work item wrote since the measure would end the
       * string early and shift the next ones: it is written as '?'. */
      const uint8_t byte = b + 1u == string_bytes[i] ? 0u : source[b] != '\0' ? (uint8_t)source[b] : (uint8_t)'?';
      word |= (uint64_t)byte << (8u * filled);
      if (++filled == 8u) {
        *text++ = word;
        word = 0;
        filled = 0;
      }
    }
  }
  if (filled != 0) *text = word;
}

/* The one function that writes records: never inlined, and named so that
 * the pass plugin finds its calls (tools/xgpu-wiloop, printing_kernels.cpp). */
static inline __attribute__((noinline, cold, minsize)) void xgpu_print_emit_(const xgpu_print_request_t* request)
    __asm__("xgpu_print_emit_");
static inline __attribute__((noinline, cold, minsize)) void xgpu_print_emit_(const xgpu_print_request_t* request) {
  xgpu_print_emit_body_(request);
}

/* A call site: the request on the stack, the tags folded to a constant. */
XGPU_KERNEL_INLINE_ void xgpu_print_(uint64_t buffer, uint64_t dispatch, uint32_t kind, const uint32_t ids[6],
                                     const xgpu_print_value_t* values, uint32_t count) {
  xgpu_print_request_t request;
  request.buffer = buffer;
  request.dispatch = buffer ? dispatch : 0;
  request.kind = kind;
  request.count = count;
  request.tags = 0;
  for (int d = 0; d < 3; ++d) {
    request.workgroup_id[d] = ids[d];
    request.local_id[d] = ids[3 + d];
  }
  for (uint32_t i = 0; i < count; ++i) {
    request.values[i] = values[i].bits;
    request.tags |= (uint64_t)values[i].tag << (XGPU_PRINT_TAG_BITS * i);
  }
  xgpu_print_emit_(&request);
}

/* Conversions of one argument: its tag and its 64 bits. */
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_i64_(long long value) {
  xgpu_print_value_t v = {(uint64_t)value, XGPU_PRINT_TAG_I64};
  return v;
}
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_u64_(unsigned long long value) {
  xgpu_print_value_t v = {(uint64_t)value, XGPU_PRINT_TAG_U64};
  return v;
}
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_f64_(double value) {
  xgpu_print_value_t v = {0, XGPU_PRINT_TAG_F64};
  __builtin_memcpy(&v.bits, &value, sizeof(v.bits));
  return v;
}
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_str_(const char* value) {
  xgpu_print_value_t v = {(uint64_t)(uintptr_t)value, XGPU_PRINT_TAG_STR};
  return v;
}
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_ptr_(const volatile void* value) {
  xgpu_print_value_t v = {(uint64_t)(uintptr_t)value, XGPU_PRINT_TAG_PTR};
  return v;
}

#if defined(__cplusplus)
/* C++: overloads pick the conversion. */
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(bool v) { return xgpu_print_u64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(char v) {
  return (char)-1 < 0 ? xgpu_print_i64_(v) : xgpu_print_u64_((unsigned char)v);
}
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(signed char v) { return xgpu_print_i64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(unsigned char v) { return xgpu_print_u64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(short v) { return xgpu_print_i64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(unsigned short v) { return xgpu_print_u64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(int v) { return xgpu_print_i64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(unsigned v) { return xgpu_print_u64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(long v) { return xgpu_print_i64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(unsigned long v) { return xgpu_print_u64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(long long v) { return xgpu_print_i64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(unsigned long long v) { return xgpu_print_u64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(float v) { return xgpu_print_f64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(double v) { return xgpu_print_f64_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(char* v) { return xgpu_print_str_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(const char* v) { return xgpu_print_str_(v); }
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(decltype(nullptr)) { return xgpu_print_ptr_(nullptr); }
template <typename T>
XGPU_KERNEL_INLINE_ xgpu_print_value_t xgpu_print_value_(T* v) {
  return xgpu_print_ptr_(v);
}
#define XGPU_KERNEL_PRINT_VALUE_(x) xgpu_print_value_(x)
#else
/* C: _Generic picks the conversion; any other pointer is PTR, and what is
 * neither (a struct, long double) does not compile. */
#if defined(__CHAR_UNSIGNED__)
#define XGPU_KERNEL_PRINT_CHAR_ xgpu_print_u64_
#else
#define XGPU_KERNEL_PRINT_CHAR_ xgpu_print_i64_
#endif
#define XGPU_KERNEL_PRINT_VALUE_(x)                                            \
  _Generic((x),                                                               \
      _Bool: xgpu_print_u64_,                                                 \
      char: XGPU_KERNEL_PRINT_CHAR_,                                          \
      signed char: xgpu_print_i64_,                                           \
      unsigned char: xgpu_print_u64_,                                         \
      short: xgpu_print_i64_,                                                 \
      unsigned short: xgpu_print_u64_,                                        \
      int: xgpu_print_i64_,                                                   \
      unsigned int: xgpu_print_u64_,                                          \
      long: xgpu_print_i64_,                                                  \
      unsigned long: xgpu_print_u64_,                                         \
      long long: xgpu_print_i64_,                                             \
      unsigned long long: xgpu_print_u64_,                                    \
      float: xgpu_print_f64_,                                                 \
      double: xgpu_print_f64_,                                                \
      char*: xgpu_print_str_,                                                 \
      const char*: xgpu_print_str_,                                           \
      default: xgpu_print_ptr_)(x)
#endif

/* The argument list, one macro per length: 1..XGPU_PRINT_MAX_VALUES, or
 * TOO_MANY_ (17..24 arguments; more do not count right and fail otherwise). */
#define XGPU_KERNEL_PRINT_CAT2_(a, b) a##b
#define XGPU_KERNEL_PRINT_CAT_(a, b) XGPU_KERNEL_PRINT_CAT2_(a, b)
#define XGPU_KERNEL_PRINT_NTH_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, \
                               a17, a18, a19, a20, a21, a22, a23, a24, n, ...)                    \
  n
#define XGPU_KERNEL_PRINT_ARITY_(...)                                                             \
  XGPU_KERNEL_PRINT_NTH_(__VA_ARGS__, TOO_MANY_, TOO_MANY_, TOO_MANY_, TOO_MANY_, TOO_MANY_,     \
                         TOO_MANY_, TOO_MANY_, TOO_MANY_, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, \
                         5, 4, 3, 2, 1, ~)
#define XGPU_KERNEL_PRINT_FITS_TOO_MANY_ 0
#define XGPU_KERNEL_PRINT_FITS_1 1
#define XGPU_KERNEL_PRINT_FITS_2 1
#define XGPU_KERNEL_PRINT_FITS_3 1
#define XGPU_KERNEL_PRINT_FITS_4 1
#define XGPU_KERNEL_PRINT_FITS_5 1
#define XGPU_KERNEL_PRINT_FITS_6 1
#define XGPU_KERNEL_PRINT_FITS_7 1
#define XGPU_KERNEL_PRINT_FITS_8 1
#define XGPU_KERNEL_PRINT_FITS_9 1
#define XGPU_KERNEL_PRINT_FITS_10 1
#define XGPU_KERNEL_PRINT_FITS_11 1
#define XGPU_KERNEL_PRINT_FITS_12 1
#define XGPU_KERNEL_PRINT_FITS_13 1
#define XGPU_KERNEL_PRINT_FITS_14 1
#define XGPU_KERNEL_PRINT_FITS_15 1
#define XGPU_KERNEL_PRINT_FITS_16 1
#define XGPU_KERNEL_PRINT_MAP_TOO_MANY_(...) {0, 0}
#define XGPU_KERNEL_PRINT_MAP_1(a) XGPU_KERNEL_PRINT_VALUE_(a)
#define XGPU_KERNEL_PRINT_MAP_2(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_1(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_3(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_2(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_4(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_3(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_5(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_4(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_6(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_5(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_7(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_6(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_8(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_7(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_9(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_8(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_10(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_9(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_11(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_10(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_12(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_11(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_13(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_12(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_14(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_13(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_15(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_14(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_MAP_16(a, ...) XGPU_KERNEL_PRINT_VALUE_(a), XGPU_KERNEL_PRINT_MAP_15(__VA_ARGS__)
#define XGPU_KERNEL_PRINT_FIRST_(first, ...) first
/* Concatenating "" with anything but a string literal does not compile. */
#define XGPU_KERNEL_PRINT_FORMAT_IS_A_STRING_LITERAL_(format) (void)sizeof("" format)

/* The writing work item's ids, as a record holds them. */
#define XGPU_KERNEL_PRINT_IDS_                                                          \
  {xgpu_workgroup_id(0), xgpu_workgroup_id(1), xgpu_workgroup_id(2), xgpu_local_id(0), \
   xgpu_local_id(1), xgpu_local_id(2)}

/* xgpu_printf(format, ...): `format` is a string literal; up to 15 values
 * follow (integers, _Bool, char, float, double, strings, pointers). */
#define xgpu_printf(...)                                                                     \
  do {                                                                                       \
    XGPU_KERNEL_PRINT_FORMAT_IS_A_STRING_LITERAL_(XGPU_KERNEL_PRINT_FIRST_(__VA_ARGS__, ~));  \
    XGPU_KERNEL_STATIC_ASSERT_(                                                              \
        XGPU_KERNEL_PRINT_CAT_(XGPU_KERNEL_PRINT_FITS_, XGPU_KERNEL_PRINT_ARITY_(__VA_ARGS__)), \
        "xgpu_printf takes a format string literal and at most 15 values");                 \
    const uint32_t xgpu_print_ids_[6] = XGPU_KERNEL_PRINT_IDS_;                              \
    const xgpu_print_value_t xgpu_print_values_[] = {XGPU_KERNEL_PRINT_CAT_(                 \
        XGPU_KERNEL_PRINT_MAP_, XGPU_KERNEL_PRINT_ARITY_(__VA_ARGS__))(__VA_ARGS__)};         \
    xgpu_print_(XGPU_KERNEL_PRINT_BUFFER_(), XGPU_KERNEL_PRINT_DISPATCH_(), XGPU_PRINT_KIND_PRINTF, xgpu_print_ids_,       \
                xgpu_print_values_,                                                          \
                (uint32_t)(sizeof(xgpu_print_values_) / sizeof(xgpu_print_values_[0])));     \
  } while (0)

/* xgpu_assert(cond): when `cond` is false, writes an assert record (the
 * condition's text, the file and the line); the work item continues. */
#define xgpu_assert(cond)                                                                  \
  do {                                                                                     \
    if (__builtin_expect(!(cond), 0)) {                                                    \
      const uint32_t xgpu_print_ids_[6] = XGPU_KERNEL_PRINT_IDS_;                          \
      const xgpu_print_value_t xgpu_print_values_[XGPU_PRINT_ASSERT_VALUE_COUNT] = {       \
          xgpu_print_str_(#cond), xgpu_print_str_(__FILE__),                               \
          xgpu_print_u64_((unsigned long long)__LINE__)};                                  \
      xgpu_print_(XGPU_KERNEL_PRINT_BUFFER_(), XGPU_KERNEL_PRINT_DISPATCH_(), XGPU_PRINT_KIND_ASSERT, xgpu_print_ids_,    \
                  xgpu_print_values_, XGPU_PRINT_ASSERT_VALUE_COUNT);                      \
    }                                                                                      \
  } while (0)

#if defined(XGPU_KERNEL_BOUNDS_CHECKS)
/* The writer of bounds records (XGPU_PRINT_KIND_BOUNDS) for the
 * bounds-checked copies that the build's pass plugin makes of each kernel
 * (spec/kernels.md, "Bounds-checked entries"; the build defines
 * XGPU_KERNEL_BOUNDS_CHECKS where it loads the plugin): called only by the
 * checks the plugin adds, never by kernel code. `used`, so that it reaches
 * the plugin, which deletes it where no copy calls it. `kernarg` is the
 * kernarg segment's address (the print slots lie before it). On the host
 * `workgroup` is the runtime's xgpu_host_workgroup_t and `local_id` the
 * fiber entry's local id, or NULL where the work-item loops cannot tell the
 * item (the record then holds UINT32_MAX); GPUs read their own ids. `file`
 * is NULL without a line table. */
static __attribute__((used, noinline, cold)) void xgpu_bounds_report_(
    uint64_t kernarg, const void* workgroup, const uint32_t* local_id, uint32_t binding, uint64_t offset,
    uint64_t size, uint64_t length, const char* file, uint32_t line) __asm__("xgpu_bounds_report_");
static __attribute__((used, noinline, cold)) void xgpu_bounds_report_(
    uint64_t kernarg, const void* workgroup, const uint32_t* local_id, uint32_t binding, uint64_t offset,
    uint64_t size, uint64_t length, const char* file, uint32_t line) {
  if (kernarg == 0) return;
  xgpu_print_request_t request;
  request.buffer = *(const uint64_t*)(uintptr_t)(kernarg - XGPU_PRINT_BUFFER_SLOT_OFFSET);
  request.dispatch = *(const uint64_t*)(uintptr_t)(kernarg - XGPU_PRINT_DISPATCH_SLOT_OFFSET);
  request.kind = XGPU_PRINT_KIND_BOUNDS;
  request.count = XGPU_PRINT_BOUNDS_VALUE_COUNT;
  for (uint32_t d = 0; d < 3; ++d) {
#if defined(XGPU_KERNEL_TARGET_AMDGCN)
    (void)workgroup;
    (void)local_id;
    request.workgroup_id[d] = xgpu_amdgcn_workgroup_id_(d);
    request.local_id[d] = xgpu_amdgcn_local_id_(d);
#elif defined(XGPU_KERNEL_TARGET_NVPTX)
    (void)workgroup;
    (void)local_id;
    request.workgroup_id[d] = xgpu_nvptx_workgroup_id_(d);
    request.local_id[d] = xgpu_nvptx_local_id_(d);
#else
    request.workgroup_id[d] = workgroup ? ((const xgpu_host_workgroup_t*)workgroup)->workgroup_id[d] : 0xffffffffu;
    request.local_id[d] = local_id ? local_id[d] : 0xffffffffu;
#endif
  }
  request.values[0] = binding;
  request.values[1] = offset;
  request.values[2] = size;
  request.values[3] = length;
  /* No file: the empty string at the end of "?". A literal "" would be an
   * all-zero array, which PTX declares without an initializer, as it does a
   * writable global: the packer refuses those. */
  request.values[4] = (uint64_t)(uintptr_t)(file ? file : &"?"[1]);
  request.values[5] = line;
  request.tags = (uint64_t)XGPU_PRINT_TAG_U64 | (uint64_t)XGPU_PRINT_TAG_I64 << XGPU_PRINT_TAG_BITS |
                 (uint64_t)XGPU_PRINT_TAG_U64 << (2u * XGPU_PRINT_TAG_BITS) |
                 (uint64_t)XGPU_PRINT_TAG_U64 << (3u * XGPU_PRINT_TAG_BITS) |
                 (uint64_t)XGPU_PRINT_TAG_STR << (4u * XGPU_PRINT_TAG_BITS) |
                 (uint64_t)XGPU_PRINT_TAG_U64 << (5u * XGPU_PRINT_TAG_BITS);
  xgpu_print_emit_(&request);
}
#endif

#endif /* printing */

/* Workgroup count per dimension: ceil(grid size / workgroup size). */
#define xgpu_workgroup_count(d) \
  ((xgpu_grid_size(d) + xgpu_workgroup_size(d) - 1u) / xgpu_workgroup_size(d))
/* Work items in this workgroup (smaller than the workgroup size in a partial
 * last workgroup). */
#define xgpu_workgroup_item_count(d)                                       \
  (xgpu_grid_size(d) - xgpu_workgroup_id(d) * xgpu_workgroup_size(d) <      \
           xgpu_workgroup_size(d)                                          \
       ? xgpu_grid_size(d) - xgpu_workgroup_id(d) * xgpu_workgroup_size(d)  \
       : xgpu_workgroup_size(d))
/* Global work-item id: workgroup id * workgroup size + local id. */
#define xgpu_global_id(d) \
  (xgpu_workgroup_id(d) * xgpu_workgroup_size(d) + xgpu_local_id(d))
/* Row-major linear ids: x fastest. */
#define xgpu_local_linear_id()                                   \
  ((xgpu_local_id(2) * xgpu_workgroup_size(1) + xgpu_local_id(1)) * \
       xgpu_workgroup_size(0) +                                  \
   xgpu_local_id(0))
#define xgpu_workgroup_linear_id()                                      \
  ((xgpu_workgroup_id(2) * xgpu_workgroup_count(1) + xgpu_workgroup_id(1)) * \
       xgpu_workgroup_count(0) +                                        \
   xgpu_workgroup_id(0))
#define xgpu_global_linear_id()                                   \
  ((xgpu_global_id(2) * xgpu_grid_size(1) + xgpu_global_id(1)) *  \
       xgpu_grid_size(0) +                                        \
   xgpu_global_id(0))
/* Work items per workgroup (dispatch size, all dimensions). */
#define xgpu_workgroup_linear_size() \
  (xgpu_workgroup_size(0) * xgpu_workgroup_size(1) * xgpu_workgroup_size(2))

/* Math that maps to single instructions on every target (no libm). */
#define xgpu_sqrtf(x) __builtin_sqrtf(x)
#define xgpu_fabsf(x) __builtin_fabsf(x)
#define xgpu_fminf(a, b) __builtin_fminf((a), (b))
#define xgpu_fmaxf(a, b) __builtin_fmaxf((a), (b))

#endif /* XGPU_KERNEL_H_ */
