// hsa-cpu benchmark. One run reports, as the median of several repeats with
// min and max:
//   - empty-kernel dispatches per second through one queue and two queues
//     (one workgroup: runs on the packet processor; 64 workgroups: the
//     worker pool), beside the peer "direct call" (the kernel function
//     called in a loop, no runtime: the upper bound),
//   - host-to-host signal wake latency: ping-pong (met while the waiter
//     still polls) and wake from sleep (stored 1 ms after the wait began),
//     each beside a raw futex peer measured the same way,
//   - dispatch latency: doorbell rung -> completion signal observed,
//   - CPU time used by idle queues.
// ROCR is this runtime's real peer; it needs an AMD GPU, so its line says
// whether it could be initialised here.
//
// Usage: hsa_cpu_bench [--smoke]   (--smoke: tiny counts, for ctest)
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <xgpu/host_kernel.h>

namespace {

using Clock = std::chrono::steady_clock;

bool g_smoke = false;

#define CHECK_HSA(call)                                                     \
  do {                                                                      \
    hsa_status_t status_ = (call);                                          \
    if (status_ != HSA_STATUS_SUCCESS) {                                    \
      const char* text_ = "?";                                              \
      hsa_status_string(status_, &text_);                                   \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, text_); \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

struct Stats {
  double median, min, max;
};

Stats stats(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return Stats{samples[samples.size() / 2], samples.front(), samples.back()};
}

void print(const char* what, const Stats& s, const char* unit) {
  printf("  %-52s %12.3f %-10s (min %.3f, max %.3f)\n", what, s.median, unit, s.min, s.max);
}

double process_cpu_seconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

struct Bench {
  hsa_agent_t agent{};
  hsa_amd_memory_pool_t kernarg_pool{};
  hsa_executable_t executable{};
  hsa_code_object_reader_t reader{};
  uint64_t empty_kernel = 0;
  void* kernarg = nullptr;
  std::vector<char> code;

  void init() {
    CHECK_HSA(hsa_init());
    CHECK_HSA(hsa_iterate_agents(
        [](hsa_agent_t a, void* data) {
          *static_cast<hsa_agent_t*>(data) = a;
          return HSA_STATUS_INFO_BREAK;
        },
        &agent) == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR);
    hsa_amd_agent_iterate_memory_pools(
        agent,
        [](hsa_amd_memory_pool_t pool, void* data) {
          uint32_t flags = 0;
          if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) ==
                  HSA_STATUS_SUCCESS &&
              (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT))
            *static_cast<hsa_amd_memory_pool_t*>(data) = pool;
          return HSA_STATUS_SUCCESS;
        },
        &kernarg_pool);
    std::ifstream f(HSA_CPU_BENCH_KERNELS, std::ios::binary);
    code.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    CHECK_HSA(hsa_code_object_reader_create_from_memory(code.data(), code.size(), &reader));
    CHECK_HSA(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                        &executable));
    CHECK_HSA(hsa_executable_load_agent_code_object(executable, agent, reader, nullptr, nullptr));
    CHECK_HSA(hsa_executable_freeze(executable, nullptr));
    hsa_executable_symbol_t symbol;
    CHECK_HSA(hsa_executable_get_symbol_by_name(executable, "empty", &agent, &symbol));
    CHECK_HSA(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &empty_kernel));
    CHECK_HSA(hsa_amd_memory_pool_allocate(kernarg_pool, 64, 0, &kernarg));
  }

  void shut_down() {
    hsa_amd_memory_pool_free(kernarg);
    hsa_executable_destroy(executable);
    hsa_code_object_reader_destroy(reader);
    CHECK_HSA(hsa_shut_down());
  }

  hsa_queue_t* make_queue(uint32_t size) {
    hsa_queue_t* q = nullptr;
    CHECK_HSA(hsa_queue_create(agent, size, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q));
    return q;
  }

  // Writes one empty-kernel dispatch of `groups` workgroups and rings.
  void dispatch(hsa_queue_t* q, uint32_t groups, hsa_signal_t completion) {
    const uint64_t index = hsa_queue_add_write_index_relaxed(q, 1);
    while (index - hsa_queue_load_read_index_scacquire(q) >= q->size) __builtin_ia32_pause();
    auto* p = reinterpret_cast<hsa_kernel_dispatch_packet_t*>(q->base_address) + (index & (q->size - 1));
    p->workgroup_size_x = 1;
    p->workgroup_size_y = 1;
    p->workgroup_size_z = 1;
    p->reserved0 = 0;
    p->grid_size_x = groups;
    p->grid_size_y = 1;
    p->grid_size_z = 1;
    p->private_segment_size = 0;
    p->group_segment_size = 0;
    p->kernel_object = empty_kernel;
    p->kernarg_address = kernarg;
    p->reserved2 = 0;
    p->completion_signal = completion;
    const uint16_t header = uint16_t((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                                     (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                                     (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
    const uint32_t word = header | (1u << (16 + HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS));
    __atomic_store_n(reinterpret_cast<uint32_t*>(p), word, __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, hsa_signal_value_t(index));
  }
};

void wait_zero(hsa_signal_t s) {
  while (hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0) {
  }
}

// Dispatches/s with `queues` producer threads, each with its own queue.
double dispatch_rate(Bench& b, int queues, uint32_t groups, int per_queue) {
  std::vector<hsa_queue_t*> qs;
  for (int i = 0; i < queues; ++i) qs.push_back(b.make_queue(4096));
  hsa_signal_t done;
  CHECK_HSA(hsa_signal_create(int64_t(queues) * per_queue, 0, nullptr, &done));
  const auto start = Clock::now();
  std::vector<std::thread> producers;
  for (int i = 0; i < queues; ++i)
    producers.emplace_back([&, i] {
      for (int k = 0; k < per_queue; ++k) b.dispatch(qs[size_t(i)], groups, done);
    });
  for (auto& t : producers) t.join();
  wait_zero(done);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  hsa_signal_destroy(done);
  for (hsa_queue_t* q : qs) hsa_queue_destroy(q);
  return double(queues) * per_queue / seconds;
}

// Peer: the kernel's entry called in a loop (no queue, no signal).
double direct_call_rate(const Bench& b, int calls) {
  const auto* kd = reinterpret_cast<const xgpu_host_kernel_descriptor_t*>(b.empty_kernel);
  xgpu_host_workgroup_t wg{};
  const auto start = Clock::now();
  for (int i = 0; i < calls; ++i) kd->run_workgroup(b.kernarg, &wg);
  return calls / std::chrono::duration<double>(Clock::now() - start).count();
}

// Microseconds for one one-way wake through HSA signals (ping-pong / 2).
double signal_latency_us(int round_trips, hsa_wait_state_t hint) {
  hsa_signal_t ping, pong;
  CHECK_HSA(hsa_signal_create(0, 0, nullptr, &ping));
  CHECK_HSA(hsa_signal_create(0, 0, nullptr, &pong));
  std::thread partner([&] {
    for (int i = 1; i <= round_trips; ++i) {
      while (hsa_signal_wait_scacquire(ping, HSA_SIGNAL_CONDITION_GTE, i, UINT64_MAX, hint) < i) {
      }
      hsa_signal_store_screlease(pong, i);
    }
  });
  const auto start = Clock::now();
  for (int i = 1; i <= round_trips; ++i) {
    hsa_signal_store_screlease(ping, i);
    while (hsa_signal_wait_scacquire(pong, HSA_SIGNAL_CONDITION_GTE, i, UINT64_MAX, hint) < i) {
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  partner.join();
  hsa_signal_destroy(ping);
  hsa_signal_destroy(pong);
  return seconds * 1e6 / (2.0 * round_trips);
}

// Peer: the same ping-pong on two raw futex words (the kernel's floor).
double futex_latency_us(int round_trips) {
  std::atomic<uint32_t> ping{0}, pong{0};
  auto wait = [](std::atomic<uint32_t>& word, uint32_t target) {
    for (;;) {
      const uint32_t v = word.load(std::memory_order_acquire);
      if (v >= target) return;
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, v, nullptr, nullptr, 0);
    }
  };
  auto wake = [](std::atomic<uint32_t>& word, uint32_t value) {
    word.store(value, std::memory_order_release);
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  };
  std::thread partner([&] {
    for (uint32_t i = 1; i <= uint32_t(round_trips); ++i) {
      wait(ping, i);
      wake(pong, i);
    }
  });
  const auto start = Clock::now();
  for (uint32_t i = 1; i <= uint32_t(round_trips); ++i) {
    wake(ping, i);
    wait(pong, i);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  partner.join();
  return seconds * 1e6 / (2.0 * round_trips);
}

// Wake from sleep: a waiter blocks on a value (HSA signal or raw futex
// word); `sleep_us` later, well past any polling window, the other thread
// stores it. Microseconds from just before the store to the waiter's return;
// the median of `samples`.
// With `pinned`, the storing thread runs on the first CPU of the process's
// affinity mask and the waiter on the second (a wake across cores; without
// it the scheduler may run both on one core, which is cheaper).
void pin_to_cpu(int nth) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed) || seen++ != nth) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
    return;
  }
}

int allowed_cpus() {
  cpu_set_t allowed;
  return sched_getaffinity(0, sizeof(allowed), &allowed) == 0 ? CPU_COUNT(&allowed) : 1;
}

template <typename Wait, typename Store>
double wake_from_sleep_us(int samples, int sleep_us, bool pinned, Wait&& wait, Store&& store) {
  cpu_set_t original;
  const bool restore = pinned && sched_getaffinity(0, sizeof(original), &original) == 0;
  if (pinned) pin_to_cpu(0);
  std::atomic<int64_t> stored_at_ns{0};
  std::atomic<int> acknowledged{0};
  std::vector<double> us(size_t(samples), 0.0);
  auto now_ns = [] { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count(); };
  std::thread waiter([&] {
    if (pinned) pin_to_cpu(1);
    for (int i = 1; i <= samples; ++i) {
      wait(i);
      us[size_t(i - 1)] = double(now_ns() - stored_at_ns.load(std::memory_order_acquire)) / 1e3;
      acknowledged.store(i, std::memory_order_release);
    }
  });
  for (int i = 1; i <= samples; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
    while (acknowledged.load(std::memory_order_acquire) != i - 1)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    stored_at_ns.store(now_ns(), std::memory_order_release);
    store(i);
  }
  waiter.join();
  if (restore) pthread_setaffinity_np(pthread_self(), sizeof(original), &original);
  return stats(us).median;
}

double signal_wake_from_sleep_us(int samples, int sleep_us, bool pinned) {
  hsa_signal_t s;
  CHECK_HSA(hsa_signal_create(0, 0, nullptr, &s));
  const double us = wake_from_sleep_us(
      samples, sleep_us, pinned,
      [&](int i) {
        while (hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_GTE, i, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) < i) {
        }
      },
      [&](int i) { hsa_signal_store_screlease(s, i); });
  hsa_signal_destroy(s);
  return us;
}

// Peer: the same on a raw futex word. With `poll_us`, the waiter first
// polls that long (as hsa-cpu's BLOCKED waits do) before it sleeps.
double futex_wake_from_sleep_us(int samples, int sleep_us, bool pinned, int poll_us = 0) {
  std::atomic<uint32_t> word{0};
  return wake_from_sleep_us(
      samples, sleep_us, pinned,
      [&](int i) {
        const auto poll_end = Clock::now() + std::chrono::microseconds(poll_us);
        while (poll_us != 0 && word.load(std::memory_order_acquire) < uint32_t(i) && Clock::now() < poll_end)
          __builtin_ia32_pause();
        for (;;) {
          const uint32_t v = word.load(std::memory_order_acquire);
          if (v >= uint32_t(i)) return;
          syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, v, nullptr, nullptr, 0);
        }
      },
      [&](int i) {
        word.store(uint32_t(i), std::memory_order_release);
        syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
      });
}

// Microseconds from ringing the doorbell to observing the completion
// signal, one dispatch at a time; `gap_us` of idle time before each.
double dispatch_latency_us(Bench& b, int samples, int gap_us, uint32_t groups) {
  hsa_queue_t* q = b.make_queue(256);
  hsa_signal_t done;
  CHECK_HSA(hsa_signal_create(1, 0, nullptr, &done));
  std::vector<double> us;
  for (int i = 0; i < samples; ++i) {
    hsa_signal_store_relaxed(done, 1);
    if (gap_us) std::this_thread::sleep_for(std::chrono::microseconds(gap_us));
    const auto start = Clock::now();
    b.dispatch(q, groups, done);
    wait_zero(done);
    us.push_back(std::chrono::duration<double>(Clock::now() - start).count() * 1e6);
  }
  hsa_signal_destroy(done);
  hsa_queue_destroy(q);
  return stats(us).median;
}

// Milliseconds of process CPU per second of wall time with `count` idle queues.
double idle_cpu_ms(Bench& b, int count, int ms) {
  std::vector<hsa_queue_t*> qs;
  for (int i = 0; i < count; ++i) qs.push_back(b.make_queue(256));
  hsa_signal_t done;
  CHECK_HSA(hsa_signal_create(count, 0, nullptr, &done));
  for (hsa_queue_t* q : qs) b.dispatch(q, 1, done);  // every processor ran once
  wait_zero(done);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double before = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  const double cpu_ms = (process_cpu_seconds() - before) * 1e3 * 1000.0 / ms;
  hsa_signal_destroy(done);
  for (hsa_queue_t* q : qs) hsa_queue_destroy(q);
  return cpu_ms;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HSA_CPU_BENCH_SANITIZED 1
#endif
#endif

// Probes Debian's ROCR in a child process (it needs /dev/kfd and an AMD
// GPU); the child's verdict is printed beside our figures.
std::string rocr_peer_line() {
#ifdef HSA_CPU_BENCH_SANITIZED
  return "peer ROCR: not probed in a sanitizer build (RTLD_DEEPBIND is unsupported)";
#else
  int fds[2];
  if (pipe(fds) != 0) return "peer ROCR: not probed (pipe failed)";
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    char line[160];
    void* rocr = dlopen("libhsa-runtime64.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    using InitFn = hsa_status_t (*)();
    auto init = rocr ? reinterpret_cast<InitFn>(dlsym(rocr, "hsa_init")) : nullptr;
    const hsa_status_t status = init ? init() : HSA_STATUS_ERROR;
    if (rocr == nullptr)
      snprintf(line, sizeof(line), "peer ROCR: libhsa-runtime64.so.1 not installed");
    else if (status == HSA_STATUS_SUCCESS)
      snprintf(line, sizeof(line), "peer ROCR: initialised; GPU figures need a GPU code object (not measured)");
    else
      snprintf(line, sizeof(line), "peer ROCR: hsa_init returned 0x%x (no AMD GPU here): no figures",
               unsigned(status));
    const ssize_t written = write(fds[1], line, strlen(line));
    _exit(written > 0 ? 0 : 1);
  }
  close(fds[1]);
  char buffer[160] = {};
  ssize_t n = child > 0 ? read(fds[0], buffer, sizeof(buffer) - 1) : -1;
  close(fds[0]);
  if (child > 0) waitpid(child, nullptr, 0);
  return n > 0 ? std::string(buffer, size_t(n)) : "peer ROCR: probe failed";
#endif
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--smoke") == 0) g_smoke = true;
    else {
      fprintf(stderr, "usage: %s [--smoke]\n", argv[0]);
      return 2;
    }
  }
  const int repeats = g_smoke ? 1 : 5;
  const int dispatches = g_smoke ? 2000 : 200000;
  const int round_trips = g_smoke ? 200 : 20000;
  const int latency_samples = g_smoke ? 50 : 2000;
  const int wake_samples = g_smoke ? 20 : 500;

  const std::string rocr = rocr_peer_line();  // before our threads exist
  Bench b;
  b.init();
  char name[64] = {};
  uint32_t workers = 0;
  hsa_agent_get_info(b.agent, HSA_AGENT_INFO_NAME, name);
  hsa_agent_get_info(b.agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), &workers);
  printf("hsa-cpu benchmark: agent '%s', %u worker thread(s), %d repeat(s), median (min, max)\n", name, workers,
         repeats);

  auto run = [&](const std::function<double()>& fn) {
    std::vector<double> samples;
    for (int i = 0; i < repeats; ++i) samples.push_back(fn());
    return stats(samples);
  };

  printf("dispatch throughput (empty kernel)\n");
  print("1 queue, 1 workgroup per dispatch [dispatch/s]", run([&] { return dispatch_rate(b, 1, 1, dispatches); }),
        "");
  print("2 queues, 1 workgroup per dispatch [dispatch/s]",
        run([&] { return dispatch_rate(b, 2, 1, dispatches / 2); }), "");
  print("1 queue, 64 workgroups per dispatch [dispatch/s]",
        run([&] { return dispatch_rate(b, 1, 64, dispatches / 10); }), "");
  print("2 queues, 64 workgroups per dispatch [dispatch/s]",
        run([&] { return dispatch_rate(b, 2, 64, dispatches / 20); }), "");
  print("peer: direct call of the kernel entry [call/s]", run([&] { return direct_call_rate(b, dispatches * 10); }),
        "");

  printf("signal wake latency (one way, host thread -> host thread)\n");
  printf("  ping-pong: each wait is met inside its polling window (no sleep)\n");
  print("hsa signal, BLOCKED hint (polls 20 us) [us]",
        run([&] { return signal_latency_us(round_trips, HSA_WAIT_STATE_BLOCKED); }), "");
  print("hsa signal, ACTIVE hint (polls 200 us) [us]",
        run([&] { return signal_latency_us(round_trips, HSA_WAIT_STATE_ACTIVE); }), "");
  print("peer: raw futex ping-pong [us]", run([&] { return futex_latency_us(round_trips); }), "");
  printf("  wake from sleep: the store comes 1 ms after the wait began (median of %d)\n", wake_samples);
  print("hsa signal, BLOCKED hint, asleep [us]",
        run([&] { return signal_wake_from_sleep_us(wake_samples, 1000, false); }), "");
  print("peer: raw futex, asleep [us]",
        run([&] { return futex_wake_from_sleep_us(wake_samples, 1000, false); }), "");
  print("peer: raw futex, polls 20 us, then asleep [us]",
        run([&] { return futex_wake_from_sleep_us(wake_samples, 1000, false, 20); }), "");
  if (allowed_cpus() >= 2) {
    print("hsa signal, asleep, waker on another core [us]",
          run([&] { return signal_wake_from_sleep_us(wake_samples, 1000, true); }), "");
    print("peer: raw futex, asleep, waker on another core [us]",
          run([&] { return futex_wake_from_sleep_us(wake_samples, 1000, true); }), "");
  }

  printf("dispatch latency (doorbell -> completion signal observed)\n");
  print("back to back, 1 workgroup [us]", run([&] { return dispatch_latency_us(b, latency_samples, 0, 1); }), "");
  print("back to back, 64 workgroups [us]", run([&] { return dispatch_latency_us(b, latency_samples, 0, 64); }),
        "");
  print("after 1 ms idle (processor asleep), 1 workgroup [us]",
        run([&] { return dispatch_latency_us(b, latency_samples / 10, 1000, 1); }), "");

  printf("idle CPU use\n");
  const int idle_ms = g_smoke ? 100 : 1000;
  print("8 idle queues, process CPU [ms per s]", run([&] { return idle_cpu_ms(b, 8, idle_ms); }), "");
  printf("  %s\n", rocr.c_str());
  b.shut_down();
  return 0;
}
