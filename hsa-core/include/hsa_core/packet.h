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

#include <hsa_core/signal.h>

namespace hsa_core {

// The fields of an AQL packet header (hsa_packet_header_t).
struct PacketHeader {
  uint16_t type = HSA_PACKET_TYPE_INVALID;      // hsa_packet_type_t
  bool barrier = false;                         // wait for every earlier packet to complete
  uint16_t acquire_scope = HSA_FENCE_SCOPE_NONE;  // hsa_fence_scope_t (3 is reserved)
  uint16_t release_scope = HSA_FENCE_SCOPE_NONE;
  uint16_t reserved = 0;                        // the bits above the release scope: must be 0
};
inline PacketHeader decode_header(uint16_t header) {
  auto field = [header](uint32_t shift, uint32_t width) { return uint16_t((header >> shift) & ((1u << width) - 1u)); };
  PacketHeader h;
  h.type = field(HSA_PACKET_HEADER_TYPE, HSA_PACKET_HEADER_WIDTH_TYPE);
  h.barrier = field(HSA_PACKET_HEADER_BARRIER, HSA_PACKET_HEADER_WIDTH_BARRIER) != 0;
  h.acquire_scope = field(HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE, HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE);
  h.release_scope = field(HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE, HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE);
  h.reserved = uint16_t(header >> (uint32_t(HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE) +
                                   uint32_t(HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE)));
  return h;
}
// A header check_header accepts without looking at the packet: a kernel
// dispatch or barrier-AND/OR with valid fence scopes and no reserved bit
// (the loop's inline test; anything else goes to check_header).
inline bool plain_header(uint16_t header) {
  const PacketHeader h = decode_header(header);
  return (h.type == HSA_PACKET_TYPE_KERNEL_DISPATCH || h.type == HSA_PACKET_TYPE_BARRIER_AND ||
          h.type == HSA_PACKET_TYPE_BARRIER_OR) &&
         h.acquire_scope <= HSA_FENCE_SCOPE_SYSTEM && h.release_scope <= HSA_FENCE_SCOPE_SYSTEM && h.reserved == 0;
}
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
// nothing more. The back-end (Derived, which derives from
// PacketProcessor<Derived>: the hooks are called directly, no virtual call
// per packet) says:
//   bool stopping();   the queue is being destroyed (the loop ends);
//   bool failed();     the queue failed (a packet refused, a kernel
//                      faulted, it was inactivated): nothing more runs;
//   void idle(uint64_t read, const void* slot, int64_t rung);
//                      nothing is published at `read`: wait until a packet
//                      may be (the doorbell rang past `rung`, read before the
//                      header was read again) or stopping();
//   uint64_t run_packets(uint64_t read, void* slot, uint16_t header);
//                      run the published, checked packet at `read` and, if
//                      it chooses, packets after it: how many ran (their
//                      slots are handed back), 0 when none did (failed or
//                      stopping);
//   void refuse(uint64_t read, hsa_status_t status, const char* what, uint64_t value);
//                      the packet at `read` is refused (check_header): the
//                      queue fails with `status`;
//   bool wait_failed(int64_t rung);
//                      a failed queue: wait for a change (as idle) and
//                      return true to keep looping until stopping(), false
//                      to end the loop now.
template <class Derived>
class PacketProcessor {
 public:
  PacketProcessor(amd_queue_t* amd, PacketSupport support) : amd_(amd), support_(support) {}
  PacketProcessor(const PacketProcessor&) = delete;
  PacketProcessor& operator=(const PacketProcessor&) = delete;

  // Runs the loop until stopping(), or until a failed queue's wait_failed()
  // says to end.
  void loop() {
    hsa_queue_t& hq = amd_->hsa_queue;
    const uint64_t mask = uint64_t(hq.size) - 1;
    auto* ring = static_cast<uint8_t*>(hq.base_address);
    Signal* doorbell = to_signal(hq.doorbell_signal);
    constexpr size_t kPacketBytes = 64;
    // Only this loop moves the read index: it is kept here and published.
    uint64_t read = __atomic_load_n(&amd_->read_dispatch_id, __ATOMIC_RELAXED);
    while (!self().stopping()) {
      if (self().failed()) {
        if (!self().wait_failed(doorbell->load_acquire())) break;
        continue;
      }
      uint8_t* slot = ring + (read & mask) * kPacketBytes;
      uint16_t header = load_header(slot);
      if (decode_header(header).type == HSA_PACKET_TYPE_INVALID) {
        // The doorbell, then the slot again: a ring after this load is seen by
        // the wait (only an idle processor reads the doorbell).
        const int64_t rung = doorbell->load_acquire();
        header = load_header(slot);
        if (decode_header(header).type == HSA_PACKET_TYPE_INVALID) {
          self().idle(read, slot, rung);
          continue;
        }
      }
      const char* what = nullptr;
      uint64_t value = 0;
      if (!plain_header(header)) {
        if (const hsa_status_t refused = check_header(slot, header, support_, &what, &value);
            refused != HSA_STATUS_SUCCESS) {
          self().refuse(read, refused, what, value);
          continue;
        }
      }
      const uint64_t ran = self().run_packets(read, slot, header);
      if (ran == 0) continue;
      // Hand the slots back, then the read index: a producer waiting for room
      // writes into a slot only after the read index has passed it.
      for (uint64_t j = read; j < read + ran; ++j)
        __atomic_store_n(reinterpret_cast<uint16_t*>(ring + (j & mask) * kPacketBytes), kInvalidHeader,
                         __ATOMIC_RELAXED);
      read += ran;
      __atomic_store_n(&amd_->read_dispatch_id, read, __ATOMIC_RELEASE);
    }
  }

 protected:
  ~PacketProcessor() = default;
  amd_queue_t* amd() const { return amd_; }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }

  amd_queue_t* const amd_;
  const PacketSupport support_;
};

}  // namespace hsa_core

#endif  // HSA_CORE_PACKET_H_
