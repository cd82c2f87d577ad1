#include "common.h"

#include <cpuid.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hsa_cpu {

namespace {

uint64_t monotonic_raw_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// A TSC reading and a CLOCK_MONOTONIC_RAW reading taken together: of a few
// attempts, the one whose bracketing TSC reads are closest (an interrupt
// between the reads would skew the pair).
struct ClockPair {
  uint64_t tsc;  // TSC ticks
  uint64_t ns;   // CLOCK_MONOTONIC_RAW ns
};
ClockPair clock_pair() {
  constexpr int kAttempts = 7;
  ClockPair best{0, 0};
  uint64_t best_span = UINT64_MAX;
  for (int i = 0; i < kAttempts; ++i) {
    const uint64_t before = read_tsc();
    const uint64_t ns = monotonic_raw_ns();
    const uint64_t after = read_tsc();
    if (after - before < best_span) {
      best_span = after - before;
      best = ClockPair{before + (after - before) / 2, ns};
    }
  }
  return best;
}

// CPUID leaf 0x15: TSC = crystal Hz * EBX / EAX; 0 when not enumerated.
uint64_t cpuid_tsc_frequency_hz() {
  constexpr unsigned kTscLeaf = 0x15;
  if (__get_cpuid_max(0, nullptr) < kTscLeaf) return 0;
  unsigned denominator = 0, numerator = 0, crystal_hz = 0, unused = 0;
  __cpuid(kTscLeaf, denominator, numerator, crystal_hz, unused);
  if (denominator == 0 || numerator == 0 || crystal_hz == 0) return 0;
  return uint64_t(crystal_hz) * numerator / denominator;
}

uint64_t calibrate_tsc_frequency_hz() {
  if (const uint64_t hz = cpuid_tsc_frequency_hz()) {
    log("TSC frequency %llu Hz (CPUID leaf 0x15)", static_cast<unsigned long long>(hz));
    return hz;
  }
  const ClockPair start = clock_pair();
  timespec pause{0, long(kTscCalibrationNs)};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
  const ClockPair end = clock_pair();
  const uint64_t hz = uint64_t((unsigned __int128)(end.tsc - start.tsc) * 1000000000u /
                               (end.ns - start.ns));
  log("TSC frequency %llu Hz (measured over %llu ns)", static_cast<unsigned long long>(hz),
      static_cast<unsigned long long>(end.ns - start.ns));
  return hz;
}

}  // namespace

uint64_t tsc_frequency_hz() {
  static const uint64_t hz = calibrate_tsc_frequency_hz();
  return hz;
}

uint64_t tsc_to_system_ns(uint64_t tsc) {
  const uint64_t now_tsc = read_tsc();
  const uint64_t now = now_ns();
  const uint64_t hz = tsc_frequency_hz();
  if (tsc <= now_tsc)
    return now - uint64_t((unsigned __int128)(now_tsc - tsc) * 1000000000u / hz);
  return now + uint64_t((unsigned __int128)(tsc - now_tsc) * 1000000000u / hz);
}

namespace {

// -1 until first read; then 0 or 1.
std::atomic<int> g_log_switch{-1};

bool log_requested() {
  const char* v = getenv("HSA_CPU_LOG");
  return v != nullptr && v[0] != '\0' && strcmp(v, "0") != 0;
}

}  // namespace

void read_log_switch() { g_log_switch.store(log_requested() ? 1 : 0, std::memory_order_relaxed); }

bool log_enabled() {
  int state = g_log_switch.load(std::memory_order_relaxed);
  if (state < 0) {
    state = log_requested() ? 1 : 0;
    g_log_switch.store(state, std::memory_order_relaxed);
  }
  return state != 0;
}

void log(const char* format, ...) {
  if (!log_enabled()) return;
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  fprintf(stderr, "hsa-cpu: %s\n", buffer);
}

uint32_t env_u32(const char* name, uint32_t fallback) {
  const char* v = getenv(name);
  if (v == nullptr || v[0] == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  unsigned long parsed = strtoul(v, &end, 10);
  if (errno != 0 || *end != '\0' || parsed == 0 || parsed > 4096) {
    log("ignoring %s=%s: expected an integer in [1, 4096]", name, v);
    return fallback;
  }
  return uint32_t(parsed);
}

}  // namespace hsa_cpu
