#include "common.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hsa_cpu {

void futex_wait(std::atomic<uint32_t>* word, uint32_t expected,
                uint64_t timeout_ns) {
  timespec ts;
  timespec* tsp = nullptr;
  if (timeout_ns != UINT64_MAX) {
    ts.tv_sec = time_t(timeout_ns / 1000000000ull);
    ts.tv_nsec = long(timeout_ns % 1000000000ull);
    tsp = &ts;
  }
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE,
          expected, tsp, nullptr, 0);
}

void futex_wake(std::atomic<uint32_t>* word, int count) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE,
          count, nullptr, nullptr, 0);
}

bool log_enabled() {
  static const bool enabled = [] {
    const char* v = getenv("HSA_CPU_LOG");
    return v != nullptr && v[0] != '\0' && strcmp(v, "0") != 0;
  }();
  return enabled;
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
