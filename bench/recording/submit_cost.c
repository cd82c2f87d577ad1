/* What a signal semaphore adds to xgpuQueueSubmit's host cost: the driver's
 * pending-payload tracking (the payload accepted into the semaphore's list of
 * pending signals, announced at issue, withdrawn at completion). The
 * difference also holds the copy of the signal list, so it bounds the
 * tracking from above.
 *
 * Times each xgpuQueueSubmit call alone, for empty submissions made back to
 * back (no waits between them; the queue is drained untimed after each batch
 * of 32), once with no semaphore and once with one signal semaphore; prints
 * the median, min and p90 of the per-call average of each batch. Checks that
 * the semaphore holds the last payload signalled.
 *
 *   submit_cost_bench [--smoke] [batches]
 *
 * xgpu only: it measures a cost inside the driver, beside the same call
 * without it. */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xgpu/xgpu.h"

#define CHECK(x)                                                   \
  do {                                                             \
    XgpuResult r_ = (x);                                           \
    if (r_ < 0) {                                                  \
      fprintf(stderr, "error: %s failed: %d\n", #x, (int)r_);      \
      exit(EXIT_FAILURE);                                          \
    }                                                              \
  } while (0)

enum { kPerBatch = 32 };

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  int batches = 400;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--smoke") == 0) batches = 3;
    else batches = atoi(argv[i]);
  }
  if (batches < 1) {
    fprintf(stderr, "usage: %s [--smoke] [batches]\n", argv[0]);
    return EXIT_FAILURE;
  }
  XgpuInstance instance;
  const XgpuInstanceCreateInfo instance_info = {.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  CHECK(xgpuCreateInstance(&instance_info, NULL, &instance));
  uint32_t count = 1;
  XgpuPhysicalDevice physical = NULL;
  if (xgpuEnumeratePhysicalDevices(instance, &count, &physical) < 0 || count == 0) {
    fprintf(stderr, "error: no physical device\n");
    return EXIT_FAILURE;
  }
  const XgpuDeviceQueueCreateInfo queue_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = 0, .queueCount = 1};
  const XgpuDeviceCreateInfo device_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &queue_info};
  XgpuDevice device;
  XgpuQueue queue;
  CHECK(xgpuCreateDevice(physical, &device_info, NULL, &device));
  xgpuGetDeviceQueue(device, 0, 0, &queue);
  XgpuSemaphore semaphore;
  const XgpuSemaphoreCreateInfo semaphore_info = {.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  CHECK(xgpuCreateSemaphore(device, &semaphore_info, NULL, &semaphore));

  double* samples[2] = {calloc((size_t)batches, sizeof(double)), calloc((size_t)batches, sizeof(double))};
  if (!samples[0] || !samples[1]) return EXIT_FAILURE;
  uint64_t value = 0;
  for (int b = 0; b < batches; ++b) {
    for (int with_signal = 0; with_signal < 2; ++with_signal) {
      uint64_t total = 0;
      for (int i = 0; i < kPerBatch; ++i) {
        const uint64_t next = value + 1;
        XgpuSubmitInfo submit = {.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO};
        if (with_signal) {
          submit.signalSemaphores.count = 1;
          submit.signalSemaphores.pSemaphores = &semaphore;
          submit.signalSemaphores.pValues = &next;
        }
        const uint64_t start = now_ns();
        CHECK(xgpuQueueSubmit(queue, 1, &submit));
        total += now_ns() - start;
        if (with_signal) value = next;
      }
      CHECK(xgpuQueueWaitIdle(queue));
      samples[with_signal][b] = (double)total / kPerBatch;
    }
  }
  uint64_t reached = 0;
  CHECK(xgpuGetSemaphoreValue(device, semaphore, &reached));
  const int ok = reached == value;
  printf("submit_cost_bench: xgpuQueueSubmit of an empty submission, ns per call (%d batches of %d)\n", batches,
         kPerBatch);
  double medians[2];
  for (int with_signal = 0; with_signal < 2; ++with_signal) {
    double* s = samples[with_signal];
    qsort(s, (size_t)batches, sizeof(double), compare);
    medians[with_signal] = s[batches / 2];
    printf("  %-28s median %8.1f  min %8.1f  p90 %8.1f\n", with_signal ? "one signal semaphore" : "no semaphore",
           s[batches / 2], s[0], s[batches * 9 / 10]);
  }
  /* An upper bound of the tracking: it also holds the copy of the signal list. */
  printf("  one signal semaphore adds (difference of the medians): %.1f ns per call\n", medians[1] - medians[0]);
  printf("  check: the semaphore holds the last payload signalled (%llu): %s\n", (unsigned long long)value,
         ok ? "ok" : "FAILED");
  free(samples[0]);
  free(samples[1]);
  xgpuDestroySemaphore(device, semaphore, NULL);
  xgpuDestroyDevice(device, NULL);
  xgpuDestroyInstance(instance, NULL);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
