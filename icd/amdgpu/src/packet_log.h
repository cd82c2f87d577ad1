// Packet log: with XGPU_PACKET_LOG=1 in the environment, every AQL packet the
// ICD writes is printed decoded to stderr (queue, packet id, type, barrier
// bit, acquire/release fence scopes, setup dimensions, workgroup and grid
// sizes, segment sizes, kernel name, kernarg address, completion signal), and
// each doorbell with the queue's read and write index. Like ROCR's
// AMD_LOG_LEVEL, for debugging; off by default, one relaxed load per packet
// when off.
//
// The runtime half calls packet_log_packet() for the packets it writes itself
// (dependency barriers, fillers) and packet_log_doorbell() when it rings a
// doorbell; both are declared in seam.h too.
//
// Thread-safety: thread-safe; lines from concurrent submissions do not
// interleave within a line.
#pragma once

#include <hsa/hsa.h>

#include <cstdint>

namespace xgpu::amdgpu {

// True when XGPU_PACKET_LOG is set to a value other than "0" (read once).
bool packet_log_enabled();

// Prints the packet image `packet` (64 bytes, header included, as published)
// written at `packet_id` of `queue`. `kernel_name` and `note` may be nullptr.
void packet_log_packet(const hsa_queue_t* queue, uint64_t packet_id, const void* packet,
                       const char* kernel_name, const char* note);

// Prints a doorbell ring of `queue` with the value stored and the queue's
// indices at that moment.
void packet_log_doorbell(const hsa_queue_t* queue, uint64_t doorbell_value, uint64_t read_index,
                         uint64_t write_index);

// Test hook: when set, every packet logged (whether or not XGPU_PACKET_LOG is
// set) is also passed to `sink`. Not thread-safe against concurrent logging;
// set it before issuing. nullptr removes it.
using PacketLogSink = void (*)(void* user_data, const hsa_queue_t* queue, uint64_t packet_id,
                               const void* packet, const char* kernel_name);
void packet_log_set_sink(PacketLogSink sink, void* user_data);
// True when packets must be captured (log enabled or a sink set).
bool packet_log_active();

}  // namespace xgpu::amdgpu
