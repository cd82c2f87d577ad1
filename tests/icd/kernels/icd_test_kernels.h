/* Argument structs of the ICD runtime tests' kernels (shared by the kernel
 * C17 source and the C++ tests). */
#ifndef XGPU_ICD_TEST_KERNELS_H_
#define XGPU_ICD_TEST_KERNELS_H_

#include <stdint.h>

/* y[i] = a * x[i] + y[i] for i < n. 2 bindings + 8 bytes of constants. */
typedef struct icd_saxpy_args {
  const float* x; /* binding 0: n floats */
  float* y;       /* binding 1: n floats */
  float a;        /* scale */
  uint32_t n;     /* element count */
} icd_saxpy_args_t;

/* out[i] += 1 for i < n (a kernel with a fixed workgroup size). */
#define ICD_TEST_INCREMENT_WORKGROUP 64u
typedef struct icd_increment_args {
  uint32_t* out; /* binding 0: n counters */
  uint32_t n;    /* element count */
  uint32_t pad;  /* zero */
} icd_increment_args_t;

/* Spins until *gate != 0 (the host releases it). */
typedef struct icd_spin_until_args {
  uint32_t* gate; /* binding 0: one word the host sets */
} icd_spin_until_args_t;

/* out[i] = in[i] * mul + add for i < n; tags[i] = tag ^ flags. Three
 * bindings, then 20 bytes of constant fields; the pointers make the struct
 * 8-byte aligned, so it is 48 bytes and its 4 bytes of tail padding belong
 * to the constants (24 bytes): the case where sizeof a struct of just the
 * constant fields (20) is not the constant size. Declares its layout. */
typedef struct icd_scale_args {
  const uint32_t* in; /* binding 0: n values */
  uint32_t* out;      /* binding 1: n values */
  uint32_t* tags;     /* binding 2: n values */
  uint32_t mul;       /* factor */
  uint32_t add;       /* addend */
  uint32_t n;         /* element count */
  uint32_t tag;       /* value written to tags[] (xor flags) */
  uint32_t flags;     /* xor'ed into tag */
} icd_scale_args_t;

/* out[i] = n for i < n. Deliberately declares no layout (no
 * XGPU_KERNEL_BINDINGS): pipelines must state it. */
typedef struct icd_undeclared_args {
  uint32_t* out;  /* binding 0: n values */
  uint32_t n;     /* element count */
  uint32_t pad;   /* zero */
} icd_undeclared_args_t;

/* Loads the word at `address` (a bad address the host chooses: the kernel
 * faults) into out[0]. */
typedef struct icd_fault_args {
  uint32_t* out;    /* binding 0: one word */
  uint64_t address; /* what work item 0 of every workgroup loads */
} icd_fault_args_t;

/* Prints two lines per work item (xgpu_printf), the second after its first:
 * "item <global id> of <n>: <value> <name>" and "done <global id>", where
 * value = 0.5 * id; and xgpu_assert(id < limit) (icd_print_assert). */
typedef struct icd_print_args {
  uint32_t n;     /* work items that print */
  uint32_t limit; /* icd_print_assert: ids from here on fail the assert */
} icd_print_args_t;
#define ICD_TEST_PRINT_WORKGROUP 64u

/* Stores `value` at `address` (the host chooses an address past a buffer,
 * freed or unmapped: the kernel faults) from work item 0 of workgroup
 * `workgroup`. */
typedef struct icd_fault_store_args {
  uint64_t address;   /* where the store goes */
  uint32_t value;     /* what it stores */
  uint32_t workgroup; /* the workgroup (x) that stores */
} icd_fault_store_args_t;

/* out[0] = a value written through groupshared memory. The two kernels
 * differ in their static groupshared size: icd_groupshared takes 4 KiB (a
 * dispatch adding the largest dynamic size exceeds the limit), and
 * icd_groupshared_too_large (icd_host_only.c: the host build only, as
 * AMDGPU's linker refuses it) more than the 64 KiB
 * limits.maxWorkgroupMemorySize of hsa-cpu (its pipeline is refused). */
typedef struct icd_groupshared_args {
  uint32_t* out; /* binding 0: one word */
} icd_groupshared_args_t;
typedef struct icd_groupshared_small {
  uint32_t words[1024]; /* 4 KiB */
} icd_groupshared_small_t;
typedef struct icd_groupshared_large {
  uint32_t words[17 * 1024]; /* 68 KiB */
} icd_groupshared_large_t;

#endif
