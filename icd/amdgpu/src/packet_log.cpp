// Packet log (see packet_log.h).
#include "packet_log.h"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "xgpu_amdgpu/commands.h"

namespace xgpu::amdgpu {
namespace {

std::atomic<PacketLogSink> g_sink{nullptr};
std::atomic<void*> g_sink_user_data{nullptr};

uint32_t header_field(uint16_t header, uint32_t shift, uint32_t width) {
  return (uint32_t(header) >> shift) & ((1u << width) - 1u);
}

const char* packet_type_name(uint32_t type) {
  switch (type) {
    case HSA_PACKET_TYPE_VENDOR_SPECIFIC: return "VENDOR_SPECIFIC";
    case HSA_PACKET_TYPE_INVALID: return "INVALID";
    case HSA_PACKET_TYPE_KERNEL_DISPATCH: return "KERNEL_DISPATCH";
    case HSA_PACKET_TYPE_BARRIER_AND: return "BARRIER_AND";
    case HSA_PACKET_TYPE_AGENT_DISPATCH: return "AGENT_DISPATCH";
    case HSA_PACKET_TYPE_BARRIER_OR: return "BARRIER_OR";
    case XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR: return "LIMIT_ERROR";
    default: return "UNKNOWN";
  }
}

const char* scope_name(uint32_t scope) {
  switch (scope) {
    case HSA_FENCE_SCOPE_NONE: return "none";
    case HSA_FENCE_SCOPE_AGENT: return "agent";
    case HSA_FENCE_SCOPE_SYSTEM: return "system";
    default: return "reserved";
  }
}

}  // namespace

bool packet_log_enabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("XGPU_PACKET_LOG");
    return value && *value && std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

bool packet_log_active() { return packet_log_enabled() || g_sink.load(std::memory_order_acquire) != nullptr; }

void packet_log_set_sink(PacketLogSink sink, void* user_data) {
  g_sink_user_data.store(user_data, std::memory_order_relaxed);
  g_sink.store(sink, std::memory_order_release);
}

void packet_log_packet(const hsa_queue_t* queue, uint64_t packet_id, const void* packet,
                       const char* kernel_name, const char* note) {
  if (PacketLogSink sink = g_sink.load(std::memory_order_acquire))
    sink(g_sink_user_data.load(std::memory_order_relaxed), queue, packet_id, packet, kernel_name);
  if (!packet_log_enabled()) return;
  uint16_t header = 0;
  std::memcpy(&header, packet, sizeof(header));
  const uint32_t type = header_field(header, HSA_PACKET_HEADER_TYPE, HSA_PACKET_HEADER_WIDTH_TYPE);
  const uint32_t barrier = header_field(header, HSA_PACKET_HEADER_BARRIER, HSA_PACKET_HEADER_WIDTH_BARRIER);
  const char* acquire = scope_name(header_field(header, HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE,
                                                HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE));
  const char* release = scope_name(header_field(header, HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE,
                                                HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE));
  char line[512];
  int n = std::snprintf(line, sizeof(line), "xgpu packet: queue %" PRIu64 " id %" PRIu64 " %s barrier=%u acquire=%s release=%s",
                        queue ? queue->id : 0, packet_id, packet_type_name(type), barrier, acquire, release);
  if (type == XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR) {
    // An indirect dispatch whose counts exceed the limits: the grid fields
    // hold the raw counts, kernarg_address the error record.
    hsa_kernel_dispatch_packet_t p;
    std::memcpy(&p, packet, sizeof(p));
    n += std::snprintf(line + n, sizeof(line) - size_t(n),
                       " counts=%ux%ux%u kernel=%s error_record=0x%" PRIx64 " completion=0x%" PRIx64, p.grid_size_x,
                       p.grid_size_y, p.grid_size_z, kernel_name ? kernel_name : "?",
                       uint64_t(reinterpret_cast<uintptr_t>(p.kernarg_address)), p.completion_signal.handle);
  } else if (type == HSA_PACKET_TYPE_KERNEL_DISPATCH || (type == HSA_PACKET_TYPE_INVALID && kernel_name)) {
    hsa_kernel_dispatch_packet_t p;
    std::memcpy(&p, packet, sizeof(p));
    const uint32_t dims = header_field(p.setup, HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS,
                                       HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS);
    n += std::snprintf(line + n, sizeof(line) - size_t(n),
                       " dims=%u workgroup=%ux%ux%u grid=%ux%ux%u private=%u group=%u kernel=%s"
                       " kernarg=0x%" PRIx64 " completion=0x%" PRIx64,
                       dims, p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z, p.grid_size_x,
                       p.grid_size_y, p.grid_size_z, p.private_segment_size, p.group_segment_size,
                       kernel_name ? kernel_name : "?", uint64_t(reinterpret_cast<uintptr_t>(p.kernarg_address)),
                       p.completion_signal.handle);
  } else if (type == HSA_PACKET_TYPE_BARRIER_AND || type == HSA_PACKET_TYPE_BARRIER_OR) {
    hsa_barrier_and_packet_t p;
    std::memcpy(&p, packet, sizeof(p));
    n += std::snprintf(line + n, sizeof(line) - size_t(n), " deps=");
    bool any = false;
    for (const hsa_signal_t& dep : p.dep_signal) {
      if (!dep.handle) continue;
      n += std::snprintf(line + n, sizeof(line) - size_t(n), "%s0x%" PRIx64, any ? "," : "", dep.handle);
      any = true;
    }
    n += std::snprintf(line + n, sizeof(line) - size_t(n), "%s completion=0x%" PRIx64, any ? "" : "none",
                       p.completion_signal.handle);
  }
  if (note && n > 0 && size_t(n) < sizeof(line)) std::snprintf(line + n, sizeof(line) - size_t(n), " (%s)", note);
  std::fprintf(stderr, "%s\n", line);
}

void packet_log_doorbell(const hsa_queue_t* queue, uint64_t doorbell_value, uint64_t read_index,
                         uint64_t write_index) {
  if (!packet_log_enabled()) return;
  std::fprintf(stderr, "xgpu packet: queue %" PRIu64 " doorbell=%" PRIu64 " read_index=%" PRIu64 " write_index=%" PRIu64 "\n",
               queue ? queue->id : 0, doorbell_value, read_index, write_index);
}

}  // namespace xgpu::amdgpu
