/*
 * cuda_bench: the CUDA driver API doing the work that xgpu's benchmarks time
 * through hsa-cuda, so both can be read side by side from one run on one
 * GPU (bench/cuda/README.md). It dlopens libcuda.so.1 as hsa-cuda does
 * (nothing links CUDA, no CUDA SDK) and loads its kernels as PTX built here
 * by clang-19 (kernels.c -> cuda_bench_kernels.ptx beside the binary).
 *
 * Figures (medians of the samples, with min and max; latencies with p99):
 *   launch (cuLaunchKernel) ns/dispatch  N launches of bump(1,1,1) on a stream, then cuStreamSynchronize
 *   graph ns/dispatch                    one CUDA graph of the same N launches (stream capture), cuGraphLaunch + sync;
 *                                        again with the counters in mapped pinned host memory (where
 *                                        recording_bench's host-visible buffer keeps them)
 *   one dispatch launch -> sync us       one bump launch + cuStreamSynchronize
 *   empty launch -> sync us              one launch of an empty kernel + cuStreamSynchronize
 *   event record -> sync us              cuEventRecord on an idle stream + cuEventSynchronize (no work at all)
 *   host function us                     diagnostic: an empty kernel + cuLaunchHostFunc; from the launch until
 *                                        the host function runs (what hsa-cuda's waiter wake-up costs)
 *   saxpy GB/s                           y = a*x + y over 64 Mi floats, 12 B per element, launch + sync per pass
 *   cross-stream edge us                 stream B holds cuStreamWaitValue64(S >= k) then writes T = k (issued
 *                                        first, untimed); timed: stream A writes S = k, the host sees T = k.
 *                                        Beside it the same without the edge (A writes T), and the event
 *                                        form: cuEventRecord(A) -> cuStreamWaitEvent(B) -> cuEventRecord(B),
 *                                        cuEventSynchronize.
 *   cross-device edge us                 with two GPUs: the event form between a stream of GPU 0 and one of
 *                                        GPU 1 (primary contexts): record on GPU 0, cuStreamWaitEvent on
 *                                        GPU 1's stream, record there, event sync (cross_queue_bench's
 *                                        cross-device edge beside it)
 *   fault us                             last (CUDA keeps a fault for the context): thread 0 spins until the
 *                                        host sets a flag in mapped host memory, then stores to address 16;
 *                                        from the flag's store until cuStreamQuery (polled) returns the
 *                                        error (what hsa-cuda can see at the earliest); one sample
 *   printf ns/line                       bench/debugging's figure through CUDA's device printf: one launch of
 *                                        N threads that each print one line, + cuCtxSynchronize (which
 *                                        writes the lines to stdout, here a temporary file), against the same
 *                                        kernel without the line, alternated; (T_print - T_quiet) / N per pair
 *
 * Results checked: the 64 counters equal the host's expectation (the same
 * constants as bench/recording), every saxpy element equals
 * (i mod 7) + passes * 2 * (i mod 1024) (as bench/saxpy), S and T end at the
 * last k; every printed line arrives once with its thread's id, value and
 * half.
 *
 *   cuda_bench [--smoke] [--json] [--repeats R] [--dispatches N] [--rounds K] [--ptx FILE]
 *              [--xgpu-ptx FILE]
 *
 * --xgpu-ptx FILE (diagnostic): also runs saxpy with xgpu's own kernel
 * (bench/saxpy/kernels.c built for nvptx: the `saxpy` entry of FILE) launched
 * as hsa-cuda launches it (the same grid and blocks, the argument struct and
 * the grid size in one parameter buffer), cuda_bench's kernel through a
 * parameter buffer, then cuda_bench's kernel again.
 *
 * Without a CUDA driver or device it says so and exits 0 (nothing to compare).
 */
#define _GNU_SOURCE 1

#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/bench_common.h"
#include "../debugging/debugging_bench_shared.h"
#include "../recording/recording_shared.h"
#include "../saxpy/saxpy_shared.h"

/* ---- The few driver-API types and entry points used (NVIDIA's stable driver ABI). ---- */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
typedef struct CUgraph_st* CUgraph;
typedef struct CUgraphExec_st* CUgraphExec;
typedef unsigned long long CUdeviceptr;
enum { CUDA_SUCCESS = 0, CUDA_ERROR_NOT_READY = 600, CUDA_ERROR_ILLEGAL_ADDRESS = 700 };
enum { CU_STREAM_NON_BLOCKING = 1, CU_EVENT_DISABLE_TIMING = 2 };
enum { CU_STREAM_CAPTURE_MODE_RELAXED = 2 };
enum { CU_STREAM_WAIT_VALUE_GEQ = 0, CU_STREAM_WRITE_VALUE_DEFAULT = 0 };
enum { CU_MEMHOSTALLOC_PORTABLE = 1, CU_MEMHOSTALLOC_DEVICEMAP = 2 };
enum { CU_LIMIT_PRINTF_FIFO_SIZE = 1 };

#define CUDA_FUNCTIONS(X)                                                                               \
  X(cuInit, "cuInit", (unsigned))                                                                       \
  X(cuGetErrorString, "cuGetErrorString", (CUresult, const char**))                                     \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int*))                                                       \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice*, int))                                                       \
  X(cuDeviceGetName, "cuDeviceGetName", (char*, int, CUdevice))                                         \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext*, CUdevice))                       \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice))                              \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                                                    \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule*, const void*))                                     \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule))                                                       \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction*, CUmodule, const char*))                   \
  X(cuLaunchKernel, "cuLaunchKernel",                                                                   \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, \
     void**))                                                                                           \
  X(cuStreamCreate, "cuStreamCreate", (CUstream*, unsigned))                                            \
  X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream))                                                  \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream))                                             \
  X(cuStreamQuery, "cuStreamQuery", (CUstream))                                                         \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", (CUstream, int))                                   \
  X(cuStreamEndCapture, "cuStreamEndCapture", (CUstream, CUgraph*))                                     \
  X(cuGraphInstantiate, "cuGraphInstantiateWithFlags", (CUgraphExec*, CUgraph, unsigned long long))     \
  X(cuGraphLaunch, "cuGraphLaunch", (CUgraphExec, CUstream))                                            \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", (CUgraphExec))                                            \
  X(cuGraphDestroy, "cuGraphDestroy", (CUgraph))                                                        \
  X(cuEventCreate, "cuEventCreate", (CUevent*, unsigned))                                               \
  X(cuEventDestroy, "cuEventDestroy_v2", (CUevent))                                                     \
  X(cuEventRecord, "cuEventRecord", (CUevent, CUstream))                                                \
  X(cuEventSynchronize, "cuEventSynchronize", (CUevent))                                                \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", (CUstream, CUevent, unsigned))                              \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr*, size_t))                                                \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                                           \
  X(cuMemHostAlloc, "cuMemHostAlloc", (void**, size_t, unsigned))                                       \
  X(cuMemFreeHost, "cuMemFreeHost", (void*))                                                            \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", (CUdeviceptr*, void*, unsigned))         \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr, const void*, size_t))                                \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void*, CUdeviceptr, size_t))                                      \
  X(cuStreamWriteValue64, "cuStreamWriteValue64_v2", (CUstream, CUdeviceptr, uint64_t, unsigned))       \
  X(cuStreamWaitValue64, "cuStreamWaitValue64_v2", (CUstream, CUdeviceptr, uint64_t, unsigned))   \
  X(cuLaunchHostFunc, "cuLaunchHostFunc", (CUstream, void (*)(void*), void*))                           \
  X(cuCtxSetLimit, "cuCtxSetLimit", (int, size_t))                                                      \
  X(cuCtxSynchronize, "cuCtxSynchronize", (void))

static struct {
#define DECLARE(field, symbol, params) CUresult(*field) params;
  CUDA_FUNCTIONS(DECLARE)
#undef DECLARE
} cu;

static const char* g_call; /* the call CK() is checking, for the message */

static void check_cuda(CUresult r, const char* what, int line) {
  if (r == CUDA_SUCCESS) return;
  const char* text = NULL;
  if (cu.cuGetErrorString) cu.cuGetErrorString(r, &text);
  fprintf(stderr, "cuda_bench:%d: %s failed: %d (%s)\n", line, what, r, text ? text : "?");
  exit(1);
}
#define CK(call) (g_call = #call, check_cuda((call), g_call, __LINE__))

/* ---- Options and state. ---- */
typedef struct options {
  bench_options_t o;
  uint32_t repeats, dispatches, rounds, passes, lines;
  const char* ptx;
  const char* xgpu_ptx; /* xgpu's saxpy built for nvptx (diagnostic), or NULL */
} options_t;

typedef struct bump_args {
  CUdeviceptr counters;
  recording_constants_t c;
} bump_args_t;

typedef struct saxpy_args {
  CUdeviceptr x, y;
  saxpy_constants_t c;
} saxpy_args_t;

static recording_constants_t bench_constants(uint32_t i) {
  recording_constants_t c = {i % RECORDING_COUNTER_COUNT, i % 7u + 1u, {0, 0}};
  return c;
}

typedef struct state {
  CUfunction bump, saxpy, empty, print_lines, quiet_lines;
  CUstream stream, other;
  CUdeviceptr counters;
  uint64_t expected[RECORDING_COUNTER_COUNT];
  char side[300];
} state_t;

static void launch_bump(state_t* s, CUstream stream, uint32_t i) {
  bump_args_t args = {s->counters, bench_constants(i)};
  s->expected[args.c.index] += args.c.value;
  void* params[] = {&args};
  CK(cu.cuLaunchKernel(s->bump, 1, 1, 1, 1, 1, 1, 0, stream, params, NULL));
}

static void report(const options_t* o, const char* figure, const char* unit, bool higher, bool latency,
                   const state_t* s, double* samples, uint32_t n) {
  const bench_summary_t sum = bench_summarize(samples, n);
  bench_report(&o->o, "cuda", figure, unit, higher, latency, s->side, &sum);
}

/* One CUDA graph of o->dispatches bump launches (stream capture) on
 * s->counters, replayed: its launches add to the expectation once per
 * replay. Reports `figure` in ns per dispatch. */
static void graph_figure(const options_t* o, state_t* s, double* samples, const char* figure) {
  const uint32_t n = o->dispatches;
  uint64_t before[RECORDING_COUNTER_COUNT];
  memcpy(before, s->expected, sizeof before);
  CUgraph graph = NULL;
  CUgraphExec exec = NULL;
  CK(cu.cuStreamBeginCapture(s->stream, CU_STREAM_CAPTURE_MODE_RELAXED));
  for (uint32_t i = 0; i < n; ++i) launch_bump(s, s->stream, i);
  CK(cu.cuStreamEndCapture(s->stream, &graph));
  CK(cu.cuGraphInstantiate(&exec, graph, 0));
  uint64_t per_replay[RECORDING_COUNTER_COUNT];
  for (uint32_t c = 0; c < RECORDING_COUNTER_COUNT; ++c) per_replay[c] = s->expected[c] - before[c];
  memcpy(s->expected, before, sizeof before);
  for (uint32_t r = 0; r <= o->repeats; ++r) {
    const uint64_t start = bench_now_ns();
    CK(cu.cuGraphLaunch(exec, s->stream));
    CK(cu.cuStreamSynchronize(s->stream));
    if (r) samples[r - 1] = (double)(bench_now_ns() - start) / n;
    for (uint32_t c = 0; c < RECORDING_COUNTER_COUNT; ++c) s->expected[c] += per_replay[c];
  }
  report(o, figure, "ns/dispatch", false, false, s, samples, o->repeats);
  CK(cu.cuGraphExecDestroy(exec));
  CK(cu.cuGraphDestroy(graph));
}

/* Per-dispatch launch and graph replay, ns per dispatch. */
static void per_dispatch(const options_t* o, state_t* s) {
  const uint32_t n = o->dispatches;
  double* samples = calloc(o->repeats, sizeof(double));
  for (uint32_t r = 0; r <= o->repeats; ++r) { /* r == 0: warm-up */
    const uint64_t start = bench_now_ns();
    for (uint32_t i = 0; i < n; ++i) launch_bump(s, s->stream, i);
    CK(cu.cuStreamSynchronize(s->stream));
    if (r) samples[r - 1] = (double)(bench_now_ns() - start) / n;
  }
  report(o, "launch N x bump(1,1,1) + sync (cuLaunchKernel)", "ns/dispatch", false, false, s, samples, o->repeats);

  graph_figure(o, s, samples, "graph of N x bump(1,1,1), launch + sync");

  /* The same graph with the counters in pinned host memory the GPU maps:
   * where xgpu's recording benchmark keeps them (a host-visible buffer),
   * each atomic then goes over the bus. This is the CUDA figure that
   * recording_bench's replay compares with. */
  uint32_t* host_counters = NULL;
  CK(cu.cuMemHostAlloc((void**)&host_counters, sizeof(uint32_t) * RECORDING_COUNTER_COUNT,
                       CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
  memset(host_counters, 0, sizeof(uint32_t) * RECORDING_COUNTER_COUNT);
  const CUdeviceptr device_counters = s->counters;
  uint64_t device_expected[RECORDING_COUNTER_COUNT];
  memcpy(device_expected, s->expected, sizeof device_expected);
  memset(s->expected, 0, sizeof s->expected);
  CK(cu.cuMemHostGetDevicePointer(&s->counters, host_counters, 0));
  graph_figure(o, s, samples, "graph of N x bump(1,1,1), counters in host memory, launch + sync");
  bool ok = true;
  for (uint32_t c = 0; c < RECORDING_COUNTER_COUNT; ++c) ok &= host_counters[c] == (uint32_t)s->expected[c];
  bench_check(&o->o, "cuda", "CUDA bump counters in host memory equal the host's expectation", ok);
  s->counters = device_counters;
  memcpy(s->expected, device_expected, sizeof device_expected);
  CK(cu.cuMemFreeHost(host_counters));
  free(samples);
}

/* A stream host function: stores when it ran. */
static void host_function(void* data) { __atomic_store_n((uint64_t*)data, bench_now_ns(), __ATOMIC_RELEASE); }

/* Latencies: one launch + sync, an empty kernel + sync, an event record + sync. */
static void latencies(const options_t* o, state_t* s) {
  double* samples = calloc(o->rounds, sizeof(double));
  const uint32_t warmup = o->o.smoke ? 1 : 20;
  for (uint32_t r = 0; r < warmup + o->rounds; ++r) {
    const uint64_t start = bench_now_ns();
    launch_bump(s, s->stream, r);
    CK(cu.cuStreamSynchronize(s->stream));
    if (r >= warmup) samples[r - warmup] = (double)(bench_now_ns() - start) / 1e3;
  }
  report(o, "one bump(1,1,1) launch -> stream sync", "us", false, true, s, samples, o->rounds);
  for (uint32_t r = 0; r < warmup + o->rounds; ++r) {
    const uint64_t start = bench_now_ns();
    CK(cu.cuLaunchKernel(s->empty, 1, 1, 1, 1, 1, 1, 0, s->stream, NULL, NULL));
    CK(cu.cuStreamSynchronize(s->stream));
    if (r >= warmup) samples[r - warmup] = (double)(bench_now_ns() - start) / 1e3;
  }
  report(o, "empty kernel launch -> stream sync", "us", false, true, s, samples, o->rounds);
  CUevent event;
  CK(cu.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  for (uint32_t r = 0; r < warmup + o->rounds; ++r) {
    const uint64_t start = bench_now_ns();
    CK(cu.cuEventRecord(event, s->stream));
    CK(cu.cuEventSynchronize(event));
    if (r >= warmup) samples[r - warmup] = (double)(bench_now_ns() - start) / 1e3;
  }
  report(o, "event record -> event sync (no work)", "us", false, true, s, samples, o->rounds);
  CK(cu.cuEventDestroy(event));
  for (uint32_t r = 0; r < warmup + o->rounds; ++r) {
    uint64_t ran = 0;
    const uint64_t start = bench_now_ns();
    CK(cu.cuLaunchKernel(s->empty, 1, 1, 1, 1, 1, 1, 0, s->stream, NULL, NULL));
    CK(cu.cuLaunchHostFunc(s->stream, host_function, &ran));
    while (!__atomic_load_n(&ran, __ATOMIC_ACQUIRE)) __builtin_ia32_pause();
    if (r >= warmup) samples[r - warmup] = (double)(ran - start) / 1e3;
    CK(cu.cuStreamSynchronize(s->stream));
  }
  report(o, "empty kernel + cuLaunchHostFunc: launch -> host function runs", "us", false, true, s, samples,
         o->rounds);
  free(samples);
}

static bool check_counters(const options_t* o, state_t* s) {
  uint32_t got[RECORDING_COUNTER_COUNT];
  CK(cu.cuStreamSynchronize(s->stream));
  CK(cu.cuMemcpyDtoH(got, s->counters, sizeof got));
  bool ok = true;
  for (uint32_t c = 0; c < RECORDING_COUNTER_COUNT; ++c) {
    if (got[c] != (uint32_t)s->expected[c]) {
      fprintf(stderr, "cuda: counter %u is %u, expected %u\n", c, got[c], (uint32_t)s->expected[c]);
      ok = false;
      break;
    }
  }
  bench_check(&o->o, "cuda", "CUDA bump counters equal the host's expectation", ok);
  return ok;
}

#define CU_LAUNCH_PARAM_END_ ((void*)0)
#define CU_LAUNCH_PARAM_BUFFER_POINTER_ ((void*)1)
#define CU_LAUNCH_PARAM_BUFFER_SIZE_ ((void*)2)

/* How a saxpy launch passes its arguments. */
typedef enum saxpy_launch {
  SAXPY_PARAMS,      /* kernelParams: one pointer to the struct */
  SAXPY_BUFFER,      /* one parameter buffer holding the struct (hsa-cuda's way, without the grid) */
  SAXPY_XGPU_BUFFER, /* xgpu's own saxpy entry (bench/saxpy/kernels.c built for nvptx, <xgpu/kernel.h>)
                        launched exactly as hsa-cuda launches it: the struct and, after it, the grid in
                        work items (xgpu_nvptx_grid_t, 16 bytes) in one parameter buffer */
} saxpy_launch_t;

static void launch_saxpy(CUfunction f, saxpy_launch_t how, saxpy_args_t* args, uint32_t blocks_x, uint32_t rows,
                         CUstream stream) {
  if (how == SAXPY_PARAMS) {
    void* params[] = {args};
    CK(cu.cuLaunchKernel(f, blocks_x, rows, 1, 256, 1, 1, 0, stream, params, NULL));
    return;
  }
  uint8_t buffer[sizeof(saxpy_args_t) + 16];
  const uint32_t grid[4] = {blocks_x * 256u, rows, 1, 0};
  memcpy(buffer, args, sizeof *args);
  memcpy(buffer + sizeof *args, grid, sizeof grid);
  size_t size = how == SAXPY_XGPU_BUFFER ? sizeof buffer : sizeof *args;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER_, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE_, &size,
                   CU_LAUNCH_PARAM_END_};
  CK(cu.cuLaunchKernel(f, blocks_x, rows, 1, 256, 1, 1, 0, stream, NULL, extra));
}

/* saxpy over n floats, GB/s (12 B per element); one pass = launch + sync.
 * `label` names the kernel ("" for cuda_bench's own). */
static bool saxpy(const options_t* o, state_t* s, CUfunction f, saxpy_launch_t how, const char* label) {
  const uint32_t n = o->o.smoke ? 256u * 1024u : 64u * 1024u * 1024u;
  const size_t bytes = (size_t)n * sizeof(float);
  float* host = malloc(bytes);
  CUdeviceptr x, y;
  CK(cu.cuMemAlloc(&x, bytes));
  CK(cu.cuMemAlloc(&y, bytes));
  for (uint32_t i = 0; i < n; ++i) host[i] = (float)(i & 1023u);
  CK(cu.cuMemcpyHtoD(x, host, bytes));
  for (uint32_t i = 0; i < n; ++i) host[i] = (float)(i % 7u);
  CK(cu.cuMemcpyHtoD(y, host, bytes));
  saxpy_args_t args = {x, y, {2.0f, n}};
  const uint32_t rows = (n + SAXPY_ROW - 1) / SAXPY_ROW, columns = n < SAXPY_ROW ? n : SAXPY_ROW;
  const uint32_t blocks_x = (columns + 255) / 256;
  char figure[200];
  double* samples = calloc(o->passes, sizeof(double));
  for (uint32_t p = 0; p <= o->passes; ++p) { /* p == 0: warm-up */
    const uint64_t start = bench_now_ns();
    launch_saxpy(f, how, &args, blocks_x, rows, s->stream);
    CK(cu.cuStreamSynchronize(s->stream));
    const double seconds = (double)(bench_now_ns() - start) / 1e9;
    if (p) samples[p - 1] = 12.0 * n / seconds / 1e9;
  }
  snprintf(figure, sizeof figure, "saxpy 64 Mi floats%s, launch + sync", label);
  report(o, figure, "GB/s", true, false, s, samples, o->passes);
  /* Diagnostic beside xgpu_device_saxpy's: 10 passes launched, then one sync. */
  const uint32_t batches = o->o.smoke ? 1 : 5, batch = 10;
  for (uint32_t p = 0; p < batches; ++p) {
    const uint64_t start = bench_now_ns();
    for (uint32_t b = 0; b < batch; ++b) launch_saxpy(f, how, &args, blocks_x, rows, s->stream);
    CK(cu.cuStreamSynchronize(s->stream));
    samples[p] = 12.0 * n * batch / ((double)(bench_now_ns() - start) / 1e9) / 1e9;
  }
  snprintf(figure, sizeof figure, "saxpy 64 Mi floats%s, 10 launches + sync (diagnostic)", label);
  report(o, figure, "GB/s", true, false, s, samples, batches);
  CK(cu.cuMemcpyDtoH(host, y, bytes));
  bool ok = true;
  const uint32_t passes = o->passes + 1 + batch * batches;
  for (uint32_t i = 0; i < n && ok; ++i) {
    const float expected = (float)(i % 7u) + (float)passes * 2.0f * (float)(i & 1023u);
    if (host[i] != expected) {
      fprintf(stderr, "cuda: saxpy y[%u] = %g, expected %g\n", i, host[i], expected);
      ok = false;
    }
  }
  snprintf(figure, sizeof figure, "CUDA saxpy%s y equals (i mod 7) + passes * 2 * (i mod 1024)", label);
  bench_check(&o->o, "cuda", figure, ok);
  CK(cu.cuMemFree(x));
  CK(cu.cuMemFree(y));
  free(samples);
  free(host);
  return ok;
}

static void spin_until(volatile uint64_t* word, uint64_t value) {
  while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < value) __builtin_ia32_pause();
}

/* The event edge between two GPUs (primary contexts): a note with one GPU. */
static bool cross_device(const options_t* o, state_t* s, CUcontext context) {
  int count = 0;
  CK(cu.cuDeviceGetCount(&count));
  if (count < 2) {
    bench_note(&o->o, "cuda", "one GPU: no cross-device edge");
    return true;
  }
  CUdevice device1;
  CUcontext context1;
  CUstream stream1;
  CK(cu.cuDeviceGet(&device1, 1));
  CK(cu.cuDevicePrimaryCtxRetain(&context1, device1));
  CK(cu.cuCtxSetCurrent(context1));
  CK(cu.cuStreamCreate(&stream1, CU_STREAM_NON_BLOCKING));
  CUevent b;
  CK(cu.cuEventCreate(&b, CU_EVENT_DISABLE_TIMING));
  CK(cu.cuCtxSetCurrent(context));
  CUevent a;
  CK(cu.cuEventCreate(&a, CU_EVENT_DISABLE_TIMING));
  const uint32_t warmup = o->o.smoke ? 1 : 100;
  double* samples = calloc(o->rounds, sizeof *samples);
  if (!samples) return false;
  for (uint32_t r = 0; r < warmup + o->rounds; ++r) {
    const uint64_t start = bench_now_ns();
    CK(cu.cuEventRecord(a, s->stream));
    CK(cu.cuStreamWaitEvent(stream1, a, 0));
    CK(cu.cuEventRecord(b, stream1));
    CK(cu.cuEventSynchronize(b));
    if (r >= warmup) samples[r - warmup] = (double)(bench_now_ns() - start) / 1e3;
  }
  report(o, "cross-device edge: event record GPU 0, cuStreamWaitEvent GPU 1, record, event sync", "us", false, true,
         s, samples, o->rounds);
  free(samples);
  CK(cu.cuEventDestroy(a));
  CK(cu.cuCtxSetCurrent(context1));
  CK(cu.cuEventDestroy(b));
  CK(cu.cuStreamDestroy(stream1));
  CK(cu.cuCtxSetCurrent(context));
  CK(cu.cuDevicePrimaryCtxRelease(device1));
  return true;
}

/* The cross-stream edge: stream memory operations (as hsa-cuda uses them) and events. */
static bool cross_stream(const options_t* o, state_t* s) {
  uint64_t* words = NULL; /* S, T: pinned, mapped host memory */
  CK(cu.cuMemHostAlloc((void**)&words, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr device_words;
  CK(cu.cuMemHostGetDevicePointer(&device_words, words, 0));
  volatile uint64_t* S = &words[0];
  volatile uint64_t* T = &words[1];
  *S = 0;
  *T = 0;
  const CUdeviceptr dS = device_words, dT = device_words + 8;
  const uint32_t warmup = o->o.smoke ? 1 : 100;
  double* samples = calloc(o->rounds, sizeof(double));
  uint64_t k = 0;
  for (uint32_t r = 0; r < warmup + o->rounds; ++r) {
    ++k;
    CK(cu.cuStreamWaitValue64(s->other, dS, k, CU_STREAM_WAIT_VALUE_GEQ));
    CK(cu.cuStreamWriteValue64(s->other, dT, k, CU_STREAM_WRITE_VALUE_DEFAULT));
    const uint64_t start = bench_now_ns();
    CK(cu.cuStreamWriteValue64(s->stream, dS, k, CU_STREAM_WRITE_VALUE_DEFAULT));
    spin_until(T, k);
    if (r >= warmup) samples[r - warmup] = (double)(bench_now_ns() - start) / 1e3;
  }
  report(o, "edge: A writes S, B waits S (cuStreamWaitValue64) and writes T, host sees T", "us", false, true, s,
         samples, o->rounds);
  for (uint32_t r = 0; r < warmup + o->rounds; ++r) {
    ++k;
    const uint64_t start = bench_now_ns();
    CK(cu.cuStreamWriteValue64(s->stream, dT, k, CU_STREAM_WRITE_VALUE_DEFAULT));
    spin_until(T, k);
    if (r >= warmup) samples[r - warmup] = (double)(bench_now_ns() - start) / 1e3;
  }
  report(o, "no edge: A writes T, host sees T", "us", false, true, s, samples, o->rounds);
  CK(cu.cuStreamSynchronize(s->stream));
  CK(cu.cuStreamSynchronize(s->other));
  const bool ok = *T == k && *S == k - o->rounds - warmup;
  CUevent a, b;
  CK(cu.cuEventCreate(&a, CU_EVENT_DISABLE_TIMING));
  CK(cu.cuEventCreate(&b, CU_EVENT_DISABLE_TIMING));
  for (uint32_t r = 0; r < warmup + o->rounds; ++r) {
    const uint64_t start = bench_now_ns();
    CK(cu.cuEventRecord(a, s->stream));
    CK(cu.cuStreamWaitEvent(s->other, a, 0));
    CK(cu.cuEventRecord(b, s->other));
    CK(cu.cuEventSynchronize(b));
    if (r >= warmup) samples[r - warmup] = (double)(bench_now_ns() - start) / 1e3;
  }
  report(o, "edge: event record A, cuStreamWaitEvent B, record B, event sync", "us", false, true, s, samples,
         o->rounds);
  for (uint32_t r = 0; r < warmup + o->rounds; ++r) {
    const uint64_t start = bench_now_ns();
    CK(cu.cuEventRecord(b, s->stream));
    CK(cu.cuEventSynchronize(b));
    if (r >= warmup) samples[r - warmup] = (double)(bench_now_ns() - start) / 1e3;
  }
  report(o, "no edge: event record A, event sync", "us", false, true, s, samples, o->rounds);
  CK(cu.cuEventDestroy(a));
  CK(cu.cuEventDestroy(b));
  bench_check(&o->o, "cuda", "CUDA cross-stream words S and T end at the last k", ok);
  CK(cu.cuMemFreeHost(words));
  free(samples);
  return ok;
}

/* CUDA's device printf, ns per line: print_lines against quiet_lines, each
 * launch + cuCtxSynchronize with stdout (where CUDA writes the lines at the
 * synchronization) on a temporary file; the last print run's lines are
 * checked. */
static bool printf_cost(const options_t* o, state_t* s) {
  const uint32_t n = o->lines;
  CUdeviceptr out;
  CK(cu.cuMemAlloc(&out, 4ull * n));
  uint32_t* words = malloc(4ull * n);
  FILE* sink = tmpfile();
  if (!sink) {
    fprintf(stderr, "cuda_bench: no temporary file for the printf figure\n");
    return false;
  }
  fflush(stdout);
  const int saved_stdout = dup(STDOUT_FILENO);
  double* per_line = calloc(o->repeats, sizeof(double));
  double* print_us = calloc(o->repeats, sizeof(double));
  double* quiet_us = calloc(o->repeats, sizeof(double));
  bool ok = saved_stdout >= 0;
  const unsigned blocks = (n + DEBUGGING_BENCH_WORKGROUP - 1) / DEBUGGING_BENCH_WORKGROUP;
  void* params[] = {&out, (void*)&n};
  for (uint32_t r = 0; r <= o->repeats && ok; ++r) {
    /* The sink starts empty each time, so the check reads one run's lines. */
    fflush(stdout);
    ok = ftruncate(fileno(sink), 0) == 0 && fseek(sink, 0, SEEK_SET) == 0 && dup2(fileno(sink), STDOUT_FILENO) >= 0;
    uint64_t t0 = bench_now_ns();
    CK(cu.cuLaunchKernel(s->quiet_lines, blocks, 1, 1, DEBUGGING_BENCH_WORKGROUP, 1, 1, 0, NULL, params, NULL));
    CK(cu.cuCtxSynchronize());
    fflush(stdout);
    const uint64_t quiet_ns = bench_now_ns() - t0;
    t0 = bench_now_ns();
    CK(cu.cuLaunchKernel(s->print_lines, blocks, 1, 1, DEBUGGING_BENCH_WORKGROUP, 1, 1, 0, NULL, params, NULL));
    CK(cu.cuCtxSynchronize());
    fflush(stdout);
    const uint64_t print_ns = bench_now_ns() - t0;
    ok = dup2(saved_stdout, STDOUT_FILENO) >= 0 && ok;
    if (r == 0) continue;
    per_line[r - 1] = ((double)print_ns - (double)quiet_ns) / n;
    print_us[r - 1] = print_ns / 1e3;
    quiet_us[r - 1] = quiet_ns / 1e3;
  }
  close(saved_stdout);
  /* The last run's lines: each thread's once, with its value and half. */
  uint8_t* seen = calloc(n, 1);
  uint32_t lines = 0, wrong = 0;
  char line[256];
  rewind(sink);
  while (ok && fgets(line, sizeof line, sink)) {
    unsigned i = 0, value = 0;
    double half = -1.0;
    ++lines;
    if (sscanf(line, DEBUGGING_BENCH_SCAN, &i, &value, &half) != 3 || i >= n || seen[i] ||
        value != DEBUGGING_BENCH_VALUE(i) || half != 0.5 * (double)i) {
      if (wrong++ < 3) fprintf(stderr, "cuda_bench: unexpected printf line: %s", line);
    } else {
      seen[i] = 1;
    }
  }
  CK(cu.cuMemcpyDtoH(words, out, 4ull * n));
  for (uint32_t i = 0; i < n; ++i) wrong += words[i] != DEBUGGING_BENCH_VALUE(i);
  if (lines != n || wrong != 0 || !ok)
    fprintf(stderr, "cuda_bench: printf: %u of %u lines, %u wrong (lines or outputs)%s\n", lines, n, wrong,
            ok ? "" : ", the sink failed");
  ok = ok && lines == n && wrong == 0;
  char figure[160];
  snprintf(figure, sizeof figure, "printf, %u lines in one dispatch, per line", n);
  report(o, figure, "ns", false, false, s, per_line, o->repeats);
  snprintf(figure, sizeof figure, "printf, %u lines: launch -> sync", n);
  report(o, figure, "us", false, false, s, print_us, o->repeats);
  char side[400];
  snprintf(side, sizeof side, "%s, the same kernel without printf", s->side);
  const bench_summary_t quiet = bench_summarize(quiet_us, o->repeats);
  bench_report(&o->o, "cuda", figure, "us", false, false, side, &quiet);
  bench_check(&o->o, "cuda", "CUDA printf: every line arrived once and right; the outputs are right", ok);
  fclose(sink);
  free(seen);
  free(per_line);
  free(print_us);
  free(quiet_us);
  free(words);
  CK(cu.cuMemFree(out));
  return ok;
}

/* Flag set -> cuStreamQuery reports the kernel's fault, µs (one sample: the
 * context is lost after it). */
static bool fault_latency(const options_t* o, state_t* s, CUmodule module) {
  CUfunction fault;
  CK(cu.cuModuleGetFunction(&fault, module, "fault_on_flag"));
  uint32_t* flag = NULL;
  CK(cu.cuMemHostAlloc((void**)&flag, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr device_flag;
  CK(cu.cuMemHostGetDevicePointer(&device_flag, flag, 0));
  __atomic_store_n(flag, 0u, __ATOMIC_RELEASE);
  uint64_t address = 16;
  void* params[] = {&device_flag, &address};
  CK(cu.cuLaunchKernel(fault, 1, 1, 1, 1, 1, 1, 0, s->stream, params, NULL));
  const struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, NULL); /* the kernel spins (its start is not what is timed) */
  const uint64_t t0 = bench_now_ns();
  __atomic_store_n(flag, 1u, __ATOMIC_RELEASE);
  CUresult r;
  while ((r = cu.cuStreamQuery(s->stream)) == CUDA_ERROR_NOT_READY) {
  }
  double sample = (double)(bench_now_ns() - t0) / 1e3;
  report(o, "kernel fault -> error seen (cuStreamQuery polled)", "us", false, true, s, &sample, 1);
  const bool ok = r == CUDA_ERROR_ILLEGAL_ADDRESS;
  if (!ok) fprintf(stderr, "cuda_bench: the faulting kernel's stream reported %d, not CUDA_ERROR_ILLEGAL_ADDRESS\n", r);
  bench_check(&o->o, "cuda", "CUDA reports the kernel's store to address 16 as CUDA_ERROR_ILLEGAL_ADDRESS", ok);
  return ok;
}

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  const long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = size >= 0 ? malloc((size_t)size + 1) : NULL;
  if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    fclose(f);
    return NULL;
  }
  text[size] = 0;
  fclose(f);
  return text;
}

static uint32_t parse_count(const char* flag, const char* value) {
  char* end = NULL;
  const unsigned long v = value ? strtoul(value, &end, 10) : 0;
  if (!value || *end || v == 0 || v > 10000000ul) {
    fprintf(stderr, "error: %s needs a count from 1 to 10000000, got '%s'\n", flag, value ? value : "");
    exit(2);
  }
  return (uint32_t)v;
}

int main(int argc, char** argv) {
  options_t o = {{false, false}, 9, 1000, 200, 15, 16384, NULL, NULL};
  static char default_ptx[PATH_MAX];
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--smoke")) o.o.smoke = true;
    else if (!strcmp(a, "--json")) o.o.json = true;
    else if (!strcmp(a, "--repeats")) o.repeats = parse_count(a, v), ++i;
    else if (!strcmp(a, "--dispatches")) o.dispatches = parse_count(a, v), ++i;
    else if (!strcmp(a, "--rounds")) o.rounds = parse_count(a, v), ++i;
    else if (!strcmp(a, "--lines")) o.lines = parse_count(a, v), ++i;
    else if (!strcmp(a, "--ptx") && v) o.ptx = v, ++i;
    else if (!strcmp(a, "--xgpu-ptx") && v) o.xgpu_ptx = v, ++i;
    else {
      fprintf(stderr, "usage: %s [--smoke] [--json] [--repeats R] [--dispatches N] [--rounds K] [--lines N] [--ptx FILE]\n"
              "       [--xgpu-ptx FILE]\n",
              argv[0]);
      return 2;
    }
  }
  if (o.o.smoke) o.repeats = 1, o.dispatches = 16, o.rounds = 3, o.passes = 2, o.lines = 300;
  if (!o.ptx) {
    const ssize_t len = readlink("/proc/self/exe", default_ptx, sizeof default_ptx - 32);
    if (len > 0) {
      default_ptx[len] = 0;
      char* slash = strrchr(default_ptx, '/');
      strcpy(slash ? slash + 1 : default_ptx, "cuda_bench_kernels.ptx");
    }
    o.ptx = default_ptx;
  }

  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    bench_note(&o.o, "cuda", "no CUDA driver (libcuda.so.1 not found): nothing to measure");
    return 0;
  }
#define RESOLVE(field, symbol, params)                                         \
  if (!(*(void**)&cu.field = dlsym(lib, symbol))) {                            \
    fprintf(stderr, "cuda_bench: libcuda.so.1 lacks %s\n", symbol);            \
    return 1;                                                                  \
  }
  CUDA_FUNCTIONS(RESOLVE)
#undef RESOLVE
  int count = 0;
  if (cu.cuInit(0) != CUDA_SUCCESS || cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    bench_note(&o.o, "cuda", "no CUDA device: nothing to measure");
    return 0;
  }
  CUdevice device;
  CUcontext context;
  CK(cu.cuDeviceGet(&device, 0));
  CK(cu.cuDevicePrimaryCtxRetain(&context, device));
  CK(cu.cuCtxSetCurrent(context));
  /* Room for every line of the printf figure (before any kernel runs). */
  CK(cu.cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 1024u * 1024u + 1024u * (size_t)o.lines));
  state_t s;
  memset(&s, 0, sizeof s);
  char name[256] = "";
  CK(cu.cuDeviceGetName(name, sizeof name, device));
  snprintf(s.side, sizeof s.side, "CUDA (%s)", name);

  char* ptx = read_file(o.ptx);
  if (!ptx) {
    fprintf(stderr, "cuda_bench: cannot read the kernels' PTX %s\n", o.ptx);
    return 1;
  }
  CUmodule module;
  CK(cu.cuModuleLoadData(&module, ptx));
  free(ptx);
  CK(cu.cuModuleGetFunction(&s.bump, module, "bump"));
  CK(cu.cuModuleGetFunction(&s.saxpy, module, "saxpy"));
  CK(cu.cuModuleGetFunction(&s.empty, module, "empty"));
  CK(cu.cuModuleGetFunction(&s.print_lines, module, "print_lines"));
  CK(cu.cuModuleGetFunction(&s.quiet_lines, module, "quiet_lines"));
  CK(cu.cuStreamCreate(&s.stream, CU_STREAM_NON_BLOCKING));
  CK(cu.cuStreamCreate(&s.other, CU_STREAM_NON_BLOCKING));
  CK(cu.cuMemAlloc(&s.counters, RECORDING_COUNTER_COUNT * sizeof(uint32_t)));
  const uint32_t zeros[RECORDING_COUNTER_COUNT] = {0};
  CK(cu.cuMemcpyHtoD(s.counters, zeros, sizeof zeros));
  if (!o.o.json)
    printf("cuda_bench on %s: N = %u dispatches, %u repeats, %u latency rounds, %u saxpy passes\n", name,
           o.dispatches, o.repeats, o.rounds, o.passes);

  per_dispatch(&o, &s);
  latencies(&o, &s);
  bool ok = check_counters(&o, &s);
  ok = saxpy(&o, &s, s.saxpy, SAXPY_PARAMS, "") && ok;
  CUmodule xgpu_module = NULL;
  if (o.xgpu_ptx) {
    /* Diagnostic: xgpu's own saxpy PTX with hsa-cuda's launch (geometry and
     * parameter buffer), cuda_bench's kernel through a parameter buffer, then
     * cuda_bench's kernel again, so that the figures bracket each other. */
    char* text = read_file(o.xgpu_ptx);
    if (!text) {
      fprintf(stderr, "cuda_bench: cannot read xgpu's saxpy PTX %s\n", o.xgpu_ptx);
      return 1;
    }
    CUfunction xgpu_saxpy;
    CK(cu.cuModuleLoadData(&xgpu_module, text));
    free(text);
    CK(cu.cuModuleGetFunction(&xgpu_saxpy, xgpu_module, "saxpy"));
    ok = saxpy(&o, &s, xgpu_saxpy, SAXPY_XGPU_BUFFER, " (xgpu's PTX, hsa-cuda's launch)") && ok;
    ok = saxpy(&o, &s, s.saxpy, SAXPY_BUFFER, " (parameter buffer)") && ok;
    ok = saxpy(&o, &s, s.saxpy, SAXPY_PARAMS, " (again)") && ok;
  }
  ok = cross_stream(&o, &s) && ok;
  ok = cross_device(&o, &s, context) && ok;
  ok = printf_cost(&o, &s) && ok;

  CK(cu.cuMemFree(s.counters));
  CK(cu.cuStreamDestroy(s.other));
  if (xgpu_module) CK(cu.cuModuleUnload(xgpu_module));
  if (o.o.smoke) {
    CK(cu.cuStreamDestroy(s.stream));
    CK(cu.cuModuleUnload(module));
    CK(cu.cuDevicePrimaryCtxRelease(device));
    return ok ? 0 : 1;
  }
  /* Last: the context is unusable after the fault; the process ends. */
  ok = fault_latency(&o, &s, module) && ok;
  return ok ? 0 : 1;
}
