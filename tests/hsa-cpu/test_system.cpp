// hsa-cpu: init/shut down, system info, status strings, agents, ISAs, caches.
#include <cstring>
#include <string>

#include "hsa_test_util.h"

using namespace hsa_test;

TEST_SUITE("system") {

TEST_CASE("every API fails with NOT_INITIALIZED before hsa_init") {
  CHECK(hsa_shut_down() == HSA_STATUS_ERROR_NOT_INITIALIZED);
  uint16_t major = 0;
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_iterate_agents([](hsa_agent_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr) ==
        HSA_STATUS_ERROR_NOT_INITIALIZED);
  hsa_signal_t s;
  CHECK(hsa_signal_create(0, 0, nullptr, &s) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  void* p = nullptr;
  CHECK(hsa_memory_free(p) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  hsa_executable_t e;
  CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &e) ==
        HSA_STATUS_ERROR_NOT_INITIALIZED);
  // Status strings work without a runtime.
  const char* text = nullptr;
  CHECK(hsa_status_string(HSA_STATUS_ERROR_NOT_INITIALIZED, &text) == HSA_STATUS_SUCCESS);
}

TEST_CASE("hsa_init is reference counted") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
  uint16_t major = 0;
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_SUCCESS);
  CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_shut_down() == HSA_STATUS_ERROR_NOT_INITIALIZED);
  // A second life works like the first.
  Runtime rt;
  CHECK(rt.agent.handle != 0);
}

TEST_CASE("system info answers truthfully") {
  Runtime rt;
  uint16_t major = 0, minor = 0;
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_SUCCESS);
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &minor) == HSA_STATUS_SUCCESS);
  CHECK(major == 1);
  CHECK(minor == 1);
  uint64_t frequency = 0, t0 = 0, t1 = 0, max_wait = 0;
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &frequency) == HSA_STATUS_SUCCESS);
  CHECK(frequency == 1000000000ull);
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t0) == HSA_STATUS_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t1) == HSA_STATUS_SUCCESS);
  CHECK(t1 - t0 >= 10 * kMs);
  CHECK(t1 - t0 < 1000 * kMs);
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT, &max_wait) == HSA_STATUS_SUCCESS);
  CHECK(max_wait == UINT64_MAX);
  hsa_endianness_t endianness;
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_ENDIANNESS, &endianness) == HSA_STATUS_SUCCESS);
  CHECK(endianness == HSA_ENDIANNESS_LITTLE);
  hsa_machine_model_t model;
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_MACHINE_MODEL, &model) == HSA_STATUS_SUCCESS);
  CHECK(model == HSA_MACHINE_MODEL_LARGE);
  uint8_t extensions[128];
  memset(extensions, 0xff, sizeof(extensions));
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_EXTENSIONS, extensions) == HSA_STATUS_SUCCESS);
  for (uint8_t e : extensions) CHECK(e == 0);
  CHECK(hsa_system_get_info(static_cast<hsa_system_info_t>(0x7777), &major) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

  bool supported = true;
  CHECK(hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0, &supported) == HSA_STATUS_SUCCESS);
  CHECK_FALSE(supported);
  uint16_t version_minor = 0;
  supported = true;
  CHECK(hsa_system_major_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, &version_minor, &supported) ==
        HSA_STATUS_SUCCESS);
  CHECK_FALSE(supported);
  CHECK(hsa_system_extension_supported(0x1234, 1, 0, &supported) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  const char* name = nullptr;
  CHECK(hsa_extension_get_name(HSA_EXTENSION_FINALIZER, &name) == HSA_STATUS_SUCCESS);
  CHECK(std::string(name) == "HSA_EXTENSION_FINALIZER");
}

TEST_CASE("status strings exist for every code") {
  const uint32_t codes[] = {0x0, 0x1, 0x1000, 0x1001, 0x1002, 0x1003, 0x1004, 0x1005, 0x1006,
                            0x1007, 0x1008, 0x1009, 0x100A, 0x100B, 0x100C, 0x100D, 0x100E, 0x100F,
                            0x1010, 0x1011, 0x1012, 0x1013, 0x1014, 0x1015, 0x1016, 0x1017, 0x1018,
                            0x1019, 0x1020, 0x1021, 0x1022, 0x1023, 0x1024, 0x1025, 0x1026,
                            40, 41, 42, 43, 44};
  for (uint32_t code : codes) {
    const char* text = nullptr;
    CHECK(hsa_status_string(static_cast<hsa_status_t>(code), &text) == HSA_STATUS_SUCCESS);
    REQUIRE(text != nullptr);
    CHECK(std::strlen(text) > 10);
  }
  const char* text = nullptr;
  CHECK(hsa_status_string(static_cast<hsa_status_t>(0x5555), &text) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_status_string(HSA_STATUS_SUCCESS, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("iterators stop and return the callback's status") {
  Runtime rt;
  int calls = 0;
  CHECK(hsa_iterate_agents(
            [](hsa_agent_t, void* data) {
              ++*static_cast<int*>(data);
              return HSA_STATUS_INFO_BREAK;
            },
            &calls) == HSA_STATUS_INFO_BREAK);
  CHECK(calls == 1);
  CHECK(hsa_agent_iterate_isas(rt.agent, [](hsa_isa_t, void*) { return HSA_STATUS_ERROR_INVALID_ISA; },
                               nullptr) == HSA_STATUS_ERROR_INVALID_ISA);
  calls = 0;
  CHECK(hsa_amd_agent_iterate_memory_pools(
            rt.agent,
            [](hsa_amd_memory_pool_t, void* data) {
              return ++*static_cast<int*>(data) == 2 ? HSA_STATUS_INFO_BREAK : HSA_STATUS_SUCCESS;
            },
            &calls) == HSA_STATUS_INFO_BREAK);
  CHECK(calls == 2);
  CHECK(hsa_agent_iterate_regions(rt.agent, [](hsa_region_t, void*) { return HSA_STATUS_ERROR; },
                                  nullptr) == HSA_STATUS_ERROR);
  CHECK(hsa_agent_iterate_caches(rt.agent, [](hsa_cache_t, void*) { return HSA_STATUS_INFO_BREAK; },
                                 nullptr) == HSA_STATUS_INFO_BREAK);
  CHECK(hsa_iterate_agents(nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("agent info") {
  ScopedEnv workers("HSA_CPU_WORKERS", "3");
  Runtime rt;
  char name[64] = {};
  REQUIRE(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_SUCCESS);
  CHECK(std::string(name).rfind("hsa-cpu (", 0) == 0);
  char vendor[64] = {};
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_VENDOR_NAME, vendor) == HSA_STATUS_SUCCESS);
  CHECK(std::strlen(vendor) > 0);
  char product[64] = {};
  CHECK(hsa_agent_get_info(rt.agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_PRODUCT_NAME), product) ==
        HSA_STATUS_SUCCESS);
  CHECK(std::string(name).find(product) != std::string::npos);
  hsa_agent_feature_t feature;
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_FEATURE, &feature) == HSA_STATUS_SUCCESS);
  CHECK(feature == HSA_AGENT_FEATURE_KERNEL_DISPATCH);
  hsa_device_type_t device;
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_DEVICE, &device) == HSA_STATUS_SUCCESS);
  CHECK(device == HSA_DEVICE_TYPE_CPU);
  uint32_t cus = 0;
  CHECK(hsa_agent_get_info(rt.agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), &cus) ==
        HSA_STATUS_SUCCESS);
  CHECK(cus == 3);
  uint32_t wg_max = 0, wavefront = 0, queue_max = 0, queue_min = 0, line = 0;
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &wg_max) == HSA_STATUS_SUCCESS);
  CHECK(wg_max == 1024);
  uint16_t wg_dims[3] = {};
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, wg_dims) == HSA_STATUS_SUCCESS);
  CHECK(wg_dims[0] == 1024);
  hsa_dim3_t grid_dims{};
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_GRID_MAX_DIM, &grid_dims) == HSA_STATUS_SUCCESS);
  CHECK(grid_dims.x == UINT32_MAX);
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &queue_max) == HSA_STATUS_SUCCESS);
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &queue_min) == HSA_STATUS_SUCCESS);
  CHECK(queue_min <= queue_max);
  CHECK((queue_max & (queue_max - 1)) == 0);
  CHECK(hsa_agent_get_info(rt.agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_CACHELINE_SIZE), &line) ==
        HSA_STATUS_SUCCESS);
  CHECK(line >= 32);
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_WAVEFRONT_SIZE, &wavefront) == HSA_STATUS_SUCCESS);
  CHECK((wavefront == 4 || wavefront == 8 || wavefront == 16));
  uint32_t caches[4] = {};
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_CACHE_SIZE, caches) == HSA_STATUS_SUCCESS);
  // Attributes without a CPU meaning are refused, bad handles too.
  uint32_t chip = 0;
  CHECK(hsa_agent_get_info(rt.agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_CHIP_ID), &chip) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_agent_get_info(hsa_agent_t{12345}, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_NAME, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("ISAs are listed best first and the agent ISA is the best") {
  Runtime rt;
  std::vector<hsa_isa_t> isas;
  CHECK(hsa_agent_iterate_isas(
            rt.agent,
            [](hsa_isa_t isa, void* data) {
              static_cast<std::vector<hsa_isa_t>*>(data)->push_back(isa);
              return HSA_STATUS_SUCCESS;
            },
            &isas) == HSA_STATUS_SUCCESS);
  REQUIRE(!isas.empty());
  hsa_isa_t agent_isa{};
  CHECK(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_ISA, &agent_isa) == HSA_STATUS_SUCCESS);
  CHECK(agent_isa.handle == isas[0].handle);
  std::vector<std::string> names;
  for (hsa_isa_t isa : isas) {
    uint32_t length = 0;
    REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) == HSA_STATUS_SUCCESS);
    std::string name(length, '\0');
    REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data()) == HSA_STATUS_SUCCESS);
    name.resize(strlen(name.c_str()));
    CHECK(name.rfind("x86_64-unknown-linux-gnu--x86-64", 0) == 0);
    hsa_isa_t round_trip{};
    CHECK(hsa_isa_from_name(name.c_str(), &round_trip) == HSA_STATUS_SUCCESS);
    CHECK(round_trip.handle == isa.handle);
    names.push_back(name);
  }
  CHECK(names.back() == "x86_64-unknown-linux-gnu--x86-64");  // baseline always, last
  if (__builtin_cpu_supports("x86-64-v3")) CHECK(names.size() >= 3);
  hsa_isa_t bogus{};
  CHECK(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx942", &bogus) == HSA_STATUS_ERROR_INVALID_ISA_NAME);
  uint32_t wavefronts = 0;
  CHECK(hsa_isa_iterate_wavefronts(
            isas[0],
            [](hsa_wavefront_t w, void* data) {
              uint32_t size = 0;
              hsa_wavefront_get_info(w, HSA_WAVEFRONT_INFO_SIZE, &size);
              *static_cast<uint32_t*>(data) = size;
              return HSA_STATUS_SUCCESS;
            },
            &wavefronts) == HSA_STATUS_SUCCESS);
  uint32_t agent_wavefront = 0;
  hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_WAVEFRONT_SIZE, &agent_wavefront);
  CHECK(wavefronts == agent_wavefront);
}

TEST_CASE("HSA_CPU_ISA caps the agent's ISA list") {
  ScopedEnv cap("HSA_CPU_ISA", "x86-64-v2");
  Runtime rt;
  hsa_isa_t agent_isa{};
  REQUIRE(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_ISA, &agent_isa) == HSA_STATUS_SUCCESS);
  char name[64] = {};
  REQUIRE(hsa_isa_get_info_alt(agent_isa, HSA_ISA_INFO_NAME, name) == HSA_STATUS_SUCCESS);
  CHECK(std::string(name) == "x86_64-unknown-linux-gnu--x86-64-v2");
}

TEST_CASE("HSA_CPU_AGENTS exposes several agents sharing the workers") {
  ScopedEnv agents("HSA_CPU_AGENTS", "3");
  Runtime rt;
  std::vector<hsa_agent_t> all;
  hsa_iterate_agents(
      [](hsa_agent_t a, void* data) {
        static_cast<std::vector<hsa_agent_t>*>(data)->push_back(a);
        return HSA_STATUS_SUCCESS;
      },
      &all);
  REQUIRE(all.size() == 3);
  for (uint32_t i = 0; i < 3; ++i) {
    uint32_t node = 99;
    CHECK(hsa_agent_get_info(all[i], HSA_AGENT_INFO_NODE, &node) == HSA_STATUS_SUCCESS);
    CHECK(node == i);
  }
}

TEST_CASE("caches") {
  Runtime rt;
  int count = 0;
  hsa_agent_iterate_caches(
      rt.agent,
      [](hsa_cache_t cache, void* data) {
        uint8_t level = 0;
        uint32_t size = 0;
        CHECK(hsa_cache_get_info(cache, HSA_CACHE_INFO_LEVEL, &level) == HSA_STATUS_SUCCESS);
        CHECK(hsa_cache_get_info(cache, HSA_CACHE_INFO_SIZE, &size) == HSA_STATUS_SUCCESS);
        CHECK(level >= 1);
        CHECK(size > 0);
        ++*static_cast<int*>(data);
        return HSA_STATUS_SUCCESS;
      },
      &count);
  CHECK(count >= 0);
  uint8_t level;
  CHECK(hsa_cache_get_info(hsa_cache_t{42}, HSA_CACHE_INFO_LEVEL, &level) == HSA_STATUS_ERROR_INVALID_CACHE);
}

}  // TEST_SUITE
