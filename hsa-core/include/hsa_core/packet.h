// AQL packets as every back-end's packet processor reads them (packet.cpp):
// the processor's loop (PacketProcessor: the AQL protocol of a queue), the
// header's fields, the checks made before a packet runs, with the status a
// refused packet reports, and the state of a barrier packet's dependencies.
// A back-end says how packets run (hsa-cpu on the queue's own thread and
// its worker pool; hsa-cuda on a CUDA stream) and how an idle processor
// waits; a packet is accepted or refused, a barrier met or failed, and a
// ring's slots and read index handed back alike on every runtime.
//
// Statuses, as ROCR maps its packet processor's errors: a malformed header
// (unknown or unsupported type, reserved header bits, a reserved fence
// scope, an unknown vendor format) is INVALID_PACKET_FORMAT; a dependency of
// a barrier packet with a negative value (its producer failed) fails the
// queue with HSA_STATUS_ERROR and its completion signal takes that value.
//
// Thread-safety: every function may be called from any thread.
#ifndef HSA_CORE_PACKET_H_
#define HSA_CORE_PACKET_H_

#include <hsa/amd_hsa_queue.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstdint>

namespace hsa_core {

// The fields of an AQL packet header (hsa_packet_header_t).
struct PacketHeader {
  uint16_t type = HSA_PACKET_TYPE_INVALID;      // hsa_packet_type_t
  bool barrier = false;                         // wait for every earlier packet to complete
  uint16_t acquire_scope = HSA_FENCE_SCOPE_NONE;  // hsa_fence_scope_t (3 is reserved)
  uint16_t release_scope = HSA_FENCE_SCOPE_NONE;
  uint16_t reserved = 0;                        // the bits above the release scope: must be 0
};
PacketHeader decode_header(uint16_t header);
// The header word of the packet in a ring slot (acquire: the packet's body
// is visible once its header is).
inline uint16_t load_header(const void* slot) {
  return __atomic_load_n(static_cast<const uint16_t*>(slot), __ATOMIC_ACQUIRE);
}
// The header that marks a slot free again (type INVALID).
inline constexpr uint16_t kInvalidHeader = uint16_t(HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE);

// A kernel dispatch packet's dimensions, from its setup field (valid: 1 to 3).
inline uint32_t dispatch_dimensions(uint16_t setup) {
  return (setup >> HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) &
         ((1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS) - 1u);
}

// The packets a back-end's processor runs beyond kernel dispatch and
// barrier-AND/OR (which every processor runs).
struct PacketSupport {
  bool barrier_value = false;  // AMD vendor-specific barrier-value packets (HSA_AMD_PACKET_TYPE_BARRIER_VALUE)
};

// Why a published packet (type not INVALID) is refused before it runs:
// HSA_STATUS_SUCCESS when it is not, else the status the queue reports
// (INVALID_PACKET_FORMAT) with *what saying why and *value the offending
// field's value.
hsa_status_t check_header(const void* packet, uint16_t header, const PacketSupport& support, const char** what,
                          uint64_t* value);

// Where a barrier-AND or barrier-OR packet's dependencies stand. AND: met
// when every non-null dependency is 0 (null ones count as met); OR: met when
// any non-null one is 0 (null ones never meet it; with none, never). A
// negative dependency fails the packet, whatever the others say: its value
// in *failed_value.
enum class Dependencies { kMet, kWaiting, kFailed };
Dependencies barrier_dependencies(const hsa_barrier_and_packet_t& packet, bool is_or, int64_t* failed_value);
// Whether a barrier-value packet's condition holds now ((value & mask)
// compared with packet.value; a null signal always holds).
bool barrier_value_met(const hsa_amd_barrier_value_packet_t& packet);

// The loop of a queue's packet processor, on the processor's thread: the
// packet at the read index runs once its header is published (not INVALID);
// its header is checked first (check_header: a refused packet fails the
// queue with that status); once it ran, its slot is handed back (header
// INVALID) and the read index moves past it, in order. A failed queue runs
// nothing more. The back-end says how a packet runs (run_packets: the one at
// the read index, or a run of several), how an idle processor waits (idle),
// and what a failed queue does until it stops (wait_failed).
class PacketProcessor {
 public:
  PacketProcessor(amd_queue_t* amd, PacketSupport support) : amd_(amd), support_(support) {}
  virtual ~PacketProcessor() = default;
  PacketProcessor(const PacketProcessor&) = delete;
  PacketProcessor& operator=(const PacketProcessor&) = delete;

  // Runs the loop until stopping(), or until a failed queue's wait_failed()
  // says to end.
  void loop();

 protected:
  // The queue is being destroyed (the loop ends).
  virtual bool stopping() = 0;
  // The queue failed (a packet was refused, a kernel faulted, it was
  // inactivated): nothing more runs.
  virtual bool failed() = 0;
  // Nothing is published at `read`: waits until a packet may be (the
  // doorbell rang past `rung`, the value read before the header was), or
  // until stopping().
  virtual void idle(uint64_t read, const void* slot, int64_t rung) = 0;
  // Runs the published packet at `read` (header checked), and, if the
  // back-end chooses, packets after it: how many ran (their slots are handed
  // back), or 0 when none did (the queue failed, or it is stopping).
  virtual uint64_t run_packets(uint64_t read, void* slot, uint16_t header) = 0;
  // The packet at `read` is refused (check_header): the queue fails with
  // `status` (`what`, and the field's `value`, say why).
  virtual void refuse(uint64_t read, hsa_status_t status, const char* what, uint64_t value) = 0;
  // A failed queue: waits for something to change (`rung` as in idle) and
  // returns true to keep looping until stopping(), or returns false to end
  // the loop now.
  virtual bool wait_failed(int64_t rung) = 0;

  amd_queue_t* amd() const { return amd_; }

 private:
  amd_queue_t* const amd_;
  const PacketSupport support_;
};

}  // namespace hsa_core

#endif  // HSA_CORE_PACKET_H_
