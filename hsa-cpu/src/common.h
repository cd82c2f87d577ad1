// hsa-cpu: shared helpers for every translation unit of the runtime.
//
// Threading: everything here is thread-safe (free functions over atomics and
// syscalls); the only state is the log switch (re-read by each runtime
// creation) and the TSC frequency (measured once).
#ifndef HSA_CPU_COMMON_H_
#define HSA_CPU_COMMON_H_

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <ctime>

#include <sched.h>

#include <hsa_core/platform.h>

// Every exported entry point is declared by the HSA headers; defining it with
// this attribute exports it (the library builds with -fvisibility=hidden and a
// version script that assigns ROCR_1).
#define HSA_CPU_EXPORT HSA_CORE_EXPORT

namespace hsa_cpu {

// Bytes in one AQL packet slot (HSA: every packet is 64 bytes).
inline constexpr uint32_t kAqlPacketBytes = 64;
// hsa_ext_amd.h adds status codes in an unnamed enum; typed aliases.
inline constexpr hsa_status_t kStatusInvalidMemoryPool =
    static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);

// An hsa_status_t from its bits. The extensions' status codes (finalizer
// 0x2000.., images 0x3000..) lie outside the range of the C enum, so they are
// carried as uint32_t inside the runtime and converted only where an entry
// point returns them (a load of an out-of-range enum value is undefined
// behaviour, which UBSan reports).
inline hsa_status_t status_from_bits(uint32_t bits) { return static_cast<hsa_status_t>(bits); }

// Frequency of HSA_SYSTEM_INFO_TIMESTAMP: CLOCK_MONOTONIC nanoseconds.
inline constexpr uint64_t kTimestampFrequencyHz = 1000000000ull;

// HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY (uint64_t, Hz): added to
// hsa_amd_agent_info_t after ROCR 5.2, so the installed headers lack it.
inline constexpr uint32_t kAgentInfoTimestampFrequency = 0xA016;

// The agents' timestamp counter: the x86 TSC, which kernels read as the
// device timestamp (__builtin_readcyclecounter).
inline uint64_t read_tsc() { return __builtin_ia32_rdtsc(); }
// TSC ticks per second: CPUID leaf 0x15 when it names the crystal,
// otherwise measured once per process against CLOCK_MONOTONIC_RAW over
// kTscCalibrationNs (the first call, made by the first hsa_init, pays it).
uint64_t tsc_frequency_hz();
inline constexpr uint64_t kTscCalibrationNs = 5000000;
// Converts a TSC reading into the HSA system timestamp domain
// (CLOCK_MONOTONIC ns), anchored at the current time.
uint64_t tsc_to_system_ns(uint64_t tsc);

// The core's platform helpers (hsa-core/include/hsa_core/platform.h).
using hsa_core::cpu_relax;
using hsa_core::enum_bits;
using hsa_core::futex_wait;
using hsa_core::futex_wake;
using hsa_core::now_ns;
using hsa_core::SpinPacer;

// True when HSA_CPU_LOG is set to a non-empty value other than "0" (as
// read by the last read_log_switch(), i.e. the last runtime creation).
bool log_enabled();
void read_log_switch();
// Prints "hsa-cpu: <message>\n" to stderr when HSA_CPU_LOG is set. HSA has no
// per-call error message channel, so the reason behind an error code is
// logged here.
void log(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Reads an unsigned integer environment variable; `fallback` when unset or
// malformed (a malformed value is logged).
uint32_t env_u32(const char* name, uint32_t fallback);

}  // namespace hsa_cpu

#endif  // HSA_CPU_COMMON_H_
