// Agents and their caches, for both back-ends (agent.cpp): the core answers
// hsa_iterate_agents, hsa_agent_get_info (every attribute of hsa.h and
// hsa_ext_amd.h that the runtimes answer, the image attributes included),
// hsa_agent_iterate_caches and hsa_cache_get_info, with their argument
// checks and error codes, from what the back-end says of its agents
// (Backend::agents, describe_agent) and their caches (agent_caches,
// describe_cache).
//
// Thread-safety: every function may be called from any thread.
#ifndef HSA_CORE_AGENT_H_
#define HSA_CORE_AGENT_H_

#include <hsa/hsa.h>

#include <cstddef>
#include <cstdint>

namespace hsa_core {

// What the back-end says of one of its agents: every answer of
// hsa_agent_get_info. The attributes of a kernel agent (wavefront,
// workgroup and grid limits, fbarriers) are 0 for an agent without kernel
// dispatch, as ROCR's CPU agents answer them.
struct AgentDescription {
  // Names, each at most 63 bytes (HSA's 64 with the terminating NUL; longer
  // ones are cut).
  const char* name = "";          // HSA_AGENT_INFO_NAME
  const char* vendor_name = "";   // HSA_AGENT_INFO_VENDOR_NAME
  const char* product_name = "";  // HSA_AMD_AGENT_INFO_PRODUCT_NAME
  const char* uuid = "";          // HSA_AMD_AGENT_INFO_UUID, at most 20 bytes ("CPU-XX": no unique id)
  hsa_device_type_t device = HSA_DEVICE_TYPE_CPU;
  hsa_profile_t profile = HSA_PROFILE_FULL;
  bool kernel_dispatch = false;   // HSA_AGENT_FEATURE_KERNEL_DISPATCH
  bool fast_f16 = false;          // HSA_AGENT_INFO_FAST_F16_OPERATION
  uint32_t node = 0;              // HSA_AGENT_INFO_NODE (and the driver node id)
  hsa_isa_t isa{0};               // HSA_AGENT_INFO_ISA: its best ISA (0: none)
  // Kernel agents.
  uint32_t wavefront_size = 0;
  uint16_t workgroup_max_dim[3] = {0, 0, 0};
  uint32_t workgroup_max_size = 0;
  hsa_dim3_t grid_max_dim{0, 0, 0};
  uint32_t grid_max_size = 0;
  uint32_t fbarrier_max_size = 0;
  // Queues (0 for an agent that takes none).
  uint32_t queues_max = 0;
  uint32_t queue_min_size = 0;
  uint32_t queue_max_size = 0;
  bool cooperative_queues = false;    // takes HSA_QUEUE_TYPE_COOPERATIVE queues (else INVALID_QUEUE_CREATION)
  uint32_t group_segment_max = 0;     // largest group_segment_size hsa_queue_create takes (0: not checked)
  // hsa_ext_amd.h's attributes.
  uint32_t cacheline_size = 0;        // bytes
  uint32_t compute_units = 0;         // also the cooperative compute units
  uint32_t max_clock_mhz = 0;         // 0: unknown
  uint32_t chip_id = 0;               // PCI device id; 0: none
  uint32_t bdfid = 0;                 // PCI bus/device/function; 0: none
  uint32_t domain = 0;                // PCI domain
  uint32_t max_waves_per_cu = 0;
  uint32_t simds_per_cu = 0;
  uint32_t shader_engines = 0;
  uint32_t shader_arrays_per_engine = 0;
  bool svm_direct_host_access = false;
  uint64_t timestamp_frequency = 0;   // Hz of the agent's timestamps (HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY)
};

// What the back-end says of one cache of an agent (hsa_cache_get_info).
struct CacheDescription {
  const char* name = "";  // "L1", "L2", ... (at most 63 bytes)
  uint8_t level = 0;      // 1-based
  uint32_t size = 0;      // bytes
};

}  // namespace hsa_core

#endif  // HSA_CORE_AGENT_H_
