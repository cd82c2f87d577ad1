/* Test kernels for hsa-cuda, built by clang-19 for nvptx64-nvidia-cuda
   (sm_90) to PTX text. Each takes one struct by value: the kernarg bytes. */
#include <stdint.h>

#define KERNEL __attribute__((visibility("default"), nvptx_kernel))

static inline uint32_t global_id_x(void) {
  return __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
}

typedef struct {
  float* y;
  const float* x;
  float a;
  uint32_t n;
} saxpy_args_t;

KERNEL void saxpy(saxpy_args_t args) {
  uint32_t i = global_id_x();
  if (i < args.n) args.y[i] = args.a * args.x[i] + args.y[i];
}

typedef struct {
  uint32_t* out;
  uint32_t value;
} fill_args_t;

/* out[i] = value + i over a 2D grid, row-major with the grid's width. */
KERNEL void fill2d(fill_args_t args) {
  uint32_t x = global_id_x();
  uint32_t y = __nvvm_read_ptx_sreg_ctaid_y() * __nvvm_read_ptx_sreg_ntid_y() + __nvvm_read_ptx_sreg_tid_y();
  uint32_t width = __nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_ntid_x();
  args.out[y * width + x] = args.value + y * width + x;
}

typedef struct {
  uint64_t* counter;
} count_args_t;

/* Adds 1 per work item: ordering tests read the total. */
KERNEL void count(count_args_t args) { __atomic_fetch_add(args.counter, 1, __ATOMIC_RELAXED); }

typedef struct {
  volatile uint32_t* bad;
} fault_args_t;

/* Writes through a pointer the test makes invalid: a device fault. */
KERNEL void fault(fault_args_t args) { *args.bad = 1; }

typedef struct {
  uint64_t* elapsed;
  uint64_t ns;
} spin_args_t;

static inline uint64_t global_timer(void) {
  uint64_t t;
  __asm__ volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* One work item spins for `ns` of the GPU's global timer and stores how long
   it spun: a kernel of known length for the profiling tests. */
KERNEL void spin(spin_args_t args) {
  const uint64_t start = global_timer();
  uint64_t now = start;
  while (now - start < args.ns) now = global_timer();
  if (global_id_x() == 0) *args.elapsed = now - start;
}
