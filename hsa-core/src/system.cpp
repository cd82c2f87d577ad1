// The runtime-wide entry points every back-end answers alike: status
// strings, system information, extension queries.
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

#include <cstring>

#include <hsa_core/backend.h>
#include <hsa_core/platform.h>

namespace hsa_core {
namespace {

constexpr uint16_t kHsaVersionMajor = 1;
constexpr uint16_t kHsaVersionMinor = 1;
constexpr size_t kExtensionMaskBytes = 128;

}  // namespace
}  // namespace hsa_core

using namespace hsa_core;

// ---------------------------------------------------------------------------
// Status strings: answered with or without a runtime (before hsa_init, after
// the last hsa_shut_down), as ROCR does.

HSA_CORE_EXPORT hsa_status_t hsa_status_string(hsa_status_t status, const char** status_string) {
  if (status_string == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const char* s = nullptr;
  switch (enum_bits(status)) {
    case HSA_STATUS_SUCCESS: s = "HSA_STATUS_SUCCESS: the function succeeded."; break;
    case HSA_STATUS_INFO_BREAK: s = "HSA_STATUS_INFO_BREAK: a callback stopped the iteration."; break;
    case HSA_STATUS_ERROR: s = "HSA_STATUS_ERROR: a generic error occurred."; break;
    case HSA_STATUS_ERROR_INVALID_ARGUMENT: s = "HSA_STATUS_ERROR_INVALID_ARGUMENT: an argument is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: s = "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: the queue cannot be created with these parameters."; break;
    case HSA_STATUS_ERROR_INVALID_ALLOCATION: s = "HSA_STATUS_ERROR_INVALID_ALLOCATION: the allocation request or pointer is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_AGENT: s = "HSA_STATUS_ERROR_INVALID_AGENT: the agent handle is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_REGION: s = "HSA_STATUS_ERROR_INVALID_REGION: the region handle is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_SIGNAL: s = "HSA_STATUS_ERROR_INVALID_SIGNAL: the signal handle is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_QUEUE: s = "HSA_STATUS_ERROR_INVALID_QUEUE: the queue is invalid."; break;
    case HSA_STATUS_ERROR_OUT_OF_RESOURCES: s = "HSA_STATUS_ERROR_OUT_OF_RESOURCES: the runtime could not allocate the resources needed."; break;
    case HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: s = "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: the packet processor found a malformed AQL packet."; break;
    case HSA_STATUS_ERROR_RESOURCE_FREE: s = "HSA_STATUS_ERROR_RESOURCE_FREE: a resource could not be released."; break;
    case HSA_STATUS_ERROR_NOT_INITIALIZED: s = "HSA_STATUS_ERROR_NOT_INITIALIZED: the runtime is not initialized (call hsa_init)."; break;
    case HSA_STATUS_ERROR_REFCOUNT_OVERFLOW: s = "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW: the runtime reference count overflowed."; break;
    case HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: s = "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: arguments are incompatible with each other."; break;
    case HSA_STATUS_ERROR_INVALID_INDEX: s = "HSA_STATUS_ERROR_INVALID_INDEX: the index is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_ISA: s = "HSA_STATUS_ERROR_INVALID_ISA: the ISA is invalid or not supported by the agent."; break;
    case HSA_STATUS_ERROR_INVALID_ISA_NAME: s = "HSA_STATUS_ERROR_INVALID_ISA_NAME: the ISA name is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_CODE_OBJECT: s = "HSA_STATUS_ERROR_INVALID_CODE_OBJECT: the code object is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_EXECUTABLE: s = "HSA_STATUS_ERROR_INVALID_EXECUTABLE: the executable is invalid."; break;
    case HSA_STATUS_ERROR_FROZEN_EXECUTABLE: s = "HSA_STATUS_ERROR_FROZEN_EXECUTABLE: the executable is frozen."; break;
    case HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: s = "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: no symbol has this name."; break;
    case HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED: s = "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED: the variable is already defined."; break;
    case HSA_STATUS_ERROR_VARIABLE_UNDEFINED: s = "HSA_STATUS_ERROR_VARIABLE_UNDEFINED: the variable is undefined."; break;
    case HSA_STATUS_ERROR_EXCEPTION: s = "HSA_STATUS_ERROR_EXCEPTION: an HSAIL operation raised an exception."; break;
    case HSA_STATUS_ERROR_INVALID_CODE_SYMBOL: s = "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL: the code symbol is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL: s = "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL: the executable symbol is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_FILE: s = "HSA_STATUS_ERROR_INVALID_FILE: the file descriptor is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER: s = "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER: the code object reader is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_CACHE: s = "HSA_STATUS_ERROR_INVALID_CACHE: the cache is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_WAVEFRONT: s = "HSA_STATUS_ERROR_INVALID_WAVEFRONT: the wavefront is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP: s = "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP: the signal group is invalid."; break;
    case HSA_STATUS_ERROR_INVALID_RUNTIME_STATE: s = "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE: the runtime is in an invalid state."; break;
    case HSA_STATUS_ERROR_FATAL: s = "HSA_STATUS_ERROR_FATAL: a fatal error occurred; the runtime is unusable."; break;
    case HSA_STATUS_ERROR_INVALID_MEMORY_POOL: s = "HSA_STATUS_ERROR_INVALID_MEMORY_POOL: the memory pool is invalid."; break;
    case HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: s = "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: a kernel accessed memory outside its aperture."; break;
    case HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: s = "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: a kernel executed an illegal instruction."; break;
    case HSA_STATUS_ERROR_MEMORY_FAULT: s = "HSA_STATUS_ERROR_MEMORY_FAULT: a kernel caused a memory fault."; break;
    case HSA_STATUS_CU_MASK_REDUCED: s = "HSA_STATUS_CU_MASK_REDUCED: the CU mask was reduced to the available units."; break;
    case HSA_EXT_STATUS_ERROR_INVALID_PROGRAM: s = "HSA_EXT_STATUS_ERROR_INVALID_PROGRAM: the program is invalid."; break;
    case HSA_EXT_STATUS_ERROR_INVALID_MODULE: s = "HSA_EXT_STATUS_ERROR_INVALID_MODULE: the module is invalid."; break;
    case HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE: s = "HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE: the module is incompatible with the program."; break;
    case HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED: s = "HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED: the module is already part of the program."; break;
    case HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH: s = "HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH: a symbol declaration and its definition do not match."; break;
    case HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED: s = "HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED: the finalization failed."; break;
    case HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH: s = "HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH: the control directives do not match."; break;
    case HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED: s = "HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED: the image format is not supported."; break;
    case HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED: s = "HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED: the image size is not supported."; break;
    case HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED: s = "HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED: the image pitch is not supported."; break;
    case HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED: s = "HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED: the sampler descriptor is not supported."; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  *status_string = s;
  return HSA_STATUS_SUCCESS;
}

// ---------------------------------------------------------------------------
// System

HSA_CORE_EXPORT hsa_status_t hsa_system_get_info(hsa_system_info_t attribute, void* value) {
  HSA_CORE_REQUIRE_INIT();
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (enum_bits(attribute)) {
    case HSA_SYSTEM_INFO_VERSION_MAJOR: *static_cast<uint16_t*>(value) = kHsaVersionMajor; break;
    case HSA_SYSTEM_INFO_VERSION_MINOR: *static_cast<uint16_t*>(value) = kHsaVersionMinor; break;
    case HSA_SYSTEM_INFO_TIMESTAMP: *static_cast<uint64_t*>(value) = now_ns(); break;
    case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY: *static_cast<uint64_t*>(value) = 1000000000ull; break;
    case HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT: *static_cast<uint64_t*>(value) = UINT64_MAX; break;
    case HSA_SYSTEM_INFO_ENDIANNESS: *static_cast<hsa_endianness_t*>(value) = HSA_ENDIANNESS_LITTLE; break;
    case HSA_SYSTEM_INFO_MACHINE_MODEL: *static_cast<hsa_machine_model_t*>(value) = HSA_MACHINE_MODEL_LARGE; break;
    case HSA_SYSTEM_INFO_EXTENSIONS: memset(value, 0, kExtensionMaskBytes); break;
    case HSA_AMD_SYSTEM_INFO_BUILD_VERSION: *static_cast<const char**>(value) = backend().build_version; break;
    case HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED: *static_cast<bool*>(value) = backend().svm; break;
    case HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT: *static_cast<bool*>(value) = backend().svm; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

namespace {

const char* extension_name(uint16_t extension) {
  switch (extension) {
    case HSA_EXTENSION_FINALIZER: return "HSA_EXTENSION_FINALIZER";
    case HSA_EXTENSION_IMAGES: return "HSA_EXTENSION_IMAGES";
    case HSA_EXTENSION_PERFORMANCE_COUNTERS: return "HSA_EXTENSION_PERFORMANCE_COUNTERS";
    case HSA_EXTENSION_PROFILING_EVENTS: return "HSA_EXTENSION_PROFILING_EVENTS";
    case HSA_EXTENSION_AMD_PROFILER: return "HSA_EXTENSION_AMD_PROFILER";
    case HSA_EXTENSION_AMD_LOADER: return "HSA_EXTENSION_AMD_LOADER";
    case HSA_EXTENSION_AMD_AQLPROFILE: return "HSA_EXTENSION_AMD_AQLPROFILE";
    default: return nullptr;
  }
}

}  // namespace

HSA_CORE_EXPORT hsa_status_t hsa_extension_get_name(uint16_t extension, const char** name) {
  HSA_CORE_REQUIRE_INIT();
  const char* n = extension_name(extension);
  if (n == nullptr || name == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *name = n;
  return HSA_STATUS_SUCCESS;
}

// No HSA extension table is provided: every query answers "not supported".
HSA_CORE_EXPORT hsa_status_t hsa_system_extension_supported(uint16_t extension, uint16_t version_major,
                                                           uint16_t version_minor, bool* result) {
  HSA_CORE_REQUIRE_INIT();
  if (extension_name(extension) == nullptr || result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_system_major_extension_supported(uint16_t extension,
                                                                 uint16_t version_major,
                                                                 uint16_t* version_minor,
                                                                 bool* result) {
  HSA_CORE_REQUIRE_INIT();
  if (extension_name(extension) == nullptr || version_minor == nullptr || result == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_system_get_extension_table(uint16_t extension, uint16_t version_major,
                                                           uint16_t version_minor, void* table) {
  HSA_CORE_REQUIRE_INIT();
  hsa_core::log("hsa_system_get_extension_table: extension %u is not supported", extension);
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

HSA_CORE_EXPORT hsa_status_t hsa_system_get_major_extension_table(uint16_t extension,
                                                                 uint16_t version_major,
                                                                 size_t table_length, void* table) {
  HSA_CORE_REQUIRE_INIT();
  hsa_core::log("hsa_system_get_major_extension_table: extension %u is not supported", extension);
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

HSA_CORE_EXPORT hsa_status_t hsa_agent_extension_supported(uint16_t extension, hsa_agent_t agent,
                                                          uint16_t version_major,
                                                          uint16_t version_minor, bool* result) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (extension_name(extension) == nullptr || result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_agent_major_extension_supported(uint16_t extension, hsa_agent_t agent,
                                                                uint16_t version_major,
                                                                uint16_t* version_minor,
                                                                bool* result) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (extension_name(extension) == nullptr || version_minor == nullptr || result == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

