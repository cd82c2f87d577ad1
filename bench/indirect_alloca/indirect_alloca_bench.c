/*
 * indirect_alloca_bench: what indirect dispatch and queue-ordered allocation
 * cost, next to the plain alternative measured in the same run.
 *
 *   1. Dispatch: the same kernel over the same size, as a direct dispatch
 *      (the baseline), as a STATIC indirect dispatch (counts written by the
 *      host before the submission), and as a DYNAMIC one (counts written by a
 *      command of the same submission). Two figures per kind:
 *        latency     one submission holding one dispatch, submit -> host wait
 *                    returns, in microseconds per submission;
 *        throughput  `batches` submissions of `dispatches` dispatches each,
 *                    queued back to back and waited for once, in
 *                    microseconds per dispatch.
 *      Every command buffer of every kind starts with the same prologue (an
 *      update of the DYNAMIC counts and a barrier), so the kinds differ only
 *      in the dispatch command.
 *   2. Scratch: a chain of `iterations` iterations, each running one kernel
 *      that writes and reads a scratch buffer, chained by one timeline
 *      semaphore without host waits, with the scratch from
 *      xgpuQueueAlloca/xgpuQueueDealloca around each submission, against the
 *      same chain with one preallocated scratch buffer. Microseconds per
 *      iteration; the difference is the cost of alloca + dealloca.
 *
 * Each figure is the median of `repeats` runs with the min and max. The
 * results are checked: the three dispatch kinds' output buffers are equal and
 * right, and so are the two scratch variants'.
 *
 *   indirect_alloca_bench [--smoke] [--repeats R] [--dispatches K]
 *                         [--batches B] [--iterations N] [--elements E]
 *
 * --smoke runs every path once with tiny sizes (the ctest entry).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xgpu/xgpu.h>
#include <xgpu/xgpu_enum_string.h>

#include "bench_common.h" /* bench/common: the --json figure lines bench/run.py reads */
#include "bench_shared.h"
#include "indirect_alloca_kernels.h" /* the embedded executable (xgpu_embed_executable) */

#define CHECK(call)                                                        \
  do {                                                                     \
    XgpuResult check_result_ = (call);                                     \
    if (check_result_ != XGPU_SUCCESS) {                                   \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
              xgpuResultString(check_result_));                            \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

#define FAIL(...)                     \
  do {                                \
    fprintf(stderr, "error: ");       \
    fprintf(stderr, __VA_ARGS__);     \
    fprintf(stderr, "\n");            \
    exit(EXIT_FAILURE);               \
  } while (0)

static const uint64_t WAIT_TIMEOUT_NS = 120ull * 1000 * 1000 * 1000;

/* Command-line parameters. */
typedef struct options {
  uint32_t repeats;          /* timed runs per figure (median, min, max) */
  uint32_t latency_rounds;   /* submit+wait round trips averaged into one latency run */
  uint32_t dispatches;       /* dispatches per command buffer in the throughput runs */
  uint32_t batches;          /* submissions per throughput run */
  uint32_t iterations;       /* chained iterations per scratch run */
  uint32_t elements;         /* work items per dispatch */
  uint32_t scratch_elements; /* uint32 elements of scratch per iteration */
  bool json;                 /* figures as JSON lines (bench/run.py) instead of tables */
} options_t;

/* The three ways of issuing the same dispatch. */
enum { KIND_DIRECT, KIND_STATIC, KIND_DYNAMIC, KIND_COUNT };
static const char* const kind_names[KIND_COUNT] = {"direct", "indirect STATIC", "indirect DYNAMIC"};

/* Everything the measurements share. */
typedef struct bench {
  options_t o;
  XgpuDevice device;
  XgpuQueue queue;
  uint32_t queue_family;
  uint32_t host_memory;          /* host-visible, coherent memory type */
  uint32_t scratch_memory;       /* memory type of the pool (device-local if any) */
  XgpuPipeline write_slice;      /* dispatch benchmark kernel */
  XgpuPipeline accumulate;       /* scratch benchmark kernel */
  XgpuSemaphore timeline;        /* orders everything; the host waits on it */
  uint64_t timeline_value;       /* last value asked to be signaled */
  XgpuBuffer input;              /* max(elements, scratch_elements) values */
  XgpuBuffer static_counts;      /* {workgroups, 1, 1}, written by the host once */
  XgpuBuffer dynamic_counts;     /* {workgroups, 1, 1}, written by each command buffer */
  XgpuBuffer outputs[KIND_COUNT];  /* dispatches * elements values per kind */
} bench_t;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Median, min and max of n samples (sorts them). */
typedef struct summary {
  double median, min, max;
} summary_t;

static summary_t summarize(double* samples, uint32_t n) {
  qsort(samples, n, sizeof *samples, compare_doubles);
  summary_t s = {n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2, samples[0],
                 samples[n - 1]};
  return s;
}

static XgpuBuffer create_buffer(const bench_t* b, XgpuDeviceSize size, XgpuBufferUsageFlags usage) {
  XgpuBufferCreateInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = size,
      .usage = usage,
      .memoryTypeIndex = b->host_memory,
  };
  XgpuBuffer buffer;
  CHECK(xgpuCreateBuffer(b->device, &info, NULL, &buffer));
  return buffer;
}

static void* map(const bench_t* b, XgpuBuffer buffer) {
  void* data;
  CHECK(xgpuMapBuffer(b->device, buffer, 0, XGPU_WHOLE_SIZE, &data));
  return data;
}

static XgpuPipeline create_pipeline(const bench_t* b, XgpuExecutable executable, const char* name) {
  XgpuPipelineCreateInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO,
      .executable = executable,
      .pEntryPoint = name,  /* layout: as bench_kernels.c declares (XGPU_KERNEL_BINDINGS) */
      .workgroupSize = {BENCH_WORKGROUP_SIZE, 1, 1},
  };
  XgpuPipeline pipeline;
  CHECK(xgpuCreatePipeline(b->device, &info, NULL, &pipeline));
  return pipeline;
}

static XgpuCommandBuffer begin_reusable(const bench_t* b, uint32_t binding_capacity) {
  XgpuCommandBufferCreateInfo create_info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO,
      .queueFamilyIndex = b->queue_family,
  };
  XgpuCommandBuffer cb;
  CHECK(xgpuCreateCommandBuffer(b->device, &create_info, NULL, &cb));
  XgpuCommandBufferBeginInfo begin_info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE,
      .bindingCapacity = binding_capacity,
  };
  CHECK(xgpuBeginCommandBuffer(cb, &begin_info));
  return cb;
}

static uint32_t workgroups_for(uint32_t elements) {
  return (elements + BENCH_WORKGROUP_SIZE - 1) / BENCH_WORKGROUP_SIZE;
}

/* `count` dispatches of write_slice of one kind, after the common prologue. */
static XgpuCommandBuffer record_dispatches(const bench_t* b, int kind, uint32_t count) {
  XgpuCommandBuffer cb = begin_reusable(b, 0);
  const uint32_t counts[3] = {workgroups_for(b->o.elements), 1, 1};
  const XgpuBufferRef dynamic_counts = xgpuBufferRefRange(b->dynamic_counts, 0, sizeof counts);
  xgpuCmdUpdateBuffer(cb, &dynamic_counts, sizeof counts, counts);
  xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_INDIRECT_BIT, XGPU_ACCESS_INDIRECT_READ_BIT);

  xgpuCmdBindPipeline(cb, b->write_slice);
  const XgpuBufferRef bindings[2] = {xgpuBufferRefWhole(b->input), xgpuBufferRefWhole(b->outputs[kind])};
  xgpuCmdBindBuffers(cb, 0, 2, bindings);
  const XgpuBufferRef static_counts = xgpuBufferRefRange(b->static_counts, 0, sizeof counts);
  for (uint32_t slice = 0; slice < count; ++slice) {
    const bench_slice_constants_t constants = {b->o.elements, slice};
    xgpuCmdPushConstants(cb, 0, sizeof constants, &constants);
    switch (kind) {
      case KIND_DIRECT: xgpuCmdDispatch(cb, counts[0], 1, 1); break;
      case KIND_STATIC: xgpuCmdDispatchIndirect(cb, &static_counts, XGPU_DISPATCH_INDIRECT_STATIC_BIT); break;
      default: xgpuCmdDispatchIndirect(cb, &dynamic_counts, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT); break;
    }
  }
  CHECK(xgpuEndCommandBuffer(cb));
  return cb;
}

static void host_wait(const bench_t* b, uint64_t value) {
  XgpuSemaphoreWaitInfo wait_info = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &b->timeline,
      .pValues = &value,
  };
  CHECK(xgpuWaitSemaphores(b->device, &wait_info, WAIT_TIMEOUT_NS));
}

/* Submits cb with the given binding table; waits for the current timeline
 * value and signals the next one, which it returns. */
static uint64_t submit(bench_t* b, XgpuCommandBuffer cb, uint32_t binding_count,
                       const XgpuBufferBinding* bindings) {
  uint64_t wait_value = b->timeline_value;
  uint64_t signal_value = ++b->timeline_value;
  XgpuSubmitInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO,
      .waitSemaphores = {1, &b->timeline, &wait_value},
      .commandBuffer = cb,
      .bindingCount = binding_count,
      .pBindings = bindings,
      .signalSemaphores = {1, &b->timeline, &signal_value},
  };
  CHECK(xgpuQueueSubmit(b->queue, 1, &info));
  return signal_value;
}

/* One latency run: the mean of latency_rounds submit -> wait round trips. */
static double latency_run(bench_t* b, XgpuCommandBuffer single) {
  double start = now_us();
  for (uint32_t r = 0; r < b->o.latency_rounds; ++r) host_wait(b, submit(b, single, 0, NULL));
  return (now_us() - start) / b->o.latency_rounds;
}

/* One throughput run: batches submissions queued back to back, one wait. */
static double throughput_run(bench_t* b, XgpuCommandBuffer batch) {
  double start = now_us();
  uint64_t last = 0;
  for (uint32_t r = 0; r < b->o.batches; ++r) last = submit(b, batch, 0, NULL);
  host_wait(b, last);
  return (now_us() - start) / ((double)b->o.batches * b->o.dispatches);
}

/* One scratch run: `iterations` iterations chained by the timeline, scratch
 * from the pool (pool != NULL) or the preallocated buffer; µs per iteration. */
static double scratch_run(bench_t* b, XgpuCommandBuffer cb, XgpuMemoryPool pool,
                          XgpuBuffer preallocated, XgpuBuffer output) {
  const XgpuDeviceSize scratch_size = (XgpuDeviceSize)b->o.scratch_elements * sizeof(uint32_t);
  double start = now_us();
  for (uint32_t k = 0; k < b->o.iterations; ++k) {
    XgpuBuffer scratch = preallocated;
    if (pool) {
      uint64_t wait_value = b->timeline_value, signal_value = ++b->timeline_value;
      XgpuSemaphoreList wait = {1, &b->timeline, &wait_value};
      XgpuSemaphoreList signal = {1, &b->timeline, &signal_value};
      CHECK(xgpuQueueAlloca(b->queue, &wait, &signal, pool, scratch_size,
                            XGPU_BUFFER_USAGE_STORAGE_BIT, &scratch));
    }
    const XgpuBufferBinding table[2] = {{scratch, 0, XGPU_WHOLE_SIZE}, {output, 0, XGPU_WHOLE_SIZE}};
    submit(b, cb, 2, table);
    if (pool) {
      uint64_t wait_value = b->timeline_value, signal_value = ++b->timeline_value;
      XgpuSemaphoreList wait = {1, &b->timeline, &wait_value};
      XgpuSemaphoreList signal = {1, &b->timeline, &signal_value};
      CHECK(xgpuQueueDealloca(b->queue, &wait, &signal, scratch));
    }
  }
  host_wait(b, b->timeline_value);
  return (now_us() - start) / b->o.iterations;
}

static uint32_t parse_count(const char* flag, const char* value) {
  char* end;
  unsigned long n = value ? strtoul(value, &end, 10) : 0;
  if (!value || *end != '\0' || n == 0 || n > 1000000000ul) FAIL("%s needs a positive count", flag);
  return (uint32_t)n;
}

static options_t parse_options(int argc, char** argv) {
  options_t o = {
      .repeats = 15,
      .latency_rounds = 50,
      .dispatches = 64,
      .batches = 16,
      .iterations = 256,
      .elements = 4096,
      .scratch_elements = 16384,
  };
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--smoke")) {
      o = (options_t){.json = o.json, .repeats = 1, .latency_rounds = 2, .dispatches = 4, .batches = 2,
                      .iterations = 8, .elements = 300, .scratch_elements = 500};
    } else if (!strcmp(a, "--json")) { o.json = true;
    } else if (!strcmp(a, "--repeats")) { o.repeats = parse_count(a, v); ++i;
    } else if (!strcmp(a, "--dispatches")) { o.dispatches = parse_count(a, v); ++i;
    } else if (!strcmp(a, "--batches")) { o.batches = parse_count(a, v); ++i;
    } else if (!strcmp(a, "--iterations")) { o.iterations = parse_count(a, v); ++i;
    } else if (!strcmp(a, "--elements")) { o.elements = parse_count(a, v); ++i;
    } else {
      fprintf(stderr,
              "usage: %s [--smoke] [--json] [--repeats R] [--dispatches K] [--batches B] "
              "[--iterations N] [--elements E]\n", argv[0]);
      exit(2);
    }
  }
  return o;
}

static uint32_t find_memory_type(const XgpuPhysicalDeviceMemoryProperties* memory,
                                 XgpuMemoryPropertyFlags required, XgpuMemoryPropertyFlags preferred) {
  for (uint32_t i = 0; i < memory->memoryTypeCount; ++i)
    if ((memory->memoryTypes[i].propertyFlags & (required | preferred)) == (required | preferred))
      return i;
  for (uint32_t i = 0; i < memory->memoryTypeCount; ++i)
    if ((memory->memoryTypes[i].propertyFlags & required) == required) return i;
  FAIL("no memory type with properties 0x%x", required);
}

/* Part 2: the scratch chains. Returns false when the driver has no memory
 * pools. */
typedef struct scratch_result {
  summary_t per_iteration[2];      /* [0]: preallocated, [1]: alloca + dealloca */
  XgpuMemoryPoolStatistics pool;   /* after every run */
  XgpuDeviceSize scratch_size;     /* bytes per iteration */
} scratch_result_t;

static bool measure_scratch(bench_t* b, const uint32_t* input, scratch_result_t* out) {
  XgpuMemoryPoolCreateInfo pool_info = {
      .sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO,
      .memoryTypeIndex = b->scratch_memory,
  };
  XgpuMemoryPool pool;
  XgpuResult pool_result = xgpuCreateMemoryPool(b->device, &pool_info, NULL, &pool);
  if (pool_result == XGPU_ERROR_FEATURE_NOT_PRESENT) {
    fprintf(stderr, "note: the driver has no memory pools (%s): scratch figures skipped\n",
            xgpuResultString(pool_result));
    return false;
  }
  CHECK(pool_result);
  const XgpuDeviceSize scratch_size = (XgpuDeviceSize)b->o.scratch_elements * 4;
  XgpuBufferCreateInfo scratch_info = {
      .sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = scratch_size,
      .usage = XGPU_BUFFER_USAGE_STORAGE_BIT,
      .memoryTypeIndex = b->scratch_memory,
  };
  XgpuBuffer preallocated;
  CHECK(xgpuCreateBuffer(b->device, &scratch_info, NULL, &preallocated));
  XgpuBuffer sums[2]; /* [0]: preallocated, [1]: alloca */
  uint32_t* sums_data[2];
  for (int v = 0; v < 2; ++v) {
    sums[v] = create_buffer(b, scratch_size, XGPU_BUFFER_USAGE_STORAGE_BIT);
    sums_data[v] = map(b, sums[v]);
    memset(sums_data[v], 0, scratch_size);
  }
  /* One command buffer for both: slot 0 is the scratch, slot 1 the sums. */
  XgpuCommandBuffer scratch_cb = begin_reusable(b, 2);
  xgpuCmdBindPipeline(scratch_cb, b->accumulate);
  const XgpuBufferRef scratch_bindings[3] = {
      xgpuBufferRefWhole(b->input),
      xgpuBufferRefSlot(0, 0, XGPU_WHOLE_SIZE),
      xgpuBufferRefSlot(1, 0, XGPU_WHOLE_SIZE),
  };
  xgpuCmdBindBuffers(scratch_cb, 0, 3, scratch_bindings);
  const bench_accumulate_constants_t accumulate_constants = {b->o.scratch_elements, 0};
  xgpuCmdPushConstants(scratch_cb, 0, sizeof accumulate_constants, &accumulate_constants);
  xgpuCmdDispatch(scratch_cb, workgroups_for(b->o.scratch_elements), 1, 1);
  CHECK(xgpuEndCommandBuffer(scratch_cb));

  double* samples = calloc((size_t)b->o.repeats * 2, sizeof(double));
  if (!samples) FAIL("out of host memory");
  double* per_iteration[2] = {samples, samples + b->o.repeats};
  scratch_run(b, scratch_cb, NULL, preallocated, sums[0]); /* warm-up */
  scratch_run(b, scratch_cb, pool, XGPU_NULL_HANDLE, sums[1]);
  for (uint32_t r = 0; r < b->o.repeats; ++r) {
    per_iteration[0][r] = scratch_run(b, scratch_cb, NULL, preallocated, sums[0]);
    per_iteration[1][r] = scratch_run(b, scratch_cb, pool, XGPU_NULL_HANDLE, sums[1]);
  }
  xgpuGetMemoryPoolStatistics(b->device, pool, &out->pool);

  const uint32_t runs = (b->o.repeats + 1) * b->o.iterations; /* warm-up included */
  for (uint32_t i = 0; i < b->o.scratch_elements; ++i) {
    uint32_t expected = (input[i] + 1u) * runs;
    for (int v = 0; v < 2; ++v)
      if (sums_data[v][i] != expected)
        FAIL("%s: element %u is %u, expected %u", v ? "alloca" : "preallocated", i,
             sums_data[v][i], expected);
  }
  for (int v = 0; v < 2; ++v) out->per_iteration[v] = summarize(per_iteration[v], b->o.repeats);
  out->scratch_size = scratch_size;

  CHECK(xgpuQueueWaitIdle(b->queue));
  xgpuDestroyCommandBuffer(b->device, scratch_cb, NULL);
  for (int v = 0; v < 2; ++v) {
    xgpuUnmapBuffer(b->device, sums[v]);
    xgpuDestroyBuffer(b->device, sums[v], NULL);
  }
  xgpuDestroyBuffer(b->device, preallocated, NULL);
  xgpuDestroyMemoryPool(b->device, pool, NULL);
  free(samples);
  return true;

}

/* --json: each variant beside its plain alternative from the same run, as
 * one figure with the variant as side "xgpu" and the alternative as the peer. */
static void json_pair(const char* figure, const char* unit, const char* peer, summary_t ours, summary_t base,
                      uint32_t n) {
  const bench_options_t o = {.json = true};
  const bench_summary_t a = {ours.median, ours.min, ours.max, 0, n};
  const bench_summary_t b = {base.median, base.min, base.max, 0, n};
  bench_report(&o, "indirect_alloca", figure, unit, false, false, "xgpu", &a);
  bench_report(&o, "indirect_alloca", figure, unit, false, false, peer, &b);
}

static void report_json(const summary_t* lat, const summary_t* thr, const summary_t* scratch, uint32_t n) {
  const bench_options_t o = {.json = true};
  json_pair("indirect STATIC, submit -> wait", "us", "direct dispatch", lat[KIND_STATIC], lat[KIND_DIRECT], n);
  json_pair("indirect DYNAMIC, submit -> wait", "us", "direct dispatch", lat[KIND_DYNAMIC], lat[KIND_DIRECT], n);
  json_pair("indirect STATIC, batched", "us/dispatch", "direct dispatch", thr[KIND_STATIC], thr[KIND_DIRECT], n);
  json_pair("indirect DYNAMIC, batched", "us/dispatch", "direct dispatch", thr[KIND_DYNAMIC], thr[KIND_DIRECT], n);
  if (scratch)
    json_pair("alloca + dealloca per iteration", "us", "preallocated buffer", scratch[1], scratch[0], n);
  else
    bench_note(&o, "indirect_alloca", "the driver has no memory pools: scratch figures skipped");
  bench_check(&o, "indirect_alloca", "direct == STATIC == DYNAMIC == expected; alloca == preallocated == expected", true);
}

static void print_row(const char* name, summary_t s, summary_t base, int decimals) {
  printf("  %-24s %9.*f  [%9.*f, %9.*f]  %5.2fx  %+9.*f\n", name, decimals, s.median, decimals,
         s.min, decimals, s.max, s.median / base.median, decimals, s.median - base.median);
}

int main(int argc, char** argv) {
  bench_t b = {.o = parse_options(argc, argv)};
  const options_t* o = &b.o;

  XgpuApplicationInfo app_info = {
      .sType = XGPU_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "indirect_alloca_bench",
      .apiVersion = XGPU_API_VERSION_1_0,
  };
  XgpuInstanceCreateInfo instance_info = {
      .sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app_info,
  };
  XgpuInstance instance;
  CHECK(xgpuCreateInstance(&instance_info, NULL, &instance));
  uint32_t device_count = 1;
  XgpuPhysicalDevice physical_device = XGPU_NULL_HANDLE;
  XgpuResult enumerate = xgpuEnumeratePhysicalDevices(instance, &device_count, &physical_device);
  if (enumerate != XGPU_INCOMPLETE) CHECK(enumerate);
  if (device_count == 0) FAIL("no xgpu device found (see XGPU_DRIVER_FILES)");
  XgpuPhysicalDeviceProperties properties;
  xgpuGetPhysicalDeviceProperties(physical_device, &properties);

  XgpuQueueFamilyProperties families[8];
  uint32_t family_count = 8;
  xgpuGetPhysicalDeviceQueueFamilyProperties(physical_device, &family_count, families);
  const XgpuQueueFlags needed = XGPU_QUEUE_COMPUTE_BIT | XGPU_QUEUE_TRANSFER_BIT;
  b.queue_family = family_count;
  for (uint32_t i = 0; i < family_count && b.queue_family == family_count; ++i)
    if ((families[i].queueFlags & needed) == needed) b.queue_family = i;
  if (b.queue_family == family_count) FAIL("no compute + transfer queue family");
  XgpuDeviceQueueCreateInfo queue_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = b.queue_family,
      .queueCount = 1,
  };
  XgpuDeviceCreateInfo device_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &queue_info,
  };
  CHECK(xgpuCreateDevice(physical_device, &device_info, NULL, &b.device));
  xgpuGetDeviceQueue(b.device, b.queue_family, 0, &b.queue);

  XgpuPhysicalDeviceMemoryProperties memory;
  xgpuGetPhysicalDeviceMemoryProperties(physical_device, &memory);
  b.host_memory = find_memory_type(
      &memory, XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT | XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
  b.scratch_memory = find_memory_type(&memory, 0, XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);

  XgpuExecutableCreateInfo executable_info = {
      .sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO,
      .codeSize = indirect_alloca_kernels_size,
      .pCode = indirect_alloca_kernels,
  };
  XgpuExecutable executable;
  CHECK(xgpuCreateExecutable(b.device, &executable_info, NULL, &executable));
  b.write_slice = create_pipeline(&b, executable, "write_slice");
  b.accumulate = create_pipeline(&b, executable, "accumulate");
  XgpuSemaphoreCreateInfo semaphore_info = {.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  CHECK(xgpuCreateSemaphore(b.device, &semaphore_info, NULL, &b.timeline));

  /* Buffers: input, counts, one output per dispatch kind. */
  uint32_t input_elements = o->elements > o->scratch_elements ? o->elements : o->scratch_elements;
  b.input = create_buffer(&b, (XgpuDeviceSize)input_elements * 4, XGPU_BUFFER_USAGE_STORAGE_BIT);
  uint32_t* input = map(&b, b.input);
  for (uint32_t i = 0; i < input_elements; ++i) input[i] = i * 2654435761u;
  const XgpuBufferUsageFlags counts_usage = XGPU_BUFFER_USAGE_INDIRECT_BIT |
                                            XGPU_BUFFER_USAGE_STORAGE_BIT |
                                            XGPU_BUFFER_USAGE_TRANSFER_DST_BIT;
  b.static_counts = create_buffer(&b, 3 * sizeof(uint32_t), counts_usage);
  b.dynamic_counts = create_buffer(&b, 3 * sizeof(uint32_t), counts_usage);
  uint32_t* static_counts = map(&b, b.static_counts);
  static_counts[0] = workgroups_for(o->elements);
  static_counts[1] = 1;
  static_counts[2] = 1;
  const XgpuDeviceSize output_size = (XgpuDeviceSize)o->dispatches * o->elements * 4;
  uint32_t* outputs[KIND_COUNT];
  for (int k = 0; k < KIND_COUNT; ++k) {
    b.outputs[k] = create_buffer(&b, output_size, XGPU_BUFFER_USAGE_STORAGE_BIT);
    outputs[k] = map(&b, b.outputs[k]);
    memset(outputs[k], 0, output_size);
  }

  /* --- 1. Dispatch kinds --------------------------------------------------- */
  XgpuCommandBuffer single[KIND_COUNT], batch[KIND_COUNT];
  for (int k = 0; k < KIND_COUNT; ++k) {
    single[k] = record_dispatches(&b, k, 1);
    batch[k] = record_dispatches(&b, k, o->dispatches);
  }
  double* samples = calloc((size_t)o->repeats * KIND_COUNT * 2, sizeof(double));
  if (!samples) FAIL("out of host memory");
  double* latency[KIND_COUNT];
  double* throughput[KIND_COUNT];
  for (int k = 0; k < KIND_COUNT; ++k) {
    latency[k] = samples + (size_t)o->repeats * (2 * k);
    throughput[k] = samples + (size_t)o->repeats * (2 * k + 1);
    latency_run(&b, single[k]); /* warm-up */
    throughput_run(&b, batch[k]);
  }
  /* The kinds take turns within each repeat, so drift hits all alike. */
  for (uint32_t r = 0; r < o->repeats; ++r)
    for (int k = 0; k < KIND_COUNT; ++k) {
      latency[k][r] = latency_run(&b, single[k]);
      throughput[k][r] = throughput_run(&b, batch[k]);
    }

  /* Results: every kind wrote the same slices. */
  for (uint32_t slice = 0; slice < o->dispatches; ++slice)
    for (uint32_t i = 0; i < o->elements; ++i) {
      size_t at = (size_t)slice * o->elements + i;
      uint32_t expected = slice_value(input[i], slice);
      for (int k = 0; k < KIND_COUNT; ++k)
        if (outputs[k][at] != expected)
          FAIL("%s: slice %u element %u is %u, expected %u", kind_names[k], slice, i,
               outputs[k][at], expected);
    }

  /* --- 2. Scratch: alloca + dealloca vs a preallocated buffer --------------- */
  scratch_result_t scratch = {0};
  bool have_scratch = measure_scratch(&b, input, &scratch);

  /* --- Report ---------------------------------------------------------------- */
  summary_t lat[KIND_COUNT], thr[KIND_COUNT];
  for (int k = 0; k < KIND_COUNT; ++k) {
    lat[k] = summarize(latency[k], o->repeats);
    thr[k] = summarize(throughput[k], o->repeats);
  }

  if (o->json) {
    report_json(lat, thr, have_scratch ? scratch.per_iteration : NULL, o->repeats);
  } else {
  printf("device: %s (%s)\n", properties.deviceName, properties.isaName);
  printf("median [min, max] of %u runs; ratio and difference against the baseline of the same run\n\n",
         o->repeats);
  printf("dispatch: %u work items (%u workgroups of %u) per dispatch\n", o->elements,
         workgroups_for(o->elements), BENCH_WORKGROUP_SIZE);
  printf("latency, one dispatch per submission, submit -> wait (us per submission, mean of %u)\n",
         o->latency_rounds);
  printf("  %-24s %9s  %-23s %6s  %9s\n", "kind", "median", "[min, max]", "ratio", "diff");
  for (int k = 0; k < KIND_COUNT; ++k) print_row(kind_names[k], lat[k], lat[KIND_DIRECT], 2);
  printf("throughput, %u submissions of %u dispatches, one wait (us per dispatch)\n", o->batches,
         o->dispatches);
  printf("  %-24s %9s  %-23s %6s  %9s\n", "kind", "median", "[min, max]", "ratio", "diff");
  for (int k = 0; k < KIND_COUNT; ++k) print_row(kind_names[k], thr[k], thr[KIND_DIRECT], 3);
  if (have_scratch) {
    const summary_t* it = scratch.per_iteration;
    printf("\nscratch: %u chained iterations of one dispatch over %" PRIu64
           " B of scratch (us per iteration)\n", o->iterations, scratch.scratch_size);
    printf("  %-24s %9s  %-23s %6s  %9s\n", "scratch from", "median", "[min, max]", "ratio", "diff");
    print_row("preallocated buffer", it[0], it[0], 2);
    print_row("alloca + dealloca", it[1], it[0], 2);
    printf("  => alloca + dealloca: %.2f us per iteration\n", it[1].median - it[0].median);
    printf("  pool: peak in use %" PRIu64 " B, reserved %" PRIu64 " B (peak %" PRIu64
           " B), %" PRIu64 " allocations\n",
           scratch.pool.peakInUseSize, scratch.pool.reservedSize, scratch.pool.peakReservedSize,
           scratch.pool.allocationCount);
  }
  printf("\nresults: direct == STATIC == DYNAMIC%s: OK\n",
         have_scratch ? ", alloca == preallocated" : "");
  }

  /* Clean up. */
  free(samples);
  CHECK(xgpuDeviceWaitIdle(b.device));
  for (int k = 0; k < KIND_COUNT; ++k) {
    xgpuDestroyCommandBuffer(b.device, batch[k], NULL);
    xgpuDestroyCommandBuffer(b.device, single[k], NULL);
  }
  for (int k = 0; k < KIND_COUNT; ++k) {
    xgpuUnmapBuffer(b.device, b.outputs[k]);
    xgpuDestroyBuffer(b.device, b.outputs[k], NULL);
  }
  xgpuUnmapBuffer(b.device, b.static_counts);
  xgpuUnmapBuffer(b.device, b.input);
  xgpuDestroyBuffer(b.device, b.dynamic_counts, NULL);
  xgpuDestroyBuffer(b.device, b.static_counts, NULL);
  xgpuDestroyBuffer(b.device, b.input, NULL);
  xgpuDestroySemaphore(b.device, b.timeline, NULL);
  xgpuDestroyPipeline(b.device, b.accumulate, NULL);
  xgpuDestroyPipeline(b.device, b.write_slice, NULL);
  xgpuDestroyExecutable(b.device, executable, NULL);
  xgpuDestroyDevice(b.device, NULL);
  xgpuDestroyInstance(instance, NULL);
  return EXIT_SUCCESS;
}
