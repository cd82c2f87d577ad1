/* hsa-cpu's own extensions to the HSA API: what only this runtime knows
 * about a kernel that faulted (hsa-cpu/README.md, "Kernel faults"), and
 * where a queue's dispatches ran.
 *
 * Plain C (C99). The entry points are exported by libxgpu-hsa-cpu under the
 * symbol version HSA_CPU_1, not ROCR's ROCR_1: other HSA runtimes (ROCR,
 * hsa-cuda) do not have them, so a caller that may run on several looks them
 * up with dlsym (HSA_CPU_QUEUE_GET_KERNEL_FAULT_SYMBOL) and treats them as
 * optional.
 *
 * Threading: every entry point is thread-safe. */
#ifndef HSA_CPU_EXT_H_
#define HSA_CPU_EXT_H_

#include <hsa/hsa.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the faulting instruction accessed the faulting address. */
typedef enum hsa_cpu_fault_access_e {
  HSA_CPU_FAULT_ACCESS_UNKNOWN = 0, /* not a page fault (SIGBUS, SIGFPE, SIGILL, a non-canonical address) */
  HSA_CPU_FAULT_ACCESS_READ = 1,    /* a data load */
  HSA_CPU_FAULT_ACCESS_WRITE = 2,   /* a data store (a stack overflow's push included) */
  HSA_CPU_FAULT_ACCESS_EXECUTE = 3  /* an instruction fetch */
} hsa_cpu_fault_access_t;

/* Lengths of the strings of hsa_cpu_kernel_fault_t, NUL included; a longer
 * string is cut to fit (still terminated). */
#define HSA_CPU_KERNEL_FAULT_DESCRIPTION_SIZE 64
#define HSA_CPU_KERNEL_FAULT_FUNCTION_SIZE 128
#define HSA_CPU_KERNEL_FAULT_FILE_SIZE 512

/* A kernel fault hsa-cpu contained (776 bytes). Addresses are host virtual
 * addresses of the faulting process. */
typedef struct hsa_cpu_kernel_fault_s {
  uint64_t kernel_object;      /* the faulting dispatch packet's kernel_object */
  uint64_t packet_id;          /* the packet's AQL packet id (the queue's read index when it was read) */
  uint64_t address;            /* faulting data address (si_addr; the pc for SIGFPE and SIGILL) */
  uint64_t pc;                 /* address of the faulting instruction */
  uint64_t code_object_offset; /* pc minus the load base of the code object holding it (its address in the
                                  code object's ELF file, as addr2line takes it); 0 when pc is in none */
  uint32_t access;             /* hsa_cpu_fault_access_t, from the x86 page-fault error code */
  int32_t signal;              /* SIGSEGV, SIGBUS, SIGFPE or SIGILL */
  uint32_t workgroup_id[3];    /* the faulting workgroup (x, y, z); the first of workgroup_run */
  uint32_t workgroup_run;      /* workgroups along x, from workgroup_id[0], the fault lies in: 1 names the
                                  faulting workgroup, more when the kernel ran a run of them interleaved */
  uint32_t line;               /* source line of pc (1-based); 0 when unknown */
  uint32_t column;             /* source column of pc (1-based); 0 when unknown */
  char description[HSA_CPU_KERNEL_FAULT_DESCRIPTION_SIZE]; /* "SIGSEGV (address not mapped)", ... */
  char function[HSA_CPU_KERNEL_FAULT_FUNCTION_SIZE];       /* the symbol holding pc (C++ names demangled);
                                                              "" when unknown */
  char file[HSA_CPU_KERNEL_FAULT_FILE_SIZE];               /* source file of pc as the DWARF line table
                                                              names it (with its directory); "" when unknown */
} hsa_cpu_kernel_fault_t;

/* The first kernel fault of `queue`: the one its error callback reported
 * (or will report: the record is complete as soon as it can be read, which
 * may be before the callback runs).
 *
 * Returns HSA_STATUS_SUCCESS with *out_fault filled;
 * HSA_STATUS_INFO_BREAK when the queue has had no kernel fault (*out_fault
 * untouched); HSA_STATUS_ERROR_NOT_INITIALIZED without a runtime;
 * HSA_STATUS_ERROR_INVALID_QUEUE for a NULL queue or one hsa-cpu does not
 * know (never dereferenced); HSA_STATUS_ERROR_INVALID_ARGUMENT for a NULL
 * out_fault. The record lives until hsa_queue_destroy.
 *
 * Source positions come from the code object's DWARF line table (host code
 * objects built by xgpu_add_kernels carry one: -gline-tables-only), read
 * after the fault was contained; an hsa-cpu built without libdw leaves
 * line, column and file empty. */
hsa_status_t hsa_cpu_queue_get_kernel_fault(const hsa_queue_t* queue, hsa_cpu_kernel_fault_t* out_fault);

/* Its name and type, for dlsym. */
#define HSA_CPU_QUEUE_GET_KERNEL_FAULT_SYMBOL "hsa_cpu_queue_get_kernel_fault"
typedef hsa_status_t (*hsa_cpu_queue_get_kernel_fault_fn_t)(const hsa_queue_t* queue,
                                                            hsa_cpu_kernel_fault_t* out_fault);

/* Where a queue's kernel dispatches ran, since it was created. A dispatch of
 * one workgroup, or one whose workgroups the kernel's latest dispatch on the
 * queue measured at less than HSA_CPU_INLINE_DISPATCH_NS in all, runs on the
 * queue's processor thread; others go to the worker pool. The pool measures
 * a kernel dearer than one thread does, so every 16th dispatch in a row the
 * pool would take of a kernel measured at most 4 times that limit runs on
 * the processor thread and is measured again: a probe (hsa-cpu/README.md,
 * "Kernel dispatch"). */
typedef struct hsa_cpu_dispatch_counts_s {
  uint64_t on_processor; /* run on the queue's processor thread, probes included */
  uint64_t pooled;       /* handed to the worker pool */
  uint64_t probes;       /* of on_processor: run there to be measured again */
} hsa_cpu_dispatch_counts_t;

/* Fills *out_counts with where `queue`'s dispatches ran so far (each count
 * read atomically; a dispatch being decided may or may not be counted).
 * Returns HSA_STATUS_SUCCESS; HSA_STATUS_ERROR_NOT_INITIALIZED without a
 * runtime; HSA_STATUS_ERROR_INVALID_QUEUE for a NULL queue or one hsa-cpu
 * does not know (never dereferenced); HSA_STATUS_ERROR_INVALID_ARGUMENT for
 * a NULL out_counts. */
hsa_status_t hsa_cpu_queue_get_dispatch_counts(const hsa_queue_t* queue, hsa_cpu_dispatch_counts_t* out_counts);

#define HSA_CPU_QUEUE_GET_DISPATCH_COUNTS_SYMBOL "hsa_cpu_queue_get_dispatch_counts"
typedef hsa_status_t (*hsa_cpu_queue_get_dispatch_counts_fn_t)(const hsa_queue_t* queue,
                                                               hsa_cpu_dispatch_counts_t* out_counts);

#ifdef __cplusplus
}
#endif

#endif /* HSA_CPU_EXT_H_ */
