// ISA and wavefront entry points every back-end answers alike, built on the
// back-end's own hsa_isa_get_info_alt (which knows its ISAs) and two hooks
// (Backend::isa_from_name, isa_compatible). HSA 1.1's exception policies and
// rounding: no exception is enabled or detected, rounding is to nearest.
#include <hsa_core/backend.h>
#include <hsa_core/platform.h>

using namespace hsa_core;

namespace {

// One call convention per ISA (HSA_ISA_INFO_CALL_CONVENTION_COUNT): the index
// of hsa_isa_get_info must be 0.
constexpr uint32_t kCallConventionCount = 1;

bool isa_known(hsa_isa_t isa) {
  uint32_t length = 0;
  return isa.handle != 0 && hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) == HSA_STATUS_SUCCESS;
}

// A wavefront handle names its size: one object per power of two.
struct Wavefront {
  uint32_t size;
};
constexpr Wavefront kWavefronts[] = {{1}, {2}, {4}, {8}, {16}, {32}, {64}, {128}};

}  // namespace

HSA_CORE_EXPORT hsa_status_t hsa_isa_from_name(const char* name, hsa_isa_t* isa) {
  HSA_CORE_REQUIRE_INIT();
  if (name == nullptr || isa == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (backend().isa_from_name(name, isa)) return HSA_STATUS_SUCCESS;
  hsa_core::log("hsa_isa_from_name: '%s' is not the name of an ISA of this runtime", name);
  return HSA_STATUS_ERROR_INVALID_ISA_NAME;
}

HSA_CORE_EXPORT hsa_status_t hsa_isa_get_info(hsa_isa_t isa, hsa_isa_info_t attribute, uint32_t index,
                                              void* value) {
  HSA_CORE_REQUIRE_INIT();
  if (!isa_known(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // "between 0 (inclusive) and the value of HSA_ISA_INFO_CALL_CONVENTION_COUNT
  // (not inclusive)" (hsa.h), for every attribute, as ROCR checks it.
  if (index >= kCallConventionCount) return HSA_STATUS_ERROR_INVALID_INDEX;
  // Read as bits and passed on only when it is an hsa_isa_info_t: an
  // out-of-range value must not be loaded as the enum (undefined behaviour,
  // which UBSan reports).
  const uint32_t bits = enum_bits(attribute);
  if (bits > HSA_ISA_INFO_FBARRIER_MAX_SIZE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hsa_isa_get_info_alt(isa, static_cast<hsa_isa_info_t>(bits), value);
}

HSA_CORE_EXPORT hsa_status_t hsa_agent_get_exception_policies(hsa_agent_t agent, hsa_profile_t profile,
                                                              uint16_t* mask) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (mask == nullptr || enum_bits(profile) > HSA_PROFILE_FULL) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *mask = 0;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_isa_get_exception_policies(hsa_isa_t isa, hsa_profile_t profile, uint16_t* mask) {
  HSA_CORE_REQUIRE_INIT();
  if (!isa_known(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (mask == nullptr || enum_bits(profile) > HSA_PROFILE_FULL) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *mask = 0;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_isa_get_round_method(hsa_isa_t isa, hsa_fp_type_t fp_type,
                                                      hsa_flush_mode_t flush_mode, hsa_round_method_t* round_method) {
  HSA_CORE_REQUIRE_INIT();
  if (!isa_known(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  const uint32_t fp = enum_bits(fp_type), flush = enum_bits(flush_mode);
  if (round_method == nullptr || (fp != HSA_FP_TYPE_16 && fp != HSA_FP_TYPE_32 && fp != HSA_FP_TYPE_64) ||
      (flush != HSA_FLUSH_MODE_FTZ && flush != HSA_FLUSH_MODE_NON_FTZ))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *round_method = HSA_ROUND_METHOD_SINGLE;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_isa_compatible(hsa_isa_t code_object_isa, hsa_isa_t agent_isa, bool* result) {
  HSA_CORE_REQUIRE_INIT();
  if (!isa_known(code_object_isa) || !isa_known(agent_isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = backend().isa_compatible(code_object_isa, agent_isa);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_isa_iterate_wavefronts(hsa_isa_t isa,
                                                        hsa_status_t (*callback)(hsa_wavefront_t wavefront, void* data),
                                                        void* data) {
  HSA_CORE_REQUIRE_INIT();
  if (!isa_known(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint32_t size = 0;
  if (hsa_status_t status = hsa_isa_get_info_alt(isa, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE, &size);
      status != HSA_STATUS_SUCCESS)
    return status;
  for (const Wavefront& wavefront : kWavefronts)
    if (wavefront.size == size) return callback(hsa_wavefront_t{reinterpret_cast<uintptr_t>(&wavefront)}, data);
  hsa_core::log("hsa_isa_iterate_wavefronts: wavefront size %u is not a power of two up to 128", size);
  return HSA_STATUS_ERROR;
}

HSA_CORE_EXPORT hsa_status_t hsa_wavefront_get_info(hsa_wavefront_t wavefront, hsa_wavefront_info_t attribute,
                                                    void* value) {
  HSA_CORE_REQUIRE_INIT();
  const Wavefront* w = nullptr;
  for (const Wavefront& candidate : kWavefronts)
    if (wavefront.handle == reinterpret_cast<uintptr_t>(&candidate)) w = &candidate;
  if (w == nullptr) return HSA_STATUS_ERROR_INVALID_WAVEFRONT;
  if (value == nullptr || enum_bits(attribute) != HSA_WAVEFRONT_INFO_SIZE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *static_cast<uint32_t*>(value) = w->size;
  return HSA_STATUS_SUCCESS;
}
