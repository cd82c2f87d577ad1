/* How each kernel accesses its bindings (tools/xgpu-wiloop/binding_access.cpp),
 * on the host: binding i is the pointer loaded from the argument struct at
 * byte 8 i; every use of it is followed (loads read, stores write, atomics
 * are atomic, memcpy / memset, calls into functions of this source); a
 * pointer that escapes (passed to a function of another source, stored to
 * memory, made an integer that is used for more than comparisons, loaded as
 * something else than a pointer) is unknown. Each kernel that declares its
 * layout gets one record (XGPU_KERNEL_ACCESS_MAGIC) in the layout records'
 * section: masks read, write, atomic, unknown. Near miss: a kernel without
 * XGPU_KERNEL_BINDINGS gets none. */
// PASSES: xgpu-wiloop,xgpu-binding-access
#include <xgpu/kernel.h>

typedef struct three_args {
  const uint32_t* in;  /* binding 0 */
  uint32_t* out;       /* binding 1 */
  uint32_t* counters;  /* binding 2 */
  uint32_t n;
} three_args_t;

void defined_elsewhere(uint32_t* p);
uint32_t* volatile g_saved;

__attribute__((noinline)) static void store_one(uint32_t* p, uint32_t i, uint32_t v) { p[i] = v; }

/* Read, write, atomic. */
XGPU_KERNEL(plain, three_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  args->out[i] = args->in[i] * 3u;
  xgpu_atomic_fetch_add(&args->counters[0], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(plain, 3);
// REMARK: kernel 'plain' binding access: 0: read, 1: write, 2: atomic
// IR: @plain_xgpu_access_ = internal constant [56 x i8] c"XGKA8\00\00\00\03\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00plain\00\00\00", section ".xgpu_kernel_layouts", align 8

/* A store through a helper that was not inlined is followed into it; an
 * atomic load is atomic; binding 0 is never used. */
XGPU_KERNEL(through_helper, three_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) store_one(args->out, i, xgpu_atomic_load(&args->counters[i], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT));
}
XGPU_KERNEL_BINDINGS(through_helper, 3);
// REMARK: kernel 'through_helper' binding access: 0: not accessed, 1: write, 2: atomic

/* Escapes: to a function of another source, and stored to memory. */
XGPU_KERNEL(escapes, three_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i != 0) return;
  defined_elsewhere(args->out);
  g_saved = args->counters;
  args->out[1] = args->in[0];
}
XGPU_KERNEL_BINDINGS(escapes, 3);
// REMARK: kernel 'escapes' binding access: 0: read, 1: unknown (it is passed to 'defined_elsewhere', which this source does not define), 2: unknown (its pointer is stored to memory)

/* An address compared (no access) and an address made a pointer again
 * from an integer (unknown: it may reach any memory). */
XGPU_KERNEL(addresses, three_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if ((uintptr_t)args->in == (uintptr_t)args->out) return;
  uint32_t* again = (uint32_t*)((uintptr_t)args->counters + 4u * i);
  *again = 1u;
}
XGPU_KERNEL_BINDINGS(addresses, 3);
// REMARK: kernel 'addresses' binding access: 0: not accessed, 1: not accessed, 2: unknown (its address is used as an integer by 'inttoptr')

/* memcpy and memset: destination written, source read. */
XGPU_KERNEL(copies, three_args_t, args) {
  if (xgpu_global_id(0) != 0) return;
  __builtin_memcpy(args->out, args->in, 4u * args->n);
  __builtin_memset(args->counters, 0, 16);
}
XGPU_KERNEL_BINDINGS(copies, 3);
// REMARK: kernel 'copies' binding access: 0: read, 1: write, 2: write

/* The escapes kernel with a declaration (XGPU_KERNEL_BINDING_ACCESS): the
 * unknown bindings take the declared access, the known one is checked
 * against it (read, declared read); the declaration leaves the module. */
XGPU_KERNEL(escapes_declared, three_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  defined_elsewhere(args->out);
  g_saved = args->counters;
  args->out[i] = args->in[i];
}
XGPU_KERNEL_BINDINGS(escapes_declared, 3);
XGPU_KERNEL_BINDING_ACCESS(escapes_declared, XGPU_KERNEL_ACCESS_READ, XGPU_KERNEL_ACCESS_WRITE,
                           XGPU_KERNEL_ACCESS_ATOMIC);
// REMARK: kernel 'escapes_declared' binding access: 0: read (declared; the code: read), 1: write (declared; the code: unknown, it is passed to 'defined_elsewhere', which this source does not define), 2: atomic (declared; the code: unknown, its pointer is stored to memory)
// IR-NOT: @escapes_declared_xgpu_access_decl_ =

/* Near miss: no declared layout, no record. */
XGPU_KERNEL(undeclared, three_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = args->in[i];
}
// REMARK-NOT: kernel 'undeclared'
// IR-NOT: @undeclared_xgpu_access_
