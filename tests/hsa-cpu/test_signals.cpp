// hsa-cpu signals: every operation in every order, waits, wait_any, groups,
// async handlers, sleeping waiters, the amd_signal_t layout.
#include <hsa/amd_hsa_signal.h>

#include "hsa_test_util.h"

using namespace hsa_test;

namespace {

using StoreFn = void (*)(hsa_signal_t, hsa_signal_value_t);
using RmwFn = hsa_signal_value_t (*)(hsa_signal_t, hsa_signal_value_t);
using CasFn = hsa_signal_value_t (*)(hsa_signal_t, hsa_signal_value_t, hsa_signal_value_t);
using LoadFn = hsa_signal_value_t (*)(hsa_signal_t);
using WaitFn = hsa_signal_value_t (*)(hsa_signal_t, hsa_signal_condition_t, hsa_signal_value_t,
                                      uint64_t, hsa_wait_state_t);

#define ALL_ORDERS(op)                                                            \
  {hsa_signal_##op##_scacq_screl, hsa_signal_##op##_acq_rel, hsa_signal_##op##_scacquire, \
   hsa_signal_##op##_acquire, hsa_signal_##op##_relaxed, hsa_signal_##op##_screlease,    \
   hsa_signal_##op##_release}

}  // namespace

TEST_SUITE("signals") {

TEST_CASE("create, destroy and bad handles") {
  Runtime rt;
  hsa_signal_t s = make_signal(5);
  CHECK(hsa_signal_load_relaxed(s) == 5);
  // The handle is the address of an amd_signal_t holding the value.
  auto* amd = reinterpret_cast<amd_signal_t*>(s.handle);
  CHECK(amd->kind == AMD_SIGNAL_KIND_USER);
  CHECK(amd->value == 5);
  hsa_signal_store_relaxed(s, -9);
  CHECK(amd->value == -9);
  volatile hsa_signal_value_t* value_ptr = nullptr;
  CHECK(hsa_amd_signal_value_pointer(s, &value_ptr) == HSA_STATUS_SUCCESS);
  CHECK((value_ptr == &amd->value));
  CHECK(hsa_signal_destroy(s) == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_destroy(s) == HSA_STATUS_ERROR_INVALID_SIGNAL);
  CHECK(hsa_signal_destroy(hsa_signal_t{0}) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_signal_create(0, 0, nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_signal_create(0, 1, nullptr, &s) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_signal_create(0, 1, &rt.agent, &s) == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_destroy(s) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_signal_create(1, 0, nullptr, HSA_AMD_SIGNAL_AMD_GPU_ONLY, &s) == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_destroy(s) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_signal_create(1, 0, nullptr, HSA_AMD_SIGNAL_IPC, &s) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Operations on a null handle are ignored rather than crashing.
  hsa_signal_store_relaxed(hsa_signal_t{0}, 1);
  hsa_signal_add_relaxed(hsa_signal_t{0}, 1);
  CHECK(hsa_signal_load_scacquire(hsa_signal_t{0}) == 0);
}

TEST_CASE("every operation in every memory order") {
  Runtime rt;
  hsa_signal_t s = make_signal(0);
  const LoadFn loads[] = {hsa_signal_load_scacquire, hsa_signal_load_relaxed, hsa_signal_load_acquire};
  const StoreFn stores[] = {hsa_signal_store_relaxed, hsa_signal_store_screlease, hsa_signal_store_release,
                            hsa_signal_silent_store_relaxed, hsa_signal_silent_store_screlease};
  for (StoreFn store : stores) {
    store(s, 77);
    for (LoadFn load : loads) CHECK(load(s) == 77);
  }
  const StoreFn adds[] = ALL_ORDERS(add);
  const StoreFn subs[] = ALL_ORDERS(subtract);
  const StoreFn ands[] = ALL_ORDERS(and);
  const StoreFn ors[] = ALL_ORDERS(or);
  const StoreFn xors[] = ALL_ORDERS(xor);
  const RmwFn exchanges[] = ALL_ORDERS(exchange);
  const CasFn cases[] = ALL_ORDERS(cas);
  for (int i = 0; i < 7; ++i) {
    CAPTURE(i);
    hsa_signal_store_relaxed(s, 10);
    adds[i](s, 5);
    CHECK(hsa_signal_load_relaxed(s) == 15);
    subs[i](s, 20);
    CHECK(hsa_signal_load_relaxed(s) == -5);
    hsa_signal_store_relaxed(s, 0b1100);
    ands[i](s, 0b1010);
    CHECK(hsa_signal_load_relaxed(s) == 0b1000);
    ors[i](s, 0b0011);
    CHECK(hsa_signal_load_relaxed(s) == 0b1011);
    xors[i](s, 0b1111);
    CHECK(hsa_signal_load_relaxed(s) == 0b0100);
    CHECK(exchanges[i](s, int64_t(1) << 40) == 0b0100);
    CHECK(hsa_signal_load_relaxed(s) == int64_t(1) << 40);
    CHECK(cases[i](s, 3, 4) == int64_t(1) << 40);  // fails: unchanged
    CHECK(hsa_signal_load_relaxed(s) == int64_t(1) << 40);
    CHECK(cases[i](s, int64_t(1) << 40, -1) == int64_t(1) << 40);
    CHECK(hsa_signal_load_relaxed(s) == -1);
  }
  hsa_signal_destroy(s);
}

TEST_CASE("waits: every condition, satisfied and timed out") {
  Runtime rt;
  hsa_signal_t s = make_signal(10);
  const WaitFn waits[] = {hsa_signal_wait_scacquire, hsa_signal_wait_relaxed, hsa_signal_wait_acquire};
  for (WaitFn wait : waits) {
    CHECK(wait(s, HSA_SIGNAL_CONDITION_EQ, 10, kLongWait, HSA_WAIT_STATE_BLOCKED) == 10);
    CHECK(wait(s, HSA_SIGNAL_CONDITION_NE, 3, kLongWait, HSA_WAIT_STATE_ACTIVE) == 10);
    CHECK(wait(s, HSA_SIGNAL_CONDITION_LT, 11, kLongWait, HSA_WAIT_STATE_BLOCKED) == 10);
    CHECK(wait(s, HSA_SIGNAL_CONDITION_GTE, 10, kLongWait, HSA_WAIT_STATE_BLOCKED) == 10);
    for (hsa_wait_state_t hint : {HSA_WAIT_STATE_BLOCKED, HSA_WAIT_STATE_ACTIVE}) {
      const auto start = std::chrono::steady_clock::now();
      CHECK(wait(s, HSA_SIGNAL_CONDITION_EQ, 0, 20 * kMs, hint) == 10);
      CHECK(wait(s, HSA_SIGNAL_CONDITION_NE, 10, 20 * kMs, hint) == 10);
      CHECK(wait(s, HSA_SIGNAL_CONDITION_LT, 10, 20 * kMs, hint) == 10);
      CHECK(wait(s, HSA_SIGNAL_CONDITION_GTE, 11, 20 * kMs, hint) == 10);
      const auto elapsed = std::chrono::steady_clock::now() - start;
      CHECK(elapsed >= std::chrono::milliseconds(75));
      CHECK(elapsed < std::chrono::milliseconds(2000));
    }
  }
  hsa_signal_destroy(s);
}

TEST_CASE("a store wakes a sleeping waiter; waits accept any value change") {
  Runtime rt;
  hsa_signal_t s = make_signal(1);
  for (int op = 0; op < 4; ++op) {
    CAPTURE(op);
    hsa_signal_store_relaxed(s, 1);
    std::thread waker([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      switch (op) {
        case 0: hsa_signal_store_screlease(s, 0); break;
        case 1: hsa_signal_subtract_relaxed(s, 1); break;
        case 2: hsa_signal_and_screlease(s, 0); break;
        case 3: hsa_signal_cas_scacq_screl(s, 1, 0); break;
      }
    });
    CHECK(wait_eq(s, 0));
    waker.join();
  }
  hsa_signal_destroy(s);
}

TEST_CASE("concurrent waiters all wake") {
  Runtime rt;
  hsa_signal_t s = make_signal(0);
  std::atomic<int> woken{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 6; ++i)
    waiters.emplace_back([&, i] {
      const hsa_signal_value_t target = i % 2 ? 1 : 2;
      if (hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_GTE, target, kLongWait, HSA_WAIT_STATE_BLOCKED) >=
          target)
        woken.fetch_add(1);
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  hsa_signal_add_screlease(s, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  hsa_signal_add_screlease(s, 1);
  for (auto& t : waiters) t.join();
  CHECK(woken.load() == 6);
  hsa_signal_destroy(s);
}

TEST_CASE("a blocked wait sleeps instead of spinning") {
  Runtime rt;
  hsa_signal_t s = make_signal(1);
  double cpu = -1;
  std::thread waiter([&] {
    const double before = thread_cpu_seconds();
    hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, 300 * kMs, HSA_WAIT_STATE_BLOCKED);
    cpu = thread_cpu_seconds() - before;
  });
  waiter.join();
  CHECK(cpu >= 0);
  CHECK(cpu < 0.03);  // well under 10% of the 300 ms waited
  // Same for a wait that is woken at the end.
  std::thread waiter2([&] {
    const double before = thread_cpu_seconds();
    CHECK(wait_eq(s, 0));
    cpu = thread_cpu_seconds() - before;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  hsa_signal_store_screlease(s, 0);
  waiter2.join();
  CHECK(cpu < 0.03);
  hsa_signal_destroy(s);
}

TEST_CASE("hsa_amd_signal_wait_any") {
  Runtime rt;
  hsa_signal_t signals[3] = {make_signal(1), make_signal(1), make_signal(1)};
  hsa_signal_condition_t conds[3] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_LT};
  hsa_signal_value_t values[3] = {0, 0, 0};
  hsa_signal_value_t satisfying = 99;
  CHECK(hsa_amd_signal_wait_any(3, signals, conds, values, 20 * kMs, HSA_WAIT_STATE_BLOCKED, &satisfying) ==
        UINT32_MAX);
  std::thread waker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    hsa_signal_store_screlease(signals[2], -4);
  });
  CHECK(hsa_amd_signal_wait_any(3, signals, conds, values, kLongWait, HSA_WAIT_STATE_BLOCKED, &satisfying) == 2);
  CHECK(satisfying == -4);
  waker.join();
  CHECK(hsa_amd_signal_wait_any(0, signals, conds, values, kLongWait, HSA_WAIT_STATE_BLOCKED, &satisfying) ==
        UINT32_MAX);
  for (hsa_signal_t s : signals) hsa_signal_destroy(s);
}

TEST_CASE("signal groups") {
  Runtime rt;
  hsa_signal_t signals[2] = {make_signal(1), make_signal(1)};
  hsa_signal_group_t group;
  REQUIRE(hsa_signal_group_create(2, signals, 0, nullptr, &group) == HSA_STATUS_SUCCESS);
  hsa_signal_condition_t conds[2] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ};
  hsa_signal_value_t values[2] = {0, 0};
  std::thread waker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    hsa_signal_store_screlease(signals[1], 0);
  });
  hsa_signal_t which{};
  hsa_signal_value_t value = 7;
  CHECK(hsa_signal_group_wait_any_scacquire(group, conds, values, HSA_WAIT_STATE_BLOCKED, &which, &value) ==
        HSA_STATUS_SUCCESS);
  CHECK(which.handle == signals[1].handle);
  CHECK(value == 0);
  waker.join();
  CHECK(hsa_signal_group_wait_any_relaxed(group, conds, values, HSA_WAIT_STATE_ACTIVE, &which, &value) ==
        HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_group_destroy(group) == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_group_destroy(group) == HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
  CHECK(hsa_signal_group_create(0, signals, 0, nullptr, &group) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (hsa_signal_t s : signals) hsa_signal_destroy(s);
}

TEST_CASE("async handlers run on a handler thread and re-arm on true") {
  Runtime rt;
  hsa_signal_t s = make_signal(0);
  struct State {
    std::atomic<int> calls{0};
    std::atomic<hsa_signal_value_t> last{0};
    hsa_signal_t done;
  } state;
  state.done = make_signal(1);
  REQUIRE(hsa_amd_signal_async_handler(
              s, HSA_SIGNAL_CONDITION_GTE, 1,
              [](hsa_signal_value_t value, void* arg) {
                auto* st = static_cast<State*>(arg);
                st->last.store(value);
                const int calls = st->calls.fetch_add(1) + 1;
                if (calls == 2) {
                  hsa_signal_store_screlease(st->done, 0);
                  return false;
                }
                return true;
              },
              &state) == HSA_STATUS_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(state.calls.load() == 0);
  hsa_signal_store_screlease(s, 5);
  CHECK(wait_eq(state.done, 0));
  CHECK(state.calls.load() == 2);
  CHECK(state.last.load() == 5);
  hsa_signal_store_screlease(s, 6);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(state.calls.load() == 2);  // deregistered after returning false

  std::atomic<int> ran{0};
  CHECK(hsa_amd_async_function([](void* arg) { static_cast<std::atomic<int>*>(arg)->fetch_add(1); }, &ran) ==
        HSA_STATUS_SUCCESS);
  for (int i = 0; i < 5000 && ran.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(ran.load() == 1);

  CHECK(hsa_amd_signal_async_handler(hsa_signal_t{0}, HSA_SIGNAL_CONDITION_EQ, 0,
                                     [](hsa_signal_value_t, void*) { return false; }, nullptr) ==
        HSA_STATUS_ERROR_INVALID_SIGNAL);
  CHECK(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 0, nullptr, nullptr) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_signal_destroy(state.done);
  hsa_signal_destroy(s);
}

namespace {

// Milliseconds from a store that bypasses the API (through
// hsa_amd_signal_value_pointer, as kernel code stores to
// amd_signal_t.value) until `finished()` holds, for a waiter started by
// `start()` and asleep for 50 ms before the store; -1 when it did not see
// the store within 2 s (the watchdog then wakes it through the API, so a
// regression fails instead of hanging).
template <typename Start, typename Finished>
double behind_api_wake_ms(hsa_signal_t signal, hsa_signal_value_t new_value, Start&& start,
                          Finished&& finished) {
  start();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // well past any polling
  REQUIRE_FALSE(finished());
  volatile hsa_signal_value_t* value = nullptr;
  REQUIRE(hsa_amd_signal_value_pointer(signal, &value) == HSA_STATUS_SUCCESS);
  const auto written = std::chrono::steady_clock::now();
  // One atomic 64-bit store, as a kernel's store to amd_signal_t.value is.
  __atomic_store_n(const_cast<hsa_signal_value_t*>(value), new_value, __ATOMIC_RELEASE);
  while (!finished()) {
    if (std::chrono::steady_clock::now() - written > std::chrono::seconds(2)) {
      hsa_signal_store_screlease(signal, new_value);  // unstick the waiter
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - written).count();
}

}  // namespace

TEST_CASE("sleeping waiters see a store made behind the API within milliseconds") {
  Runtime rt;
  SUBCASE("hsa_signal_wait_scacquire with an infinite timeout, both hints")
  for (hsa_wait_state_t hint : {HSA_WAIT_STATE_BLOCKED, HSA_WAIT_STATE_ACTIVE}) {
    CAPTURE(hint);
    hsa_signal_t s = make_signal(1);
    std::atomic<bool> done{false};
    std::atomic<hsa_signal_value_t> observed{99};
    std::thread waiter;
    const double ms = behind_api_wake_ms(
        s, 0,
        [&] {
          waiter = std::thread([&] {
            observed = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, hint);
            done = true;
          });
        },
        [&] { return done.load(); });
    waiter.join();
    CHECK(ms >= 0);
    CHECK(ms < 100);
    CHECK(observed.load() == 0);
    hsa_signal_destroy(s);
  }
  SUBCASE("hsa_amd_signal_wait_any") {
    hsa_signal_t signals[2] = {make_signal(1), make_signal(1)};
    hsa_signal_condition_t conds[2] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_LT};
    hsa_signal_value_t values[2] = {0, 0};
    std::atomic<uint32_t> index{UINT32_MAX};
    std::thread waiter;
    const double ms = behind_api_wake_ms(
        signals[1], -2,
        [&] {
          waiter = std::thread([&] {
            index = hsa_amd_signal_wait_any(2, signals, conds, values, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, nullptr);
          });
        },
        [&] { return index.load() != UINT32_MAX; });
    waiter.join();
    CHECK(ms >= 0);
    CHECK(ms < 100);
    CHECK(index.load() == 1);
    for (hsa_signal_t each : signals) hsa_signal_destroy(each);
  }
  SUBCASE("an async handler") {
    hsa_signal_t s = make_signal(0);
    static std::atomic<hsa_signal_value_t> handled{0};
    handled = 0;
    const double ms = behind_api_wake_ms(
        s, 7,
        [&] {
          REQUIRE(hsa_amd_signal_async_handler(
                      s, HSA_SIGNAL_CONDITION_GTE, 5,
                      [](hsa_signal_value_t value, void*) {
                        handled = value;
                        return false;
                      },
                      nullptr) == HSA_STATUS_SUCCESS);
        },
        [&] { return handled.load() != 0; });
    CHECK(ms >= 0);
    CHECK(ms < 100);
    CHECK(handled.load() == 7);
    hsa_signal_destroy(s);
  }
  SUBCASE("a barrier-AND packet's dependency") {
    Queue queue(rt.agent);
    hsa_signal_t dep = make_signal(1), done = make_signal(1);
    const double ms = behind_api_wake_ms(
        dep, 0, [&] { barrier(queue.queue, HSA_PACKET_TYPE_BARRIER_AND, {dep}, done); },
        [&] { return hsa_signal_load_scacquire(done) == 0; });
    CHECK(ms >= 0);
    CHECK(ms < 100);
    hsa_signal_destroy(dep);
    hsa_signal_destroy(done);
  }
}

}  // TEST_SUITE
