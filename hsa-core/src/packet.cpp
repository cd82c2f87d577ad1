#include <hsa_core/packet.h>

#include <hsa_core/signal.h>

namespace hsa_core {


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


}  // namespace hsa_core
