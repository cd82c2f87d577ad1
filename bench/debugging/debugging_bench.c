/*
 * debugging_bench: what kernel printing and the device-fault report cost, on
 * the default device (hsa-cpu) or any other the loader finds (hsa-cuda on an
 * NVIDIA GPU: bench/cuda/gpu_bench.sh runs it beside CUDA's printf).
 *
 *   1. printf. One submission of one dispatch of N work items that each
 *      print one line (print_lines), submit -> the host's wait returns, which
 *      is after every line reached the debug messenger (the driver formats
 *      and delivers the lines before it signals); against the same dispatch
 *      of quiet_lines (the same work without the line), alternated in the
 *      same run. Figure: (T_print - T_quiet) / N, ns per printed line, one
 *      sample per pair; beside it the host's share, the time from the first
 *      line's callback to the last one's / N (decode, format, deliver).
 *      Checked: every line arrives once, attributed to kernel print_lines,
 *      with its work item's id, value and half, and the output buffer holds
 *      every value.
 *   2. The device-fault report. A kernel spins until the host sets a flag,
 *      then stores to an address no allocation holds (16). Figure: flag set
 *      -> the XGPU-DRIVER-device-lost message reaches the messenger, µs (goal
 *      on hsa-cpu: within 1 ms); then xgpuGetDeviceFaultInfo must name the
 *      same kernel and command buffer as the message and the address where
 *      the runtime reports one. A lost device is not reused: one device per
 *      repeat.
 *
 *   debugging_bench [--smoke] [--json] [--repeats R] [--lines N] [--fault-repeats F]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */

#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xgpu/xgpu.h>
#include <xgpu/xgpu_enum_string.h>

#include "bench_common.h" /* bench/common: the --json figure lines bench/run.py reads */
#include "bench_xgpu.h"
#include "debugging_bench_kernels.h" /* the embedded executable (xgpu_embed_executable) */
#include "debugging_bench_shared.h"

static const char* const BENCH = "debugging";

typedef struct options {
  bench_options_t o;
  uint32_t repeats;        /* printf pairs */
  uint32_t lines;          /* work items (lines) per printing dispatch */
  uint32_t fault_repeats;  /* devices lost on purpose */
} options_t;

/* What the messenger saw. Lines are delivered from one thread at a time
 * (the submission's retirement), before its semaphore is signalled; the
 * callback only copies each line (checked after the timed wait), so that
 * the figure is the driver's cost, not the check's. */
typedef struct messages {
  uint32_t lines;              /* work items of the current printing dispatch */
  char* arena;                 /* the lines' text, each NUL-terminated */
  size_t arena_size, arena_used;
  atomic_uint printed;         /* XGPU-KERNEL-printf INFO lines */
  atomic_uint overflow;        /* lines that did not fit the arena */
  atomic_uint_least64_t first_ns, last_ns;  /* the first and last line's arrival */
  atomic_uint device_lost;     /* XGPU-DRIVER-device-lost messages */
  atomic_uint_least64_t lost_ns;            /* the first one's arrival */
  char lost_message[4096];     /* its text */
  atomic_uint other;           /* anything else */
} messages_t;

static XgpuBool32 on_message(XgpuDebugMessageSeverityFlagBits severity, XgpuDebugMessageTypeFlags types,
                             const XgpuDebugMessageData* data, void* user_data) {
  const uint64_t now = bench_now_ns();
  (void)types;
  messages_t* m = user_data;
  const char* id = data->pMessageIdName ? data->pMessageIdName : "-";
  if (strcmp(id, "XGPU-KERNEL-printf") == 0 && severity == XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT) {
    if (atomic_fetch_add(&m->printed, 1u) == 0) atomic_store(&m->first_ns, now);
    atomic_store(&m->last_ns, now);
    const size_t length = strlen(data->pMessage) + 1;
    if (m->arena_used + length <= m->arena_size) {
      memcpy(m->arena + m->arena_used, data->pMessage, length);
      m->arena_used += length;
    } else {
      atomic_fetch_add(&m->overflow, 1u);
    }
  } else if (strcmp(id, "XGPU-DRIVER-device-lost") == 0) {
    if (atomic_fetch_add(&m->device_lost, 1u) == 0) {
      atomic_store(&m->lost_ns, now);
      snprintf(m->lost_message, sizeof m->lost_message, "%s", data->pMessage);
    }
  } else {
    atomic_fetch_add(&m->other, 1u);
    fprintf(stderr, "debugging_bench: unexpected message (severity 0x%x) %s: %s\n", (unsigned)severity, id,
            data->pMessage);
  }
  return XGPU_FALSE;
}

/* Checks the lines the arena holds: each work item's once, attributed to
 * kernel print_lines, its workgroup and item, its value and half. */
static bool check_lines(const messages_t* m, uint8_t* seen) {
  memset(seen, 0, m->lines);
  uint32_t wrong = 0;
  for (size_t at = 0; at < m->arena_used; at += strlen(m->arena + at) + 1) {
    /* "kernel 'print_lines' (command C, workgroup (W, 0, 0), work item (L, 0, 0)): line I: value V, half H" */
    const char* message = m->arena + at;
    unsigned workgroup = 0, item = 0, i = 0, value = 0;
    double half = -1.0;
    const char* text = strstr(message, "workgroup (");
    const char* line = strstr(message, ")): ");
    if (strncmp(message, "kernel 'print_lines' (command ", 30) != 0 || !text || !line ||
        sscanf(text, "workgroup (%u, 0, 0), work item (%u, 0, 0))", &workgroup, &item) != 2 ||
        sscanf(line + 4, DEBUGGING_BENCH_SCAN, &i, &value, &half) != 3 ||
        i != workgroup * DEBUGGING_BENCH_WORKGROUP + item || i >= m->lines || value != DEBUGGING_BENCH_VALUE(i) ||
        half != 0.5 * (double)i || seen[i]) {
      if (wrong++ < 3) fprintf(stderr, "debugging_bench: unexpected line: %s\n", message);
    } else {
      seen[i] = 1;
    }
  }
  for (uint32_t i = 0; i < m->lines; ++i) wrong += !seen[i];
  return wrong == 0 && atomic_load(&m->overflow) == 0 && atomic_load(&m->printed) == m->lines;
}

static XgpuDebugMessenger create_messenger(XgpuInstance instance, messages_t* m) {
  const XgpuDebugMessengerCreateInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO,
      .messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT |
                         XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
      .messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT |
                     XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT,
      .pfnUserCallback = on_message,
      .pUserData = m,
  };
  XgpuDebugMessenger messenger;
  BENCH_XCHECK(xgpuCreateDebugMessenger(instance, &info, NULL, &messenger));
  return messenger;
}

/* A one-dispatch command buffer of `pipeline` over `items` work items. */
static XgpuCommandBuffer record(bench_xgpu_t* x, XgpuPipeline pipeline, XgpuBuffer out, uint32_t items) {
  XgpuCommandBuffer cb = bench_xgpu_command_buffer(x);
  const XgpuCommandBufferBeginInfo begin = {.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                            .mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE};
  BENCH_XCHECK(xgpuBeginCommandBuffer(cb, &begin));
  xgpuCmdBindPipeline(cb, pipeline);
  const XgpuBufferRef ref = xgpuBufferRefWhole(out);
  xgpuCmdBindBuffers(cb, 0, 1, &ref);
  const debugging_bench_constants_t constants = {items, 0};
  xgpuCmdPushConstants(cb, 0, sizeof constants, &constants);
  xgpuCmdDispatch(cb, (items + DEBUGGING_BENCH_WORKGROUP - 1) / DEBUGGING_BENCH_WORKGROUP, 1, 1);
  BENCH_XCHECK(xgpuEndCommandBuffer(cb));
  return cb;
}

/* Part 1: ns per printed line. */
static bool printf_cost(const options_t* o) {
  const uint32_t n = o->lines;
  /* Each record: 48 bytes, 4 values, the format's bytes: 128 bytes is room. */
  const uint64_t print_buffer_size = 64ull * 1024 + 128ull * n;
  messages_t* m = calloc(1, sizeof *m);
  m->lines = n;
  m->arena_size = 160ull * n;
  m->arena = malloc(m->arena_size);
  uint8_t* seen = calloc(n, 1);
  bench_xgpu_t x;
  if (!bench_xgpu_create_with_print_buffer(&x, 1, print_buffer_size)) return false;
  XgpuDebugMessenger messenger = create_messenger(x.instance, m);
  XgpuExecutable executable, executable2;
  XgpuPipeline print = bench_xgpu_pipeline(&x, debugging_bench_kernels, debugging_bench_kernels_size, "print_lines",
                                           &executable);
  XgpuPipeline quiet = bench_xgpu_pipeline(&x, debugging_bench_kernels, debugging_bench_kernels_size, "quiet_lines",
                                           &executable2);
  void* mapped = NULL;
  XgpuBuffer out = bench_xgpu_buffer(&x, 4ull * n, &mapped);
  uint32_t* words = mapped;
  XgpuCommandBuffer print_cb = record(&x, print, out, n);
  XgpuCommandBuffer quiet_cb = record(&x, quiet, out, n);
  XgpuSemaphore done = bench_xgpu_semaphore(&x);
  uint64_t value = 0;

  double* per_line = calloc(o->repeats, sizeof(double));
  double* host_share = calloc(o->repeats, sizeof(double));
  double* print_us = calloc(o->repeats, sizeof(double));
  double* quiet_us = calloc(o->repeats, sizeof(double));
  bool ok = true;
  /* One untimed pair first: code objects loaded, pages touched. */
  for (uint32_t r = 0; r <= o->repeats; ++r) {
    memset(words, 0, 4ull * n);
    uint64_t t0 = bench_now_ns();
    bench_xgpu_submit(x.queues[0], quiet_cb, NULL, 0, done, ++value);
    bench_xgpu_wait(&x, done, value);
    const uint64_t quiet_ns = bench_now_ns() - t0;
    for (uint32_t i = 0; i < n && ok; ++i) ok = words[i] == DEBUGGING_BENCH_VALUE(i);

    memset(words, 0, 4ull * n);
    m->arena_used = 0;
    atomic_store(&m->printed, 0u);
    t0 = bench_now_ns();
    bench_xgpu_submit(x.queues[0], print_cb, NULL, 0, done, ++value);
    bench_xgpu_wait(&x, done, value);
    const uint64_t print_ns = bench_now_ns() - t0;
    for (uint32_t i = 0; i < n && ok; ++i) ok = words[i] == DEBUGGING_BENCH_VALUE(i);
    ok = check_lines(m, seen) && ok;
    if (r == 0) continue;
    per_line[r - 1] = ((double)print_ns - (double)quiet_ns) / n;
    host_share[r - 1] = (double)(atomic_load(&m->last_ns) - atomic_load(&m->first_ns)) / n;
    print_us[r - 1] = print_ns / 1e3;
    quiet_us[r - 1] = quiet_ns / 1e3;
  }
  ok = ok && atomic_load(&m->other) == 0;
  char figure[160], side[200];
  snprintf(figure, sizeof figure, "printf, %u lines in one dispatch, per line", n);
  snprintf(side, sizeof side, "xgpu (%s)", x.device_name);
  bench_summary_t s = bench_summarize(per_line, o->repeats);
  bench_report(&o->o, BENCH, figure, "ns", false, false, side, &s);
  snprintf(side, sizeof side, "xgpu, of it delivering the formatted lines to the messenger (%s)", x.device_name);
  s = bench_summarize(host_share, o->repeats);
  bench_report(&o->o, BENCH, figure, "ns", false, false, side, &s);
  snprintf(figure, sizeof figure, "printf, %u lines: submit -> wait", n);
  snprintf(side, sizeof side, "xgpu (%s)", x.device_name);
  s = bench_summarize(print_us, o->repeats);
  bench_report(&o->o, BENCH, figure, "us", false, false, side, &s);
  snprintf(side, sizeof side, "xgpu, the same dispatch without printf (%s)", x.device_name);
  s = bench_summarize(quiet_us, o->repeats);
  bench_report(&o->o, BENCH, figure, "us", false, false, side, &s);
  bench_check(&o->o, BENCH, "every line arrived once, attributed and right; the outputs are right", ok);

  xgpuDestroySemaphore(x.device, done, NULL);
  xgpuDestroyCommandBuffer(x.device, print_cb, NULL);
  xgpuDestroyCommandBuffer(x.device, quiet_cb, NULL);
  bench_xgpu_destroy_buffer(&x, out);
  xgpuDestroyPipeline(x.device, print, NULL);
  xgpuDestroyPipeline(x.device, quiet, NULL);
  xgpuDestroyExecutable(x.device, executable, NULL);
  xgpuDestroyExecutable(x.device, executable2, NULL);
  xgpuDestroyDebugMessenger(x.instance, messenger, NULL);
  bench_xgpu_destroy(&x);
  free(per_line);
  free(host_share);
  free(print_us);
  free(quiet_us);
  free(seen);
  free(m->arena);
  free(m);
  return ok;
}

/* Part 2: flag set -> device-lost message, µs; the query agrees. */
static bool fault_report(const options_t* o) {
  static const uint64_t kFaultAddress = 16;
  double* samples = calloc(o->fault_repeats, sizeof(double));
  double* query_us = calloc(o->fault_repeats, sizeof(double));
  bool ok = true;
  char side[200] = "xgpu";
  for (uint32_t r = 0; r < o->fault_repeats; ++r) {
    messages_t* m = calloc(1, sizeof *m);
    bench_xgpu_t x;
    if (!bench_xgpu_create(&x, 1)) return false;
    snprintf(side, sizeof side, "xgpu (%s)", x.device_name);
    XgpuDebugMessenger messenger = create_messenger(x.instance, m);
    XgpuExecutable executable;
    XgpuPipeline pipeline = bench_xgpu_pipeline(&x, debugging_bench_kernels, debugging_bench_kernels_size,
                                                "fault_on_flag", &executable);
    void* mapped = NULL;
    XgpuBuffer flag = bench_xgpu_buffer(&x, 4, &mapped);
    atomic_uint* word = mapped;
    atomic_store(word, 0u);
    XgpuCommandBuffer cb = bench_xgpu_command_buffer(&x);
    const XgpuDebugObjectNameInfo name = {.sType = XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO,
                                          .objectType = XGPU_OBJECT_TYPE_COMMAND_BUFFER,
                                      .objectHandle = (uint64_t)(uintptr_t)cb,
                                      .pObjectName = "faults on purpose"};
    BENCH_XCHECK(xgpuSetObjectName(x.device, &name));
    const XgpuCommandBufferBeginInfo begin = {.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                              .mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT};
    BENCH_XCHECK(xgpuBeginCommandBuffer(cb, &begin));
    xgpuCmdBindPipeline(cb, pipeline);
    const XgpuBufferRef ref = xgpuBufferRefWhole(flag);
    xgpuCmdBindBuffers(cb, 0, 1, &ref);
    const debugging_fault_constants_t constants = {kFaultAddress};
    xgpuCmdPushConstants(cb, 0, sizeof constants, &constants);
    xgpuCmdDispatch(cb, 1, 1, 1);
    BENCH_XCHECK(xgpuEndCommandBuffer(cb));
    XgpuSemaphore done = bench_xgpu_semaphore(&x);
    bench_xgpu_submit(x.queues[0], cb, NULL, 0, done, 1);
    /* Let the kernel start spinning (its start is not what is timed). */
    const struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    const uint64_t t0 = bench_now_ns();
    atomic_store_explicit(word, 1u, memory_order_release);
    const XgpuSemaphoreWaitInfo wait = {.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                        .semaphoreCount = 1,
                                        .pSemaphores = &done,
                                        .pValues = &(uint64_t){1}};
    const XgpuResult waited = xgpuWaitSemaphores(x.device, &wait, BENCH_XGPU_WAIT_NS);
    if (waited != XGPU_ERROR_DEVICE_LOST) {
      fprintf(stderr, "debugging_bench: the wait returned %s, not XGPU_ERROR_DEVICE_LOST\n", xgpuResultString(waited));
      ok = false;
    }
    const uint64_t q0 = bench_now_ns();
    XgpuDeviceFaultInfo info;
    const XgpuResult queried = xgpuGetDeviceFaultInfo(x.device, &info);
    query_us[r] = (bench_now_ns() - q0) / 1e3;
    const uint64_t lost_ns = atomic_load(&m->lost_ns);
    samples[r] = lost_ns > t0 ? (lost_ns - t0) / 1e3 : 0.0;
    /* The query and the message name the same kernel, command buffer and
     * address. */
    char address_text[32];
    snprintf(address_text, sizeof address_text, "0x%" PRIx64, kFaultAddress);
    const bool agree = queried == XGPU_SUCCESS && atomic_load(&m->device_lost) == 1 && lost_ns > t0 &&
                       info.kind == XGPU_DEVICE_FAULT_KIND_MEMORY && strcmp(info.kernelName, "fault_on_flag") == 0 &&
                       strcmp(info.commandBufferName, "faults on purpose") == 0 &&
                       strstr(m->lost_message, "kernel 'fault_on_flag'") != NULL &&
                       strstr(m->lost_message, "'faults on purpose'") != NULL &&
                       (!info.addressValid ||
                        (info.address == kFaultAddress && strstr(m->lost_message, address_text) != NULL &&
                         info.addressRelation == XGPU_DEVICE_FAULT_ADDRESS_RELATION_NONE));
    if (!agree) {
      fprintf(stderr, "debugging_bench: fault %u: query %s, kernel '%s', command buffer '%s', message: %s\n", r,
              xgpuResultString(queried), info.kernelName, info.commandBufferName, m->lost_message);
      ok = false;
    }
    ok = ok && atomic_load(&m->other) == 0;
    (void)xgpuDeviceWaitIdle(x.device); /* the lost device retires what it abandoned */
    xgpuDestroySemaphore(x.device, done, NULL);
    xgpuDestroyCommandBuffer(x.device, cb, NULL);
    bench_xgpu_destroy_buffer(&x, flag);
    xgpuDestroyPipeline(x.device, pipeline, NULL);
    xgpuDestroyExecutable(x.device, executable, NULL);
    xgpuDestroyDebugMessenger(x.instance, messenger, NULL);
    bench_xgpu_destroy(&x);
    free(m);
  }
  bench_summary_t s = bench_summarize(samples, o->fault_repeats);
  bench_report(&o->o, BENCH, "kernel fault -> device-lost report delivered", "us", false, true, side, &s);
  s = bench_summarize(query_us, o->fault_repeats);
  bench_report(&o->o, BENCH, "xgpuGetDeviceFaultInfo after the loss", "us", false, false, side, &s);
  bench_check(&o->o, BENCH, "each fault reported once; the query names the message's kernel, command buffer, address",
              ok);
  free(samples);
  free(query_us);
  return ok;
}

static uint32_t parse_count(const char* flag, const char* value) {
  char* end = NULL;
  const unsigned long v = value ? strtoul(value, &end, 10) : 0;
  if (!value || *end || v == 0 || v > (1ul << 24)) {
    fprintf(stderr, "debugging_bench: %s needs a count from 1 to %lu\n", flag, 1ul << 24);
    exit(2);
  }
  return (uint32_t)v;
}

int main(int argc, char** argv) {
  options_t o = {{false, false}, 11, 16384, 11};
  bool lines_set = false, fault_set = false, repeats_set = false;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--smoke")) o.o.smoke = true;
    else if (!strcmp(a, "--json")) o.o.json = true;
    else if (!strcmp(a, "--repeats")) o.repeats = parse_count(a, v), ++i, repeats_set = true;
    else if (!strcmp(a, "--lines")) o.lines = parse_count(a, v), ++i, lines_set = true;
    else if (!strcmp(a, "--fault-repeats")) o.fault_repeats = parse_count(a, v), ++i, fault_set = true;
    else {
      fprintf(stderr, "usage: %s [--smoke] [--json] [--repeats R] [--lines N] [--fault-repeats F]\n", argv[0]);
      return 2;
    }
  }
  if (o.o.smoke) {
    if (!repeats_set) o.repeats = 1;
    if (!lines_set) o.lines = 300;
    if (!fault_set) o.fault_repeats = 1;
  }
  bool ok = printf_cost(&o);
  ok = fault_report(&o) && ok;
  return ok ? 0 : 1;
}
