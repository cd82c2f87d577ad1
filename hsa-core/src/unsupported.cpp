// Entry points ROCR exports for features neither back-end has: images and
// samplers, the HSAIL finalizer, v2 code objects, IPC, graphics interop,
// SDMA rectangle copies. They exist so that a program linked against ROCR
// (even with immediate binding) loads, and they answer as the specification
// asks: arguments are checked first (NOT_INITIALIZED before hsa_init, a NULL
// out-pointer or an out-of-range enum is INVALID_ARGUMENT, an unknown agent
// INVALID_AGENT), then the feature's own "unsupported" status (for images
// HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED, for samplers
// ..._SAMPLER_DESCRIPTOR_UNSUPPORTED, for handles of objects that cannot exist
// here the handle's INVALID_* status). With the runtime's log on
// (HSA_CPU_LOG, HSA_CUDA_LOG) each refusal names the call and the reason.
// hsa-cpu/CONFORMANCE.md lists every case.
//
// The finalizer's program objects are real (empty) programs: they are
// created, queried and destroyed; adding a BRIG module or finalizing fails
// with the finalizer's statuses: hsa-cpu runs host code objects and
// hsa-cuda PTX, both built ahead of time.
//
// Threading: thread-safe (the program registry has its own mutex).
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

#include <cstring>
#include <mutex>
#include <unordered_set>

#include <hsa_core/backend.h>
#include <hsa_core/platform.h>

using namespace hsa_core;

namespace {

// An hsa_status_t from its bits: the extensions' status codes (finalizer
// 0x2000.., images 0x3000..) lie outside the C enum's range, so they are
// carried as uint32_t and converted only where an entry point returns them.
hsa_status_t status_from_bits(uint32_t bits) { return static_cast<hsa_status_t>(bits); }

// The call is refused with `status`; the reason goes to the runtime's log.
hsa_status_t refuse(uint32_t status, const char* function, const char* reason) {
  const char* name = "?";
  hsa_status_string(status_from_bits(status), &name);
  hsa_core::log("%s: %s (%.*s)", function, reason, static_cast<int>(strcspn(name, ":")), name);
  return status_from_bits(status);
}

bool valid_agent(hsa_agent_t agent) { return backend().agent_known(agent); }

bool valid_isa(hsa_isa_t isa) {
  uint32_t length = 0;
  return isa.handle != 0 && hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) == HSA_STATUS_SUCCESS;
}

bool valid_geometry(uint32_t geometry) { return geometry <= HSA_EXT_IMAGE_GEOMETRY_2DADEPTH; }
// The *_with_layout functions take an explicit layout: LINEAR (OPAQUE is
// what the plain functions are for, and is refused by the specification).
bool valid_explicit_layout(uint32_t layout) { return layout == HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR; }
bool valid_access(uint32_t access) {
  return access >= HSA_ACCESS_PERMISSION_RO && access <= HSA_ACCESS_PERMISSION_RW;
}

constexpr const char* kNoImages = "the agents support no image format (no image extension)";
constexpr const char* kNoImageHandles = "no image can exist in this runtime, so the image handle is invalid";

}  // namespace

// Checks shared by the entry points below: the runtime, then the agent.
#define HSA_CORE_REQUIRE_AGENT(agent)                                   \
  do {                                                                 \
    HSA_CORE_REQUIRE_INIT();                                            \
    if (!valid_agent(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;    \
  } while (0)

// ---------------------------------------------------------------------------
// Images and samplers (hsa_ext_image.h, hsa_amd_image_*)

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_get_capability(hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
                                                         const hsa_ext_image_format_t* image_format,
                                                         uint32_t* capability_mask) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (image_format == nullptr || capability_mask == nullptr || !valid_geometry(enum_bits(geometry)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *capability_mask = HSA_EXT_IMAGE_CAPABILITY_NOT_SUPPORTED;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_get_capability_with_layout(hsa_agent_t agent,
                                                                     hsa_ext_image_geometry_t geometry,
                                                                     const hsa_ext_image_format_t* image_format,
                                                                     hsa_ext_image_data_layout_t image_data_layout,
                                                                     uint32_t* capability_mask) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (image_format == nullptr || capability_mask == nullptr || !valid_geometry(enum_bits(geometry)) ||
      !valid_explicit_layout(enum_bits(image_data_layout)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *capability_mask = HSA_EXT_IMAGE_CAPABILITY_NOT_SUPPORTED;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_data_get_info(hsa_agent_t agent,
                                                        const hsa_ext_image_descriptor_t* image_descriptor,
                                                        hsa_access_permission_t access_permission,
                                                        hsa_ext_image_data_info_t* image_data_info) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (image_descriptor == nullptr || image_data_info == nullptr || !valid_access(enum_bits(access_permission)) ||
      !valid_geometry(enum_bits(image_descriptor->geometry)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED,
                "hsa_ext_image_data_get_info", kNoImages);
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_data_get_info_with_layout(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t* image_descriptor, hsa_access_permission_t access_permission,
    hsa_ext_image_data_layout_t image_data_layout, size_t image_data_row_pitch, size_t image_data_slice_pitch,
    hsa_ext_image_data_info_t* image_data_info) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (image_descriptor == nullptr || image_data_info == nullptr ||
      !valid_access(enum_bits(access_permission)) || !valid_geometry(enum_bits(image_descriptor->geometry)) ||
      !valid_explicit_layout(enum_bits(image_data_layout)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED,
                "hsa_ext_image_data_get_info_with_layout", kNoImages);
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_create(hsa_agent_t agent, const hsa_ext_image_descriptor_t* image_descriptor,
                                                 const void* image_data, hsa_access_permission_t access_permission,
                                                 hsa_ext_image_t* image) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (image_descriptor == nullptr || image_data == nullptr || image == nullptr ||
      !valid_access(enum_bits(access_permission)) || !valid_geometry(enum_bits(image_descriptor->geometry)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED, "hsa_ext_image_create",
                kNoImages);
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_create_with_layout(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t* image_descriptor, const void* image_data,
    hsa_access_permission_t access_permission, hsa_ext_image_data_layout_t image_data_layout,
    size_t image_data_row_pitch, size_t image_data_slice_pitch, hsa_ext_image_t* image) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (image_descriptor == nullptr || image_data == nullptr || image == nullptr ||
      !valid_access(enum_bits(access_permission)) || !valid_geometry(enum_bits(image_descriptor->geometry)) ||
      !valid_explicit_layout(enum_bits(image_data_layout)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED,
                "hsa_ext_image_create_with_layout", kNoImages);
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_destroy(hsa_agent_t agent, hsa_ext_image_t image) {
  HSA_CORE_REQUIRE_AGENT(agent);
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_ext_image_destroy", kNoImageHandles);
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_copy(hsa_agent_t agent, hsa_ext_image_t src_image,
                                               const hsa_dim3_t* src_offset, hsa_ext_image_t dst_image,
                                               const hsa_dim3_t* dst_offset, const hsa_dim3_t* range) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (src_offset == nullptr || dst_offset == nullptr || range == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_ext_image_copy", kNoImageHandles);
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_import(hsa_agent_t agent, const void* src_memory, size_t src_row_pitch,
                                                 size_t src_slice_pitch, hsa_ext_image_t dst_image,
                                                 const hsa_ext_image_region_t* image_region) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (src_memory == nullptr || image_region == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_ext_image_import", kNoImageHandles);
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_export(hsa_agent_t agent, hsa_ext_image_t src_image, void* dst_memory,
                                                 size_t dst_row_pitch, size_t dst_slice_pitch,
                                                 const hsa_ext_image_region_t* image_region) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (dst_memory == nullptr || image_region == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_ext_image_export", kNoImageHandles);
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_image_clear(hsa_agent_t agent, hsa_ext_image_t image, const void* data,
                                                const hsa_ext_image_region_t* image_region) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (data == nullptr || image_region == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_ext_image_clear", kNoImageHandles);
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_sampler_create(hsa_agent_t agent,
                                                   const hsa_ext_sampler_descriptor_t* sampler_descriptor,
                                                   hsa_ext_sampler_t* sampler) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (sampler_descriptor == nullptr || sampler == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED,
                "hsa_ext_sampler_create", "the agents support no sampler (no image extension)");
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_sampler_destroy(hsa_agent_t agent, hsa_ext_sampler_t sampler) {
  HSA_CORE_REQUIRE_AGENT(agent);
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_ext_sampler_destroy",
                "no sampler can exist in this runtime, so the sampler handle is invalid");
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_image_create(hsa_agent_t agent, const hsa_ext_image_descriptor_t* image_descriptor,
                                                 const hsa_amd_image_descriptor_t* image_layout,
                                                 const void* image_data, hsa_access_permission_t access_permission,
                                                 hsa_ext_image_t* image) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (image_descriptor == nullptr || image_layout == nullptr || image_data == nullptr || image == nullptr ||
      !valid_access(enum_bits(access_permission)) || !valid_geometry(enum_bits(image_descriptor->geometry)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED, "hsa_amd_image_create",
                kNoImages);
}

// The image size limits are agent attributes (all 0 here): answered through
// hsa_agent_get_info, as ROCR's implementation does.
HSA_CORE_EXPORT hsa_status_t hsa_amd_image_get_info_max_dim(hsa_agent_t agent, hsa_agent_info_t attribute,
                                                           void* value) {
  HSA_CORE_REQUIRE_AGENT(agent);
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const uint32_t bits = enum_bits(attribute);  // (AMD values lie outside the C enum)
  switch (bits) {
    case HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_1DA_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_1DB_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_2D_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_2DA_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_2DDEPTH_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_2DADEPTH_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_3D_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_ARRAY_MAX_LAYERS:
      return hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(bits), value);
    default:
      return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_amd_image_get_info_max_dim",
                    "the attribute is not an image size limit");
  }
}

// ---------------------------------------------------------------------------
// The HSAIL finalizer (hsa_ext_finalize.h): empty programs only.

namespace {

struct Program {
  hsa_machine_model_t machine_model;                     // as created
  hsa_profile_t profile;                                 // as created
  hsa_default_float_rounding_mode_t rounding;            // as created
};

struct ProgramRegistry {
  std::mutex mutex;
  std::unordered_set<Program*> programs;
};
ProgramRegistry& programs() {
  static ProgramRegistry* registry = new ProgramRegistry();  // outlives exit
  return *registry;
}

Program* lookup_program(hsa_ext_program_t handle) {
  auto* program = reinterpret_cast<Program*>(static_cast<uintptr_t>(handle.handle));
  ProgramRegistry& r = programs();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.programs.count(program) != 0 ? program : nullptr;
}

hsa_status_t invalid_program() { return status_from_bits(HSA_EXT_STATUS_ERROR_INVALID_PROGRAM); }

}  // namespace

namespace hsa_core {

void destroy_all_programs() {
  ProgramRegistry& r = programs();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.programs.empty()) hsa_core::log("hsa_shut_down: %zu finalizer program(s) still live (destroyed now)", r.programs.size());
  for (Program* p : r.programs) delete p;
  r.programs.clear();
}

}  // namespace hsa_core

HSA_CORE_EXPORT hsa_status_t hsa_ext_program_create(hsa_machine_model_t machine_model, hsa_profile_t profile,
                                                   hsa_default_float_rounding_mode_t default_float_rounding_mode,
                                                   const char* options, hsa_ext_program_t* program) {
  HSA_CORE_REQUIRE_INIT();
  if (program == nullptr || enum_bits(machine_model) > HSA_MACHINE_MODEL_LARGE ||
      enum_bits(profile) > HSA_PROFILE_FULL ||
      enum_bits(default_float_rounding_mode) > HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto* p = new (std::nothrow) Program{machine_model, profile, default_float_rounding_mode};
  if (p == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  ProgramRegistry& r = programs();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.programs.insert(p);
  program->handle = reinterpret_cast<uintptr_t>(p);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_program_destroy(hsa_ext_program_t program) {
  HSA_CORE_REQUIRE_INIT();
  auto* p = reinterpret_cast<Program*>(static_cast<uintptr_t>(program.handle));
  {
    ProgramRegistry& r = programs();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.programs.erase(p) == 0) return invalid_program();
  }
  delete p;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_program_add_module(hsa_ext_program_t program, hsa_ext_module_t module) {
  HSA_CORE_REQUIRE_INIT();
  if (lookup_program(program) == nullptr) return invalid_program();
  return refuse(HSA_EXT_STATUS_ERROR_INVALID_MODULE, "hsa_ext_program_add_module",
                "no HSAIL finalizer: this runtime takes no BRIG module");
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_program_iterate_modules(
    hsa_ext_program_t program, hsa_status_t (*callback)(hsa_ext_program_t program, hsa_ext_module_t module, void* data),
    void* data) {
  HSA_CORE_REQUIRE_INIT();
  if (lookup_program(program) == nullptr) return invalid_program();
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;  // a program never holds a module
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_program_get_info(hsa_ext_program_t program, hsa_ext_program_info_t attribute,
                                                     void* value) {
  HSA_CORE_REQUIRE_INIT();
  const Program* p = lookup_program(program);
  if (p == nullptr) return invalid_program();
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (enum_bits(attribute)) {
    case HSA_EXT_PROGRAM_INFO_MACHINE_MODEL: *static_cast<hsa_machine_model_t*>(value) = p->machine_model; break;
    case HSA_EXT_PROGRAM_INFO_PROFILE: *static_cast<hsa_profile_t*>(value) = p->profile; break;
    case HSA_EXT_PROGRAM_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
      *static_cast<hsa_default_float_rounding_mode_t*>(value) = p->rounding;
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_ext_program_finalize(hsa_ext_program_t program, hsa_isa_t isa,
                                                     int32_t call_convention,
                                                     hsa_ext_control_directives_t control_directives,
                                                     const char* options, hsa_code_object_type_t code_object_type,
                                                     hsa_code_object_t* code_object) {
  HSA_CORE_REQUIRE_INIT();
  if (lookup_program(program) == nullptr) return invalid_program();
  if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (code_object == nullptr || enum_bits(code_object_type) != HSA_CODE_OBJECT_TYPE_PROGRAM)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED, "hsa_ext_program_finalize",
                "no HSAIL finalizer (this runtime runs code objects built ahead of time)");
}

// ---------------------------------------------------------------------------
// v2 code objects (hsa_code_object_*, deprecated): none can exist here.

namespace {
constexpr const char* kNoCodeObjects =
    "no v2 code objects (code objects load through code object readers)";
}  // namespace

HSA_CORE_EXPORT hsa_status_t hsa_code_object_deserialize(void* serialized_code_object,
                                                        size_t serialized_code_object_size, const char* options,
                                                        hsa_code_object_t* code_object) {
  HSA_CORE_REQUIRE_INIT();
  if (serialized_code_object == nullptr || serialized_code_object_size == 0 || code_object == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "hsa_code_object_deserialize", kNoCodeObjects);
}

HSA_CORE_EXPORT hsa_status_t hsa_code_object_serialize(
    hsa_code_object_t code_object,
    hsa_status_t (*alloc_callback)(size_t size, hsa_callback_data_t data, void** address),
    hsa_callback_data_t callback_data, const char* options, void** serialized_code_object,
    size_t* serialized_code_object_size) {
  HSA_CORE_REQUIRE_INIT();
  if (alloc_callback == nullptr || serialized_code_object == nullptr || serialized_code_object_size == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "hsa_code_object_serialize", kNoCodeObjects);
}

HSA_CORE_EXPORT hsa_status_t hsa_code_object_destroy(hsa_code_object_t code_object) {
  HSA_CORE_REQUIRE_INIT();
  return refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "hsa_code_object_destroy", kNoCodeObjects);
}

HSA_CORE_EXPORT hsa_status_t hsa_code_object_get_info(hsa_code_object_t code_object,
                                                     hsa_code_object_info_t attribute, void* value) {
  HSA_CORE_REQUIRE_INIT();
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "hsa_code_object_get_info", kNoCodeObjects);
}

HSA_CORE_EXPORT hsa_status_t hsa_code_object_get_symbol(hsa_code_object_t code_object, const char* symbol_name,
                                                       hsa_code_symbol_t* symbol) {
  HSA_CORE_REQUIRE_INIT();
  if (symbol_name == nullptr || symbol == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "hsa_code_object_get_symbol", kNoCodeObjects);
}

HSA_CORE_EXPORT hsa_status_t hsa_code_object_get_symbol_from_name(hsa_code_object_t code_object,
                                                                 const char* module_name, const char* symbol_name,
                                                                 hsa_code_symbol_t* symbol) {
  HSA_CORE_REQUIRE_INIT();
  if (symbol_name == nullptr || symbol == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "hsa_code_object_get_symbol_from_name", kNoCodeObjects);
}

HSA_CORE_EXPORT hsa_status_t hsa_code_object_iterate_symbols(
    hsa_code_object_t code_object,
    hsa_status_t (*callback)(hsa_code_object_t code_object, hsa_code_symbol_t symbol, void* data), void* data) {
  HSA_CORE_REQUIRE_INIT();
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "hsa_code_object_iterate_symbols", kNoCodeObjects);
}

HSA_CORE_EXPORT hsa_status_t hsa_code_symbol_get_info(hsa_code_symbol_t code_symbol,
                                                     hsa_code_symbol_info_t attribute, void* value) {
  HSA_CORE_REQUIRE_INIT();
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_CODE_SYMBOL, "hsa_code_symbol_get_info", kNoCodeObjects);
}

// ---------------------------------------------------------------------------
// IPC and graphics interop: allocations are private anonymous mappings of
// this process, so nothing can be shared with or imported from another.

namespace {
constexpr const char* kNoIpc =
    "allocations and signals are private to the process (no IPC handle can exist)";
}  // namespace

HSA_CORE_EXPORT hsa_status_t hsa_amd_ipc_memory_create(void* ptr, size_t len, hsa_amd_ipc_memory_t* handle) {
  HSA_CORE_REQUIRE_INIT();
  if (ptr == nullptr || len == 0 || handle == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_amd_ipc_memory_create", kNoIpc);
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_ipc_memory_attach(const hsa_amd_ipc_memory_t* handle, size_t len,
                                                      uint32_t num_agents, const hsa_agent_t* mapping_agents,
                                                      void** mapped_ptr) {
  HSA_CORE_REQUIRE_INIT();
  if (handle == nullptr || mapped_ptr == nullptr || len == 0 || (num_agents != 0 && mapping_agents == nullptr))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < num_agents; ++i)
    if (!valid_agent(mapping_agents[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_amd_ipc_memory_attach", kNoIpc);
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_ipc_memory_detach(void* mapped_ptr) {
  HSA_CORE_REQUIRE_INIT();
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_amd_ipc_memory_detach",
                "the pointer was not attached by hsa_amd_ipc_memory_attach");
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_ipc_signal_create(hsa_signal_t signal, hsa_amd_ipc_signal_t* handle) {
  HSA_CORE_REQUIRE_INIT();
  if (signal.handle == 0 || handle == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_amd_ipc_signal_create", kNoIpc);
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_ipc_signal_attach(const hsa_amd_ipc_signal_t* handle, hsa_signal_t* signal) {
  HSA_CORE_REQUIRE_INIT();
  if (handle == nullptr || signal == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_amd_ipc_signal_attach", kNoIpc);
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_interop_map_buffer(uint32_t num_agents, hsa_agent_t* agents, int interop_handle,
                                                       uint32_t flags, size_t* size, void** ptr,
                                                       size_t* metadata_size, const void** metadata) {
  HSA_CORE_REQUIRE_INIT();
  if (num_agents == 0 || agents == nullptr || size == nullptr || ptr == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < num_agents; ++i)
    if (!valid_agent(agents[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_amd_interop_map_buffer",
                "no graphics interop: the handle names no buffer this runtime can map");
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_interop_unmap_buffer(void* ptr) {
  HSA_CORE_REQUIRE_INIT();
  return refuse(HSA_STATUS_ERROR_INVALID_ARGUMENT, "hsa_amd_interop_unmap_buffer",
                "the pointer was not mapped by hsa_amd_interop_map_buffer");
}

// ---------------------------------------------------------------------------
// SDMA rectangle copies: the header says CPU agents are not supported (ROCR
// refuses the copy agent).

HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_async_copy_rect(
    const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset, const hsa_pitched_ptr_t* src,
    const hsa_dim3_t* src_offset, const hsa_dim3_t* range, hsa_agent_t copy_agent, hsa_amd_copy_direction_t dir,
    uint32_t num_dep_signals, const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  HSA_CORE_REQUIRE_INIT();
  if (dst == nullptr || dst_offset == nullptr || src == nullptr || src_offset == nullptr || range == nullptr ||
      enum_bits(dir) > hsaDeviceToDevice || (num_dep_signals != 0 && dep_signals == nullptr) ||
      completion_signal.handle == 0)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!valid_agent(copy_agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  return refuse(HSA_STATUS_ERROR_INVALID_AGENT, "hsa_amd_memory_async_copy_rect",
                "rectangle copies need an SDMA engine, which the agents lack");
}

namespace hsa_core {

bool no_image_agent_info(uint32_t attribute, void* value) {
  switch (attribute) {
    // No image can have an element, a layer or a handle.
    case HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_1DA_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_1DB_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_ARRAY_MAX_LAYERS:
    case HSA_EXT_AGENT_INFO_MAX_IMAGE_RD_HANDLES:
    case HSA_EXT_AGENT_INFO_MAX_IMAGE_RORW_HANDLES:
    case HSA_EXT_AGENT_INFO_MAX_SAMPLER_HANDLERS:
      *static_cast<uint32_t*>(value) = 0;
      return true;
    case HSA_EXT_AGENT_INFO_IMAGE_2D_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_2DA_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_2DDEPTH_MAX_ELEMENTS:
    case HSA_EXT_AGENT_INFO_IMAGE_2DADEPTH_MAX_ELEMENTS:
      memset(value, 0, 2 * sizeof(uint32_t));
      return true;
    case HSA_EXT_AGENT_INFO_IMAGE_3D_MAX_ELEMENTS:
      memset(value, 0, 3 * sizeof(uint32_t));
      return true;
    default:
      // (HSA_EXT_AGENT_INFO_IMAGE_LINEAR_ROW_PITCH_ALIGNMENT is refused, as
      // ROCR refuses it for CPU agents.)
      return false;
  }
}

}  // namespace hsa_core
