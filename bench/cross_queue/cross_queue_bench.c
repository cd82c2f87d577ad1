/*
 * cross_queue_bench: the latency of a dependency edge between two queues.
 * Queue B holds a submission that waits for semaphore S >= k and then
 * signals T = k (submitted first, untimed, so it is pending). The timed part:
 * submit to queue A an empty submission signalling S = k, then the host waits
 * for T >= k. One sample per edge, in microseconds: median, min, max, p99.
 *
 * Beside it, from the same run and device: the same without the edge (queue A
 * signals T itself, the host waits), so the difference is the edge's cost.
 *
 * Sides: xgpu (two queues of family 0; one queue when the device offers one,
 * said in a note) and Vulkan timeline semaphores on lavapipe, when its compute
 * family offers two queues (else a note says so and only the baseline runs).
 * And the same edge between two devices (xgpu, when the instance offers two
 * of one driver and runtime; else a note).
 * Results: after the run S and T hold the last k on every side, and each
 * host wait returned with T reached.
 *
 *   cross_queue_bench [--smoke] [--json]
 */
#define _GNU_SOURCE 1 /* clock_gettime, syscall */

#include "bench_common.h"
#include "bench_xgpu.h"
#if defined(BENCH_HAVE_VULKAN)
#include "bench_vulkan.h"
#endif

static const char* const BENCH = "cross_queue";
static const char* const FIGURE_EDGE = "cross-queue edge: A signals, B waits, host sees B";
static const char* const FIGURE_BASE = "same queue, no edge: A signals, host sees A";
static const char* const FIGURE_DEVICES = "cross-device edge: device 0 signals, device 1 waits, host sees device 1";

typedef struct run {
  bench_options_t o;
  uint32_t warmup, rounds;
  bool ok;
} run_t;

static void report(run_t* r, const char* figure, const char* side, double* samples) {
  const bench_summary_t s = bench_summarize(samples, r->rounds);
  bench_report(&r->o, BENCH, figure, "us", false, true, side, &s);
}

static void check_value(run_t* r, const char* what, uint64_t value, uint64_t expected) {
  if (value != expected) {
    fprintf(stderr, "error: %s is %llu, expected %llu\n", what, (unsigned long long)value,
            (unsigned long long)expected);
    r->ok = false;
  }
}

/* The same edge between two devices of the instance (api.md 10, "Sharing":
 * a queue may wait for a semaphore of another device of the same driver and
 * runtime): device 1's queue holds a submission that waits for device 0's
 * semaphore S >= k and signals its own T = k; timed: device 0's queue
 * signals S = k, the host waits for T >= k. A note when the instance has one
 * device (hsa-cpu: HSA_CPU_AGENTS=2 gives two). */
static void run_xgpu_devices(run_t* r, bench_xgpu_t* x, double* samples) {
  XgpuPhysicalDevice physical[2];
  uint32_t count = 2;
  const XgpuResult enumerated = xgpuEnumeratePhysicalDevices(x->instance, &count, physical);
  if ((enumerated != XGPU_SUCCESS && enumerated != XGPU_INCOMPLETE) || count < 2) {
    bench_note(&r->o, BENCH, "xgpu: the instance offers one device, so it has no cross-device edge "
                             "(two on hsa-cpu: HSA_CPU_AGENTS=2)");
    return;
  }
  XgpuPhysicalDeviceProperties p0, p1;
  xgpuGetPhysicalDeviceProperties(physical[0], &p0);
  xgpuGetPhysicalDeviceProperties(physical[1], &p1);
  if (strcmp(p0.driverName, p1.driverName) != 0 || strcmp(p0.runtimeName, p1.runtimeName) != 0) {
    bench_note(&r->o, BENCH, "xgpu: devices 0 and 1 differ in driver or runtime: no cross-device edge");
    return;
  }
  const XgpuDeviceQueueCreateInfo queue_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = 0, .queueCount = 1};
  const XgpuDeviceCreateInfo device_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &queue_info};
  XgpuDevice other;
  BENCH_XCHECK(xgpuCreateDevice(physical[1], &device_info, NULL, &other));
  XgpuQueue b;
  xgpuGetDeviceQueue(other, 0, 0, &b);
  const XgpuSemaphoreCreateInfo semaphore_info = {.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  XgpuSemaphore s_sem = bench_xgpu_semaphore(x), t_sem;
  BENCH_XCHECK(xgpuCreateSemaphore(other, &semaphore_info, NULL, &t_sem));
  const uint64_t total = (uint64_t)r->warmup + r->rounds;
  for (uint64_t k = 1; k <= total; ++k) {
    bench_xgpu_submit(b, NULL, s_sem, k, t_sem, k);
    const uint64_t start = bench_now_ns();
    bench_xgpu_submit(x->queues[0], NULL, NULL, 0, s_sem, k);
    const XgpuSemaphoreWaitInfo wait = {
        .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1, .pSemaphores = &t_sem, .pValues = &k};
    BENCH_XCHECK(xgpuWaitSemaphores(other, &wait, BENCH_XGPU_WAIT_NS));
    const uint64_t ns = bench_now_ns() - start;
    if (k > r->warmup) samples[k - r->warmup - 1] = (double)ns / 1e3;
  }
  report(r, FIGURE_DEVICES, "xgpu", samples);
  uint64_t value = 0;
  BENCH_XCHECK(xgpuGetSemaphoreValue(x->device, s_sem, &value));
  check_value(r, "xgpu: device 0's S", value, total);
  BENCH_XCHECK(xgpuGetSemaphoreValue(other, t_sem, &value));
  check_value(r, "xgpu: device 1's T", value, total);
  xgpuDestroySemaphore(other, t_sem, NULL);
  xgpuDestroySemaphore(x->device, s_sem, NULL);
  xgpuDestroyDevice(other, NULL);
}

static void run_xgpu(run_t* r, double* samples) {
  bench_xgpu_t x;
  if (!bench_xgpu_create(&x, 2)) exit(EXIT_FAILURE);
  /* On one queue B's wait would hold back A's signal behind it: no edge to measure. */
  const bool two_queues = x.queue_count >= 2;
  if (!two_queues) bench_note(&r->o, BENCH, "xgpu: the device offers one queue, so it has no cross-queue edge");
  const XgpuQueue a = x.queues[0], b = x.queues[x.queue_count - 1];
  XgpuSemaphore s_sem = bench_xgpu_semaphore(&x), t_sem = bench_xgpu_semaphore(&x), base = bench_xgpu_semaphore(&x);
  const uint64_t total = (uint64_t)r->warmup + r->rounds;
  for (uint64_t k = 1; two_queues && k <= total; ++k) {
    bench_xgpu_submit(b, NULL, s_sem, k, t_sem, k);
    const uint64_t start = bench_now_ns();
    bench_xgpu_submit(a, NULL, NULL, 0, s_sem, k);
    bench_xgpu_wait(&x, t_sem, k);
    const uint64_t ns = bench_now_ns() - start;
    if (k > r->warmup) samples[k - r->warmup - 1] = (double)ns / 1e3;
  }
  if (two_queues) report(r, FIGURE_EDGE, "xgpu", samples);
  for (uint64_t k = 1; k <= total; ++k) {
    const uint64_t start = bench_now_ns();
    bench_xgpu_submit(a, NULL, NULL, 0, base, k);
    bench_xgpu_wait(&x, base, k);
    const uint64_t ns = bench_now_ns() - start;
    if (k > r->warmup) samples[k - r->warmup - 1] = (double)ns / 1e3;
  }
  report(r, FIGURE_BASE, "xgpu", samples);
  uint64_t value = 0;
  BENCH_XCHECK(xgpuGetSemaphoreValue(x.device, s_sem, &value));
  check_value(r, "xgpu: S", value, two_queues ? total : 0);
  BENCH_XCHECK(xgpuGetSemaphoreValue(x.device, t_sem, &value));
  check_value(r, "xgpu: T", value, two_queues ? total : 0);
  BENCH_XCHECK(xgpuGetSemaphoreValue(x.device, base, &value));
  check_value(r, "xgpu: baseline semaphore", value, total);
  xgpuDestroySemaphore(x.device, s_sem, NULL);
  xgpuDestroySemaphore(x.device, t_sem, NULL);
  xgpuDestroySemaphore(x.device, base, NULL);
  run_xgpu_devices(r, &x, samples);
  bench_xgpu_destroy(&x);
}

#if defined(BENCH_HAVE_VULKAN)
static void run_vulkan(run_t* r, double* samples) {
  bench_vk_t v;
  if (!bench_vk_create(&v, 2)) {
    bench_note(&r->o, BENCH, "Vulkan peer: no CPU Vulkan 1.2 device (mesa-vulkan-drivers)");
    return;
  }
  char name[300];
  snprintf(name, sizeof name, "Vulkan (%.250s)", v.device_name);
  const uint64_t total = (uint64_t)r->warmup + r->rounds;
  VkSemaphore s_sem = bench_vk_timeline(&v), t_sem = bench_vk_timeline(&v), base = bench_vk_timeline(&v);
  if (v.queue_count >= 2) {
    for (uint64_t k = 1; k <= total; ++k) {
      bench_vk_submit(v.queues[1], VK_NULL_HANDLE, s_sem, k, t_sem, k);
      const uint64_t start = bench_now_ns();
      bench_vk_submit(v.queues[0], VK_NULL_HANDLE, VK_NULL_HANDLE, 0, s_sem, k);
      bench_vk_wait(&v, t_sem, k);
      const uint64_t ns = bench_now_ns() - start;
      if (k > r->warmup) samples[k - r->warmup - 1] = (double)ns / 1e3;
    }
    report(r, FIGURE_EDGE, name, samples);
    uint64_t value = 0;
    BENCH_VCHECK(vkGetSemaphoreCounterValue(v.device, s_sem, &value));
    check_value(r, "Vulkan: S", value, total);
    BENCH_VCHECK(vkGetSemaphoreCounterValue(v.device, t_sem, &value));
    check_value(r, "Vulkan: T", value, total);
  } else {
    char note[400];
    snprintf(note, sizeof note,
             "Vulkan peer: %s offers %u queue%s in its compute family, so it has no cross-queue edge; "
             "only its same-queue baseline is measured",
             v.device_name, v.family_queue_count, v.family_queue_count == 1 ? "" : "s");
    bench_note(&r->o, BENCH, note);
  }
  for (uint64_t k = 1; k <= total; ++k) {
    const uint64_t start = bench_now_ns();
    bench_vk_submit(v.queues[0], VK_NULL_HANDLE, VK_NULL_HANDLE, 0, base, k);
    bench_vk_wait(&v, base, k);
    const uint64_t ns = bench_now_ns() - start;
    if (k > r->warmup) samples[k - r->warmup - 1] = (double)ns / 1e3;
  }
  report(r, FIGURE_BASE, name, samples);
  uint64_t value = 0;
  BENCH_VCHECK(vkGetSemaphoreCounterValue(v.device, base, &value));
  check_value(r, "Vulkan: baseline semaphore", value, total);
  vkDestroySemaphore(v.device, s_sem, NULL);
  vkDestroySemaphore(v.device, t_sem, NULL);
  vkDestroySemaphore(v.device, base, NULL);
  bench_vk_destroy(&v);
}
#endif

int main(int argc, char** argv) {
  run_t r = {.o = bench_parse_options(argc, argv, NULL), .ok = true};
  r.warmup = r.o.smoke ? 1 : 100;
  r.rounds = r.o.smoke ? 5 : 2000;
  double* samples = calloc(r.rounds, sizeof *samples);
  if (!samples) return EXIT_FAILURE;
  if (!r.o.json) printf("cross_queue_bench: %u edges per side (after %u warm-up), us\n", r.rounds, r.warmup);
  run_xgpu(&r, samples);
#if defined(BENCH_HAVE_VULKAN)
  run_vulkan(&r, samples);
#else
  bench_note(&r.o, BENCH, "Vulkan peer: not built (libvulkan-dev)");
#endif
  bench_check(&r.o, BENCH, "every side's semaphores hold the last payload signalled", r.ok);
  free(samples);
  return r.ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
