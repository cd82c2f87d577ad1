// Entry points ROCR exports that have no meaning on hsa-cpu (images, the
// finalizer, IPC, interop, v2 code objects, external variable definitions,
// SVM attributes). They exist so that a program linked against ROCR (even
// with immediate binding) loads; each returns HSA_STATUS_ERROR and logs
// which call was made (HSA_CPU_LOG).
//
// Threading: stateless, thread-safe.
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

#include "runtime.h"

namespace {

hsa_status_t unsupported(const char* function) {
  if (hsa_cpu::runtime() == nullptr) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  hsa_cpu::log("%s is not supported by hsa-cpu", function);
  return HSA_STATUS_ERROR;
}

}  // namespace

HSA_CPU_EXPORT hsa_status_t hsa_amd_image_create(hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor, const hsa_amd_image_descriptor_t *image_layout, const void *image_data, hsa_access_permission_t access_permission, hsa_ext_image_t *image) {
  return unsupported("hsa_amd_image_create");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_image_get_info_max_dim(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  return unsupported("hsa_amd_image_get_info_max_dim");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_interop_map_buffer(uint32_t num_agents, hsa_agent_t* agents, int interop_handle, uint32_t flags, size_t* size, void** ptr, size_t* metadata_size, const void** metadata) {
  return unsupported("hsa_amd_interop_map_buffer");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_interop_unmap_buffer(void* ptr) {
  return unsupported("hsa_amd_interop_unmap_buffer");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_ipc_memory_attach(const hsa_amd_ipc_memory_t* handle, size_t len, uint32_t num_agents, const hsa_agent_t* mapping_agents, void** mapped_ptr) {
  return unsupported("hsa_amd_ipc_memory_attach");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_ipc_memory_create(void* ptr, size_t len, hsa_amd_ipc_memory_t* handle) {
  return unsupported("hsa_amd_ipc_memory_create");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_ipc_memory_detach(void* mapped_ptr) {
  return unsupported("hsa_amd_ipc_memory_detach");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_ipc_signal_attach(const hsa_amd_ipc_signal_t* handle, hsa_signal_t* signal) {
  return unsupported("hsa_amd_ipc_signal_attach");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_ipc_signal_create(hsa_signal_t signal, hsa_amd_ipc_signal_t* handle) {
  return unsupported("hsa_amd_ipc_signal_create");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_async_copy_rect(const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset, const hsa_pitched_ptr_t* src, const hsa_dim3_t* src_offset, const hsa_dim3_t* range, hsa_agent_t copy_agent, hsa_amd_copy_direction_t dir, uint32_t num_dep_signals, const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  return unsupported("hsa_amd_memory_async_copy_rect");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_register_system_event_handler(hsa_amd_system_event_callback_t callback, void* data) {
  return unsupported("hsa_amd_register_system_event_handler");
}

HSA_CPU_EXPORT hsa_status_t hsa_code_object_deserialize(void *serialized_code_object, size_t serialized_code_object_size, const char *options, hsa_code_object_t *code_object) {
  return unsupported("hsa_code_object_deserialize");
}

HSA_CPU_EXPORT hsa_status_t hsa_code_object_destroy(hsa_code_object_t code_object) {
  return unsupported("hsa_code_object_destroy");
}

HSA_CPU_EXPORT hsa_status_t hsa_code_object_get_info(hsa_code_object_t code_object, hsa_code_object_info_t attribute, void *value) {
  return unsupported("hsa_code_object_get_info");
}

HSA_CPU_EXPORT hsa_status_t hsa_code_object_get_symbol(hsa_code_object_t code_object, const char *symbol_name, hsa_code_symbol_t *symbol) {
  return unsupported("hsa_code_object_get_symbol");
}

HSA_CPU_EXPORT hsa_status_t hsa_code_object_get_symbol_from_name(hsa_code_object_t code_object, const char *module_name, const char *symbol_name, hsa_code_symbol_t *symbol) {
  return unsupported("hsa_code_object_get_symbol_from_name");
}

HSA_CPU_EXPORT hsa_status_t hsa_code_object_iterate_symbols(hsa_code_object_t code_object, hsa_status_t (*callback)(hsa_code_object_t code_object, hsa_code_symbol_t symbol, void *data), void *data) {
  return unsupported("hsa_code_object_iterate_symbols");
}

HSA_CPU_EXPORT hsa_status_t hsa_code_object_serialize(hsa_code_object_t code_object, hsa_status_t (*alloc_callback)(size_t size, hsa_callback_data_t data, void **address), hsa_callback_data_t callback_data, const char *options, void **serialized_code_object, size_t *serialized_code_object_size) {
  return unsupported("hsa_code_object_serialize");
}

HSA_CPU_EXPORT hsa_status_t hsa_code_symbol_get_info(hsa_code_symbol_t code_symbol, hsa_code_symbol_info_t attribute, void *value) {
  return unsupported("hsa_code_symbol_get_info");
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_agent_global_variable_define(hsa_executable_t executable, hsa_agent_t agent, const char *variable_name, void *address) {
  return unsupported("hsa_executable_agent_global_variable_define");
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_global_variable_define(hsa_executable_t executable, const char *variable_name, void *address) {
  return unsupported("hsa_executable_global_variable_define");
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_load_code_object(hsa_executable_t executable, hsa_agent_t agent, hsa_code_object_t code_object, const char *options) {
  return unsupported("hsa_executable_load_code_object");
}

HSA_CPU_EXPORT hsa_status_t hsa_executable_readonly_variable_define(hsa_executable_t executable, hsa_agent_t agent, const char *variable_name, void *address) {
  return unsupported("hsa_executable_readonly_variable_define");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_clear(hsa_agent_t agent, hsa_ext_image_t image, const void* data, const hsa_ext_image_region_t *image_region) {
  return unsupported("hsa_ext_image_clear");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_copy(hsa_agent_t agent, hsa_ext_image_t src_image, const hsa_dim3_t* src_offset, hsa_ext_image_t dst_image, const hsa_dim3_t* dst_offset, const hsa_dim3_t* range) {
  return unsupported("hsa_ext_image_copy");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_create(hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor, const void *image_data, hsa_access_permission_t access_permission, hsa_ext_image_t *image) {
  return unsupported("hsa_ext_image_create");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_create_with_layout(hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor, const void *image_data, hsa_access_permission_t access_permission, hsa_ext_image_data_layout_t image_data_layout, size_t image_data_row_pitch, size_t image_data_slice_pitch, hsa_ext_image_t *image) {
  return unsupported("hsa_ext_image_create_with_layout");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_data_get_info(hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor, hsa_access_permission_t access_permission, hsa_ext_image_data_info_t *image_data_info) {
  return unsupported("hsa_ext_image_data_get_info");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_data_get_info_with_layout(hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor, hsa_access_permission_t access_permission, hsa_ext_image_data_layout_t image_data_layout, size_t image_data_row_pitch, size_t image_data_slice_pitch, hsa_ext_image_data_info_t *image_data_info) {
  return unsupported("hsa_ext_image_data_get_info_with_layout");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_destroy(hsa_agent_t agent, hsa_ext_image_t image) {
  return unsupported("hsa_ext_image_destroy");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_export(hsa_agent_t agent, hsa_ext_image_t src_image, void *dst_memory, size_t dst_row_pitch, size_t dst_slice_pitch, const hsa_ext_image_region_t *image_region) {
  return unsupported("hsa_ext_image_export");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_get_capability(hsa_agent_t agent, hsa_ext_image_geometry_t geometry, const hsa_ext_image_format_t *image_format, uint32_t *capability_mask) {
  return unsupported("hsa_ext_image_get_capability");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_get_capability_with_layout(hsa_agent_t agent, hsa_ext_image_geometry_t geometry, const hsa_ext_image_format_t *image_format, hsa_ext_image_data_layout_t image_data_layout, uint32_t *capability_mask) {
  return unsupported("hsa_ext_image_get_capability_with_layout");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_image_import(hsa_agent_t agent, const void *src_memory, size_t src_row_pitch, size_t src_slice_pitch, hsa_ext_image_t dst_image, const hsa_ext_image_region_t *image_region) {
  return unsupported("hsa_ext_image_import");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_program_add_module(hsa_ext_program_t program, hsa_ext_module_t module) {
  return unsupported("hsa_ext_program_add_module");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_program_create(hsa_machine_model_t machine_model, hsa_profile_t profile, hsa_default_float_rounding_mode_t default_float_rounding_mode, const char *options, hsa_ext_program_t *program) {
  return unsupported("hsa_ext_program_create");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_program_destroy(hsa_ext_program_t program) {
  return unsupported("hsa_ext_program_destroy");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_program_finalize(hsa_ext_program_t program, hsa_isa_t isa, int32_t call_convention, hsa_ext_control_directives_t control_directives, const char *options, hsa_code_object_type_t code_object_type, hsa_code_object_t *code_object) {
  return unsupported("hsa_ext_program_finalize");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_program_get_info(hsa_ext_program_t program, hsa_ext_program_info_t attribute, void *value) {
  return unsupported("hsa_ext_program_get_info");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_program_iterate_modules(hsa_ext_program_t program, hsa_status_t (*callback)(hsa_ext_program_t program, hsa_ext_module_t module, void* data), void* data) {
  return unsupported("hsa_ext_program_iterate_modules");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_sampler_create(hsa_agent_t agent, const hsa_ext_sampler_descriptor_t *sampler_descriptor, hsa_ext_sampler_t *sampler) {
  return unsupported("hsa_ext_sampler_create");
}

HSA_CPU_EXPORT hsa_status_t hsa_ext_sampler_destroy(hsa_agent_t agent, hsa_ext_sampler_t sampler) {
  return unsupported("hsa_ext_sampler_destroy");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_svm_attributes_set(void* ptr, size_t size,
                                                       hsa_amd_svm_attribute_pair_t* attribute_list,
                                                       size_t attribute_count) {
  return unsupported("hsa_amd_svm_attributes_set");
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_svm_attributes_get(void* ptr, size_t size,
                                                       hsa_amd_svm_attribute_pair_t* attribute_list,
                                                       size_t attribute_count) {
  return unsupported("hsa_amd_svm_attributes_get");
}
