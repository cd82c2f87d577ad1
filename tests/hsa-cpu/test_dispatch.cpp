// hsa-cpu kernel dispatch: grids with partial workgroups in 1, 2 and 3
// dimensions, group memory, fiber-mode barriers, many small dispatches and
// several producer threads on several queues.
#include <algorithm>
#include <array>
#include <memory>
#include <numeric>

#include <hsa_cpu_ext.h>

#include <chrono>

#include "hsa_test_util.h"

using namespace hsa_test;

namespace {

struct IdsArgs {
  uint32_t* out;
};

// Runs write_ids over `grid` with `workgroup` and checks every item ran once
// and nothing outside the grid was written.
void check_write_ids(Runtime& rt, Kernels& kernels, hsa_queue_t* queue, uint16_t dims,
                     std::array<uint32_t, 3> grid, std::array<uint16_t, 3> workgroup) {
  const size_t items = size_t(grid[0]) * grid[1] * grid[2];
  const size_t guard = 64;
  uint32_t* out = rt.alloc<uint32_t>(items + guard);
  auto* args = rt.alloc<IdsArgs>(1, rt.kernarg_pool);
  args->out = out;
  hsa_signal_t done = make_signal(1);
  Dispatch d;
  d.kernel_object = kernels.object("write_ids");
  d.kernarg = args;
  d.dims = dims;
  for (int i = 0; i < 3; ++i) {
    d.grid[i] = grid[size_t(i)];
    d.workgroup[i] = workgroup[size_t(i)];
  }
  d.completion = done;
  dispatch(queue, d);
  REQUIRE(wait_eq(done, 0));
  size_t wrong = 0;
  for (size_t i = 0; i < items; ++i) wrong += out[i] != uint32_t(i + 1);
  for (size_t i = items; i < items + guard; ++i) wrong += out[i] != 0;
  CHECK(wrong == 0);
  hsa_signal_destroy(done);
  hsa_amd_memory_pool_free(out);
  hsa_amd_memory_pool_free(args);
}

}  // namespace

TEST_SUITE("dispatch") {

TEST_CASE("1D, 2D and 3D grids with partial workgroups") {
  Runtime rt;
  Kernels kernels(rt.agent);
  Queue queue(rt.agent);
  check_write_ids(rt, kernels, queue.queue, 1, {1, 1, 1}, {1, 1, 1});
  check_write_ids(rt, kernels, queue.queue, 1, {1000, 1, 1}, {64, 1, 1});
  check_write_ids(rt, kernels, queue.queue, 1, {100000, 1, 1}, {1024, 1, 1});
  check_write_ids(rt, kernels, queue.queue, 2, {37, 29, 1}, {8, 4, 1});
  check_write_ids(rt, kernels, queue.queue, 2, {5, 300, 1}, {16, 16, 1});
  check_write_ids(rt, kernels, queue.queue, 3, {13, 7, 9}, {4, 2, 4});
  check_write_ids(rt, kernels, queue.queue, 3, {3, 3, 70}, {3, 3, 3});
  CHECK(queue.errors.load() == 0);
}

TEST_CASE("group memory: max(packet total, static) bytes, aligned, per workgroup") {
  Runtime rt;
  Kernels kernels(rt.agent);
  Queue queue(rt.agent);
  for (uint32_t packet_bytes : {0u, 100u, 4096u, 65536u}) {
    CAPTURE(packet_bytes);
    uint32_t* out = rt.alloc<uint32_t>(2 * 16);
    auto* args = rt.alloc<IdsArgs>(1, rt.kernarg_pool);
    args->out = out;
    hsa_signal_t done = make_signal(1);
    Dispatch d;
    d.kernel_object = kernels.object("group_probe");
    d.kernarg = args;
    d.grid[0] = 16;
    d.workgroup[0] = 1;
    d.group_bytes = packet_bytes;
    d.completion = done;
    dispatch(queue.queue, d);
    REQUIRE(wait_eq(done, 0));
    for (int wg = 0; wg < 16; ++wg) {
      CHECK(out[2 * wg] == std::max(packet_bytes, 256u));
      CHECK(out[2 * wg + 1] == 1);
    }
    hsa_signal_destroy(done);
  }
  // More than the agent's group segment is an invalid packet.
  hsa_signal_t done = make_signal(1);
  Dispatch d;
  d.kernel_object = kernels.object("group_probe");
  d.kernarg = rt.alloc<IdsArgs>(1, rt.kernarg_pool);
  d.group_bytes = 65537;
  d.completion = done;
  dispatch(queue.queue, d);
  CHECK(queue.wait_error());
  CHECK(queue.last_error.load() == HSA_STATUS_ERROR_INVALID_ALLOCATION);
  hsa_signal_destroy(done);
}

TEST_CASE("group memory: concurrent workgroups each get their own") {
  ScopedEnv workers("HSA_CPU_WORKERS", "3");
  Runtime rt;
  Kernels kernels(rt.agent);
  Queue queue(rt.agent);
  struct Args { uint32_t* out; uint32_t* running; uint32_t* max_running; uint32_t concurrent; };
  constexpr uint32_t kGroups = 24;
  constexpr uint32_t kConcurrent = 3;  // of the 4 threads (3 workers + the processor)
  for (uint32_t group_bytes : {256u, 65536u}) {
    CAPTURE(group_bytes);
    uint32_t* out = rt.alloc<uint32_t>(kGroups);
    uint32_t* counters = rt.alloc<uint32_t>(2);
    auto* args = rt.alloc<Args>(1, rt.kernarg_pool);
    *args = Args{out, &counters[0], &counters[1], kConcurrent};
    hsa_signal_t done = make_signal(1);
    Dispatch d;
    d.kernel_object = kernels.object("group_owner");
    d.kernarg = args;
    d.grid[0] = kGroups;
    d.group_bytes = group_bytes;
    d.completion = done;
    dispatch(queue.queue, d);
    REQUIRE(wait_eq(done, 0));
    CHECK(counters[1] >= kConcurrent);  // the workgroups did overlap
    for (uint32_t g = 0; g < kGroups; ++g) {
      CAPTURE(g);
      CHECK(out[g] == 1);  // its segment held only its own id throughout
    }
    hsa_signal_destroy(done);
  }
  CHECK(queue.errors.load() == 0);
}

TEST_CASE("fiber mode: a workgroup reduction with barriers") {
  Runtime rt;
  Kernels kernels(rt.agent);
  Queue queue(rt.agent);
  constexpr uint32_t kItems = 5000, kGroup = 256;
  constexpr uint32_t kGroups = (kItems + kGroup - 1) / kGroup;
  struct Args { const uint32_t* in; uint32_t* out; };
  uint32_t* in = rt.alloc<uint32_t>(kItems);
  uint32_t* out = rt.alloc<uint32_t>(kGroups);
  for (uint32_t i = 0; i < kItems; ++i) in[i] = i * 3 + 1;
  auto* args = rt.alloc<Args>(1, rt.kernarg_pool);
  *args = Args{in, out};
  for (int repeat = 0; repeat < 3; ++repeat) {  // stacks are pooled and reused
    memset(out, 0, kGroups * sizeof(uint32_t));
    hsa_signal_t done = make_signal(1);
    Dispatch d;
    d.kernel_object = kernels.object("wg_reduce");
    d.kernarg = args;
    d.grid[0] = kItems;
    d.workgroup[0] = kGroup;
    d.group_bytes = kGroup * sizeof(uint32_t);
    d.completion = done;
    dispatch(queue.queue, d);
    REQUIRE(wait_eq(done, 0));
    for (uint32_t g = 0; g < kGroups; ++g) {
      uint32_t expected = 0;
      for (uint32_t i = g * kGroup; i < std::min(kItems, (g + 1) * kGroup); ++i) expected += in[i];
      CHECK(out[g] == expected);
    }
    hsa_signal_destroy(done);
  }
  CHECK(queue.errors.load() == 0);
}

// A dispatch whose workgroups the kernel's last dispatch on the queue says
// are little work in all runs on the queue's processor thread alone (no
// hand-off to the pool), and one of workgroups that take long does not
// (the test above: group_owner's workgroups wait for each other, so its
// second dispatch would fail there if it ran on one thread).
TEST_CASE("dispatches of little work run on the queue's own thread") {
  ScopedEnv workers("HSA_CPU_WORKERS", "3");
  // What "little" is, made generous: under a sanitizer a workgroup's
  // bookkeeping alone may take longer than the default's share.
  ScopedEnv little("HSA_CPU_INLINE_DISPATCH_NS", "1000000");
  Runtime rt;
  Kernels kernels(rt.agent);
  Queue queue(rt.agent);
  constexpr uint32_t kGroups = 64, kDispatches = 10;
  struct Args { uint64_t* out; };
  uint64_t* out = rt.alloc<uint64_t>(kGroups * kDispatches);
  std::vector<Args*> args(kDispatches);
  hsa_signal_t done = make_signal(1);
  Dispatch d;
  d.kernel_object = kernels.object("group_where");
  d.completion = done;
  // One workgroup always runs on the processor thread: its segment.
  d.kernarg = args[0] = rt.alloc<Args>(1, rt.kernarg_pool);
  *args[0] = Args{out};
  dispatch(queue.queue, d);
  REQUIRE(wait_eq(done, 0));
  const uint64_t processor = out[0];
  REQUIRE(processor != 0);
  // The first dispatch of 64 goes to the pool and measures the kernel; the
  // later ones, a few nanoseconds per workgroup, stay on the processor.
  for (uint32_t i = 1; i < kDispatches; ++i) {
    hsa_signal_store_relaxed(done, 1);
    d.kernarg = args[i] = rt.alloc<Args>(1, rt.kernarg_pool);
    *args[i] = Args{out + kGroups * i};
    d.grid[0] = kGroups;
    dispatch(queue.queue, d);
    REQUIRE(wait_eq(done, 0));
  }
  for (uint32_t i = 2; i < kDispatches; ++i)
    for (uint32_t g = 0; g < kGroups; ++g) {
      CAPTURE(i);
      CAPTURE(g);
      CHECK(out[kGroups * i + g] == processor);
    }
  hsa_signal_destroy(done);
  CHECK(queue.errors.load() == 0);
}

// The pool measures a kernel dearer than the processor's thread alone does,
// so a kernel it took would stay there; every 16th dispatch in a row the pool
// would take, of a kernel measured at most 4 times the inline limit, runs on
// the processor's thread and is measured again (a probe). The limit is made
// half of what one of `busy`'s workgroups takes here (timed first, on a
// queue of its own), so that its two workgroups are always over it and
// within the probes' reach: the pool takes them, and the probes come. With
// the limit 0 no dispatch of more than one workgroup runs on the processor's
// thread, probes included. Where each ran: hsa_cpu_queue_get_dispatch_counts.
TEST_CASE("a kernel the pool takes is measured again on the processor's thread now and then") {
  ScopedEnv workers("HSA_CPU_WORKERS", "2");
  constexpr uint64_t kRounds = 200000;
  constexpr uint32_t kGroups = 2, kDispatches = 33;
  uint64_t workgroup_ns = 0;
  {
    Runtime rt;
    Kernels kernels(rt.agent);
    Queue queue(rt.agent);
    struct Args { uint64_t* out; uint64_t rounds; };
    uint64_t* out = rt.alloc<uint64_t>(1);
    Args* args = rt.alloc<Args>(1, rt.kernarg_pool);
    *args = Args{out, kRounds};
    hsa_signal_t done = make_signal(1);
    Dispatch d;
    d.kernel_object = kernels.object("busy");
    d.kernarg = args;
    d.completion = done;
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < 5; ++i) {  // one workgroup: always on the processor's thread
      hsa_signal_store_relaxed(done, 1);
      const auto start = std::chrono::steady_clock::now();
      dispatch(queue.queue, d);
      REQUIRE(wait_eq(done, 0));
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
      least = std::min<uint64_t>(least, uint64_t(ns.count()));
    }
    workgroup_ns = least;
    hsa_signal_destroy(done);
  }
  REQUIRE(workgroup_ns > 1000);
  for (const bool never_inline : {false, true}) {
    CAPTURE(never_inline);
    // kGroups workgroups of workgroup_ns each: twice the limit.
    const std::string limit = never_inline ? "0" : std::to_string(workgroup_ns);
    ScopedEnv little("HSA_CPU_INLINE_DISPATCH_NS", limit.c_str());
    Runtime rt;
    Kernels kernels(rt.agent);
    Queue queue(rt.agent);
    struct Args { uint64_t* out; uint64_t rounds; };
    uint64_t* out = rt.alloc<uint64_t>(kGroups * kDispatches);
    hsa_signal_t done = make_signal(1);
    Dispatch d;
    d.kernel_object = kernels.object("busy");
    d.grid[0] = kGroups;
    d.completion = done;
    for (uint32_t i = 0; i < kDispatches; ++i) {
      hsa_signal_store_relaxed(done, 1);
      Args* args = rt.alloc<Args>(1, rt.kernarg_pool);
      *args = Args{out + kGroups * i, kRounds};
      d.kernarg = args;
      dispatch(queue.queue, d);
      REQUIRE(wait_eq(done, 0));
    }
    for (uint32_t i = 0; i < kGroups * kDispatches; ++i) REQUIRE(out[i] != 0);
    hsa_cpu_dispatch_counts_t counts{};
    REQUIRE(hsa_cpu_queue_get_dispatch_counts(queue.queue, &counts) == HSA_STATUS_SUCCESS);
    CAPTURE(counts.on_processor);
    CAPTURE(counts.pooled);
    CAPTURE(counts.probes);
    CHECK(counts.on_processor + counts.pooled == kDispatches);
    CHECK(counts.probes <= counts.on_processor);
    if (never_inline) {
      CHECK(counts.on_processor == 0);
      CHECK(counts.probes == 0);
    } else {
      // The first dispatch (not measured yet) goes to the pool; 32 more:
      // a probe after each 15 pooled in a row.
      CHECK(counts.pooled >= 1);
      CHECK(counts.probes >= 1);
      CHECK(counts.probes <= 2);
    }
    hsa_signal_destroy(done);
    CHECK(queue.errors.load() == 0);
  }
}

TEST_CASE("many small dispatches") {
  Runtime rt;
  Kernels kernels(rt.agent);
  Queue queue(rt.agent, 256);
  constexpr int kDispatches = 20000;
  hsa_signal_t done = make_signal(kDispatches);
  Dispatch d;
  d.kernel_object = kernels.object("empty");
  d.kernarg = rt.alloc<uint32_t>(1, rt.kernarg_pool);
  d.completion = done;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kDispatches; ++i) dispatch(queue.queue, d);
  REQUIRE(wait_eq(done, 0));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("empty dispatches/s through one queue: " << kDispatches / seconds);
  CHECK(seconds < 10);
}

TEST_CASE("several threads dispatch into several queues") {
  Runtime rt;
  Kernels kernels(rt.agent);
  constexpr int kThreads = 4, kPerThread = 300;
  constexpr uint32_t kGrid = 300;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  const uint64_t object = kernels.object("write_ids");
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      Queue queue(rt.agent, 64);
      uint32_t* out = rt.alloc<uint32_t>(kGrid);
      auto* args = rt.alloc<IdsArgs>(1, rt.kernarg_pool);
      args->out = out;
      hsa_signal_t done = make_signal(kPerThread);
      Dispatch d;
      d.kernel_object = object;
      d.kernarg = args;
      d.grid[0] = kGrid;
      d.workgroup[0] = 32;
      d.completion = done;
      for (int i = 0; i < kPerThread; ++i) dispatch(queue.queue, d);
      if (!wait_eq(done, 0)) failures.fetch_add(1);
      for (uint32_t i = 0; i < kGrid; ++i)
        if (out[i] != (i + 1) * kPerThread) failures.fetch_add(1);
      hsa_signal_destroy(done);
    });
  for (auto& t : threads) t.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("several agents share the workers") {
  ScopedEnv agents("HSA_CPU_AGENTS", "2");
  Runtime rt;
  const std::vector<hsa_agent_t> all = Runtime::agents();
  REQUIRE(all.size() == 2);
  Kernels k0(all[0]), k1(all[1]);
  Queue q0(all[0]), q1(all[1]);
  check_write_ids(rt, k0, q0.queue, 1, {4097, 1, 1}, {128, 1, 1});
  check_write_ids(rt, k1, q1.queue, 2, {65, 65, 1}, {8, 8, 1});
}

TEST_CASE("profiling stamps dispatch times") {
  Runtime rt;
  Kernels kernels(rt.agent);
  Queue queue(rt.agent);
  REQUIRE(hsa_amd_profiling_set_profiler_enabled(queue.queue, 1) == HSA_STATUS_SUCCESS);
  hsa_signal_t done = make_signal(1);
  Dispatch d;
  d.kernel_object = kernels.object("empty");
  d.kernarg = rt.alloc<uint32_t>(1, rt.kernarg_pool);
  d.grid[0] = 64;
  d.completion = done;
  uint64_t before = 0, after = 0;
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &before);
  dispatch(queue.queue, d);
  REQUIRE(wait_eq(done, 0));
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &after);
  hsa_amd_profiling_dispatch_time_t time{};
  CHECK(hsa_amd_profiling_get_dispatch_time(rt.agent, done, &time) == HSA_STATUS_SUCCESS);
  CHECK(before <= time.start);
  CHECK(time.start <= time.end);
  CHECK(time.end <= after);
  hsa_signal_destroy(done);
}

}  // TEST_SUITE
