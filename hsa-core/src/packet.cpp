#include <hsa_core/packet.h>

#include <hsa_core/signal.h>

namespace hsa_core {
namespace {

constexpr uint16_t field(uint16_t header, uint32_t shift, uint32_t width) {
  return uint16_t((header >> shift) & ((1u << width) - 1u));
}
constexpr uint32_t kReservedShift =
    uint32_t(HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE) + uint32_t(HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE);

}  // namespace

PacketHeader decode_header(uint16_t header) {
  PacketHeader h;
  h.type = field(header, HSA_PACKET_HEADER_TYPE, HSA_PACKET_HEADER_WIDTH_TYPE);
  h.barrier = field(header, HSA_PACKET_HEADER_BARRIER, HSA_PACKET_HEADER_WIDTH_BARRIER) != 0;
  h.acquire_scope =
      field(header, HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE, HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE);
  h.release_scope =
      field(header, HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE, HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE);
  h.reserved = uint16_t(header >> kReservedShift);
  return h;
}

hsa_status_t check_header(const void* packet, uint16_t header, const PacketSupport& support, const char** what,
                          uint64_t* value) {
  const PacketHeader h = decode_header(header);
  auto refuse = [&](const char* why, uint64_t v) {
    *what = why;
    *value = v;
    return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
  };
  if (h.acquire_scope > HSA_FENCE_SCOPE_SYSTEM) return refuse("reserved acquire fence scope in header", header);
  if (h.release_scope > HSA_FENCE_SCOPE_SYSTEM) return refuse("reserved release fence scope in header", header);
  if (h.reserved != 0) return refuse("reserved header bits set", header);
  switch (h.type) {
    case HSA_PACKET_TYPE_KERNEL_DISPATCH:
    case HSA_PACKET_TYPE_BARRIER_AND:
    case HSA_PACKET_TYPE_BARRIER_OR:
      return HSA_STATUS_SUCCESS;
    case HSA_PACKET_TYPE_VENDOR_SPECIFIC: {
      const auto* p = static_cast<const hsa_amd_barrier_value_packet_t*>(packet);
      if (p->header.AmdFormat != HSA_AMD_PACKET_TYPE_BARRIER_VALUE)
        return refuse("unknown AMD vendor packet format", p->header.AmdFormat);
      if (!support.barrier_value) return refuse("barrier-value packets are not supported by this queue", h.type);
      if (!valid_condition(p->cond)) return refuse("barrier-value condition", p->cond);
      return HSA_STATUS_SUCCESS;
    }
    case HSA_PACKET_TYPE_AGENT_DISPATCH:
      return refuse("agent dispatch packets are not supported by this queue", h.type);
    default:
      return refuse("unknown packet type", h.type);
  }
}

Dependencies barrier_dependencies(const hsa_barrier_and_packet_t& packet, bool is_or, int64_t* failed_value) {
  bool all = true, any = false;
  for (const hsa_signal_t& dependency : packet.dep_signal) {
    Signal* signal = to_signal(dependency);
    if (signal == nullptr) continue;
    const int64_t v = signal->load_acquire();
    if (v < 0) {
      *failed_value = v;
      return Dependencies::kFailed;
    }
    if (v == 0) {
      any = true;
    } else {
      all = false;
    }
  }
  return (is_or ? any : all) ? Dependencies::kMet : Dependencies::kWaiting;
}

bool barrier_value_met(const hsa_amd_barrier_value_packet_t& packet) {
  Signal* signal = to_signal(packet.signal);
  if (signal == nullptr) return true;
  return condition_met(static_cast<hsa_signal_condition_t>(packet.cond), signal->load_acquire() & packet.mask,
                       packet.value);
}

void PacketProcessor::loop() {
  hsa_queue_t& hq = amd_->hsa_queue;
  const uint64_t mask = uint64_t(hq.size) - 1;
  auto* ring = static_cast<uint8_t*>(hq.base_address);
  Signal* doorbell = to_signal(hq.doorbell_signal);
  constexpr size_t kPacketBytes = 64;
  while (!stopping()) {
    // The doorbell before the slot: a ring after this load is seen by the
    // wait that follows.
    const int64_t rung = doorbell->load_acquire();
    if (failed()) {
      if (!wait_failed(rung)) break;
      continue;
    }
    const uint64_t read = __atomic_load_n(&amd_->read_dispatch_id, __ATOMIC_RELAXED);
    uint8_t* slot = ring + (read & mask) * kPacketBytes;
    const uint16_t header = load_header(slot);
    if (decode_header(header).type == HSA_PACKET_TYPE_INVALID) {
      idle(read, slot, rung);
      continue;
    }
    const char* what = nullptr;
    uint64_t value = 0;
    if (const hsa_status_t refused = check_header(slot, header, support_, &what, &value);
        refused != HSA_STATUS_SUCCESS) {
      refuse(read, refused, what, value);
      continue;
    }
    const uint64_t ran = run_packets(read, slot, header);
    if (ran == 0) continue;
    // Hand the slots back, then the read index: a producer waiting for room
    // writes into a slot only after the read index has passed it.
    for (uint64_t j = read; j < read + ran; ++j)
      __atomic_store_n(reinterpret_cast<uint16_t*>(ring + (j & mask) * kPacketBytes), kInvalidHeader,
                       __ATOMIC_RELAXED);
    __atomic_store_n(&amd_->read_dispatch_id, read + ran, __ATOMIC_RELEASE);
  }
}

}  // namespace hsa_core
