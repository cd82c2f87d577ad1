// HSA 1.0's regions, for both back-ends: a region is a memory pool (the same
// handle, as ROCR hands out), described by the pool's own information (the
// back-end's hsa_amd_memory_pool_get_info, exported by the same library) and
// allocated from as a pool is (memory.h).
#include <hsa/hsa_ext_amd.h>

#include <hsa_core/backend.h>
#include <hsa_core/memory.h>
#include <hsa_core/platform.h>

using namespace hsa_core;

namespace {

// The region's pool segment; INVALID_REGION when the handle names no pool.
hsa_status_t region_segment(hsa_region_t region, hsa_amd_segment_t* segment) {
  const hsa_status_t status =
      hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t{region.handle}, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, segment);
  if (status == HSA_STATUS_SUCCESS) return status;
  return enum_bits(status) == HSA_STATUS_ERROR_INVALID_MEMORY_POOL ? HSA_STATUS_ERROR_INVALID_REGION : status;
}

hsa_status_t pool_info(hsa_region_t region, hsa_amd_memory_pool_info_t attribute, void* value) {
  return hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t{region.handle}, attribute, value);
}

}  // namespace

HSA_CORE_EXPORT hsa_status_t hsa_agent_iterate_regions(hsa_agent_t agent,
                                                       hsa_status_t (*callback)(hsa_region_t region, void* data),
                                                       void* data) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  struct Context {
    hsa_status_t (*callback)(hsa_region_t, void*);
    void* data;
    bool shared_only;  // host agents' pools: only those every agent reaches
  } context{callback, data, false};
  auto each_pool = [](hsa_amd_memory_pool_t pool, void* c) {
    auto* context = static_cast<Context*>(c);
    if (context->shared_only) {
      bool shared = false;
      if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, &shared) !=
              HSA_STATUS_SUCCESS ||
          !shared)
        return HSA_STATUS_SUCCESS;
    }
    return context->callback(hsa_region_t{pool.handle}, context->data);
  };
  hsa_status_t status = hsa_amd_agent_iterate_memory_pools(agent, each_pool, &context);
  if (status != HSA_STATUS_SUCCESS || !backend().regions_include_host_pools) return status;
  // A kernel agent of a discrete device also lists the system memory it
  // reaches (the host agents' shared pools: kernarg, fine-grained), as
  // ROCR's GPU agents list the system regions.
  hsa_device_type_t type;
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS || type == HSA_DEVICE_TYPE_CPU)
    return HSA_STATUS_SUCCESS;
  context.shared_only = true;
  struct Walk {
    Context* context;
    decltype(+each_pool) each;
    hsa_status_t status;
  } walk{&context, +each_pool, HSA_STATUS_SUCCESS};
  hsa_iterate_agents(
      [](hsa_agent_t other, void* w) {
        auto* walk = static_cast<Walk*>(w);
        hsa_device_type_t other_type;
        if (hsa_agent_get_info(other, HSA_AGENT_INFO_DEVICE, &other_type) != HSA_STATUS_SUCCESS ||
            other_type != HSA_DEVICE_TYPE_CPU)
          return HSA_STATUS_SUCCESS;
        walk->status = hsa_amd_agent_iterate_memory_pools(other, walk->each, walk->context);
        return walk->status == HSA_STATUS_SUCCESS ? HSA_STATUS_SUCCESS : HSA_STATUS_INFO_BREAK;
      },
      &walk);
  return walk.status;
}

HSA_CORE_EXPORT hsa_status_t hsa_region_get_info(hsa_region_t region, hsa_region_info_t attribute, void* value) {
  HSA_CORE_REQUIRE_INIT();
  hsa_amd_segment_t segment;
  if (hsa_status_t status = region_segment(region, &segment); status != HSA_STATUS_SUCCESS) return status;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (enum_bits(attribute)) {
    case HSA_REGION_INFO_SEGMENT:
      switch (segment) {
        case HSA_AMD_SEGMENT_GROUP: *static_cast<hsa_region_segment_t*>(value) = HSA_REGION_SEGMENT_GROUP; break;
        case HSA_AMD_SEGMENT_READONLY: *static_cast<hsa_region_segment_t*>(value) = HSA_REGION_SEGMENT_READONLY; break;
        case HSA_AMD_SEGMENT_PRIVATE: *static_cast<hsa_region_segment_t*>(value) = HSA_REGION_SEGMENT_PRIVATE; break;
        default: *static_cast<hsa_region_segment_t*>(value) = HSA_REGION_SEGMENT_GLOBAL; break;
      }
      return HSA_STATUS_SUCCESS;
    case HSA_REGION_INFO_GLOBAL_FLAGS:  // 0 for the group region (as ROCR)
      // The pool flags use the same bit values as hsa_region_global_flag_t.
      static_assert(uint32_t(HSA_REGION_GLOBAL_FLAG_KERNARG) == uint32_t(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT));
      static_assert(uint32_t(HSA_REGION_GLOBAL_FLAG_FINE_GRAINED) ==
                    uint32_t(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED));
      static_assert(uint32_t(HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED) ==
                    uint32_t(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED));
      if (segment != HSA_AMD_SEGMENT_GLOBAL) {
        *static_cast<uint32_t*>(value) = 0;
        return HSA_STATUS_SUCCESS;
      }
      return pool_info(region, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, value);
    case HSA_REGION_INFO_SIZE: return pool_info(region, HSA_AMD_MEMORY_POOL_INFO_SIZE, value);
    case HSA_REGION_INFO_ALLOC_MAX_SIZE: return pool_info(region, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, value);
    case HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE:
      *static_cast<uint32_t*>(value) = backend().max_workgroup_size;
      return HSA_STATUS_SUCCESS;
    case HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED:
      return pool_info(region, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, value);
    case HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE:
      return pool_info(region, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, value);
    case HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT:
      return pool_info(region, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT, value);
    case HSA_AMD_REGION_INFO_HOST_ACCESSIBLE:
      // The back-ends' pools that every agent reaches are the ones the host
      // reaches (hsa-cpu: all global pools; hsa-cuda: its host pools, not
      // device memory).
      return pool_info(region, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, value);
    case HSA_AMD_REGION_INFO_BASE: *static_cast<void**>(value) = nullptr; return HSA_STATUS_SUCCESS;
    // Bus width and clock are not known (0, as ROCR answers for system
    // memory).
    case HSA_AMD_REGION_INFO_BUS_WIDTH:
    case HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY:
      *static_cast<uint32_t*>(value) = 0;
      return HSA_STATUS_SUCCESS;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

HSA_CORE_EXPORT hsa_status_t hsa_memory_allocate(hsa_region_t region, size_t size, void** ptr) {
  HSA_CORE_REQUIRE_INIT();
  hsa_amd_segment_t segment;
  if (hsa_status_t status = region_segment(region, &segment); status != HSA_STATUS_SUCCESS) return status;
  return allocate_from_pool(region.handle, size, 0, ptr);
}

HSA_CORE_EXPORT hsa_status_t hsa_memory_free(void* ptr) {
  HSA_CORE_REQUIRE_INIT();
  return free_pool_allocation(ptr, "hsa_memory_free");
}

HSA_CORE_EXPORT hsa_status_t hsa_memory_register(void* ptr, size_t size) {
  HSA_CORE_REQUIRE_INIT();
  if (ptr == nullptr) return HSA_STATUS_SUCCESS;  // HSA: no operation
  if (size == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // A performance hint in HSA: hsa-cpu's agents reach all host memory;
  // hsa-cuda's kernels reach its pools' memory (registration does not
  // change that).
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_memory_deregister(void* ptr, size_t size) {
  HSA_CORE_REQUIRE_INIT();
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_memory_assign_agent(void* ptr, hsa_agent_t agent, hsa_access_permission_t access) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (ptr == nullptr || enum_bits(access) < HSA_ACCESS_PERMISSION_RO || enum_bits(access) > HSA_ACCESS_PERMISSION_RW)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}
