// Issue of a recorded program into an AQL ring (see issue.h).
#include "issue.h"

#include <pthread.h>

#include <mutex>

#include <cstddef>
#include <cstring>
#include <new>
#include <vector>

#include "common.h"
#include "device_library.h"
#include "packet_log.h"
#include "trace.h"
#include "generated/vuid_ids.h"
#include "issue_internal.h"

namespace xgpu::amdgpu {

// The shared header mirrors hsa.h for device code; keep them equal.
static_assert(XGPU_AMDGPU_AQL_PACKET_SIZE == sizeof(hsa_kernel_dispatch_packet_t));
static_assert(XGPU_AMDGPU_AQL_PACKET_SIZE == sizeof(hsa_barrier_and_packet_t));
static_assert(XGPU_AMDGPU_AQL_PACKET_TYPE_INVALID == HSA_PACKET_TYPE_INVALID);
static_assert(XGPU_AMDGPU_AQL_PACKET_TYPE_KERNEL_DISPATCH == HSA_PACKET_TYPE_KERNEL_DISPATCH);
static_assert(XGPU_AMDGPU_AQL_PACKET_TYPE_BARRIER_AND == HSA_PACKET_TYPE_BARRIER_AND);
static_assert(XGPU_AMDGPU_AQL_DISPATCH_GRID_SIZE_OFFSET == offsetof(hsa_kernel_dispatch_packet_t, grid_size_x));
static_assert(XGPU_AMDGPU_AQL_DISPATCH_KERNARG_ADDRESS_OFFSET ==
              offsetof(hsa_kernel_dispatch_packet_t, kernarg_address));
static_assert(XGPU_AMDGPU_AQL_BARRIER_DEP_SIGNAL_OFFSET == offsetof(hsa_barrier_and_packet_t, dep_signal));
static_assert(XGPU_AMDGPU_AQL_BARRIER_DEP_SIGNAL_COUNT ==
              sizeof(hsa_barrier_and_packet_t::dep_signal) / sizeof(hsa_signal_t));
static_assert(offsetof(hsa_kernel_dispatch_packet_t, completion_signal) ==
              offsetof(hsa_barrier_and_packet_t, completion_signal),
              "the patch kernel turns a dispatch into a barrier-AND keeping the completion signal");
static_assert((XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR >> HSA_PACKET_HEADER_WIDTH_TYPE) == 0 &&
                  XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR > HSA_PACKET_TYPE_BARRIER_OR,
              "the limit-error packet type must be a valid 8-bit type no processor accepts");

namespace {

using namespace issue_impl;

// Bytes of an AQL packet header + setup word, published together.
constexpr size_t kHeaderWordBytes = sizeof(uint32_t);
// Marks a packet slot that issue leaves unpublished (DYNAMIC dispatch).
constexpr uint32_t kUnpublished = UINT32_MAX;
// Setup dimensions field value for a barrier-AND (no setup).
constexpr uint32_t kNoSetup = 0;

uint32_t make_setup(uint32_t dimensions) {
  return dimensions << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
}

uint32_t make_word(uint16_t header, uint32_t setup) { return uint32_t(header) | (setup << 16); }

// Which API parameter a reference of a command came from, and the rules on
// its resolved offset and length (string literals; nullptr where the command
// has none). Nothing here allocates: messages are built on the error path.
struct RefOrigin {
  const char* parameter;   // e.g. "pCounts", "pDst"; nullptr for a pipeline binding
  uint32_t binding;        // the pipeline binding's index (parameter == nullptr)
  const char* offset_vuid; // rule on the alignment of the resolved offset
  const char* size_vuid;   // rule on the resolved length
  // "pDst", "binding 1 (xgpuCmdBindBuffers pBuffers)"
  std::string name() const {
    return parameter ? std::string(parameter)
                     : "binding " + std::to_string(binding) + " (xgpuCmdBindBuffers pBuffers)";
  }
  // " [XGPU-VUID-...]" for a rule, "" without one.
  static std::string cite(const char* vuid) { return vuid ? " [" + std::string(vuid) + "]" : std::string(); }
};

// Origin of kernarg patch `patch` (by its kernarg offset) of `command`.
RefOrigin patch_origin(const xgpu_amdgpu_command_header_t* command, const xgpu_amdgpu_kernarg_patch_t& patch) {
  switch (command->type) {
    case XGPU_AMDGPU_COMMAND_FILL:
      return {"pDst", 0, vuid::xgpuCmdFillBuffer_pDst_offset, vuid::xgpuCmdFillBuffer_pDst_size};
    case XGPU_AMDGPU_COMMAND_UPDATE:
      return {"pDst", 0, nullptr, nullptr};
    case XGPU_AMDGPU_COMMAND_TIMESTAMP:
      return {"pDst", 0, vuid::xgpuCmdWriteTimestamp_pDst_offset, nullptr};
    case XGPU_AMDGPU_COMMAND_COPY:
      return {patch.kernarg_offset == offsetof(xgpu_amdgpu_copy_args_t, src) ? "pSrc" : "pDst", 0, nullptr, nullptr};
    default:  // pipeline bindings: 8-byte pointers at the start of the kernargs
      return {nullptr, uint32_t(patch.kernarg_offset / sizeof(uint64_t)),
              vuid::xgpuCmdBindBuffers_pBuffers_offset, nullptr};
  }
}

// Where a reference points, for messages: "binding-table slot 1
// (pBindings[1].offset 2 + offset 0)", "a queue-allocated buffer (offset 16)".
std::string ref_location(const xgpu_amdgpu_buffer_ref_t& ref, const XgpuBufferBinding* bindings,
                         uint32_t binding_count) {
  switch (ref.kind) {
    case XGPU_AMDGPU_BUFFER_REF_KIND_SLOT: {
      std::string out = "binding-table slot " + std::to_string(ref.slot) + " (";
      if (bindings && ref.slot < binding_count)
        out += "pBindings[" + std::to_string(ref.slot) + "].offset " + std::to_string(bindings[ref.slot].offset) + " + ";
      return out + "offset " + std::to_string(ref.offset) + ")";
    }
    case XGPU_AMDGPU_BUFFER_REF_KIND_ALLOCA:
      return "a queue-allocated buffer (offset " + std::to_string(ref.offset) + ")";
    default:
      return "a buffer (offset " + std::to_string(ref.offset) + ")";
  }
}

// Per-issue scratch: header words (and packet images for the log) by
// packet offset. Reused per thread to keep issue allocation-free.
struct IssueScratch {
  std::vector<uint32_t> words;                         // header | setup << 16, or kUnpublished
  std::vector<hsa_kernel_dispatch_packet_t> images;    // packet images for the log
  std::vector<const char*> names;                      // kernel names for the log
};

// The calling thread's scratch, made on first use; nullptr when host memory
// ran out. Held through a pthread key, not a thread_local object: glibc
// aborts the process when it cannot register a thread_local's destructor,
// where a key fails softly. A thread that exits frees its own; the key and
// every scratch still held by a live thread (the main thread's, a runtime
// thread's) go when the driver is unloaded.
struct ScratchNode {
  IssueScratch scratch;
  ScratchNode* prev = nullptr;
  ScratchNode* next = nullptr;
};
struct ScratchKey {
  pthread_key_t key{};
  bool valid = false;
  std::mutex mutex;
  ScratchNode* live = nullptr;  // every thread's scratch, a list under `mutex`
  ScratchKey() { valid = pthread_key_create(&key, &thread_exit) == 0; }
  ~ScratchKey() {
    if (!valid) return;
    pthread_key_delete(key);  // no destructor runs for it any more
    std::lock_guard lock(mutex);
    while (live) {
      ScratchNode* node = live;
      live = node->next;
      delete node;
    }
  }
  void add(ScratchNode* node) {
    std::lock_guard lock(mutex);
    node->next = live;
    if (live) live->prev = node;
    live = node;
  }
  static void thread_exit(void* p);
};
ScratchKey g_scratch_key;
// Static TLS (initial-exec): dynamic TLS of a dlopen()ed library is
// allocated on a thread's first use, and glibc ends the process when that
// allocation fails (host memory exhausted).
__attribute__((tls_model("initial-exec"))) thread_local IssueScratch* t_scratch_ptr = nullptr;

void ScratchKey::thread_exit(void* p) {
  auto* node = static_cast<ScratchNode*>(p);
  {
    std::lock_guard lock(g_scratch_key.mutex);
    if (node->prev) node->prev->next = node->next;
    else g_scratch_key.live = node->next;
    if (node->next) node->next->prev = node->prev;
  }
  delete node;
}

IssueScratch* thread_scratch() {
  if (t_scratch_ptr != nullptr) return t_scratch_ptr;
  if (!g_scratch_key.valid) return nullptr;
  auto* node = new (std::nothrow) ScratchNode();
  if (node == nullptr) return nullptr;
  if (pthread_setspecific(g_scratch_key.key, node) != 0) {
    delete node;
    return nullptr;
  }
  g_scratch_key.add(node);
  t_scratch_ptr = &node->scratch;
  return t_scratch_ptr;
}

class Issuer {
 public:
  Issuer(const CommandBuffer& command_buffer, IssueTarget& target)
      : cb_(command_buffer), program_(command_buffer.program), target_(target) {}

  XgpuResult run();

 private:
  uint8_t* slot(uint32_t packet_offset) const {
    const uint64_t id = target_.first_packet_id + packet_offset;
    const uint64_t mask = uint64_t(target_.aql_queue->size) - 1;
    return static_cast<uint8_t*>(target_.aql_queue->base_address) + (id & mask) * XGPU_AMDGPU_AQL_PACKET_SIZE;
  }
  bool is_last(uint32_t packet_offset) const { return packet_offset + 1 == program_.sizes.packet_count; }
  uint16_t header(uint32_t type, uint32_t packet_offset, bool barrier) const {
    const bool first = packet_offset == 0;
    return make_packet_header(type, barrier || (first && target_.order_after_previous),
                              first ? HSA_FENCE_SCOPE_SYSTEM : HSA_FENCE_SCOPE_AGENT,
                              is_last(packet_offset) ? HSA_FENCE_SCOPE_SYSTEM : HSA_FENCE_SCOPE_AGENT);
  }
  hsa_signal_t completion_for(uint32_t packet_offset) const {
    return is_last(packet_offset) ? target_.completion_signal : hsa_signal_t{0};
  }
  static const char* name_at(uint64_t address) { return reinterpret_cast<const char*>(uintptr_t(address)); }
  XgpuResult fail(const xgpu_amdgpu_command_header_t* command, const std::string& message,
                  XgpuResult result = XGPU_ERROR_INVALID_ARGUMENT) {
    if (target_.out_error)
      *target_.out_error = "command " + std::to_string(command->index) + " (" + function_of(command->type) +
                           "): " + message;
    // The rule the message cites ("[XGPU-VUID-...]"), for its message ID.
    const size_t cited = message.rfind(" [XGPU-VUID-");
    if (target_.out_error_id && cited != std::string::npos && message.back() == ']')
      *target_.out_error_id = message.substr(cited + 2, message.size() - cited - 3);
    return result;
  }

  // Writes bytes 4..63 of a packet (everything but header and setup).
  void write_body(uint32_t packet_offset, const void* packet, uint32_t word, const char* name) {
    std::memcpy(slot(packet_offset) + kHeaderWordBytes, static_cast<const uint8_t*>(packet) + kHeaderWordBytes,
                XGPU_AMDGPU_AQL_PACKET_SIZE - kHeaderWordBytes);
    (*t_scratch_ptr).words[packet_offset] = word;
    if (logging_) {
      std::memcpy(&(*t_scratch_ptr).images[packet_offset], packet, XGPU_AMDGPU_AQL_PACKET_SIZE);
      std::memcpy(&(*t_scratch_ptr).images[packet_offset], &word, sizeof(word));
      (*t_scratch_ptr).names[packet_offset] = name;
    }
  }

  void write_no_op(uint32_t packet_offset, bool barrier) {
    hsa_barrier_and_packet_t packet{};
    packet.completion_signal = completion_for(packet_offset);
    write_body(packet_offset, &packet,
               make_word(header(HSA_PACKET_TYPE_BARRIER_AND, packet_offset, barrier), kNoSetup), nullptr);
  }

  // Kernarg address of a dispatch: the prebuilt copy, or the submission's
  // range filled from the template and patched.
  XgpuResult build_kernargs(const xgpu_amdgpu_command_header_t* command, const xgpu_amdgpu_dispatch_t& dispatch,
                            const xgpu_amdgpu_kernarg_patch_t* patches, void** out_kernargs);
  XgpuResult resolve(const xgpu_amdgpu_command_header_t* command, const RefOrigin& origin,
                     const xgpu_amdgpu_buffer_ref_t& ref, uint32_t alignment, uint64_t* out_address,
                     uint64_t* out_length);
  XgpuResult check_static_counts_memory(const xgpu_amdgpu_command_header_t* command,
                                        const xgpu_amdgpu_buffer_ref_t& counts);
  xgpu_amdgpu_indirect_error_t* error_record(const xgpu_amdgpu_command_dispatch_indirect_t* cmd,
                                             uint64_t record_offset) const;
  void fill_dispatch_packet(const xgpu_amdgpu_dispatch_t& dispatch, void* kernargs, uint32_t packet_offset,
                            const uint32_t grid[3], hsa_kernel_dispatch_packet_t* out_packet) const;
  XgpuResult issue_dispatch(const xgpu_amdgpu_command_header_t* command);
  XgpuResult issue_indirect(const xgpu_amdgpu_command_header_t* command);
  // Publishes the headers of packets [published_, end) that issue wrote.
  void publish(uint32_t end) {
    for (uint32_t i = published_; i < end; ++i) {
      const uint32_t word = (*t_scratch_ptr).words[i];
      if (word == kUnpublished) continue;
      __atomic_store_n(reinterpret_cast<uint32_t*>(slot(i)), word, __ATOMIC_RELEASE);
    }
    if (end > published_) published_ = end;
  }
  // Streaming: makes packets [packet_offset, packet_offset + count) writable,
  // publishing what was written before them and waiting for the packet
  // processor to free their slots. A no-op when the whole submission fits
  // the ring (the runtime reserved it).
  XgpuResult ensure_room(uint32_t packet_offset, uint32_t count) {
    const uint64_t end = target_.first_packet_id + packet_offset + count;
    // While streaming, hand packets over in batches so the processor never
    // runs dry while the writer fills the free half of the ring.
    const bool batch_due = streaming_ && packet_offset - published_ >= kStreamBatch;
    if (end <= room_end_ && !batch_due) return XGPU_SUCCESS;
    publish(packet_offset);
    const uint64_t ring = target_.aql_queue->size;
    // The last packet published: this submission's, or the one before it
    // (UINT64_MAX: none yet on this queue, nothing to ring).
    const uint64_t published_end = target_.first_packet_id + published_;
    const uint64_t doorbell = published_end ? published_end - 1 : UINT64_MAX;
    uint64_t read = 0;
    // Wait for half the ring, not just these slots: the writer then
    // refills in batches instead of trading the core back and forth with
    // the packet processor per packet. (Everything before this command is
    // published, so the processor can get there.)
    const uint64_t wanted = end <= room_end_ ? 0 : end > ring / 2 ? end - ring / 2 : 0;
    if (!target_.wait_for_ring_space(target_, doorbell, wanted, &read)) {
      if (target_.out_error)
        *target_.out_error = "streaming " + std::to_string(program_.sizes.packet_count) +
                             " AQL packets through a ring of " + std::to_string(ring) +
                             ": the queue stopped consuming packets at packet " + std::to_string(packet_offset);
      return XGPU_ERROR_DEVICE_LOST;
    }
    room_end_ = read + ring;
    return XGPU_SUCCESS;
  }
  // Early hand-over: publishes packets [published_, end) and rings the
  // doorbell for them (through wait_for_ring_space, waiting for nothing),
  // so the packet processor starts on them while issue writes the rest.
  void hand_over(uint32_t end) {
    publish(end);
    uint64_t read = 0;
    target_.wait_for_ring_space(target_, target_.first_packet_id + end - 1, /*min_read_index=*/0, &read);
  }
  static uint32_t packets_of(const xgpu_amdgpu_command_header_t* command) { return command_packets(command); }

  const CommandBuffer& cb_;
  const CommandProgram& program_;
  IssueTarget& target_;
  bool logging_ = false;
  uint32_t published_ = 0;         // packets [0, published_) have their headers stored
  uint64_t room_end_ = UINT64_MAX; // packet ids below this may be written now
  bool streaming_ = false;         // the submission is larger than the ring
  bool early_ = false;             // packets are handed over in batches as they are written (hand_over)
  static constexpr uint32_t kEarlyBatch = 64;    // packets handed over at a time when early_
  static constexpr uint32_t kFirstEarlyBatch = 16;  // the first of them: the processor starts sooner
  static constexpr uint32_t kStreamBatch = 256;  // packets published at a time while streaming
};

XgpuResult Issuer::resolve(const xgpu_amdgpu_command_header_t* command, const RefOrigin& origin,
                           const xgpu_amdgpu_buffer_ref_t& ref, uint32_t alignment, uint64_t* out_address,
                           uint64_t* out_length) {
  std::string error;
  if (!resolve_buffer_ref(ref, target_.bindings, target_.binding_count, out_address, out_length, &error))
    return fail(command, origin.name() + ": " + error,
                error.find("-queueAllocated]") != std::string::npos ? XGPU_ERROR_INVALID_USAGE
                                                                     : XGPU_ERROR_INVALID_ARGUMENT);
  if (alignment > 1 && *out_address % alignment != 0)
    return fail(command, origin.name() + " resolves through " +
                             ref_location(ref, target_.bindings, target_.binding_count) + " to address " +
                             hex(*out_address) + ", which is not a multiple of " + std::to_string(alignment) +
                             RefOrigin::cite(origin.offset_vuid));
  return XGPU_SUCCESS;
}

XgpuResult Issuer::build_kernargs(const xgpu_amdgpu_command_header_t* command,
                                  const xgpu_amdgpu_dispatch_t& dispatch,
                                  const xgpu_amdgpu_kernarg_patch_t* patches, void** out_kernargs) {
  if (command->flags & XGPU_AMDGPU_COMMAND_FLAG_PREBUILT_KERNARGS) {
    *out_kernargs = reinterpret_cast<void*>(uintptr_t(dispatch.prebuilt_kernarg_address));
    return XGPU_SUCCESS;
  }
  uint8_t* XGPU_AMDGPU_DEVICE_PTR kernargs = target_.kernarg_base + command->kernarg_offset;
  std::memcpy(kernargs, reinterpret_cast<const void*>(uintptr_t(dispatch.kernarg_template)), dispatch.kernarg_size);
  if (command->flags & XGPU_AMDGPU_COMMAND_FLAG_PRINTS) {  // the slots the recording kept before the kernargs
    const uint64_t tag = command->index;
    std::memcpy(kernargs - kPrintSlotBytes, &tag, sizeof(tag));
    std::memcpy(kernargs - XGPU_PRINT_BUFFER_SLOT_OFFSET, &target_.print_buffer, sizeof(target_.print_buffer));
  }
  for (uint32_t i = 0; i < dispatch.patch_count; ++i) {
    const xgpu_amdgpu_kernarg_patch_t& patch = patches[i];
    uint64_t address = 0, length = 0;
    const uint32_t address_alignment = patch.kind == XGPU_AMDGPU_KERNARG_PATCH_ADDRESS ? patch.alignment : 1;
    const RefOrigin origin = patch_origin(command, patch);
    if (XgpuResult r = resolve(command, origin, patch.ref, address_alignment, &address, &length); r != XGPU_SUCCESS)
      return r;
    uint64_t value = address;
    if ((command->flags & XGPU_AMDGPU_COMMAND_FLAG_BOUNDS_CHECKED) && patch.kind == XGPU_AMDGPU_KERNARG_PATCH_ADDRESS &&
        patch.kernarg_offset % 8 == 0) {
      // A binding of a bounds-checked kernel: its length, which the
      // kernel's checks read (the recording kept the slots).
      const uint64_t binding = patch.kernarg_offset / 8;
      std::memcpy(kernargs - XGPU_BOUNDS_LENGTH_SLOT_OFFSET(binding), &length, sizeof(length));
    }
    if (patch.kind == XGPU_AMDGPU_KERNARG_PATCH_LENGTH) {
      if (length == 0 || (patch.alignment > 1 && length % patch.alignment != 0))
        return fail(command, origin.name() + " resolves through " +
                                 ref_location(patch.ref, target_.bindings, target_.binding_count) + " to " +
                                 std::to_string(length) + " bytes, not a non-zero multiple of " +
                                 std::to_string(patch.alignment) + RefOrigin::cite(origin.size_vuid));
      value = length;
    }
    std::memcpy(kernargs + patch.kernarg_offset, &value, sizeof(value));
  }
  *out_kernargs = kernargs;
  return XGPU_SUCCESS;
}

void Issuer::fill_dispatch_packet(const xgpu_amdgpu_dispatch_t& dispatch, void* kernargs, uint32_t packet_offset,
                                  const uint32_t grid[3], hsa_kernel_dispatch_packet_t* out_packet) const {
  hsa_kernel_dispatch_packet_t& p = *out_packet;
  p = hsa_kernel_dispatch_packet_t{};
  p.setup = uint16_t(make_setup(dispatch.dimensions));
  p.workgroup_size_x = dispatch.workgroup_size[0];
  p.workgroup_size_y = dispatch.workgroup_size[1];
  p.workgroup_size_z = dispatch.workgroup_size[2];
  p.grid_size_x = grid[0];
  p.grid_size_y = grid[1];
  p.grid_size_z = grid[2];
  p.private_segment_size = dispatch.private_segment_size;
  p.group_segment_size = dispatch.group_segment_size;
  p.kernel_object = dispatch.kernel_object;
  p.kernarg_address = kernargs;
  p.completion_signal = completion_for(packet_offset);
}

XgpuResult Issuer::issue_dispatch(const xgpu_amdgpu_command_header_t* command) {
  const auto* cmd = reinterpret_cast<const xgpu_amdgpu_command_dispatch_t*>(command);
  const auto* patches = reinterpret_cast<const xgpu_amdgpu_kernarg_patch_t*>(cmd + 1);
  void* kernargs = nullptr;
  if (XgpuResult r = build_kernargs(command, cmd->dispatch, patches, &kernargs); r != XGPU_SUCCESS) return r;
  uint32_t grid[3];
  for (int d = 0; d < 3; ++d) grid[d] = cmd->dispatch.workgroup_count[d] * cmd->dispatch.workgroup_size[d];
  hsa_kernel_dispatch_packet_t packet;
  fill_dispatch_packet(cmd->dispatch, kernargs, command->packet_offset, grid, &packet);
  trace_dispatch(&packet, name_at(cmd->dispatch.debug_name));
  const bool barrier = command->flags & XGPU_AMDGPU_COMMAND_FLAG_BARRIER;
  write_body(command->packet_offset, &packet,
             make_word(header(HSA_PACKET_TYPE_KERNEL_DISPATCH, command->packet_offset, barrier), packet.setup),
             name_at(cmd->dispatch.debug_name));
  return XGPU_SUCCESS;
}

xgpu_amdgpu_indirect_error_t* Issuer::error_record(const xgpu_amdgpu_command_dispatch_indirect_t* cmd,
                                                   uint64_t record_offset) const {
  uint8_t* XGPU_AMDGPU_DEVICE_PTR extra = target_.kernarg_base + cmd->header.kernarg_offset + cmd->extra_kernarg_offset;
  auto* record = reinterpret_cast<xgpu_amdgpu_indirect_error_t*>(extra + record_offset);
  xgpu_amdgpu_indirect_error_t values{};
  values.command_index = cmd->header.index;
  values.command_flags = cmd->header.flags;
  for (int d = 0; d < 3; ++d) values.max_workgroup_count[d] = cmd->max_workgroup_count[d];
  values.kernel_name = uint64_t(reinterpret_cast<uintptr_t>(name_at(cmd->dispatch.debug_name)));
  values.command_buffer = uint64_t(reinterpret_cast<uintptr_t>(&cb_));
  std::memcpy(record, &values, sizeof(values));
  return record;
}

XgpuResult Issuer::check_static_counts_memory(const xgpu_amdgpu_command_header_t* command,
                                              const xgpu_amdgpu_buffer_ref_t& counts) {
  // Concrete buffers were checked at record time.
  const BufferInfo* buffer = nullptr;
  if (counts.kind == XGPU_AMDGPU_BUFFER_REF_KIND_ALLOCA)
    buffer = reinterpret_cast<const BufferInfo*>(uintptr_t(counts.value));
  else if (counts.kind == XGPU_AMDGPU_BUFFER_REF_KIND_SLOT && counts.slot < target_.binding_count)
    buffer = buffer_info(target_.bindings[counts.slot].buffer);
  if (!buffer) return XGPU_SUCCESS;
  uint32_t memory_type = 0;
  const XgpuMemoryPropertyFlags properties = buffer_memory_properties(buffer, &memory_type);
  if (properties & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT) return XGPU_SUCCESS;
  return fail(command,
              "STATIC pCounts resolves through " + ref_location(counts, target_.bindings, target_.binding_count) +
                  " to memory type " + std::to_string(memory_type) + " (property flags " + hex(properties) +
                  "), which is not XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT; STATIC counts are read on the host at "
                  "issue [" + std::string(vuid::xgpuCmdDispatchIndirect_static_hostVisible) + "]",
              XGPU_ERROR_INVALID_USAGE);
}

XgpuResult Issuer::issue_indirect(const xgpu_amdgpu_command_header_t* command) {
  const auto* cmd = reinterpret_cast<const xgpu_amdgpu_command_dispatch_indirect_t*>(command);
  const auto* patches = reinterpret_cast<const xgpu_amdgpu_kernarg_patch_t*>(cmd + 1);
  const xgpu_amdgpu_dispatch_t& dispatch = cmd->dispatch;
  const char* name = name_at(dispatch.debug_name);
  const bool barrier = command->flags & XGPU_AMDGPU_COMMAND_FLAG_BARRIER;
  constexpr uint32_t kCountsAlignment = sizeof(uint32_t);
  constexpr uint64_t kCountsBytes = 3 * sizeof(uint32_t);
  static const RefOrigin kCounts{"pCounts", 0, vuid::xgpuCmdDispatchIndirect_pCounts_offset, nullptr};
  uint64_t counts_address = 0, counts_length = 0;
  if (XgpuResult r = resolve(command, kCounts, cmd->counts, kCountsAlignment, &counts_address, &counts_length);
      r != XGPU_SUCCESS)
    return r;
  if (counts_length < kCountsBytes)
    return fail(command, "pCounts resolves through " +
                             ref_location(cmd->counts, target_.bindings, target_.binding_count) + " to " +
                             std::to_string(counts_length) +
                             " bytes; 12 (uint32_t workgroup_count[3]) are required "
                             "[" + std::string(vuid::xgpuCmdDispatchIndirect_pCounts_range) + "]");
  void* kernargs = nullptr;
  if (XgpuResult r = build_kernargs(command, dispatch, patches, &kernargs); r != XGPU_SUCCESS) return r;

  if (command->flags & XGPU_AMDGPU_COMMAND_FLAG_INDIRECT_STATIC) {
    // The counts are final: read them now (host-visible memory).
    if (XgpuResult r = check_static_counts_memory(command, cmd->counts); r != XGPU_SUCCESS) return r;
    uint32_t counts[3];
    std::memcpy(counts, reinterpret_cast<const void*>(uintptr_t(counts_address)), sizeof(counts));
    if (counts[0] == 0 || counts[1] == 0 || counts[2] == 0) {
      write_no_op(command->packet_offset, barrier);
      return XGPU_SUCCESS;
    }
    std::string over;
    static const char* const kAxis[3] = {"x", "y", "z"};
    for (int d = 0; d < 3; ++d) {
      if (counts[d] <= cmd->max_workgroup_count[d]) continue;
      over += std::string(over.empty() ? "" : ", ") + kAxis[d] + " " + std::to_string(counts[d]) + " > " +
              std::to_string(cmd->max_workgroup_count[d]);
    }
    if (!over.empty()) {
      // Read on the host: a host-side misuse, not a device fault. The
      // submission fails alone with the rule's ID; the device carries on.
      const std::string labels = labels_around(program_, command->index);
      return fail(command, std::string("STATIC, kernel '") + name + "'" +
                               (labels.empty() ? "" : ", inside debug labels " + labels) +
                               ": the workgroup counts " + triple(counts) + " read from pCounts exceed the limits " +
                               triple(cmd->max_workgroup_count) + " (" + over +
                               "; the pipeline's maxWorkgroupCount: limits.maxWorkgroupCount and limits.maxGridSize) "
                               "[" + std::string(vuid::xgpuCmdDispatchIndirect_static_counts) + "]");
    }
    uint32_t grid[3];
    for (int d = 0; d < 3; ++d) grid[d] = counts[d] * dispatch.workgroup_size[d];
    hsa_kernel_dispatch_packet_t packet;
    fill_dispatch_packet(dispatch, kernargs, command->packet_offset, grid, &packet);
    trace_dispatch(&packet, name);
    write_body(command->packet_offset, &packet,
               make_word(header(HSA_PACKET_TYPE_KERNEL_DISPATCH, command->packet_offset, barrier), packet.setup),
               name);
    return XGPU_SUCCESS;
  }

  // DYNAMIC: packet 0 = patch kernel (barrier bit: after the counts'
  // producer), packet 1 = the dispatch, left INVALID for the patch kernel.
  const uint32_t patch_offset = command->packet_offset;
  const uint32_t dispatch_offset = command->packet_offset + 1;
  uint8_t* const dispatch_slot = slot(dispatch_offset);

  const uint32_t zero_grid[3] = {0, 0, 0};
  hsa_kernel_dispatch_packet_t packet;
  fill_dispatch_packet(dispatch, kernargs, dispatch_offset, zero_grid, &packet);
  trace_dispatch(&packet, name, /*grid_from_device=*/true);
  const uint16_t dispatch_header = header(HSA_PACKET_TYPE_KERNEL_DISPATCH, dispatch_offset, /*barrier=*/true);
  const uint32_t setup = packet.setup;
  __atomic_store_n(reinterpret_cast<uint32_t*>(dispatch_slot),
                   make_word(make_packet_header(HSA_PACKET_TYPE_INVALID, false, HSA_FENCE_SCOPE_NONE,
                                                HSA_FENCE_SCOPE_NONE), kNoSetup),
                   __ATOMIC_RELAXED);
  write_body(dispatch_offset, &packet, make_word(dispatch_header, setup), name);
  (*t_scratch_ptr).words[dispatch_offset] = kUnpublished;

  xgpu_amdgpu_indirect_patch_args_t args{};
  args.counts = reinterpret_cast<const uint32_t*>(uintptr_t(counts_address));
  args.packet = dispatch_slot;
  for (int d = 0; d < 3; ++d) {
    args.workgroup_size[d] = dispatch.workgroup_size[d];
    args.max_workgroup_count[d] = cmd->max_workgroup_count[d];
  }
  args.dispatch_word = make_word(dispatch_header, setup);
  args.no_op_word = make_word(header(HSA_PACKET_TYPE_BARRIER_AND, dispatch_offset, /*barrier=*/true), kNoSetup);
  args.limit_error_word =
      make_word(header(XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR, dispatch_offset, /*barrier=*/true), kNoSetup);
  // The record after the arguments: everything but the counts, which only
  // the patch kernel knows.
  args.error = error_record(cmd, sizeof(xgpu_amdgpu_indirect_patch_args_t));
  uint8_t* XGPU_AMDGPU_DEVICE_PTR patch_kernargs =
      target_.kernarg_base + command->kernarg_offset + cmd->extra_kernarg_offset;
  std::memcpy(patch_kernargs, &args, sizeof(args));

  hsa_kernel_dispatch_packet_t patch{};
  patch.setup = uint16_t(make_setup(1));
  patch.workgroup_size_x = patch.workgroup_size_y = patch.workgroup_size_z = 1;
  patch.grid_size_x = patch.grid_size_y = patch.grid_size_z = 1;
  patch.private_segment_size = cmd->patch_private_segment_size;
  patch.group_segment_size = cmd->patch_group_segment_size;
  patch.kernel_object = cmd->patch_kernel_object;
  patch.kernarg_address = patch_kernargs;
  patch.completion_signal = hsa_signal_t{0};
  write_body(patch_offset, &patch,
             make_word(header(HSA_PACKET_TYPE_KERNEL_DISPATCH, patch_offset, /*barrier=*/true), patch.setup),
             XGPU_AMDGPU_KERNEL_INDIRECT_PATCH);
  return XGPU_SUCCESS;
}

XgpuResult Issuer::run() {
  const IssueSizes& sizes = program_.sizes;
  if (target_.packet_count != sizes.packet_count) {
    if (target_.out_error)
      *target_.out_error = "the submission reserved " + std::to_string(target_.packet_count) +
                           " AQL packets; the command buffer needs " + std::to_string(sizes.packet_count);
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (target_.kernarg_capacity < sizes.kernarg_bytes || (sizes.kernarg_bytes && !target_.kernarg_base)) {
    if (target_.out_error)
      *target_.out_error = "the submission reserved " + std::to_string(target_.kernarg_capacity) +
                           " kernarg bytes; the command buffer needs " + std::to_string(sizes.kernarg_bytes);
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (target_.binding_count < cb_.binding_capacity) {
    if (target_.out_error)
      *target_.out_error = "the binding table has " + std::to_string(target_.binding_count) +
                           " entries; the command buffer was begun with bindingCapacity " +
                           std::to_string(cb_.binding_capacity);
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  logging_ = packet_log_active();
  // A submission larger than the ring is streamed: every packet waits for
  // its slot (ensure_room), the first ones included. (Without a wait
  // function the caller owns the whole range.)
  if (sizes.packet_count > target_.aql_queue->size && target_.wait_for_ring_space) {
    streaming_ = true;
    room_end_ = 0;
  }
  // A program whose commands cannot fail at issue (no reference resolved
  // here) is handed over in batches as it is written: the processor runs
  // the first packets while issue writes the rest. Otherwise nothing is
  // published until every packet is written, so a failed issue runs none.
  early_ = !streaming_ && !program_.resolves_at_issue && sizes.packet_count > kEarlyBatch &&
           target_.wait_for_ring_space;
  // Host memory for the scratch may run out: the submission fails with
  // XGPU_ERROR_OUT_OF_HOST_MEMORY before any packet is written.
  IssueScratch* scratch = thread_scratch();
  try {
    if (scratch == nullptr) throw std::bad_alloc();
    scratch->words.assign(sizes.packet_count, kUnpublished);
    if (logging_) {
      scratch->images.assign(sizes.packet_count, hsa_kernel_dispatch_packet_t{});
      scratch->names.assign(sizes.packet_count, nullptr);
    }
  } catch (const std::bad_alloc&) {
    try {
      if (target_.out_error)
        *target_.out_error = "no host memory for the issue's scratch of " + std::to_string(sizes.packet_count) + " packets";
    } catch (const std::bad_alloc&) {
      // Nor for the message: the result says it.
    }
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }

  // Pass 1: every body, headers untouched (the slots stay INVALID).
  XgpuResult result = XGPU_SUCCESS;
  command_program_for_each(program_, [&](const xgpu_amdgpu_command_header_t* command) {
    if (result != XGPU_SUCCESS) return;
    if (const uint32_t packets = packets_of(command); packets) {
      if (early_ && command->packet_offset - published_ >= (published_ == 0 ? kFirstEarlyBatch : kEarlyBatch))
        hand_over(command->packet_offset);
      result = ensure_room(command->packet_offset, packets);
      if (result != XGPU_SUCCESS) return;
    }
    switch (command->type) {
      case XGPU_AMDGPU_COMMAND_DISPATCH:
      case XGPU_AMDGPU_COMMAND_FILL:
      case XGPU_AMDGPU_COMMAND_COPY:
      case XGPU_AMDGPU_COMMAND_UPDATE:
      case XGPU_AMDGPU_COMMAND_TIMESTAMP:
        result = issue_dispatch(command);
        break;
      case XGPU_AMDGPU_COMMAND_DISPATCH_INDIRECT:
        result = issue_indirect(command);
        break;
      default:  // BARRIER, DEBUG_LABEL: no packets
        break;
    }
  });
  if (result != XGPU_SUCCESS) return result;
  if (program_.command_packet_count == 0) write_no_op(0, false);
  if (program_.trailing_barrier) {
    if (XgpuResult r = ensure_room(sizes.packet_count - 1, 1); r != XGPU_SUCCESS) return r;
    write_no_op(sizes.packet_count - 1, /*barrier=*/true);
  }

  // Pass 2: publish header|setup in packet order; each packet is complete
  // when its header is stored, so the processor may start at once.
  publish(sizes.packet_count);
  if (logging_) {
    for (uint32_t i = 0; i < sizes.packet_count; ++i) {
      const bool unpublished = (*t_scratch_ptr).words[i] == kUnpublished;
      packet_log_packet(target_.aql_queue, target_.first_packet_id + i, &(*t_scratch_ptr).images[i], (*t_scratch_ptr).names[i],
                        unpublished ? "header INVALID until the indirect patch kernel publishes it" : nullptr);
    }
  }
  return XGPU_SUCCESS;
}

}  // namespace

uint16_t make_packet_header(uint32_t type, bool barrier, uint32_t acquire_scope, uint32_t release_scope) {
  return uint16_t((type << HSA_PACKET_HEADER_TYPE) | (uint32_t(barrier) << HSA_PACKET_HEADER_BARRIER) |
                  (acquire_scope << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                  (release_scope << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

bool resolve_buffer_ref(const xgpu_amdgpu_buffer_ref_t& ref, const XgpuBufferBinding* bindings,
                        uint32_t binding_count, uint64_t* out_address, uint64_t* out_length,
                        std::string* out_error) {
  switch (ref.kind) {
    case XGPU_AMDGPU_BUFFER_REF_KIND_CONCRETE:
      *out_address = ref.value + ref.offset;
      *out_length = ref.length;
      return true;
    case XGPU_AMDGPU_BUFFER_REF_KIND_ALLOCA: {
      const auto* buffer = reinterpret_cast<const BufferInfo*>(uintptr_t(ref.value));
      const uint64_t base = buffer->device_address.load(std::memory_order_acquire);
      if (base == 0) {
        *out_error = "a queue-allocated buffer it references has not committed (its xgpuQueueAlloca must come "
                     "earlier on this queue or be waited for) [" + std::string(vuid::xgpuQueueSubmit_pSubmits_queueAllocated) + "]";
        return false;
      }
      *out_address = base + ref.offset;
      *out_length = ref.length == XGPU_AMDGPU_WHOLE_LENGTH ? buffer->size - ref.offset : ref.length;
      return true;
    }
    case XGPU_AMDGPU_BUFFER_REF_KIND_SLOT: {
      if (ref.slot >= binding_count || !bindings) {
        *out_error = "binding-table slot " + std::to_string(ref.slot) + " is beyond the table's " +
                     std::to_string(binding_count) + " entries";
        return false;
      }
      const XgpuBufferBinding& binding = bindings[ref.slot];
      const BufferInfo* buffer = buffer_info(binding.buffer);
      if (!buffer) {
        *out_error = "binding-table slot " + std::to_string(ref.slot) + " holds no buffer";
        return false;
      }
      const uint64_t base = buffer->device_address.load(std::memory_order_acquire);
      if (base == 0) {
        *out_error = "the queue-allocated buffer in binding-table slot " + std::to_string(ref.slot) +
                     " has not committed [" + std::string(vuid::xgpuQueueSubmit_pSubmits_queueAllocated) + "]";
        return false;
      }
      if (binding.offset > buffer->size) {
        *out_error = "binding-table slot " + std::to_string(ref.slot) + ": offset " + std::to_string(binding.offset) +
                     " is beyond the buffer's " + std::to_string(buffer->size) + " bytes";
        return false;
      }
      const uint64_t range = binding.size == XGPU_WHOLE_SIZE ? buffer->size - binding.offset : binding.size;
      const uint64_t length = ref.length == XGPU_AMDGPU_WHOLE_LENGTH
                                  ? (ref.offset <= range ? range - ref.offset : 0)
                                  : ref.length;
      if (ref.offset > range || length > range - ref.offset) {
        *out_error = "the reference (offset " + std::to_string(ref.offset) + ", " +
                     (ref.length == XGPU_AMDGPU_WHOLE_LENGTH ? std::string("whole size")
                                                             : "size " + std::to_string(ref.length)) +
                     ") does not fit binding-table slot " + std::to_string(ref.slot) + " (" +
                     std::to_string(range) + " bytes) [" + std::string(vuid::xgpuQueueSubmit_pSubmits_pBindings_refRange) + "]";
        return false;
      }
      *out_address = base + binding.offset + ref.offset;
      *out_length = length;
      return true;
    }
    default:
      *out_error = "unknown buffer reference kind " + std::to_string(ref.kind);
      return false;
  }
}

XgpuResult issue_program(const CommandBuffer& command_buffer, IssueTarget& target) {
  return Issuer(command_buffer, target).run();
}

}  // namespace xgpu::amdgpu

