/*
 * saxpy_bench: y = a * x + y over 64 Mi floats (256 MiB per array), in GB/s
 * (12 bytes per element: x and y read, y written), on every side:
 *
 *   xgpu               kernels.c through the loader (hsa-cpu without an AMD GPU)
 *   xgpu, chunked      diagnostic: the same with 1024 elements per work item
 *   Vulkan             saxpy.comp (GLSL, compiled by glslangValidator) on lavapipe
 *   OpenCL             the same kernel in OpenCL C on PoCL (the first CPU OpenCL device)
 *   C loop, 1 thread   a plain loop, compiled with the benchmark
 *   C loop, the kernel's bounds check ...   diagnostic: the kernel's loop in
 *                      C (a bounds check per item), widened with AVX2 masks
 *   C loop, T threads  the same loop split over every online core
 *
 * One sample is one pass over the arrays: submit -> completion (xgpu, Vulkan,
 * OpenCL) or the loop (C); median, min and max over the passes, after one
 * warm-up pass. x[i] = i mod 1024, y starts at i mod 7 and a = 2, so every
 * value stays an integer below 2^24 and each side's y after its passes is
 * exact: every side must end with y[i] = (i mod 7) + passes * 2 * (i mod 1024).
 *
 *   saxpy_bench [--smoke] [--json]      --smoke: 256 Ki elements, 2 passes
 */
#define _GNU_SOURCE 1 /* clock_gettime, syscall */

#include <pthread.h>
#include <unistd.h>

#include "bench_common.h"
#include "bench_xgpu.h"
#include "saxpy_bench_kernels.h" /* the embedded executable (xgpu_embed_executable) */
#include "saxpy_shared.h"
#if defined(BENCH_HAVE_VULKAN)
#include "bench_vulkan.h"
#include "saxpy_spirv.h"
#endif
#if defined(BENCH_HAVE_OPENCL)
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif

static const char* const BENCH = "saxpy";
static const char* const FIGURE = "saxpy 64 Mi floats";
static const float A = 2.0f;

typedef struct run {
  uint32_t n;       /* elements */
  uint32_t passes;  /* timed passes (one warm-up pass more is made) */
  bench_options_t o;
  const char* figure;
  bool ok;          /* every side's result was right */
} run_t;

static void fill(float* x, float* y, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = (float)(i & 1023u);
    y[i] = (float)(i % 7u);
  }
}

/* Checks y after `passes` passes; false (with the first wrong element on stderr) if wrong. */
static bool check(const char* side, const float* y, uint32_t n, uint32_t passes) {
  for (uint32_t i = 0; i < n; ++i) {
    const float expected = (float)(i % 7u) + (float)passes * A * (float)(i & 1023u);
    if (y[i] != expected) {
      fprintf(stderr, "error: %s: y[%u] = %g, expected %g\n", side, i, (double)y[i], (double)expected);
      return false;
    }
  }
  return true;
}

static void finish(run_t* r, const char* side, double* gbps, const float* y) {
  const bench_summary_t s = bench_summarize(gbps, r->passes);
  bench_report(&r->o, BENCH, r->figure, "GB/s", true, false, side, &s);
  const bool ok = check(side, y, r->n, r->passes + 1);
  r->ok = r->ok && ok;
}

static double gb_per_s(uint32_t n, uint64_t ns) { return 12.0 * (double)n / (double)ns; }

/* ---- C loops ---- */
typedef struct slice {
  const float* x;
  float* y;
  uint32_t begin, end;
} slice_t;

static void saxpy_loop(const float* restrict x, float* restrict y, float a, uint32_t begin, uint32_t end) {
  for (uint32_t i = begin; i < end; ++i) y[i] = a * x[i] + y[i];
}

static void* slice_thread(void* p) {
  const slice_t* s = p;
  saxpy_loop(s->x, s->y, A, s->begin, s->end);
  return NULL;
}

/* The kernel's own loop in plain C, as the host code object's x86-64-v3
 * build runs it: work items of 256-item workgroups, each behind the kernel's
 * bounds check `if (i < n)`. clang widens it with AVX2 masked loads and
 * stores (vmaskmovps), as it widens the kernel: this diagnostic shows what
 * those cost on this CPU beside the plain loop. */
__attribute__((target("avx2,fma"), noinline)) static void saxpy_guarded_loop(const float* restrict x,
                                                                             float* restrict y, float a,
                                                                             uint32_t n) {
  const uint32_t groups = (n + 255u) / 256u;
  for (uint32_t g = 0; g < groups; ++g) {
    for (uint32_t l = 0; l < 256u; ++l) {
      const uint32_t i = g * 256u + l;
      if (i < n) y[i] = a * x[i] + y[i];
    }
  }
}

static void run_c_guarded(run_t* r, double* gbps) {
  float* x = aligned_alloc(64, (size_t)r->n * sizeof(float));
  float* y = aligned_alloc(64, (size_t)r->n * sizeof(float));
  if (!x || !y) exit(EXIT_FAILURE);
  fill(x, y, r->n);
  for (uint32_t p = 0; p <= r->passes; ++p) {
    const uint64_t start = bench_now_ns();
    saxpy_guarded_loop(x, y, A, r->n);
    const uint64_t ns = bench_now_ns() - start;
    if (p > 0) gbps[p - 1] = gb_per_s(r->n, ns);
  }
  finish(r, "C loop, the kernel's bounds check per item, AVX2 masks, 1 thread (diagnostic)", gbps, y);
  free(x);
  free(y);
}

static void run_c(run_t* r, uint32_t threads, double* gbps) {
  float* x = aligned_alloc(64, (size_t)r->n * sizeof(float));
  float* y = aligned_alloc(64, (size_t)r->n * sizeof(float));
  if (!x || !y) exit(EXIT_FAILURE);
  fill(x, y, r->n);
  pthread_t tid[256];
  slice_t slices[256];
  for (uint32_t t = 0; t < threads; ++t)
    slices[t] = (slice_t){x, y, (uint32_t)((uint64_t)r->n * t / threads), (uint32_t)((uint64_t)r->n * (t + 1) / threads)};
  for (uint32_t p = 0; p <= r->passes; ++p) {
    const uint64_t start = bench_now_ns();
    if (threads == 1) {
      saxpy_loop(x, y, A, 0, r->n);
    } else {
      for (uint32_t t = 1; t < threads; ++t) pthread_create(&tid[t], NULL, slice_thread, &slices[t]);
      slice_thread(&slices[0]);
      for (uint32_t t = 1; t < threads; ++t) pthread_join(tid[t], NULL);
    }
    const uint64_t ns = bench_now_ns() - start;
    if (p > 0) gbps[p - 1] = gb_per_s(r->n, ns);
  }
  char name[64];
  snprintf(name, sizeof name, "C loop, %u thread%s", threads, threads == 1 ? "" : "s");
  finish(r, name, gbps, y);
  free(x);
  free(y);
}

/* ---- xgpu ---- */
/* Records one dispatch of `pipeline` over the arrays: the 2-D grid of
 * `saxpy`, or one work item per SAXPY_CHUNK elements. */
static XgpuCommandBuffer record_saxpy(bench_xgpu_t* x, XgpuPipeline pipeline, XgpuBuffer xb, XgpuBuffer yb,
                                      uint32_t n, bool chunked) {
  XgpuCommandBuffer cb = bench_xgpu_command_buffer(x);
  const XgpuCommandBufferBeginInfo begin = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, .mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE};
  BENCH_XCHECK(xgpuBeginCommandBuffer(cb, &begin));
  xgpuCmdBindPipeline(cb, pipeline);
  const XgpuBufferRef refs[2] = {xgpuBufferRefWhole(xb), xgpuBufferRefWhole(yb)};
  xgpuCmdBindBuffers(cb, 0, 2, refs);
  const saxpy_constants_t c = {A, n};
  xgpuCmdPushConstants(cb, 0, sizeof c, &c);
  if (chunked) {
    const uint32_t items = (n + SAXPY_CHUNK - 1) / SAXPY_CHUNK;
    xgpuCmdDispatch(cb, (items + 63u) / 64u, 1, 1);
  } else {
    xgpuCmdDispatch(cb, SAXPY_ROW / 256u, (n + SAXPY_ROW - 1) / SAXPY_ROW, 1);
  }
  BENCH_XCHECK(xgpuEndCommandBuffer(cb));
  return cb;
}

static void run_xgpu(run_t* r, double* gbps) {
  bench_xgpu_t x;
  if (!bench_xgpu_create(&x, 1)) exit(EXIT_FAILURE);
  float *xs, *ys;
  XgpuBuffer xb = bench_xgpu_buffer(&x, (uint64_t)r->n * sizeof(float), (void**)&xs);
  XgpuBuffer yb = bench_xgpu_buffer(&x, (uint64_t)r->n * sizeof(float), (void**)&ys);
  fill(xs, ys, r->n);
  XgpuExecutable executable;
  XgpuPipeline pipelines[2] = {
      bench_xgpu_pipeline(&x, saxpy_bench_kernels, saxpy_bench_kernels_size, "saxpy", &executable),
      NULL};
  XgpuSemaphore done = bench_xgpu_semaphore(&x);
  uint64_t value = 0;
  for (int chunked = 0; chunked < 2; ++chunked) {
    if (chunked) {
      const XgpuPipelineCreateInfo info = {
          .sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO, .executable = executable, .pEntryPoint = "saxpy_chunk"};
      BENCH_XCHECK(xgpuCreatePipeline(x.device, &info, NULL, &pipelines[1]));
      fill(xs, ys, r->n);
    }
    XgpuCommandBuffer cb = record_saxpy(&x, pipelines[chunked], xb, yb, r->n, chunked);
    for (uint32_t p = 0; p <= r->passes; ++p) {
      const uint64_t start = bench_now_ns();
      bench_xgpu_submit(x.queues[0], cb, NULL, 0, done, ++value);
      bench_xgpu_wait(&x, done, value);
      const uint64_t ns = bench_now_ns() - start;
      if (p > 0) gbps[p - 1] = gb_per_s(r->n, ns);
    }
    finish(r, chunked ? "xgpu, 1024 elements per work item (diagnostic)" : "xgpu", gbps, ys);
    xgpuDestroyCommandBuffer(x.device, cb, NULL);
  }
  xgpuDestroySemaphore(x.device, done, NULL);
  xgpuDestroyPipeline(x.device, pipelines[0], NULL);
  xgpuDestroyPipeline(x.device, pipelines[1], NULL);
  xgpuDestroyExecutable(x.device, executable, NULL);
  bench_xgpu_destroy_buffer(&x, xb);
  bench_xgpu_destroy_buffer(&x, yb);
  bench_xgpu_destroy(&x);
}

/* ---- Vulkan ---- */
#if defined(BENCH_HAVE_VULKAN)
static void run_vulkan(run_t* r, double* gbps) {
  bench_vk_t v;
  if (!bench_vk_create(&v, 1)) {
    bench_note(&r->o, BENCH, "Vulkan peer: no CPU Vulkan 1.2 device (mesa-vulkan-drivers)");
    return;
  }
  bench_vk_buffer_t xb = bench_vk_buffer(&v, (uint64_t)r->n * sizeof(float));
  bench_vk_buffer_t yb = bench_vk_buffer(&v, (uint64_t)r->n * sizeof(float));
  fill(xb.mapped, yb.mapped, r->n);
  const VkBuffer buffers[2] = {xb.buffer, yb.buffer};
  bench_vk_pipeline_t p = bench_vk_pipeline(&v, saxpy_spirv, sizeof saxpy_spirv, sizeof(saxpy_constants_t), 2, buffers);
  VkCommandPool pool;
  VkCommandBuffer cb = bench_vk_command_buffer(&v, &pool);
  const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  BENCH_VCHECK(vkBeginCommandBuffer(cb, &begin));
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &p.set, 0, NULL);
  const saxpy_constants_t c = {A, r->n};
  vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof c, &c);
  const uint32_t rows = (r->n + SAXPY_ROW - 1) / SAXPY_ROW;
  vkCmdDispatch(cb, SAXPY_ROW / 256u, rows, 1);
  BENCH_VCHECK(vkEndCommandBuffer(cb));
  VkSemaphore done = bench_vk_timeline(&v);
  for (uint32_t pass = 0; pass <= r->passes; ++pass) {
    const uint64_t start = bench_now_ns();
    bench_vk_submit(v.queues[0], cb, VK_NULL_HANDLE, 0, done, pass + 1);
    bench_vk_wait(&v, done, pass + 1);
    const uint64_t ns = bench_now_ns() - start;
    if (pass > 0) gbps[pass - 1] = gb_per_s(r->n, ns);
  }
  char name[300];
  snprintf(name, sizeof name, "Vulkan (%.250s)", v.device_name);
  finish(r, name, gbps, yb.mapped);
  vkDestroySemaphore(v.device, done, NULL);
  vkDestroyCommandPool(v.device, pool, NULL);
  bench_vk_destroy_pipeline(&v, &p);
  bench_vk_destroy_buffer(&v, &xb);
  bench_vk_destroy_buffer(&v, &yb);
  bench_vk_destroy(&v);
}
#endif

/* ---- OpenCL ---- */
#if defined(BENCH_HAVE_OPENCL)
static const char* const OPENCL_SOURCE =
    "__kernel void saxpy(__global const float* x, __global float* y, float a, uint n) {\n"
    "  uint i = (uint)get_global_id(1) * 262144u + (uint)get_global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

#define CLCHECK(call)                                                                  \
  do {                                                                                 \
    cl_int cl_result_ = (call);                                                        \
    if (cl_result_ != CL_SUCCESS) {                                                    \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, cl_result_); \
      exit(EXIT_FAILURE);                                                              \
    }                                                                                  \
  } while (0)

static void run_opencl(run_t* r, double* gbps) {
  cl_platform_id platforms[8];
  cl_uint platform_count = 0;
  cl_device_id device = NULL;
  char platform_name[128] = "";
  if (clGetPlatformIDs(8, platforms, &platform_count) == CL_SUCCESS) {
    for (cl_uint i = 0; i < platform_count && !device; ++i) {
      if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, &device, NULL) != CL_SUCCESS) device = NULL;
      else clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof platform_name, platform_name, NULL);
    }
  }
  if (!device) {
    bench_note(&r->o, BENCH, "OpenCL peer: no CPU OpenCL device (pocl-opencl-icd)");
    return;
  }
  cl_int error;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &error);
  CLCHECK(error);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &error);
  CLCHECK(error);
  const char* source = OPENCL_SOURCE;
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &error);
  CLCHECK(error);
  CLCHECK(clBuildProgram(program, 1, &device, "", NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "saxpy", &error);
  CLCHECK(error);
  const size_t bytes = (size_t)r->n * sizeof(float);
  float* xs = malloc(bytes);
  float* ys = malloc(bytes);
  if (!xs || !ys) exit(EXIT_FAILURE);
  fill(xs, ys, r->n);
  cl_mem xb = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, xs, &error);
  CLCHECK(error);
  cl_mem yb = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, ys, &error);
  CLCHECK(error);
  const cl_float a = A;
  const cl_uint n = r->n;
  CLCHECK(clSetKernelArg(kernel, 0, sizeof xb, &xb));
  CLCHECK(clSetKernelArg(kernel, 1, sizeof yb, &yb));
  CLCHECK(clSetKernelArg(kernel, 2, sizeof a, &a));
  CLCHECK(clSetKernelArg(kernel, 3, sizeof n, &n));
  const size_t global[2] = {SAXPY_ROW, (r->n + SAXPY_ROW - 1) / SAXPY_ROW};
  const size_t local[2] = {256, 1};
  for (uint32_t p = 0; p <= r->passes; ++p) {
    const uint64_t start = bench_now_ns();
    CLCHECK(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, local, 0, NULL, NULL));
    CLCHECK(clFinish(queue));
    const uint64_t ns = bench_now_ns() - start;
    if (p > 0) gbps[p - 1] = gb_per_s(r->n, ns);
  }
  CLCHECK(clEnqueueReadBuffer(queue, yb, CL_TRUE, 0, bytes, ys, 0, NULL, NULL));
  char name[160];
  snprintf(name, sizeof name, "OpenCL (%.120s)", platform_name);
  finish(r, name, gbps, ys);
  clReleaseMemObject(xb);
  clReleaseMemObject(yb);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  free(xs);
  free(ys);
}
#endif

int main(int argc, char** argv) {
  run_t r = {.o = bench_parse_options(argc, argv, NULL), .ok = true};
  r.n = r.o.smoke ? SAXPY_ROW : 64u * 1024u * 1024u;
  r.passes = r.o.smoke ? 2 : 15;
  r.figure = r.o.smoke ? "saxpy 256 Ki floats (smoke)" : FIGURE;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const uint32_t threads = cores < 1 ? 1 : cores > 256 ? 256 : (uint32_t)cores;
  double* gbps = calloc(r.passes, sizeof *gbps);
  if (!gbps) return EXIT_FAILURE;
  if (!r.o.json) printf("saxpy_bench: %u floats, %u passes after one warm-up, GB/s (12 B per element)\n", r.n, r.passes);

  run_xgpu(&r, gbps);
  run_c(&r, 1, gbps);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) run_c_guarded(&r, gbps);
  if (threads > 1) run_c(&r, threads, gbps);
#if defined(BENCH_HAVE_VULKAN)
  run_vulkan(&r, gbps);
#else
  bench_note(&r.o, BENCH, "Vulkan peer: not built (libvulkan-dev, glslang-tools)");
#endif
#if defined(BENCH_HAVE_OPENCL)
  run_opencl(&r, gbps);
#else
  bench_note(&r.o, BENCH, "OpenCL peer: not built (ocl-icd-opencl-dev, pocl-opencl-icd)");
#endif
  bench_check(&r.o, BENCH, "every side's y equals the host's expectation", r.ok);
  free(gbps);
  return r.ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
