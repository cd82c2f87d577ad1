/*
 * xgpu_device_saxpy: bench/saxpy's work with the arrays in DEVICE_LOCAL
 * memory, the xgpu side beside cuda_bench's saxpy on a GPU (saxpy_bench keeps
 * its arrays in host-visible memory, which on a discrete GPU is host memory
 * read over the bus). y = a*x + y over 64 Mi floats, 12 B per element, one
 * sample = one pass = submit -> the host sees the submission's semaphore;
 * median, min, max of 15 passes after one warm-up pass. The arrays are
 * filled from a host-visible staging buffer with xgpuQueueCopyBuffer and
 * copied back after the passes; every element must equal
 * (i mod 7) + passes * 2 * (i mod 1024) (bench/saxpy's check).
 *
 *   xgpu_device_saxpy [--smoke] [--json]
 */
#include "bench_common.h"
#include "bench_xgpu.h"
#include "saxpy_shared.h"
#include "xgpu_device_saxpy_kernels.h" /* the embedded executable */

static uint32_t device_local_type(bench_xgpu_t* x) {
  XgpuPhysicalDeviceMemoryProperties memory;
  xgpuGetPhysicalDeviceMemoryProperties(x->physical, &memory);
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if (memory.memoryTypes[i].propertyFlags & XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) return i;
  return x->host_memory_type; /* a device without device-local memory (hsa-cpu): its only kind */
}

static XgpuBuffer buffer_of_type(bench_xgpu_t* x, uint64_t size, uint32_t type) {
  const XgpuBufferCreateInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = size,
      .usage = XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
      .memoryTypeIndex = type,
  };
  XgpuBuffer buffer;
  BENCH_XCHECK(xgpuCreateBuffer(x->device, &info, NULL, &buffer));
  return buffer;
}

static void copy(bench_xgpu_t* x, XgpuBuffer src, XgpuBuffer dst, uint64_t size, XgpuSemaphore done,
                 uint64_t* value) {
  const uint64_t signal = ++*value;
  const XgpuSemaphoreList none = {0, NULL, NULL};
  const XgpuSemaphoreList signals = {1, &done, &signal};
  BENCH_XCHECK(xgpuQueueCopyBuffer(x->queues[0], &none, &signals, src, 0, dst, 0, size));
  bench_xgpu_wait(x, done, signal);
}

int main(int argc, char** argv) {
  const bench_options_t o = bench_parse_options(argc, argv, NULL);
  const uint32_t n = o.smoke ? 256u * 1024u : 64u * 1024u * 1024u;
  const uint32_t passes = o.smoke ? 2 : 15;
  const uint64_t bytes = (uint64_t)n * sizeof(float);
  bench_xgpu_t x;
  if (!bench_xgpu_create(&x, 1)) return 1;
  const uint32_t type = device_local_type(&x);
  float* staged = NULL;
  XgpuBuffer staging = buffer_of_type(&x, bytes, x.host_memory_type);
  BENCH_XCHECK(xgpuMapBuffer(x.device, staging, 0, XGPU_WHOLE_SIZE, (void**)&staged));
  XgpuBuffer xb = buffer_of_type(&x, bytes, type), yb = buffer_of_type(&x, bytes, type);
  {
    /* Where the arrays lie (their offsets into 2 MiB pages), beside cuda_bench's cuMemAlloc'd arrays. */
    char text[160];
    const XgpuDeviceAddress xa = xgpuGetBufferDeviceAddress(x.device, xb), ya = xgpuGetBufferDeviceAddress(x.device, yb);
    snprintf(text, sizeof text, "x at 0x%llx, y at 0x%llx (offsets in 2 MiB: 0x%llx, 0x%llx)", (unsigned long long)xa,
             (unsigned long long)ya, (unsigned long long)(xa & 0x1fffffu), (unsigned long long)(ya & 0x1fffffu));
    bench_note(&o, "cuda", text);
  }
  XgpuSemaphore done = bench_xgpu_semaphore(&x);
  uint64_t value = 0;
  for (uint32_t i = 0; i < n; ++i) staged[i] = (float)(i & 1023u);
  copy(&x, staging, xb, bytes, done, &value);
  for (uint32_t i = 0; i < n; ++i) staged[i] = (float)(i % 7u);
  copy(&x, staging, yb, bytes, done, &value);

  XgpuExecutable executable;
  XgpuPipeline pipeline =
      bench_xgpu_pipeline(&x, xgpu_device_saxpy_kernels, xgpu_device_saxpy_kernels_size, "saxpy", &executable);
  XgpuCommandBuffer cb = bench_xgpu_command_buffer(&x);
  const XgpuCommandBufferBeginInfo begin = {.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                            .mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE};
  BENCH_XCHECK(xgpuBeginCommandBuffer(cb, &begin));
  xgpuCmdBindPipeline(cb, pipeline);
  const XgpuBufferRef refs[2] = {xgpuBufferRefWhole(xb), xgpuBufferRefWhole(yb)};
  xgpuCmdBindBuffers(cb, 0, 2, refs);
  const saxpy_constants_t c = {2.0f, n};
  xgpuCmdPushConstants(cb, 0, sizeof c, &c);
  const uint32_t columns = n < SAXPY_ROW ? n : SAXPY_ROW;
  xgpuCmdDispatch(cb, (columns + 255u) / 256u, (n + SAXPY_ROW - 1) / SAXPY_ROW, 1);
  BENCH_XCHECK(xgpuEndCommandBuffer(cb));

  double* gbps = calloc(passes, sizeof(double));
  for (uint32_t p = 0; p <= passes; ++p) { /* p == 0: warm-up */
    const uint64_t start = bench_now_ns();
    bench_xgpu_submit(x.queues[0], cb, NULL, 0, done, ++value);
    bench_xgpu_wait(&x, done, value);
    const double seconds = (double)(bench_now_ns() - start) / 1e9;
    if (p) gbps[p - 1] = 12.0 * n / seconds / 1e9;
  }
  const bench_summary_t s = bench_summarize(gbps, passes);
  char side[200];
  snprintf(side, sizeof side, "xgpu (%s), DEVICE_LOCAL arrays", x.device_name);
  bench_report(&o, "cuda", "saxpy 64 Mi floats, submit + wait", "GB/s", true, false, side, &s);

  /* Diagnostic: BATCH passes in one submission (a memory barrier between
   * them), so the per-submission cost is spread over BATCH kernels. */
  enum { BATCH = 10 };
  const uint32_t batches = o.smoke ? 1 : 5;
  XgpuCommandBuffer batched = bench_xgpu_command_buffer(&x);
  BENCH_XCHECK(xgpuBeginCommandBuffer(batched, &begin));
  xgpuCmdBindPipeline(batched, pipeline);
  xgpuCmdBindBuffers(batched, 0, 2, refs);
  xgpuCmdPushConstants(batched, 0, sizeof c, &c);
  for (uint32_t b = 0; b < BATCH; ++b) {
    if (b)
      xgpuCmdMemoryBarrier(batched, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                           XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
    xgpuCmdDispatch(batched, (columns + 255u) / 256u, (n + SAXPY_ROW - 1) / SAXPY_ROW, 1);
  }
  BENCH_XCHECK(xgpuEndCommandBuffer(batched));
  double batch_gbps[5];
  for (uint32_t p = 0; p < batches; ++p) {
    const uint64_t start = bench_now_ns();
    bench_xgpu_submit(x.queues[0], batched, NULL, 0, done, ++value);
    bench_xgpu_wait(&x, done, value);
    batch_gbps[p] = 12.0 * n * BATCH / ((double)(bench_now_ns() - start) / 1e9) / 1e9;
  }
  const bench_summary_t sb = bench_summarize(batch_gbps, batches);
  snprintf(side, sizeof side, "xgpu (%s), DEVICE_LOCAL, %u passes per submission (diagnostic)", x.device_name,
           (unsigned)BATCH);
  bench_report(&o, "cuda", "saxpy 64 Mi floats, submit + wait", "GB/s", true, false, side, &sb);

  copy(&x, yb, staging, bytes, done, &value);
  bool ok = true;
  const uint32_t total_passes = passes + 1 + BATCH * batches;
  for (uint32_t i = 0; i < n && ok; ++i) {
    const float expected = (float)(i % 7u) + (float)total_passes * 2.0f * (float)(i & 1023u);
    if (staged[i] != expected) {
      fprintf(stderr, "xgpu: y[%u] = %g, expected %g\n", i, staged[i], expected);
      ok = false;
    }
  }
  bench_check(&o, "cuda", "xgpu DEVICE_LOCAL saxpy y equals (i mod 7) + passes * 2 * (i mod 1024)", ok);

  xgpuDestroyCommandBuffer(x.device, cb, NULL);
  xgpuDestroyCommandBuffer(x.device, batched, NULL);
  xgpuDestroyPipeline(x.device, pipeline, NULL);
  xgpuDestroyExecutable(x.device, executable, NULL);
  xgpuDestroySemaphore(x.device, done, NULL);
  xgpuDestroyBuffer(x.device, xb, NULL);
  xgpuDestroyBuffer(x.device, yb, NULL);
  bench_xgpu_destroy_buffer(&x, staging);
  free(gbps);
  bench_xgpu_destroy(&x);
  return ok ? 0 : 1;
}
