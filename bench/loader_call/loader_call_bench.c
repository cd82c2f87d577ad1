/*
 * loader_call_bench: what one cheap device-level call costs through the
 * loader's trampoline and through a pointer fetched once, beside Vulkan's
 * loader doing the same on lavapipe. The call is a 16-byte push constant:
 *
 *   trampoline   xgpuCmdPushConstants exported by libxgpu    | vkCmdPushConstants exported by libvulkan
 *   direct       the meta-loader's pointer (xgpu_meta.h,     | vkCmdPushConstants from vkGetDeviceProcAddr
 *                fetched with xgpuGetDeviceProcAddr)         |
 *
 * One sample: `calls` pushes into a command buffer that has its pipeline and
 * buffer bound, ns per call (only the pushes are timed); median, min, max of
 * `repeats` samples. Each recording then dispatches a kernel that copies the
 * constants into a buffer, so every recording is submitted and the output
 * must equal the last push's constants on both sides.
 *
 *   loader_call_bench [--smoke] [--json]
 */
#define _GNU_SOURCE 1 /* clock_gettime, syscall */

#include "bench_common.h"
#include "bench_xgpu.h"
#include "loader_call_bench_kernels.h" /* the embedded executable (xgpu_embed_executable) */
#include "loader_call_shared.h"
#if defined(BENCH_HAVE_VULKAN)
#include "bench_vulkan.h"
#include "store_spirv.h"
#endif

void meta_side_load(PFN_xgpuGetInstanceProcAddr get_instance_proc_addr, XgpuInstance instance, XgpuDevice device);
void meta_side_push(XgpuCommandBuffer cb, uint32_t count);

static const char* const BENCH = "loader_call";
static const char* const FIGURE_TRAMPOLINE = "push constants 16 B, loader trampoline";
static const char* const FIGURE_DIRECT = "push constants 16 B, direct pointer (meta-loader / vkGetDeviceProcAddr)";

typedef struct run {
  bench_options_t o;
  uint32_t calls, repeats;
  bool ok;
} run_t;

static bool check_output(const char* side, const uint32_t* out, uint32_t calls) {
  const loader_call_constants_t expected = loader_call_constants(calls - 1);
  for (int i = 0; i < 4; ++i) {
    if (out[i] != expected.v[i]) {
      fprintf(stderr, "error: %s: output[%d] = %u, expected %u\n", side, i, out[i], expected.v[i]);
      return false;
    }
  }
  return true;
}

/* ---- xgpu ---- */
static void trampoline_push(XgpuCommandBuffer cb, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    const loader_call_constants_t c = loader_call_constants(i);
    xgpuCmdPushConstants(cb, 0, sizeof c, &c);
  }
}

static void run_xgpu(run_t* r, double* samples[2]) {
  bench_xgpu_t x;
  if (!bench_xgpu_create(&x, 1)) exit(EXIT_FAILURE);
  meta_side_load(xgpuGetInstanceProcAddr, x.instance, x.device);
  uint32_t* out;
  XgpuBuffer buffer = bench_xgpu_buffer(&x, 4 * sizeof(uint32_t), (void**)&out);
  XgpuExecutable executable;
  XgpuPipeline pipeline = bench_xgpu_pipeline(&x, loader_call_bench_kernels, loader_call_bench_kernels_size,
                                              "store_constants", &executable);
  XgpuCommandBuffer cb = bench_xgpu_command_buffer(&x);
  XgpuSemaphore done = bench_xgpu_semaphore(&x);
  uint64_t value = 0;
  const XgpuCommandBufferBeginInfo begin = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, .mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE};
  const XgpuBufferRef ref = xgpuBufferRefWhole(buffer);
  for (uint32_t s = 0; s <= r->repeats; ++s) {  /* sample 0: warm-up */
    for (int way = 0; way < 2; ++way) {
      memset(out, 0, 4 * sizeof(uint32_t));
      BENCH_XCHECK(xgpuBeginCommandBuffer(cb, &begin));
      xgpuCmdBindPipeline(cb, pipeline);
      xgpuCmdBindBuffers(cb, 0, 1, &ref);
      const uint64_t start = bench_now_ns();
      if (way == 0) trampoline_push(cb, r->calls);
      else meta_side_push(cb, r->calls);
      const uint64_t ns = bench_now_ns() - start;
      xgpuCmdDispatch(cb, 1, 1, 1);
      BENCH_XCHECK(xgpuEndCommandBuffer(cb));
      bench_xgpu_submit(x.queues[0], cb, NULL, 0, done, ++value);
      bench_xgpu_wait(&x, done, value);
      r->ok = check_output(way == 0 ? "xgpu trampoline" : "xgpu meta-loader", out, r->calls) && r->ok;
      if (s > 0) samples[way][s - 1] = (double)ns / r->calls;
    }
  }
  for (int way = 0; way < 2; ++way) {
    const bench_summary_t sum = bench_summarize(samples[way], r->repeats);
    bench_report(&r->o, BENCH, way == 0 ? FIGURE_TRAMPOLINE : FIGURE_DIRECT, "ns/call", false, false, "xgpu", &sum);
  }
  xgpuDestroySemaphore(x.device, done, NULL);
  xgpuDestroyCommandBuffer(x.device, cb, NULL);
  xgpuDestroyPipeline(x.device, pipeline, NULL);
  xgpuDestroyExecutable(x.device, executable, NULL);
  bench_xgpu_destroy_buffer(&x, buffer);
  bench_xgpu_destroy(&x);
}

/* ---- Vulkan ---- */
#if defined(BENCH_HAVE_VULKAN)
static void vk_push(PFN_vkCmdPushConstants push, VkCommandBuffer cb, VkPipelineLayout layout, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    const loader_call_constants_t c = loader_call_constants(i);
    push(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof c, &c);
  }
}

static void run_vulkan(run_t* r, double* samples[2]) {
  bench_vk_t v;
  if (!bench_vk_create(&v, 1)) {
    bench_note(&r->o, BENCH, "Vulkan peer: no CPU Vulkan 1.2 device (mesa-vulkan-drivers)");
    return;
  }
  const PFN_vkCmdPushConstants direct = (PFN_vkCmdPushConstants)vkGetDeviceProcAddr(v.device, "vkCmdPushConstants");
  const PFN_vkCmdPushConstants trampoline = vkCmdPushConstants;
  bench_vk_buffer_t buffer = bench_vk_buffer(&v, 4 * sizeof(uint32_t));
  uint32_t* out = buffer.mapped;
  bench_vk_pipeline_t p = bench_vk_pipeline(&v, store_spirv, sizeof store_spirv, sizeof(loader_call_constants_t), 1,
                                            &buffer.buffer);
  VkCommandPool pool;
  VkCommandBuffer cb = bench_vk_command_buffer(&v, &pool);
  VkSemaphore done = bench_vk_timeline(&v);
  uint64_t value = 0;
  const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  for (uint32_t s = 0; s <= r->repeats; ++s) {
    for (int way = 0; way < 2; ++way) {
      memset(out, 0, 4 * sizeof(uint32_t));
      BENCH_VCHECK(vkBeginCommandBuffer(cb, &begin));
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &p.set, 0, NULL);
      const uint64_t start = bench_now_ns();
      vk_push(way == 0 ? trampoline : direct, cb, p.layout, r->calls);
      const uint64_t ns = bench_now_ns() - start;
      vkCmdDispatch(cb, 1, 1, 1);
      BENCH_VCHECK(vkEndCommandBuffer(cb));
      bench_vk_submit(v.queues[0], cb, VK_NULL_HANDLE, 0, done, ++value);
      bench_vk_wait(&v, done, value);
      r->ok = check_output(way == 0 ? "Vulkan trampoline" : "Vulkan direct", out, r->calls) && r->ok;
      if (s > 0) samples[way][s - 1] = (double)ns / r->calls;
    }
  }
  char name[300];
  for (int way = 0; way < 2; ++way) {
    snprintf(name, sizeof name, "Vulkan (%.200s)", v.device_name);
    const bench_summary_t sum = bench_summarize(samples[way], r->repeats);
    bench_report(&r->o, BENCH, way == 0 ? FIGURE_TRAMPOLINE : FIGURE_DIRECT, "ns/call", false, false, name, &sum);
  }
  vkDestroySemaphore(v.device, done, NULL);
  vkDestroyCommandPool(v.device, pool, NULL);
  bench_vk_destroy_pipeline(&v, &p);
  bench_vk_destroy_buffer(&v, &buffer);
  bench_vk_destroy(&v);
}
#endif

int main(int argc, char** argv) {
  run_t r = {.o = bench_parse_options(argc, argv, NULL), .ok = true};
  r.calls = r.o.smoke ? 16 : 10000;
  r.repeats = r.o.smoke ? 1 : 15;
  double* samples[2] = {calloc(r.repeats, sizeof(double)), calloc(r.repeats, sizeof(double))};
  if (!samples[0] || !samples[1]) return EXIT_FAILURE;
  if (!r.o.json) printf("loader_call_bench: %u calls per sample, %u samples, ns per call\n", r.calls, r.repeats);
  run_xgpu(&r, samples);
#if defined(BENCH_HAVE_VULKAN)
  run_vulkan(&r, samples);
#else
  bench_note(&r.o, BENCH, "Vulkan peer: not built (libvulkan-dev, glslang-tools)");
#endif
  bench_check(&r.o, BENCH, "every recording's output equals its last push on every side", r.ok);
  free(samples[0]);
  free(samples[1]);
  return r.ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
