/*
 * semaphore_bench: host <-> host timeline-semaphore round trip. Two threads
 * ping-pong on two semaphores: the main thread signals `ping` = k and waits
 * for `pong` >= k; the partner waits for `ping` >= k and signals `pong` = k.
 * One sample is one round trip (signal, the partner's wake and signal, our
 * wake), in microseconds; median, min, max and p99 over `rounds` samples.
 *
 * Sides, the same loop on each:
 *   xgpu     xgpuSignalSemaphore / xgpuWaitSemaphores through the loader
 *   Vulkan   vkSignalSemaphore / vkWaitSemaphores, timeline semaphores on lavapipe
 *   futex    two 32-bit words, FUTEX_WAKE / FUTEX_WAIT (the kernel's sleeping wait)
 *   spin     two atomic words, busy-polled (the lower bound of a cross-thread hand-off)
 *
 * Results: each side's two payloads must end at the number of round trips
 * made, and every wait must have returned with its value reached.
 *
 *   semaphore_bench [--smoke] [--json]
 */
#define _GNU_SOURCE 1 /* clock_gettime, syscall */

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_common.h"
#include "bench_xgpu.h"
#if defined(BENCH_HAVE_VULKAN)
#include "bench_vulkan.h"
#endif

static const char* const BENCH = "semaphore";
static const char* const FIGURE = "host<->host timeline semaphore round trip";

/* One side: two payloads the threads signal and wait on. */
typedef struct side {
  const char* name;
  void* state;
  void (*signal)(void* state, int which, uint64_t value);  /* which: 0 = ping, 1 = pong */
  void (*wait)(void* state, int which, uint64_t value);    /* returns once payload `which` >= value */
  uint64_t (*value)(void* state, int which);               /* the payload now */
} side_t;

typedef struct partner_args {
  const side_t* side;
  uint64_t first, last;  /* round trips first..last */
} partner_args_t;

static void* partner(void* p) {
  const partner_args_t* a = p;
  for (uint64_t k = a->first; k <= a->last; ++k) {
    a->side->wait(a->side->state, 0, k);
    a->side->signal(a->side->state, 1, k);
  }
  return NULL;
}

/* Runs `count` round trips from payload `first`; writes one sample per round trip (us) when samples != NULL. */
static void ping_pong(const side_t* side, uint64_t first, uint32_t count, double* samples) {
  partner_args_t args = {side, first, first + count - 1};
  pthread_t thread;
  if (pthread_create(&thread, NULL, partner, &args) != 0) exit(EXIT_FAILURE);
  for (uint64_t k = first; k < first + count; ++k) {
    const uint64_t start = bench_now_ns();
    side->signal(side->state, 0, k);
    side->wait(side->state, 1, k);
    if (samples) samples[k - first] = (double)(bench_now_ns() - start) / 1e3;
  }
  pthread_join(thread, NULL);
}

/* ---- xgpu ---- */
typedef struct xgpu_side {
  bench_xgpu_t x;
  XgpuSemaphore semaphores[2];
} xgpu_side_t;

static void x_signal(void* p, int which, uint64_t value) {
  xgpu_side_t* s = p;
  const XgpuSemaphoreSignalInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = s->semaphores[which], .value = value};
  BENCH_XCHECK(xgpuSignalSemaphore(s->x.device, &info));
}
static void x_wait(void* p, int which, uint64_t value) {
  xgpu_side_t* s = p;
  bench_xgpu_wait(&s->x, s->semaphores[which], value);
}
static uint64_t x_value(void* p, int which) {
  xgpu_side_t* s = p;
  uint64_t v = 0;
  BENCH_XCHECK(xgpuGetSemaphoreValue(s->x.device, s->semaphores[which], &v));
  return v;
}

/* ---- Vulkan ---- */
#if defined(BENCH_HAVE_VULKAN)
typedef struct vk_side {
  bench_vk_t v;
  VkSemaphore semaphores[2];
} vk_side_t;

static void v_signal(void* p, int which, uint64_t value) {
  vk_side_t* s = p;
  bench_vk_signal(&s->v, s->semaphores[which], value);
}
static void v_wait(void* p, int which, uint64_t value) {
  vk_side_t* s = p;
  bench_vk_wait(&s->v, s->semaphores[which], value);
}
static uint64_t v_value(void* p, int which) {
  vk_side_t* s = p;
  uint64_t v = 0;
  BENCH_VCHECK(vkGetSemaphoreCounterValue(s->v.device, s->semaphores[which], &v));
  return v;
}
#endif

/* ---- futex: the payload is a 32-bit word (round trips stay below 2^32) ---- */
typedef struct word_side {
  _Atomic uint32_t words[2];
} word_side_t;

static void f_signal(void* p, int which, uint64_t value) {
  word_side_t* s = p;
  atomic_store_explicit(&s->words[which], (uint32_t)value, memory_order_release);
  syscall(SYS_futex, &s->words[which], FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
static void f_wait(void* p, int which, uint64_t value) {
  word_side_t* s = p;
  for (;;) {
    const uint32_t now = atomic_load_explicit(&s->words[which], memory_order_acquire);
    if (now >= value) return;
    syscall(SYS_futex, &s->words[which], FUTEX_WAIT_PRIVATE, now, NULL, NULL, 0);
  }
}
static uint64_t w_value(void* p, int which) {
  word_side_t* s = p;
  return atomic_load_explicit(&s->words[which], memory_order_acquire);
}

/* ---- spin ---- */
static void s_signal(void* p, int which, uint64_t value) {
  word_side_t* s = p;
  atomic_store_explicit(&s->words[which], (uint32_t)value, memory_order_release);
}
static void s_wait(void* p, int which, uint64_t value) {
  word_side_t* s = p;
  while (atomic_load_explicit(&s->words[which], memory_order_acquire) < value) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

int main(int argc, char** argv) {
  const bench_options_t o = bench_parse_options(argc, argv, NULL);
  const uint32_t warmup = o.smoke ? 2 : 200;
  const uint32_t rounds = o.smoke ? 10 : 5000;

  side_t sides[4];
  int side_count = 0;
  xgpu_side_t xs;
  if (!bench_xgpu_create(&xs.x, 1)) return EXIT_FAILURE;
  xs.semaphores[0] = bench_xgpu_semaphore(&xs.x);
  xs.semaphores[1] = bench_xgpu_semaphore(&xs.x);
  sides[side_count++] = (side_t){"xgpu", &xs, x_signal, x_wait, x_value};
#if defined(BENCH_HAVE_VULKAN)
  vk_side_t vs;
  char vk_name[300];
  const bool have_vk = bench_vk_create(&vs.v, 1);
  if (have_vk) {
    vs.semaphores[0] = bench_vk_timeline(&vs.v);
    vs.semaphores[1] = bench_vk_timeline(&vs.v);
    snprintf(vk_name, sizeof vk_name, "Vulkan (%.250s)", vs.v.device_name);
    sides[side_count++] = (side_t){vk_name, &vs, v_signal, v_wait, v_value};
  } else {
    bench_note(&o, BENCH, "Vulkan peer: no CPU Vulkan 1.2 device (mesa-vulkan-drivers)");
  }
#else
  bench_note(&o, BENCH, "Vulkan peer: not built (libvulkan-dev, glslang-tools)");
#endif
  word_side_t futex_words = {0}, spin_words = {0};
  sides[side_count++] = (side_t){"futex", &futex_words, f_signal, f_wait, w_value};
  sides[side_count++] = (side_t){"spin", &spin_words, s_signal, s_wait, w_value};

  if (!o.json) printf("semaphore_bench: %u round trips per side (after %u warm-up), us\n", rounds, warmup);
  double* samples = calloc(rounds, sizeof *samples);
  if (!samples) return EXIT_FAILURE;
  bool ok = true;
  for (int i = 0; i < side_count; ++i) {
    ping_pong(&sides[i], 1, warmup, NULL);
    ping_pong(&sides[i], 1 + warmup, rounds, samples);
    const bench_summary_t s = bench_summarize(samples, rounds);
    bench_report(&o, BENCH, FIGURE, "us", false, true, sides[i].name, &s);
    const uint64_t expected = (uint64_t)warmup + rounds;
    for (int which = 0; which < 2; ++which) {
      const uint64_t v = sides[i].value(sides[i].state, which);
      if (v != expected) {
        fprintf(stderr, "error: %s: payload %d is %llu, expected %llu\n", sides[i].name, which,
                (unsigned long long)v, (unsigned long long)expected);
        ok = false;
      }
    }
  }
  bench_check(&o, BENCH, "every side's payloads equal the round trips made", ok);
  free(samples);

#if defined(BENCH_HAVE_VULKAN)
  if (have_vk) {
    vkDestroySemaphore(vs.v.device, vs.semaphores[0], NULL);
    vkDestroySemaphore(vs.v.device, vs.semaphores[1], NULL);
    bench_vk_destroy(&vs.v);
  }
#endif
  xgpuDestroySemaphore(xs.x.device, xs.semaphores[0], NULL);
  xgpuDestroySemaphore(xs.x.device, xs.semaphores[1], NULL);
  bench_xgpu_destroy(&xs.x);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
