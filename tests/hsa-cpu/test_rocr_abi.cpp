// The ROCR ABI check. This program is linked against Debian's ROCR
// (-lhsa-runtime64) and run with LD_LIBRARY_PATH pointing at hsa-cpu's
// private libhsa-runtime64.so.1 folder: it must find the CPU agent, see
// ROCR's queue and signal layouts, and every entry point hsa-cpu defines
// must be exported with ROCR's version tag.
#include <dlfcn.h>
#include <hsa/amd_hsa_queue.h>
#include <hsa/amd_hsa_signal.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstddef>
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

}  // namespace

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
  *packet = hsa_barrier_and_packet_t{};
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
  // Nothing else leaks out of the library.
  CHECK(dlsym(library, "_ZN7hsa_cpu7runtimeEv") == nullptr);
  dlclose(library);
}
