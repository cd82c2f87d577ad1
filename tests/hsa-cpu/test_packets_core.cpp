// The core's packet rules (hsa-core/include/hsa_core/packet.h) on every
// kernel agent a runtime offers: barrier-AND and barrier-OR complete by
// their dependencies, an AMD barrier-value packet by its masked condition,
// a negative dependency fails the barrier (its completion signal takes the
// value, the queue reports HSA_STATUS_ERROR), and a malformed header
// (reserved fence scope, reserved bits, agent dispatch, an unknown type or
// vendor format, a bad condition) fails the queue with
// INVALID_PACKET_FORMAT before the packet runs. The system event handler
// that hears of a faulting packet: one per runtime, forgotten at the last
// hsa_shut_down (the faults themselves: suite faults, hsa-cuda's fault
// case). No kernels: hsa_cpu_tests
// runs it on hsa-cpu, hsa_cuda_core_tests on hsa-cuda's GPUs.
#include <hsa/hsa_ext_amd.h>

#include <thread>
#include <vector>

#include "hsa_test_util.h"

using namespace hsa_test;

namespace {

std::vector<hsa_agent_t> kernel_agents() {
  std::vector<hsa_agent_t> out;
  for (hsa_agent_t agent : Runtime::agents()) {
    uint32_t features = 0;
    REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_FEATURE, &features) == HSA_STATUS_SUCCESS);
    if (features & HSA_AGENT_FEATURE_KERNEL_DISPATCH) out.push_back(agent);
  }
  REQUIRE(!out.empty());
  return out;
}

// Whether `signal` still holds `value` after a while (the packet waiting on
// it has not completed).
bool still(hsa_signal_t signal, hsa_signal_value_t value) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return hsa_signal_load_scacquire(signal) == value;
}

// Writes an AMD barrier-value packet (not published); returns its index.
uint64_t barrier_value(hsa_queue_t* queue, hsa_signal_t signal, int64_t value, int64_t mask, uint32_t cond,
                       hsa_signal_t completion) {
  const uint64_t index = reserve(queue);
  auto* p = slot<hsa_amd_barrier_value_packet_t>(queue, index);
  p->reserved0 = 0;
  p->signal = signal;
  p->value = value;
  p->mask = mask;
  p->cond = cond;
  p->reserved1 = 0;
  p->reserved2 = 0;
  p->reserved3 = 0;
  p->completion_signal = completion;
  return index;
}
// The second header word of a barrier-value packet: its AMD format.
constexpr uint16_t kBarrierValueFormat = HSA_AMD_PACKET_TYPE_BARRIER_VALUE;

}  // namespace

TEST_SUITE("packets-core") {

TEST_CASE("barrier-AND waits for every dependency, barrier-OR for any, on every kernel agent") {
  Runtime rt;
  for (hsa_agent_t agent : kernel_agents()) {
    INFO("agent " << agent.handle);
    Queue q(agent);
    hsa_signal_t a = make_signal(1), b = make_signal(1), done = make_signal(1);
    barrier(q.queue, HSA_PACKET_TYPE_BARRIER_AND, {a, hsa_signal_t{0}, b}, done);
    CHECK(still(done, 1));
    hsa_signal_store_screlease(a, 0);
    CHECK(still(done, 1));  // b is still 1
    hsa_signal_store_screlease(b, 0);
    CHECK(wait_eq(done, 0));
    // No dependencies at all: met at once.
    hsa_signal_t none_done = make_signal(1);
    barrier(q.queue, HSA_PACKET_TYPE_BARRIER_AND, {}, none_done);
    CHECK(wait_eq(none_done, 0));

    hsa_signal_t c = make_signal(1), d = make_signal(2), or_done = make_signal(1);
    barrier(q.queue, HSA_PACKET_TYPE_BARRIER_OR, {hsa_signal_t{0}, c, d}, or_done);
    CHECK(still(or_done, 1));
    hsa_signal_store_screlease(d, 1);  // a change that meets nothing
    CHECK(still(or_done, 1));
    hsa_signal_store_screlease(d, 0);
    CHECK(wait_eq(or_done, 0));
    CHECK(hsa_signal_load_scacquire(c) == 1);
    CHECK(q.errors.load() == 0);
    for (hsa_signal_t s : {a, b, done, none_done, c, d, or_done}) CHECK(hsa_signal_destroy(s) == HSA_STATUS_SUCCESS);
  }
}

TEST_CASE("a barrier-value packet completes once its signal's masked value meets the condition") {
  Runtime rt;
  for (hsa_agent_t agent : kernel_agents()) {
    INFO("agent " << agent.handle);
    Queue q(agent);
    hsa_signal_t s = make_signal(0x25), done = make_signal(1);
    // (value & 0xf0) == 0x10
    const uint64_t index = barrier_value(q.queue, s, 0x10, 0xf0, HSA_SIGNAL_CONDITION_EQ, done);
    publish(q.queue, index, header(HSA_PACKET_TYPE_VENDOR_SPECIFIC), kBarrierValueFormat);
    CHECK(still(done, 1));
    hsa_signal_store_screlease(s, 0x0f);  // masked: 0x00
    CHECK(still(done, 1));
    hsa_signal_store_screlease(s, 0x1c);  // masked: 0x10
    CHECK(wait_eq(done, 0));
    // GTE, already met when it is read.
    hsa_signal_t done2 = make_signal(1);
    const uint64_t index2 = barrier_value(q.queue, s, 0x10, -1, HSA_SIGNAL_CONDITION_GTE, done2);
    publish(q.queue, index2, header(HSA_PACKET_TYPE_VENDOR_SPECIFIC), kBarrierValueFormat);
    CHECK(wait_eq(done2, 0));
    CHECK(q.errors.load() == 0);
    for (hsa_signal_t x : {s, done, done2}) CHECK(hsa_signal_destroy(x) == HSA_STATUS_SUCCESS);
  }
}

TEST_CASE("a negative dependency fails a barrier: its completion signal takes the value, the queue an error") {
  Runtime rt;
  for (hsa_agent_t agent : kernel_agents()) {
    for (hsa_packet_type_t type : {HSA_PACKET_TYPE_BARRIER_AND, HSA_PACKET_TYPE_BARRIER_OR}) {
      INFO("agent " << agent.handle << ", packet type " << type);
      Queue q(agent);
      // For OR, a met dependency beside the failed one: the failure wins.
      hsa_signal_t met = make_signal(0), failed = make_signal(-7), done = make_signal(1);
      barrier(q.queue, type, {met, failed}, done);
      CHECK(wait_eq(done, -7));
      REQUIRE(q.wait_error());
      CHECK(q.last_error.load() == HSA_STATUS_ERROR);
      for (hsa_signal_t x : {met, failed, done}) CHECK(hsa_signal_destroy(x) == HSA_STATUS_SUCCESS);
    }
  }
}

TEST_CASE("a malformed header fails the queue with INVALID_PACKET_FORMAT before the packet runs") {
  Runtime rt;
  struct Bad {
    const char* what;
    uint16_t header;
    uint16_t second;  // the header's second word (a vendor packet's format)
  };
  const uint16_t ok_and = header(HSA_PACKET_TYPE_BARRIER_AND);
  const Bad bads[] = {
      {"reserved acquire fence scope", uint16_t(ok_and | (3u << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE)), 0},
      {"reserved release fence scope", uint16_t(ok_and | (3u << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE)), 0},
      {"a reserved header bit", uint16_t(ok_and | (1u << 13)), 0},
      {"an agent dispatch packet", header(HSA_PACKET_TYPE_AGENT_DISPATCH), 0},
      {"an unknown packet type", uint16_t((ok_and & ~0xffu) | 7u), 0},
      {"an unknown vendor format", header(HSA_PACKET_TYPE_VENDOR_SPECIFIC), 0x7f},
      {"a barrier-value condition past GTE", header(HSA_PACKET_TYPE_VENDOR_SPECIFIC), kBarrierValueFormat},
  };
  for (hsa_agent_t agent : kernel_agents()) {
    for (const Bad& bad : bads) {
      INFO("agent " << agent.handle << ": " << bad.what);
      Queue q(agent);
      hsa_signal_t dep = make_signal(0), done = make_signal(1);
      uint64_t index = 0;
      if (bad.second == kBarrierValueFormat) {
        index = barrier_value(q.queue, dep, 0, -1, 9, done);  // condition 9: none
      } else {
        index = barrier(q.queue, HSA_PACKET_TYPE_BARRIER_AND, {dep}, done, false, /*do_publish=*/false);
      }
      publish(q.queue, index, bad.header, bad.second);
      REQUIRE(q.wait_error());
      CHECK(q.last_error.load() == HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
      CHECK(still(done, 1));  // it never ran
      CHECK(q.errors.load() == 1);
      for (hsa_signal_t x : {dep, done}) CHECK(hsa_signal_destroy(x) == HSA_STATUS_SUCCESS);
    }
  }
}

TEST_CASE("one system event handler per runtime, refused twice, forgotten at the last hsa_shut_down") {
  auto handler = [](const hsa_amd_event_t*, void*) { return HSA_STATUS_SUCCESS; };
  int data = 0;
  CHECK(hsa_amd_register_system_event_handler(handler, &data) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  {
    Runtime rt;
    CHECK(hsa_amd_register_system_event_handler(nullptr, &data) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_register_system_event_handler(handler, &data) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_register_system_event_handler(handler, &data) == HSA_STATUS_ERROR);
    // A nested hsa_init keeps it.
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_register_system_event_handler(handler, nullptr) == HSA_STATUS_ERROR);
  }
  Runtime again;
  CHECK(hsa_amd_register_system_event_handler(handler, nullptr) == HSA_STATUS_SUCCESS);
}

}  // TEST_SUITE
