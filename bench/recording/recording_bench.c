/*
 * recording_bench: what recording, replaying and submitting cost on xgpu,
 * beside the same work on Vulkan (Mesa's lavapipe, the CPU Vulkan driver) in
 * the same run. The work is what Vulkan overhead benchmarks measure: one
 * pipeline, one storage buffer, and per command 16 bytes of push constants +
 * dispatch(1,1,1) (+ a global memory barrier). Figures:
 *
 *   record push+dispatch+barrier   begin .. end of `dispatches` commands, ns per dispatch
 *   record push+dispatch           the same without barriers, ns per dispatch
 *   begin + 1 dispatch + end       one small recording, us
 *   replay                         submit a `dispatches`-dispatch buffer and wait, ns per dispatch
 *   one dispatch submit -> wait    us (median and p99 over `rounds`)
 *   empty submit + wait            a submission with no work signalling a timeline semaphore, us
 *
 * Each figure is the median of its samples with min and max (and p99 where a
 * latency is measured). Every dispatch adds a constant to one of 64 counters;
 * after the run both sides' counters must equal the host's expectation.
 *
 *   recording_bench [--smoke] [--json] [--repeats R] [--dispatches N] [--rounds K]
 *
 * --smoke: tiny sizes, every path once (the ctest entry). --json: after the
 * table, one JSON object per figure and side (the lines bench/run.py reads).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recording_bench.h"

uint64_t bench_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

#if !defined(RECORDING_BENCH_HAVE_VULKAN)
bool vulkan_side_create(bench_side_t* out_side) {
  (void)out_side;
  fprintf(stderr, "vulkan: this build has no Vulkan peer (needs libvulkan-dev and glslang-tools; ./build.sh bench)\n");
  return false;
}
#endif

typedef struct options {
  uint32_t repeats;     /* samples of each per-recording / per-replay figure */
  uint32_t dispatches;  /* dispatches per recording and per replay buffer */
  uint32_t rounds;      /* samples of each latency figure */
} options_t;

typedef struct summary {
  double median, min, max, p99;
} summary_t;

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static summary_t summarize(double* samples, uint32_t n) {
  qsort(samples, n, sizeof *samples, compare_doubles);
  summary_t s;
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.min = samples[0];
  s.max = samples[n - 1];
  uint32_t p = (uint32_t)((double)n * 0.99);
  s.p99 = samples[p < n ? p : n - 1];
  return s;
}

enum { FIGURE_RECORD_BARRIER, FIGURE_RECORD, FIGURE_RECORD_ONE, FIGURE_REPLAY, FIGURE_SUBMIT_ONE, FIGURE_EMPTY,
       FIGURE_COUNT };
static const char* const figure_names[FIGURE_COUNT] = {
    "record push+dispatch+barrier", "record push+dispatch", "begin + 1 dispatch + end",
    "replay (submit + wait)", "one dispatch submit -> wait", "empty submit + wait"};
static const char* const figure_units[FIGURE_COUNT] = {"ns/dispatch", "ns/dispatch", "us", "ns/dispatch", "us", "us"};
static const bool figure_latency[FIGURE_COUNT] = {false, false, false, false, true, true};

typedef struct run {
  summary_t figures[FIGURE_COUNT];
  uint32_t replays;      /* replay submissions made (each adds the replay pattern) */
  uint32_t one_submits;  /* one-dispatch submissions made (each adds dispatch 0's constants) */
  uint32_t counters[RECORDING_COUNTER_COUNT];
} run_t;

/* Measures every figure on one side. */
static void measure(const bench_side_t* side, const options_t* o, run_t* out) {
  const uint32_t samples_max = o->rounds > o->repeats ? o->rounds : o->repeats;
  double* samples = calloc(samples_max, sizeof *samples);
  if (!samples) exit(EXIT_FAILURE);
  void* st = side->state;
  memset(out, 0, sizeof *out);

  side->record(st, o->dispatches, true);  /* warm-up: the recorder's first blocks */
  for (uint32_t r = 0; r < o->repeats; ++r) samples[r] = (double)side->record(st, o->dispatches, true) / o->dispatches;
  out->figures[FIGURE_RECORD_BARRIER] = summarize(samples, o->repeats);
  for (uint32_t r = 0; r < o->repeats; ++r) samples[r] = (double)side->record(st, o->dispatches, false) / o->dispatches;
  out->figures[FIGURE_RECORD] = summarize(samples, o->repeats);
  for (uint32_t r = 0; r < o->rounds; ++r) samples[r] = (double)side->record_one(st) / 1e3;
  out->figures[FIGURE_RECORD_ONE] = summarize(samples, o->rounds);

  side->prepare_replay(st, o->dispatches);
  side->reset_counters(st);
  side->replay(st);  /* warm-up */
  for (uint32_t r = 0; r < o->repeats; ++r) samples[r] = (double)side->replay(st) / o->dispatches;
  out->replays = 1 + o->repeats;
  out->figures[FIGURE_REPLAY] = summarize(samples, o->repeats);
  side->submit_one(st);
  for (uint32_t r = 0; r < o->rounds; ++r) samples[r] = (double)side->submit_one(st) / 1e3;
  out->one_submits = 1 + o->rounds;
  out->figures[FIGURE_SUBMIT_ONE] = summarize(samples, o->rounds);
  side->empty_submit(st);
  for (uint32_t r = 0; r < o->rounds; ++r) samples[r] = (double)side->empty_submit(st) / 1e3;
  out->figures[FIGURE_EMPTY] = summarize(samples, o->rounds);
  side->read_counters(st, out->counters);
  free(samples);
}

/* What the counters must hold after `run`'s submissions. */
static void expected_counters(const options_t* o, const run_t* run, uint32_t out[RECORDING_COUNTER_COUNT]) {
  memset(out, 0, RECORDING_COUNTER_COUNT * sizeof *out);
  for (uint32_t i = 0; i < o->dispatches; ++i) {
    const recording_constants_t c = bench_constants(i);
    out[c.index] += c.value * run->replays;
  }
  const recording_constants_t first = bench_constants(0);
  out[first.index] += first.value * run->one_submits;
}

static bool check_counters(const char* name, const options_t* o, const run_t* run) {
  uint32_t expected[RECORDING_COUNTER_COUNT];
  expected_counters(o, run, expected);
  for (uint32_t i = 0; i < RECORDING_COUNTER_COUNT; ++i) {
    if (run->counters[i] != expected[i]) {
      fprintf(stderr, "error: %s: counter %u is %u, expected %u\n", name, i, run->counters[i], expected[i]);
      return false;
    }
  }
  return true;
}

static void print_summary(const summary_t* s, bool latency) {
  if (latency)
    printf(" %10.2f (%.2f-%.2f, p99 %.2f)", s->median, s->min, s->max, s->p99);
  else
    printf(" %10.2f (%.2f-%.2f)", s->median, s->min, s->max);
}

static uint32_t parse_u32(const char* flag, const char* value) {
  char* end = NULL;
  unsigned long v = value ? strtoul(value, &end, 10) : 0;
  if (!value || *end || v == 0 || v > 10000000ul) {
    fprintf(stderr, "error: %s needs a count from 1 to 10000000, got '%s'\n", flag, value ? value : "");
    exit(2);
  }
  return (uint32_t)v;
}

int main(int argc, char** argv) {
  options_t o = {.repeats = 9, .dispatches = 1000, .rounds = 200};
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      json = true;
    } else if (!strcmp(argv[i], "--smoke")) {
      o = (options_t){.repeats = 1, .dispatches = 16, .rounds = 3};
    } else if (!strcmp(argv[i], "--repeats")) {
      o.repeats = parse_u32(argv[i], argv[i + 1]), ++i;
    } else if (!strcmp(argv[i], "--dispatches")) {
      o.dispatches = parse_u32(argv[i], argv[i + 1]), ++i;
    } else if (!strcmp(argv[i], "--rounds")) {
      o.rounds = parse_u32(argv[i], argv[i + 1]), ++i;
    } else {
      fprintf(stderr, "usage: %s [--smoke] [--json] [--repeats R] [--dispatches N] [--rounds K]\n", argv[0]);
      return 2;
    }
  }

  bench_side_t sides[2];
  run_t runs[2];
  int side_count = 0;
  if (!xgpu_side_create(&sides[side_count])) return EXIT_FAILURE;
  ++side_count;
  if (vulkan_side_create(&sides[side_count])) ++side_count;

  bool ok = true;
  for (int s = 0; s < side_count; ++s) {
    measure(&sides[s], &o, &runs[s]);
    ok = check_counters(sides[s].name, &o, &runs[s]) && ok;
  }
  if (side_count == 2 && memcmp(runs[0].counters, runs[1].counters, sizeof runs[0].counters) != 0) {
    fprintf(stderr, "error: the two sides' counters differ\n");
    ok = false;
  }

  printf("recording_bench: %u dispatches per recording/replay, %u repeats, %u latency rounds; median (min-max)\n",
         o.dispatches, o.repeats, o.rounds);
  printf("  %-30s %-12s", "figure", "unit");
  for (int s = 0; s < side_count; ++s) printf(" | %s", sides[s].name);
  if (side_count == 2) printf(" | xgpu / peer");
  printf("\n");
  for (int f = 0; f < FIGURE_COUNT; ++f) {
    printf("  %-30s %-12s", figure_names[f], figure_units[f]);
    for (int s = 0; s < side_count; ++s) {
      printf(" |");
      print_summary(&runs[s].figures[f], figure_latency[f]);
    }
    if (side_count == 2) printf(" | %.3gx", runs[0].figures[f].median / runs[1].figures[f].median);
    printf("\n");
  }
  printf("  results: %s\n", ok ? (side_count == 2 ? "both sides' counters equal and right" : "counters right (no peer)")
                              : "WRONG");
  for (int f = 0; json && f < FIGURE_COUNT; ++f)
    for (int s = 0; s < side_count; ++s) {
      const summary_t* m = &runs[s].figures[f];
      printf("{\"bench\":\"recording\",\"figure\":\"%s\",\"unit\":\"%s\",\"better\":\"lower\",\"side\":\"%s\","
             "\"median\":%.6g,\"min\":%.6g,\"max\":%.6g", figure_names[f], figure_units[f], sides[s].name, m->median,
             m->min, m->max);
      if (figure_latency[f]) printf(",\"p99\":%.6g", m->p99);
      printf("}\n");
    }
  if (json) printf("{\"bench\":\"recording\",\"check\":\"counters equal the host's expectation on every side\",\"ok\":%s}\n",
                   ok ? "true" : "false");
  for (int s = 0; s < side_count; ++s) sides[s].destroy(sides[s].state);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
