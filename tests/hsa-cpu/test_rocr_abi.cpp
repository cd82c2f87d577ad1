// The ROCR ABI check. This program is linked against Debian's ROCR
// (-lhsa-runtime64) and run with LD_LIBRARY_PATH pointing at hsa-cpu's
// private libhsa-runtime64.so.1 folder: it must find the CPU agent, see
// ROCR's queue and signal layouts (checked at compile time and on live
// objects), and every entry point ROCR exports and the ICD imports must be
// exported with ROCR's version tag.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>
#include <hsa/amd_hsa_queue.h>
#include <hsa/amd_hsa_signal.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>

#include <doctest/doctest.h>

// ROCR's layouts: compiled code and tools read these fields directly.
static_assert(sizeof(hsa_queue_t) == 40);
static_assert(offsetof(amd_queue_t, hsa_queue) == 0);
static_assert(offsetof(amd_queue_t, write_dispatch_id) == 56);
static_assert(offsetof(amd_queue_t, max_cu_id) == 72);
static_assert(offsetof(amd_queue_t, read_dispatch_id) == 128);
static_assert(offsetof(amd_queue_t, read_dispatch_id_field_base_byte_offset) == 136);
static_assert(offsetof(amd_queue_t, queue_properties) == 180);
static_assert(offsetof(amd_queue_t, queue_inactive_signal) == 192);
static_assert(sizeof(amd_queue_t) == 256);
static_assert(offsetof(amd_signal_t, kind) == 0);
static_assert(offsetof(amd_signal_t, value) == 8);
static_assert(offsetof(amd_signal_t, event_mailbox_ptr) == 16);
static_assert(offsetof(amd_signal_t, event_id) == 24);
static_assert(offsetof(amd_signal_t, start_ts) == 32);
static_assert(offsetof(amd_signal_t, end_ts) == 40);
static_assert(offsetof(amd_signal_t, queue_ptr) == 48);
static_assert(sizeof(amd_signal_t) == 64);
// Every other field of the amd_* structures that compiled code reads or
// writes in place (ROCR's offsets; hsa-cpu uses the installed headers, so
// these pin those headers to ROCR's ABI).
static_assert(offsetof(amd_queue_t, reserved1) == 40);
static_assert(offsetof(amd_queue_t, group_segment_aperture_base_hi) == 64);
static_assert(offsetof(amd_queue_t, private_segment_aperture_base_hi) == 68);
static_assert(offsetof(amd_queue_t, max_wave_id) == 76);
static_assert(offsetof(amd_queue_t, max_legacy_doorbell_dispatch_id_plus_1) == 80);
static_assert(offsetof(amd_queue_t, legacy_doorbell_lock) == 88);
static_assert(offsetof(amd_queue_t, reserved2) == 92);
static_assert(offsetof(amd_queue_t, compute_tmpring_size) == 140);
static_assert(offsetof(amd_queue_t, scratch_resource_descriptor) == 144);
static_assert(offsetof(amd_queue_t, scratch_backing_memory_location) == 160);
static_assert(offsetof(amd_queue_t, scratch_backing_memory_byte_size) == 168);
static_assert(offsetof(amd_queue_t, scratch_wave64_lane_byte_size) == 176);
static_assert(offsetof(amd_queue_t, reserved3) == 184);
static_assert(offsetof(amd_queue_t, reserved4) == 200);
static_assert(alignof(amd_queue_t) == 64);
static_assert(offsetof(amd_signal_t, hardware_doorbell_ptr) == 8);
static_assert(offsetof(amd_signal_t, reserved1) == 28);
static_assert(offsetof(amd_signal_t, reserved3) == 56);
static_assert(alignof(amd_signal_t) == 64);
// The AMD vendor packet (barrier-value) the packet processor reads.
static_assert(offsetof(hsa_amd_vendor_packet_header_t, header) == 0);
static_assert(offsetof(hsa_amd_vendor_packet_header_t, AmdFormat) == 2);
static_assert(sizeof(hsa_amd_vendor_packet_header_t) == 4);
static_assert(offsetof(hsa_amd_barrier_value_packet_t, reserved0) == 4);
static_assert(offsetof(hsa_amd_barrier_value_packet_t, signal) == 8);
static_assert(offsetof(hsa_amd_barrier_value_packet_t, value) == 16);
static_assert(offsetof(hsa_amd_barrier_value_packet_t, mask) == 24);
static_assert(offsetof(hsa_amd_barrier_value_packet_t, cond) == 32);
static_assert(offsetof(hsa_amd_barrier_value_packet_t, reserved1) == 36);
static_assert(offsetof(hsa_amd_barrier_value_packet_t, completion_signal) == 56);
static_assert(sizeof(hsa_amd_barrier_value_packet_t) == 64);
// Structures the runtime fills for the application to read.
static_assert(offsetof(hsa_amd_event_t, memory_fault) == 8);
static_assert(sizeof(hsa_amd_event_t) == 32);
static_assert(offsetof(hsa_amd_gpu_memory_fault_info_t, virtual_address) == 8);
static_assert(offsetof(hsa_amd_gpu_memory_fault_info_t, fault_reason_mask) == 16);
static_assert(sizeof(hsa_amd_gpu_memory_fault_info_t) == 24);
static_assert(offsetof(hsa_amd_profiling_dispatch_time_t, end) == 8);
static_assert(sizeof(hsa_amd_profiling_dispatch_time_t) == 16);
static_assert(offsetof(hsa_amd_profiling_async_copy_time_t, end) == 8);
static_assert(sizeof(hsa_amd_profiling_async_copy_time_t) == 16);
static_assert(offsetof(hsa_amd_pointer_info_t, type) == 4);
static_assert(offsetof(hsa_amd_pointer_info_t, agentBaseAddress) == 8);
static_assert(offsetof(hsa_amd_pointer_info_t, hostBaseAddress) == 16);
static_assert(offsetof(hsa_amd_pointer_info_t, sizeInBytes) == 24);
static_assert(offsetof(hsa_amd_pointer_info_t, userData) == 32);
static_assert(offsetof(hsa_amd_pointer_info_t, agentOwner) == 40);
static_assert(offsetof(hsa_amd_pointer_info_t, global_flags) == 48);
static_assert(sizeof(hsa_amd_pointer_info_t) == 56);
static_assert(offsetof(hsa_amd_memory_pool_link_info_t, max_bandwidth) == 12);
static_assert(offsetof(hsa_amd_memory_pool_link_info_t, link_type) == 20);
static_assert(offsetof(hsa_amd_memory_pool_link_info_t, numa_distance) == 24);
static_assert(sizeof(hsa_amd_memory_pool_link_info_t) == 28);
static_assert(offsetof(hsa_amd_hdp_flush_t, HDP_REG_FLUSH_CNTL) == 8);
static_assert(sizeof(hsa_amd_hdp_flush_t) == 16);

namespace {

// Every name ROCR 5.2 (libhsa-runtime64.so.1, version ROCR_1) exports; the
// ICD may import any of them, and hsa-cpu defines them all.
const char* const kRocrExports[] = {
    "hsa_agent_extension_supported",
    "hsa_agent_get_exception_policies",
    "hsa_agent_get_info",
    "hsa_agent_iterate_caches",
    "hsa_agent_iterate_isas",
    "hsa_agent_iterate_regions",
    "hsa_agent_major_extension_supported",
    "hsa_amd_agent_iterate_memory_pools",
    "hsa_amd_agent_memory_pool_get_info",
    "hsa_amd_agents_allow_access",
    "hsa_amd_async_function",
    "hsa_amd_coherency_get_type",
    "hsa_amd_coherency_set_type",
    "hsa_amd_deregister_deallocation_callback",
    "hsa_amd_image_create",
    "hsa_amd_image_get_info_max_dim",
    "hsa_amd_interop_map_buffer",
    "hsa_amd_interop_unmap_buffer",
    "hsa_amd_ipc_memory_attach",
    "hsa_amd_ipc_memory_create",
    "hsa_amd_ipc_memory_detach",
    "hsa_amd_ipc_signal_attach",
    "hsa_amd_ipc_signal_create",
    "hsa_amd_memory_async_copy",
    "hsa_amd_memory_async_copy_rect",
    "hsa_amd_memory_fill",
    "hsa_amd_memory_lock",
    "hsa_amd_memory_lock_to_pool",
    "hsa_amd_memory_migrate",
    "hsa_amd_memory_pool_allocate",
    "hsa_amd_memory_pool_can_migrate",
    "hsa_amd_memory_pool_free",
    "hsa_amd_memory_pool_get_info",
    "hsa_amd_memory_unlock",
    "hsa_amd_pointer_info",
    "hsa_amd_pointer_info_set_userdata",
    "hsa_amd_profiling_async_copy_enable",
    "hsa_amd_profiling_convert_tick_to_system_domain",
    "hsa_amd_profiling_get_async_copy_time",
    "hsa_amd_profiling_get_dispatch_time",
    "hsa_amd_profiling_set_profiler_enabled",
    "hsa_amd_queue_cu_get_mask",
    "hsa_amd_queue_cu_set_mask",
    "hsa_amd_queue_set_priority",
    "hsa_amd_register_deallocation_callback",
    "hsa_amd_register_system_event_handler",
    "hsa_amd_signal_async_handler",
    "hsa_amd_signal_create",
    "hsa_amd_signal_value_pointer",
    "hsa_amd_signal_wait_any",
    "hsa_amd_svm_attributes_get",
    "hsa_amd_svm_attributes_set",
    "hsa_amd_svm_prefetch_async",
    "hsa_cache_get_info",
    "hsa_code_object_deserialize",
    "hsa_code_object_destroy",
    "hsa_code_object_get_info",
    "hsa_code_object_get_symbol",
    "hsa_code_object_get_symbol_from_name",
    "hsa_code_object_iterate_symbols",
    "hsa_code_object_reader_create_from_file",
    "hsa_code_object_reader_create_from_memory",
    "hsa_code_object_reader_destroy",
    "hsa_code_object_serialize",
    "hsa_code_symbol_get_info",
    "hsa_executable_agent_global_variable_define",
    "hsa_executable_create",
    "hsa_executable_create_alt",
    "hsa_executable_destroy",
    "hsa_executable_freeze",
    "hsa_executable_get_info",
    "hsa_executable_get_symbol",
    "hsa_executable_get_symbol_by_name",
    "hsa_executable_global_variable_define",
    "hsa_executable_iterate_agent_symbols",
    "hsa_executable_iterate_program_symbols",
    "hsa_executable_iterate_symbols",
    "hsa_executable_load_agent_code_object",
    "hsa_executable_load_code_object",
    "hsa_executable_load_program_code_object",
    "hsa_executable_readonly_variable_define",
    "hsa_executable_symbol_get_info",
    "hsa_executable_validate",
    "hsa_executable_validate_alt",
    "hsa_ext_image_clear",
    "hsa_ext_image_copy",
    "hsa_ext_image_create",
    "hsa_ext_image_create_with_layout",
    "hsa_ext_image_data_get_info",
    "hsa_ext_image_data_get_info_with_layout",
    "hsa_ext_image_destroy",
    "hsa_ext_image_export",
    "hsa_ext_image_get_capability",
    "hsa_ext_image_get_capability_with_layout",
    "hsa_ext_image_import",
    "hsa_ext_program_add_module",
    "hsa_ext_program_create",
    "hsa_ext_program_destroy",
    "hsa_ext_program_finalize",
    "hsa_ext_program_get_info",
    "hsa_ext_program_iterate_modules",
    "hsa_ext_sampler_create",
    "hsa_ext_sampler_destroy",
    "hsa_extension_get_name",
    "hsa_init",
    "hsa_isa_compatible",
    "hsa_isa_from_name",
    "hsa_isa_get_exception_policies",
    "hsa_isa_get_info",
    "hsa_isa_get_info_alt",
    "hsa_isa_get_round_method",
    "hsa_isa_iterate_wavefronts",
    "hsa_iterate_agents",
    "hsa_memory_allocate",
    "hsa_memory_assign_agent",
    "hsa_memory_copy",
    "hsa_memory_deregister",
    "hsa_memory_free",
    "hsa_memory_register",
    "hsa_queue_add_write_index_acq_rel",
    "hsa_queue_add_write_index_acquire",
    "hsa_queue_add_write_index_relaxed",
    "hsa_queue_add_write_index_release",
    "hsa_queue_add_write_index_scacq_screl",
    "hsa_queue_add_write_index_scacquire",
    "hsa_queue_add_write_index_screlease",
    "hsa_queue_cas_write_index_acq_rel",
    "hsa_queue_cas_write_index_acquire",
    "hsa_queue_cas_write_index_relaxed",
    "hsa_queue_cas_write_index_release",
    "hsa_queue_cas_write_index_scacq_screl",
    "hsa_queue_cas_write_index_scacquire",
    "hsa_queue_cas_write_index_screlease",
    "hsa_queue_create",
    "hsa_queue_destroy",
    "hsa_queue_inactivate",
    "hsa_queue_load_read_index_acquire",
    "hsa_queue_load_read_index_relaxed",
    "hsa_queue_load_read_index_scacquire",
    "hsa_queue_load_write_index_acquire",
    "hsa_queue_load_write_index_relaxed",
    "hsa_queue_load_write_index_scacquire",
    "hsa_queue_store_read_index_relaxed",
    "hsa_queue_store_read_index_release",
    "hsa_queue_store_read_index_screlease",
    "hsa_queue_store_write_index_relaxed",
    "hsa_queue_store_write_index_release",
    "hsa_queue_store_write_index_screlease",
    "hsa_region_get_info",
    "hsa_shut_down",
    "hsa_signal_add_acq_rel",
    "hsa_signal_add_acquire",
    "hsa_signal_add_relaxed",
    "hsa_signal_add_release",
    "hsa_signal_add_scacq_screl",
    "hsa_signal_add_scacquire",
    "hsa_signal_add_screlease",
    "hsa_signal_and_acq_rel",
    "hsa_signal_and_acquire",
    "hsa_signal_and_relaxed",
    "hsa_signal_and_release",
    "hsa_signal_and_scacq_screl",
    "hsa_signal_and_scacquire",
    "hsa_signal_and_screlease",
    "hsa_signal_cas_acq_rel",
    "hsa_signal_cas_acquire",
    "hsa_signal_cas_relaxed",
    "hsa_signal_cas_release",
    "hsa_signal_cas_scacq_screl",
    "hsa_signal_cas_scacquire",
    "hsa_signal_cas_screlease",
    "hsa_signal_create",
    "hsa_signal_destroy",
    "hsa_signal_exchange_acq_rel",
    "hsa_signal_exchange_acquire",
    "hsa_signal_exchange_relaxed",
    "hsa_signal_exchange_release",
    "hsa_signal_exchange_scacq_screl",
    "hsa_signal_exchange_scacquire",
    "hsa_signal_exchange_screlease",
    "hsa_signal_group_create",
    "hsa_signal_group_destroy",
    "hsa_signal_group_wait_any_relaxed",
    "hsa_signal_group_wait_any_scacquire",
    "hsa_signal_load_acquire",
    "hsa_signal_load_relaxed",
    "hsa_signal_load_scacquire",
    "hsa_signal_or_acq_rel",
    "hsa_signal_or_acquire",
    "hsa_signal_or_relaxed",
    "hsa_signal_or_release",
    "hsa_signal_or_scacq_screl",
    "hsa_signal_or_scacquire",
    "hsa_signal_or_screlease",
    "hsa_signal_silent_store_relaxed",
    "hsa_signal_silent_store_screlease",
    "hsa_signal_store_relaxed",
    "hsa_signal_store_release",
    "hsa_signal_store_screlease",
    "hsa_signal_subtract_acq_rel",
    "hsa_signal_subtract_acquire",
    "hsa_signal_subtract_relaxed",
    "hsa_signal_subtract_release",
    "hsa_signal_subtract_scacq_screl",
    "hsa_signal_subtract_scacquire",
    "hsa_signal_subtract_screlease",
    "hsa_signal_wait_acquire",
    "hsa_signal_wait_relaxed",
    "hsa_signal_wait_scacquire",
    "hsa_signal_xor_acq_rel",
    "hsa_signal_xor_acquire",
    "hsa_signal_xor_relaxed",
    "hsa_signal_xor_release",
    "hsa_signal_xor_scacq_screl",
    "hsa_signal_xor_scacquire",
    "hsa_signal_xor_screlease",
    "hsa_soft_queue_create",
    "hsa_status_string",
    "hsa_system_extension_supported",
    "hsa_system_get_extension_table",
    "hsa_system_get_info",
    "hsa_system_get_major_extension_table",
    "hsa_system_major_extension_supported",
    "hsa_wavefront_get_info",
};

// Every entry point the AMDGPU ICD imports, from its import list (read at
// build time): each must be exported too.
const char* const kIcdImports[] = {
#define XGPU_HSA_STATUS(name, requirement) #name,
#define XGPU_HSA_VALUE(name, requirement) #name,
#include HSA_CPU_ICD_IMPORTS
#undef XGPU_HSA_STATUS
#undef XGPU_HSA_VALUE
};

// The field of type T at byte `offset` of `object`, read as raw memory: what
// compiled code and tools that know ROCR's layout see.
template <typename T>
T field_at(const void* object, size_t offset) {
  T value;
  memcpy(&value, static_cast<const char*>(object) + offset, sizeof(T));
  return value;
}

hsa_agent_t first_agent() {
  hsa_agent_t agent{};
  REQUIRE(hsa_iterate_agents(
              [](hsa_agent_t a, void* data) {
                *static_cast<hsa_agent_t*>(data) = a;
                return HSA_STATUS_INFO_BREAK;
              },
              &agent) == HSA_STATUS_INFO_BREAK);
  return agent;
}

// Publishes a barrier-AND packet without dependencies at the next slot and
// rings the doorbell; returns its index.
uint64_t submit_barrier(hsa_queue_t* queue, hsa_signal_t completion) {
  const uint64_t index = hsa_queue_add_write_index_screlease(queue, 1);
  auto* packet = reinterpret_cast<hsa_barrier_and_packet_t*>(queue->base_address) + (index & (queue->size - 1));
  // The body only: the processor reads the header concurrently, so it is
  // written last, atomically, as AQL requires.
  memset(reinterpret_cast<char*>(packet) + sizeof(packet->header), 0, sizeof(*packet) - sizeof(packet->header));
  packet->completion_signal = completion;
  __atomic_store_n(&packet->header, uint16_t(HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE),
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(queue->doorbell_signal, hsa_signal_value_t(index));
  return index;
}

}  // namespace

TEST_CASE("queue and signal objects hold their fields at ROCR's offsets") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  const hsa_agent_t agent = first_agent();
  uint32_t compute_units = 0;
  REQUIRE(hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT),
                             &compute_units) == HSA_STATUS_SUCCESS);
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_queue_create(agent, 128, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue) ==
          HSA_STATUS_SUCCESS);
  // amd_queue_t.hsa_queue (offset 0): the hsa_queue_t fields.
  CHECK(field_at<uint32_t>(queue, 0) == HSA_QUEUE_TYPE_MULTI);                            // type
  CHECK((field_at<uint32_t>(queue, 4) & HSA_QUEUE_FEATURE_KERNEL_DISPATCH) != 0);          // features
  void* const ring = field_at<void*>(queue, 8);                                              // base_address
  CHECK(ring == queue->base_address);
  CHECK(reinterpret_cast<uintptr_t>(ring) % 64 == 0);
  const uint64_t doorbell_handle = field_at<uint64_t>(queue, 16);                           // doorbell_signal
  CHECK(doorbell_handle == queue->doorbell_signal.handle);
  CHECK(field_at<uint32_t>(queue, 24) == 128);                                               // size
  CHECK(field_at<uint64_t>(queue, 32) == queue->id);                                         // id
  // The dispatch ids are the indices.
  CHECK(field_at<uint64_t>(queue, 56) == 0);                                                 // write_dispatch_id
  CHECK(field_at<uint64_t>(queue, 128) == 0);                                                // read_dispatch_id
  CHECK(field_at<uint32_t>(queue, 136) == 128);  // read_dispatch_id_field_base_byte_offset
  CHECK(field_at<uint32_t>(queue, 72) == compute_units - 1);                                 // max_cu_id
  uint32_t properties = field_at<uint32_t>(queue, 180);                                      // queue_properties
  CHECK((properties & AMD_QUEUE_PROPERTIES_IS_PTR64) != 0);
  CHECK((properties & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING) == 0);
  REQUIRE(hsa_amd_profiling_set_profiler_enabled(queue, 1) == HSA_STATUS_SUCCESS);
  properties = field_at<uint32_t>(queue, 180);
  CHECK((properties & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING) != 0);
  CHECK(field_at<uint64_t>(queue, 192) == 0);  // queue_inactive_signal: none
  // What a CPU agent has none of reads 0: the aperture bases (64, 68),
  // max_wave_id (76), the legacy doorbell (80, 88), the scratch setup
  // (140..179) and every reserved word.
  for (size_t offset : {40, 44, 48, 52, 64, 68, 76, 80, 84, 88, 140, 144, 148, 152, 156, 160, 168, 176, 184, 188}) {
    CAPTURE(offset);
    CHECK(field_at<uint32_t>(queue, offset) == 0);
  }
  for (size_t offset = 92; offset < 128; offset += 4) CHECK(field_at<uint32_t>(queue, offset) == 0);
  for (size_t offset = 200; offset < 256; offset += 4) CHECK(field_at<uint32_t>(queue, offset) == 0);

  // A user signal: kind, value and (unused) event fields.
  hsa_signal_t signal{};
  REQUIRE(hsa_signal_create(2, 0, nullptr, &signal) == HSA_STATUS_SUCCESS);
  const void* amd_signal = reinterpret_cast<const void*>(signal.handle);
  CHECK(field_at<int64_t>(amd_signal, 0) == AMD_SIGNAL_KIND_USER);                            // kind
  CHECK(field_at<int64_t>(amd_signal, 8) == 2);                                               // value
  CHECK(field_at<uint64_t>(amd_signal, 16) == 0);  // event_mailbox_ptr: no interrupt event
  CHECK(field_at<uint32_t>(amd_signal, 24) == 0);  // event_id
  CHECK(field_at<uint64_t>(amd_signal, 48) == 0);  // queue_ptr: not a queue's signal
  hsa_signal_subtract_screlease(signal, 1);
  CHECK(field_at<int64_t>(amd_signal, 8) == 1);
  volatile hsa_signal_value_t* value = nullptr;
  REQUIRE(hsa_amd_signal_value_pointer(signal, &value) == HSA_STATUS_SUCCESS);
  CHECK(reinterpret_cast<uintptr_t>(value) == signal.handle + 8);

  // Two packets through the queue: the ids advance, the profiled completion
  // carries its timestamps at start_ts/end_ts.
  const uint64_t first = submit_barrier(queue, signal);
  submit_barrier(queue, signal);
  CHECK(first == 0);
  CHECK(field_at<uint64_t>(queue, 56) == 2);
  CHECK(hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, -1, 10000000000ull, HSA_WAIT_STATE_BLOCKED) ==
        -1);
  for (int i = 0; i < 1000 && __atomic_load_n(reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(queue) + 128),
                                              __ATOMIC_ACQUIRE) != 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(field_at<uint64_t>(queue, 128) == 2);
  CHECK(hsa_queue_load_read_index_scacquire(queue) == 2);
  const uint64_t start_ts = field_at<uint64_t>(amd_signal, 32);
  const uint64_t end_ts = field_at<uint64_t>(amd_signal, 40);
  CHECK(end_ts != 0);
  CHECK(start_ts <= end_ts);
  hsa_amd_profiling_dispatch_time_t time{};
  REQUIRE(hsa_amd_profiling_get_dispatch_time(agent, signal, &time) == HSA_STATUS_SUCCESS);
  CHECK(time.end == end_ts);

  // The doorbell: a doorbell signal whose hardware_doorbell_ptr (the value
  // slot's union member) points at the word the last ring wrote, and whose
  // queue_ptr is the queue.
  const void* doorbell = reinterpret_cast<const void*>(doorbell_handle);
  CHECK(field_at<int64_t>(doorbell, 0) == AMD_SIGNAL_KIND_DOORBELL);
  const auto* word = field_at<const volatile uint64_t*>(doorbell, 8);
  REQUIRE((word != nullptr));
  CHECK(*word == 1);  // the index of the last packet rung
  CHECK(field_at<const void*>(doorbell, 48) == queue);

  CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_destroy(signal) == HSA_STATUS_SUCCESS);
  CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("the program linked against ROCR runs on hsa-cpu") {
  Dl_info info{};
  REQUIRE(dladdr(reinterpret_cast<void*>(&hsa_init), &info) != 0);
  INFO("hsa_init comes from " << info.dli_fname);
  CHECK(std::string(info.dli_fname).find("hsa-cpu-rocr/libhsa-runtime64.so.1") != std::string::npos);
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  hsa_agent_t agent{};
  REQUIRE(hsa_iterate_agents(
              [](hsa_agent_t a, void* data) {
                *static_cast<hsa_agent_t*>(data) = a;
                return HSA_STATUS_INFO_BREAK;
              },
              &agent) == HSA_STATUS_INFO_BREAK);
  char name[64] = {};
  REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_SUCCESS);
  CHECK(std::string(name).rfind("hsa-cpu (", 0) == 0);

  // Signals: the handle is an amd_signal_t whose value field is the value.
  hsa_signal_t signal{};
  REQUIRE(hsa_signal_create(3, 0, nullptr, &signal) == HSA_STATUS_SUCCESS);
  auto* amd_signal = reinterpret_cast<amd_signal_t*>(signal.handle);
  CHECK(amd_signal->kind == AMD_SIGNAL_KIND_USER);
  CHECK(amd_signal->value == 3);
  hsa_signal_subtract_screlease(signal, 1);
  CHECK(amd_signal->value == 2);

  // Queues: hsa_queue_t at offset 0 of amd_queue_t; the dispatch ids are
  // the indices the packet processor maintains.
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_queue_create(agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue) ==
          HSA_STATUS_SUCCESS);
  auto* amd_queue = reinterpret_cast<amd_queue_t*>(queue);
  CHECK(amd_queue->read_dispatch_id_field_base_byte_offset == offsetof(amd_queue_t, read_dispatch_id));
  const uint64_t index = hsa_queue_add_write_index_screlease(queue, 1);
  CHECK(amd_queue->write_dispatch_id == index + 1);
  auto* packet = reinterpret_cast<hsa_barrier_and_packet_t*>(queue->base_address) + (index & (queue->size - 1));
  // The body only: the processor reads the header concurrently, so it is
  // written last, atomically, as AQL requires.
  memset(reinterpret_cast<char*>(packet) + sizeof(packet->header), 0, sizeof(*packet) - sizeof(packet->header));
  packet->completion_signal = signal;
  __atomic_store_n(&packet->header, uint16_t(HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE),
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(queue->doorbell_signal, hsa_signal_value_t(index));
  CHECK(hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 1, 10000000000ull, HSA_WAIT_STATE_BLOCKED) == 1);
  for (int i = 0; i < 1000 && __atomic_load_n(&amd_queue->read_dispatch_id, __ATOMIC_ACQUIRE) != index + 1; ++i)
    std::this_thread::yield();
  CHECK(amd_queue->read_dispatch_id == index + 1);
  CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_destroy(signal) == HSA_STATUS_SUCCESS);
  CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("every entry point is exported with version ROCR_1") {
  void* library = dlopen(HSA_CPU_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(library != nullptr);
  int missing = 0;
  for (const char* name : kRocrExports) {
    if (dlvsym(library, name, "ROCR_1") == nullptr) {
      MESSAGE("not exported as " << name << "@ROCR_1");
      ++missing;
    }
  }
  CHECK(missing == 0);
  // The ICD's import list is covered (hsa-cpu's own extensions under their
  // own version).
  REQUIRE(std::size(kIcdImports) > 30);
  for (const char* name : kIcdImports) {
    CAPTURE(name);
    CHECK(dlvsym(library, name, strncmp(name, "hsa_cpu_", 8) == 0 ? "HSA_CPU_1" : "ROCR_1") != nullptr);
  }
  // hsa_cpu_ext.h's entry points are not ROCR's: version HSA_CPU_1 only.
  for (const char* name : {"hsa_cpu_queue_get_kernel_fault"}) {
    CAPTURE(name);
    CHECK(dlvsym(library, name, "HSA_CPU_1") != nullptr);
    CHECK(dlvsym(library, name, "ROCR_1") == nullptr);
    CHECK(dlsym(library, name) == dlvsym(library, name, "HSA_CPU_1"));
  }
  // Nothing else leaks out of the library.
  CHECK(dlsym(library, "_ZN7hsa_cpu7runtimeEv") == nullptr);
  dlclose(library);
}

// The HSA 1.2 runtime specification's examples, strung together as a
// third-party program written against ROCR would: initialize, find a
// kernel-dispatch agent and its kernarg region (hsa_agent_iterate_regions,
// as in the specification, not the AMD pools), create a queue, load a code
// object from a file, dispatch a kernel with an AQL packet and wait on its
// completion signal, then check the kernel's results.
namespace {

hsa_status_t find_dispatch_agent(hsa_agent_t agent, void* data) {
  hsa_agent_feature_t features{};
  hsa_agent_get_info(agent, HSA_AGENT_INFO_FEATURE, &features);
  if (features & HSA_AGENT_FEATURE_KERNEL_DISPATCH) {
    *static_cast<hsa_agent_t*>(data) = agent;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t find_kernarg_region(hsa_region_t region, void* data) {
  hsa_region_segment_t segment{};
  hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment);
  if (segment != HSA_REGION_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  hsa_region_global_flag_t flags{};
  hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags);
  if (flags & HSA_REGION_GLOBAL_FLAG_KERNARG) {
    *static_cast<hsa_region_t*>(data) = region;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

}  // namespace

TEST_CASE("a program written from the HSA specification's examples runs on hsa-cpu") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  hsa_agent_t agent{};
  REQUIRE(hsa_iterate_agents(find_dispatch_agent, &agent) == HSA_STATUS_INFO_BREAK);
  uint32_t queue_max = 0;
  REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &queue_max) == HSA_STATUS_SUCCESS);
  CHECK(queue_max >= 64);
  hsa_region_t kernarg_region{};
  REQUIRE(hsa_agent_iterate_regions(agent, find_kernarg_region, &kernarg_region) == HSA_STATUS_INFO_BREAK);
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_queue_create(agent, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue) ==
          HSA_STATUS_SUCCESS);

  // Load the code object from its file and find the kernel.
  hsa_file_t file = open(HSA_CPU_TEST_KERNELS, O_RDONLY);
  REQUIRE(file >= 0);
  hsa_code_object_reader_t reader{};
  REQUIRE(hsa_code_object_reader_create_from_file(file, &reader) == HSA_STATUS_SUCCESS);
  hsa_executable_t executable{};
  REQUIRE(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                    &executable) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_executable_load_agent_code_object(executable, agent, reader, nullptr, nullptr) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_executable_freeze(executable, nullptr) == HSA_STATUS_SUCCESS);
  hsa_executable_symbol_t symbol{};
  REQUIRE(hsa_executable_get_symbol_by_name(executable, "write_ids.kd", &agent, &symbol) == HSA_STATUS_SUCCESS);
  uint64_t kernel_object = 0;
  uint32_t kernarg_size = 0;
  REQUIRE(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                         &kernarg_size) == HSA_STATUS_SUCCESS);
  CHECK(kernarg_size == sizeof(void*));

  // Arguments in the kernarg region, the output in global memory.
  constexpr uint32_t kItems = 1000;
  uint32_t* out = nullptr;
  REQUIRE(hsa_memory_allocate(kernarg_region, kItems * sizeof(uint32_t), reinterpret_cast<void**>(&out)) ==
          HSA_STATUS_SUCCESS);
  memset(out, 0, kItems * sizeof(uint32_t));
  void* kernarg = nullptr;
  REQUIRE(hsa_memory_allocate(kernarg_region, kernarg_size, &kernarg) == HSA_STATUS_SUCCESS);
  memcpy(kernarg, &out, sizeof(out));

  // The dispatch packet, its header published last.
  hsa_signal_t done{};
  REQUIRE(hsa_signal_create(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
  const uint64_t index = hsa_queue_load_write_index_relaxed(queue);
  auto* packet = reinterpret_cast<hsa_kernel_dispatch_packet_t*>(queue->base_address) + (index & (queue->size - 1));
  memset(reinterpret_cast<char*>(packet) + 4, 0, sizeof(*packet) - 4);
  packet->workgroup_size_x = 64;
  packet->workgroup_size_y = 1;
  packet->workgroup_size_z = 1;
  packet->grid_size_x = kItems;
  packet->grid_size_y = 1;
  packet->grid_size_z = 1;
  packet->kernel_object = kernel_object;
  packet->kernarg_address = kernarg;
  packet->completion_signal = done;
  const uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                          (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                          (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  const uint16_t setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  __atomic_store_n(reinterpret_cast<uint32_t*>(packet), uint32_t(header) | (uint32_t(setup) << 16), __ATOMIC_RELEASE);
  hsa_queue_store_write_index_relaxed(queue, index + 1);
  hsa_signal_store_screlease(queue->doorbell_signal, hsa_signal_value_t(index));
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  for (uint32_t i = 0; i < kItems; ++i) {
    CAPTURE(i);
    REQUIRE(out[i] == i + 1);
  }

  CHECK(hsa_signal_destroy(done) == HSA_STATUS_SUCCESS);
  CHECK(hsa_memory_free(kernarg) == HSA_STATUS_SUCCESS);
  CHECK(hsa_memory_free(out) == HSA_STATUS_SUCCESS);
  CHECK(hsa_executable_destroy(executable) == HSA_STATUS_SUCCESS);
  CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
  close(file);
  CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
}
