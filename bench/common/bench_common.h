/* What every benchmark of bench/ shares: a monotonic clock, the summary of a
 * sample set (median, min, max, p99), the figure lines (a human table row, or
 * with --json one JSON object per line, as bench/run.py reads them), and the
 * command-line switches every benchmark takes (--smoke, --json).
 *
 * Header-only C11. Thread-compatible: the output functions are called by the
 * benchmark's main thread. */
#ifndef XGPU_BENCH_COMMON_H_
#define XGPU_BENCH_COMMON_H_

#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* clock_gettime, syscall */
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Monotonic nanoseconds. */
static inline uint64_t bench_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The summary of one sample set, in the figure's unit. */
typedef struct bench_summary {
  double median;      /* middle sample (mean of the two middle ones for an even count) */
  double min, max;    /* extremes */
  double p99;         /* the sample at rank floor(0.99 n) */
  uint32_t samples;   /* sample count */
} bench_summary_t;

static inline int bench_compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Sorts `samples` in place and summarises them. */
static inline bench_summary_t bench_summarize(double* samples, uint32_t n) {
  bench_summary_t s = {0, 0, 0, 0, n};
  if (n == 0) return s;
  qsort(samples, n, sizeof *samples, bench_compare_doubles);
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.min = samples[0];
  s.max = samples[n - 1];
  const uint32_t p = (uint32_t)((double)n * 0.99);
  s.p99 = samples[p < n ? p : n - 1];
  return s;
}

/* Options every benchmark takes. */
typedef struct bench_options {
  bool smoke;  /* tiny sizes, every path once: checks results, not speed (the ctest entry) */
  bool json;   /* one JSON object per figure line on stdout (bench/run.py), instead of a table */
} bench_options_t;

/* Parses --smoke and --json; anything else is a usage error (exit 2). */
static inline bench_options_t bench_parse_options(int argc, char** argv, const char* usage) {
  bench_options_t o = {false, false};
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--smoke")) {
      o.smoke = true;
    } else if (!strcmp(argv[i], "--json")) {
      o.json = true;
    } else {
      fprintf(stderr, "usage: %s [--smoke] [--json]%s%s\n", argv[0], usage ? "  " : "", usage ? usage : "");
      exit(2);
    }
  }
  return o;
}

/* Writes `text` as a JSON string (quotes included). */
static inline void bench_json_string(const char* text) {
  putchar('"');
  for (const char* c = text; *c; ++c) {
    if (*c == '"' || *c == '\\') printf("\\%c", *c);
    else if ((unsigned char)*c < 0x20) printf("\\u%04x", (unsigned)(unsigned char)*c);
    else putchar(*c);
  }
  putchar('"');
}

/* One figure of one side. `side` is "xgpu" for ours, anything else names a
 * peer; `higher_is_better` for rates (GB/s), false for times. `latency`:
 * the p99 is meaningful (one sample per operation) and is printed. */
static inline void bench_report(const bench_options_t* o, const char* bench, const char* figure, const char* unit,
                                bool higher_is_better, bool latency, const char* side, const bench_summary_t* s) {
  if (o->json) {
    printf("{\"bench\":");
    bench_json_string(bench);
    printf(",\"figure\":");
    bench_json_string(figure);
    printf(",\"unit\":");
    bench_json_string(unit);
    printf(",\"better\":\"%s\",\"side\":", higher_is_better ? "higher" : "lower");
    bench_json_string(side);
    printf(",\"median\":%.6g,\"min\":%.6g,\"max\":%.6g", s->median, s->min, s->max);
    if (latency) printf(",\"p99\":%.6g", s->p99);
    printf(",\"samples\":%u}\n", s->samples);
  } else {
    printf("  %-44s %-34s %10.3f %-10s (%.3f .. %.3f", figure, side, s->median, unit, s->min, s->max);
    if (latency) printf(", p99 %.3f", s->p99);
    printf(", n=%u)\n", s->samples);
  }
  fflush(stdout);
}

/* The outcome of comparing the sides' results: `ok` false fails the run. */
static inline void bench_check(const bench_options_t* o, const char* bench, const char* what, bool ok) {
  if (o->json) {
    printf("{\"bench\":");
    bench_json_string(bench);
    printf(",\"check\":");
    bench_json_string(what);
    printf(",\"ok\":%s}\n", ok ? "true" : "false");
  } else {
    printf("  check: %s: %s\n", what, ok ? "ok" : "FAILED");
  }
  fflush(stdout);
}

/* A remark on the run (a peer missing and why, a limit of the measurement). */
static inline void bench_note(const bench_options_t* o, const char* bench, const char* text) {
  if (o->json) {
    printf("{\"bench\":");
    bench_json_string(bench);
    printf(",\"note\":");
    bench_json_string(text);
    printf("}\n");
  } else {
    printf("  note: %s\n", text);
  }
  fflush(stdout);
}

#endif
