#include "queue.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

#include "common.h"
#include "memory_pool.h"
#include "print_buffer.h"
#include "trace.h"
#include "generated/vuid_ids.h"

#include "queue_internal.h"

// AQL packet writing: headers, slots, barrier-AND and the test fault packet.

namespace xgpu::amdgpu {
namespace queue_impl {
// --- AQL packets ----------------------------------------------------------

uint16_t packet_header(hsa_packet_type_t type, bool barrier, hsa_fence_scope_t acquire,
                       hsa_fence_scope_t release) {
  return uint16_t((type << HSA_PACKET_HEADER_TYPE) | ((barrier ? 1u : 0u) << HSA_PACKET_HEADER_BARRIER) |
                  (acquire << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                  (release << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

uint8_t* packet_slot(const Queue* queue, uint64_t packet_id) {
  return static_cast<uint8_t*>(queue->aql->base_address) +
         (packet_id & (uint64_t(queue->aql_packets) - 1)) * kAqlPacketSize;
}

uint32_t packet_type(const Queue* queue, uint64_t packet_id) {
  const uint16_t header =
      __atomic_load_n(reinterpret_cast<const uint16_t*>(packet_slot(queue, packet_id)), __ATOMIC_ACQUIRE);
  return (header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
}

// Writes a barrier-AND packet and publishes its header last. The first packet
// of a submission carries the barrier bit (the queue is in order across
// submissions); system-scope fences make host and other-queue writes visible.
void write_barrier_and(Queue* queue, uint64_t packet_id, const CompletionSignal* const* dependencies,
                       uint32_t dependency_count, hsa_signal_t completion, bool barrier_bit) {
  // Built aside, then copied: the packet log reads the image, never the
  // slot, which the packet processor may consume (and invalidate) as soon
  // as the header is stored.
  hsa_barrier_and_packet_t image{};
  for (uint32_t i = 0; i < kBarrierAndDependencies; ++i)
    image.dep_signal[i] = i < dependency_count ? dependencies[i]->signal : hsa_signal_t{0};
  image.completion_signal = completion;
  const uint32_t header_and_reserved =
      packet_header(HSA_PACKET_TYPE_BARRIER_AND, barrier_bit, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM);
  std::memcpy(&image, &header_and_reserved, sizeof(header_and_reserved));
  uint8_t* slot = static_cast<uint8_t*>(packet_slot(queue, packet_id));
  std::memcpy(slot + sizeof(uint32_t), reinterpret_cast<const uint8_t*>(&image) + sizeof(uint32_t),
              kAqlPacketSize - sizeof(uint32_t));
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), header_and_reserved, __ATOMIC_RELEASE);
  if (packet_log_enabled())
    packet_log_packet(queue->aql, packet_id, &image, nullptr,
                      dependency_count ? "cross-queue wait" : (completion.handle ? "submission end" : "filler"));
}

// Test hook body: an agent-dispatch packet, which a kernel-dispatch queue
// rejects (hsa-cpu reports HSA_STATUS_ERROR_INVALID_PACKET_FORMAT through the
// queue error callback), so the device is lost the way a real queue fault
// loses it.
void write_test_fault(Queue* queue, uint64_t packet_id, hsa_signal_t completion, bool barrier_bit) {
  hsa_agent_dispatch_packet_t image{};  // logged from here, not from the slot (see write_barrier_and)
  image.completion_signal = completion;
  const uint32_t header_and_type =
      packet_header(HSA_PACKET_TYPE_AGENT_DISPATCH, barrier_bit, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM);
  std::memcpy(&image, &header_and_type, sizeof(header_and_type));
  uint8_t* slot = static_cast<uint8_t*>(packet_slot(queue, packet_id));
  std::memcpy(slot + sizeof(uint32_t), reinterpret_cast<const uint8_t*>(&image) + sizeof(uint32_t),
              kAqlPacketSize - sizeof(uint32_t));
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), header_and_type, __ATOMIC_RELEASE);
  if (packet_log_enabled()) packet_log_packet(queue->aql, packet_id, &image, nullptr, "injected fault (test hook)");
}
}  // namespace queue_impl

using namespace queue_impl;

}  // namespace xgpu::amdgpu
