// hsa-cpu: init/shut down, system info, status strings, agents, ISAs, caches.
#include <unistd.h>
#include <x86intrin.h>

#include <cstring>
#include <fstream>
#include <string>

#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

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

TEST_CASE("HSA 1.2 §2.2 runtime notifications: hsa_status_string answers before hsa_init and after hsa_shut_down") {
  // Every status the runtime can return, the extensions' included.
  const uint32_t codes[] = {0x0,    0x1,    0x1000, 0x1001, 0x1002, 0x1003, 0x1004, 0x1005, 0x1006, 0x1007,
                            0x1008, 0x1009, 0x100A, 0x100B, 0x100C, 0x100D, 0x100E, 0x100F, 0x1010, 0x1011,
                            0x1012, 0x1013, 0x1014, 0x1015, 0x1016, 0x1017, 0x1018, 0x1019, 0x1020, 0x1021,
                            0x1022, 0x1023, 0x1024, 0x1025, 0x1026, 40,     41,     42,     43,     44,
                            0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x3000, 0x3001, 0x3002,
                            0x3003};
  auto strings = [&] {
    std::vector<std::string> texts;
    for (uint32_t code : codes) {
      CAPTURE(code);
      const char* text = nullptr;
      CHECK(status_bits(hsa_status_string(static_cast<hsa_status_t>(code), &text)) == HSA_STATUS_SUCCESS);
      REQUIRE(text != nullptr);
      texts.emplace_back(text);
    }
    return texts;
  };
  const std::vector<std::string> before = strings();  // no runtime yet
  CHECK(before[0].rfind("HSA_STATUS_SUCCESS", 0) == 0);
  CHECK(before[13].rfind("HSA_STATUS_ERROR_NOT_INITIALIZED", 0) == 0);
  CHECK(before.back().rfind("HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED", 0) == 0);
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  const std::vector<std::string> during = strings();
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  const std::vector<std::string> after = strings();  // the runtime is gone
  CHECK(during == before);
  CHECK(after == before);
  const char* text = nullptr;
  CHECK(hsa_status_string(HSA_STATUS_SUCCESS, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_status_string(static_cast<hsa_status_t>(0x5555), &text) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("HSA 1.2 §2.3 agent information: HSA_AGENT_INFO_FBARRIER_MAX_SIZE is at least 32") {
  Runtime rt;
  uint32_t agent_fbarriers = 0;
  REQUIRE(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_FBARRIER_MAX_SIZE, &agent_fbarriers) == HSA_STATUS_SUCCESS);
  CHECK(agent_fbarriers >= 32);
  // Every ISA of the agent says the same (HSA_ISA_INFO_FBARRIER_MAX_SIZE).
  std::vector<hsa_isa_t> isas;
  REQUIRE(hsa_agent_iterate_isas(
              rt.agent,
              [](hsa_isa_t isa, void* data) {
                static_cast<std::vector<hsa_isa_t>*>(data)->push_back(isa);
                return HSA_STATUS_SUCCESS;
              },
              &isas) == HSA_STATUS_SUCCESS);
  REQUIRE(!isas.empty());
  for (hsa_isa_t isa : isas) {
    uint32_t isa_fbarriers = 0;
    REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_FBARRIER_MAX_SIZE, &isa_fbarriers) == HSA_STATUS_SUCCESS);
    CHECK(isa_fbarriers == agent_fbarriers);
  }
}

TEST_CASE("HSA 1.2 §3 extensions: unsupported entry points check their arguments, then answer with the extension's status") {
  hsa_ext_image_descriptor_t descriptor{};
  descriptor.geometry = HSA_EXT_IMAGE_GEOMETRY_2D;
  descriptor.width = descriptor.height = 16;
  descriptor.format = {HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA};
  char pixels[16 * 16 * 4] = {};
  hsa_ext_image_t image{};
  hsa_ext_program_t program{};
  // Before hsa_init: NOT_INITIALIZED, whatever the arguments.
  CHECK(hsa_ext_image_create(hsa_agent_t{1}, &descriptor, pixels, HSA_ACCESS_PERMISSION_RO, &image) ==
        HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                               nullptr, &program) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_amd_ipc_memory_detach(pixels) == HSA_STATUS_ERROR_NOT_INITIALIZED);

  ScopedEnv log_env("HSA_CPU_LOG", "1");
  Runtime rt;
  // Arguments first: a NULL out-pointer, an unknown agent, a bad enum.
  CHECK(hsa_ext_image_create(rt.agent, &descriptor, pixels, HSA_ACCESS_PERMISSION_RO, nullptr) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_ext_image_create(hsa_agent_t{1}, &descriptor, pixels, HSA_ACCESS_PERMISSION_RO, &image) ==
        HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK(hsa_ext_image_create(rt.agent, &descriptor, pixels, static_cast<hsa_access_permission_t>(9), &image) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                               nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Then the feature's own answer, named in the log.
  uint32_t answer = 0;
  std::string text = capture_stderr([&] {
    answer = status_bits(hsa_ext_image_create(rt.agent, &descriptor, pixels, HSA_ACCESS_PERMISSION_RO, &image));
  });
  CHECK(answer == HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED);
  CHECK(text.find("hsa-cpu: hsa_ext_image_create: ") != std::string::npos);
  uint32_t capability = 0xff;
  CHECK(hsa_ext_image_get_capability(rt.agent, HSA_EXT_IMAGE_GEOMETRY_2D, &descriptor.format, &capability) ==
        HSA_STATUS_SUCCESS);
  CHECK(capability == HSA_EXT_IMAGE_CAPABILITY_NOT_SUPPORTED);
  hsa_ext_sampler_descriptor_t sampler_descriptor{};
  hsa_ext_sampler_t sampler{};
  CHECK(status_bits(hsa_ext_sampler_create(rt.agent, &sampler_descriptor, &sampler)) ==
        HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED);
  // Finalizer programs exist but take no BRIG module and finalize nothing.
  REQUIRE(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                                 nullptr, &program) == HSA_STATUS_SUCCESS);
  hsa_profile_t profile{};
  CHECK(hsa_ext_program_get_info(program, HSA_EXT_PROGRAM_INFO_PROFILE, &profile) == HSA_STATUS_SUCCESS);
  CHECK(profile == HSA_PROFILE_FULL);
  text = capture_stderr([&] { answer = status_bits(hsa_ext_program_add_module(program, nullptr)); });
  CHECK(answer == HSA_EXT_STATUS_ERROR_INVALID_MODULE);
  CHECK(text.find("hsa-cpu: hsa_ext_program_add_module: ") != std::string::npos);
  hsa_isa_t isa{};
  REQUIRE(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_ISA, &isa) == HSA_STATUS_SUCCESS);
  hsa_code_object_t code_object{};
  CHECK(status_bits(hsa_ext_program_finalize(program, isa, 0, hsa_ext_control_directives_t{}, nullptr,
                                             HSA_CODE_OBJECT_TYPE_PROGRAM, &code_object)) ==
        HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED);
  CHECK(hsa_ext_program_destroy(program) == HSA_STATUS_SUCCESS);
  CHECK(status_bits(hsa_ext_program_destroy(program)) == HSA_EXT_STATUS_ERROR_INVALID_PROGRAM);
  // v2 code objects, IPC and SDMA rectangle copies.
  CHECK(hsa_code_object_deserialize(pixels, sizeof(pixels), nullptr, &code_object) ==
        HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  hsa_amd_ipc_memory_t ipc{};
  void* p = rt.alloc<char>(64);
  text = capture_stderr([&] { answer = status_bits(hsa_amd_ipc_memory_create(p, 64, &ipc)); });
  CHECK(answer == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(text.find("hsa-cpu: hsa_amd_ipc_memory_create: ") != std::string::npos);
  hsa_pitched_ptr_t pitched{p, 16, 64};
  const hsa_dim3_t origin{0, 0, 0}, range{16, 4, 1};
  hsa_signal_t done = make_signal(1);
  CHECK(hsa_amd_memory_async_copy_rect(&pitched, &origin, &pitched, &origin, &range, rt.agent, hsaHostToHost, 0,
                                       nullptr, done) == HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK(hsa_signal_load_relaxed(done) == 1);
  CHECK(hsa_signal_destroy(done) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_memory_pool_free(p) == HSA_STATUS_SUCCESS);
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
  // Attributes without a CPU meaning answer 0, as ROCR's CPU agents do.
  uint32_t chip = 99;
  CHECK(hsa_agent_get_info(rt.agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_CHIP_ID), &chip) ==
        HSA_STATUS_SUCCESS);
  CHECK(chip == 0);
  // Unknown attributes and bad handles are refused.
  CHECK(hsa_agent_get_info(rt.agent, static_cast<hsa_agent_info_t>(0x7777), &chip) ==
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
  const std::vector<hsa_agent_t> all = Runtime::agents();
  REQUIRE(all.size() == 3);
  for (uint32_t i = 0; i < 3; ++i) {
    uint32_t node = 99;
    CHECK(hsa_agent_get_info(all[i], HSA_AGENT_INFO_NODE, &node) == HSA_STATUS_SUCCESS);
    CHECK(node == i);
  }
}

TEST_CASE("caches: the iterated caches are the agent's cache sizes") {
  Runtime rt;
  struct Seen {
    uint32_t sizes[4] = {};  // bytes per level, from the iterated caches
    int count = 0;
  } seen;
  CHECK(hsa_agent_iterate_caches(
            rt.agent,
            [](hsa_cache_t cache, void* data) {
              auto* seen = static_cast<Seen*>(data);
              uint8_t level = 0;
              uint32_t size = 0;
              CHECK(hsa_cache_get_info(cache, HSA_CACHE_INFO_LEVEL, &level) == HSA_STATUS_SUCCESS);
              CHECK(hsa_cache_get_info(cache, HSA_CACHE_INFO_SIZE, &size) == HSA_STATUS_SUCCESS);
              REQUIRE(level >= 1);
              REQUIRE(level <= 4);
              CHECK(seen->sizes[level - 1] == 0);  // one cache per level
              seen->sizes[level - 1] = size;
              ++seen->count;
              return HSA_STATUS_SUCCESS;
            },
            &seen) == HSA_STATUS_SUCCESS);
  uint32_t sizes[4] = {};
  REQUIRE(hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_CACHE_SIZE, sizes) == HSA_STATUS_SUCCESS);
  int levels = 0;
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(seen.sizes[i] == sizes[i]);
    levels += sizes[i] != 0;
  }
  CHECK(seen.count == levels);
  // The host reports its L1 data cache, so the agent lists it.
  if (sysconf(_SC_LEVEL1_DCACHE_SIZE) > 0) CHECK(seen.sizes[0] == uint32_t(sysconf(_SC_LEVEL1_DCACHE_SIZE)));
  uint8_t level;
  CHECK(hsa_cache_get_info(hsa_cache_t{42}, HSA_CACHE_INFO_LEVEL, &level) == HSA_STATUS_ERROR_INVALID_CACHE);
}

namespace {

// HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY: newer than the installed headers.
constexpr uint32_t kAgentInfoTimestampFrequency = 0xA016;

hsa_status_t agent_info(hsa_agent_t agent, uint32_t attribute, void* value) {
  return hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(attribute), value);
}

template <typename T>
T agent_value(hsa_agent_t agent, uint32_t attribute) {
  T value{};
  CAPTURE(attribute);
  REQUIRE(agent_info(agent, attribute, &value) == HSA_STATUS_SUCCESS);
  return value;
}

// The highest cpuinfo_max_freq (MHz) of the CPUs, 0 without cpufreq.
uint32_t sysfs_max_mhz() {
  uint64_t max_khz = 0;
  for (int cpu = 0; cpu < 4096; ++cpu) {
    std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/cpuinfo_max_freq");
    uint64_t khz = 0;
    if (f >> khz && khz > max_khz) max_khz = khz;
  }
  return uint32_t(max_khz / 1000);
}

// Queries every attribute of one memory pool the way rocminfo does (all of
// them, GLOBAL_FLAGS first, whatever the segment) and checks the values.
void check_pool(hsa_agent_t agent, hsa_amd_memory_pool_t pool) {
  uint32_t flags = 0xcdcdcdcd;
  hsa_amd_segment_t segment{};
  size_t size = 0, granule = 0, alignment = 0, max_alloc = 0;
  bool allowed = false, by_all = false;
  REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT, &alignment) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, &by_all) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, &max_alloc) ==
          HSA_STATUS_SUCCESS);
  hsa_amd_memory_pool_access_t access{};
  uint32_t hops = 99;
  REQUIRE(hsa_amd_agent_memory_pool_get_info(agent, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_agent_memory_pool_get_info(agent, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS, &hops) ==
          HSA_STATUS_SUCCESS);
  CHECK(access == HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT);
  CHECK(hops == 0);
  const size_t memory = size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGESIZE));
  if (segment == HSA_AMD_SEGMENT_GROUP) {
    CHECK(flags == 0);
    CHECK(size == 65536);
    CHECK_FALSE(allowed);
    CHECK(max_alloc == 0);
    CHECK_FALSE(by_all);
  } else {
    REQUIRE(segment == HSA_AMD_SEGMENT_GLOBAL);
    const uint32_t grain = flags & (HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED |
                                    HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    CHECK((grain == HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED ||
           grain == HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED));
    CHECK(size == memory);
    CHECK(allowed);
    CHECK(granule == size_t(sysconf(_SC_PAGESIZE)));
    CHECK(alignment == granule);
    CHECK(max_alloc == memory);
    CHECK(by_all);
  }
  // The same object as a region.
  const hsa_region_t region{pool.handle};
  hsa_region_segment_t region_segment{};
  uint32_t region_flags = 0xcdcdcdcd, bus_width = 99, clock = 99, private_size = 0;
  bool host_accessible = false;
  void* base = reinterpret_cast<void*>(1);
  size_t region_size = 0;
  REQUIRE(hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &region_segment) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &region_flags) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_region_get_info(region, HSA_REGION_INFO_SIZE, &region_size) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_region_get_info(region, HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE, &private_size) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_region_get_info(region, static_cast<hsa_region_info_t>(HSA_AMD_REGION_INFO_HOST_ACCESSIBLE),
                              &host_accessible) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_region_get_info(region, static_cast<hsa_region_info_t>(HSA_AMD_REGION_INFO_BASE), &base) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_region_get_info(region, static_cast<hsa_region_info_t>(HSA_AMD_REGION_INFO_BUS_WIDTH), &bus_width) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_region_get_info(region, static_cast<hsa_region_info_t>(HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY),
                              &clock) == HSA_STATUS_SUCCESS);
  CHECK(region_flags == flags);
  CHECK(region_size == size);
  CHECK(region_segment ==
        (segment == HSA_AMD_SEGMENT_GROUP ? HSA_REGION_SEGMENT_GROUP : HSA_REGION_SEGMENT_GLOBAL));
  CHECK(host_accessible == (segment == HSA_AMD_SEGMENT_GLOBAL));
  CHECK(base == nullptr);
  CHECK(bus_width == 0);
  CHECK(clock == 0);
  CHECK(private_size == 1024);
}

// Every hsa_isa_info_t, through both query functions.
void check_isa(hsa_isa_t isa) {
  uint32_t length = 0;
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) == HSA_STATUS_SUCCESS);
  std::vector<char> name(length, 'x');  // rocminfo allocates exactly this
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data()) == HSA_STATUS_SUCCESS);
  CHECK(name.back() == '\0');
  CHECK(std::string(name.data()).rfind("x86_64-unknown-linux-gnu--x86-64", 0) == 0);
  bool models[2] = {}, profiles[2] = {}, modes[3] = {}, base_modes[3] = {}, fast_f16 = true;
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_MACHINE_MODELS, models) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_PROFILES, profiles) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES, modes) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES, base_modes) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_FAST_F16_OPERATION, &fast_f16) == HSA_STATUS_SUCCESS);
  CHECK_FALSE(models[HSA_MACHINE_MODEL_SMALL]);
  CHECK(models[HSA_MACHINE_MODEL_LARGE]);
  CHECK(profiles[HSA_PROFILE_FULL]);
  CHECK(modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR]);
  CHECK(base_modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR]);
  CHECK_FALSE(fast_f16);
  uint16_t wg_dims[3] = {};
  uint32_t wg_max = 0, fbarrier = 99;
  hsa_dim3_t grid_dims{};
  uint64_t grid_max = 0;
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_WORKGROUP_MAX_DIM, wg_dims) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_WORKGROUP_MAX_SIZE, &wg_max) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_GRID_MAX_DIM, &grid_dims) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_GRID_MAX_SIZE, &grid_max) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_FBARRIER_MAX_SIZE, &fbarrier) == HSA_STATUS_SUCCESS);
  CHECK(wg_dims[0] == 1024);
  CHECK(wg_dims[2] == 1024);
  CHECK(wg_max == 1024);
  CHECK(grid_dims.x == UINT32_MAX);
  CHECK(grid_max == UINT64_MAX);
  CHECK(fbarrier == 32);
  uint32_t conventions = 0, wavefront = 0, waves = 0;
  REQUIRE(hsa_isa_get_info(isa, HSA_ISA_INFO_CALL_CONVENTION_COUNT, 0, &conventions) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_isa_get_info(isa, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE, 0, &wavefront) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(hsa_isa_get_info(isa, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT, 0, &waves) ==
          HSA_STATUS_SUCCESS);
  CHECK(conventions == 1);
  CHECK((wavefront == 4 || wavefront == 8 || wavefront == 16));
  CHECK(waves * wavefront == 1024);
  CHECK(hsa_isa_get_info(isa, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE, 1, &wavefront) ==
        HSA_STATUS_ERROR_INVALID_INDEX);
}

}  // namespace

TEST_CASE("every attribute answers, queried as rocminfo does") {
  ScopedEnv agents_env("HSA_CPU_AGENTS", "2");
  ScopedEnv workers_env("HSA_CPU_WORKERS", "3");
  Runtime rt;
  // System attributes.
  uint16_t major = 0, minor = 0;
  uint64_t frequency = 0, max_wait = 0;
  hsa_endianness_t endianness{};
  hsa_machine_model_t model{};
  REQUIRE(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &minor) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &frequency) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_system_get_info(HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT, &max_wait) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_system_get_info(HSA_SYSTEM_INFO_ENDIANNESS, &endianness) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_system_get_info(HSA_SYSTEM_INFO_MACHINE_MODEL, &model) == HSA_STATUS_SUCCESS);
  const char* build = nullptr;
  bool svm = false;
  REQUIRE(hsa_system_get_info(static_cast<hsa_system_info_t>(HSA_AMD_SYSTEM_INFO_BUILD_VERSION), &build) ==
          HSA_STATUS_SUCCESS);
  CHECK(std::string(build).rfind("hsa-cpu ", 0) == 0);
  REQUIRE(hsa_system_get_info(static_cast<hsa_system_info_t>(HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED), &svm) ==
          HSA_STATUS_SUCCESS);
  CHECK(svm);

  const std::vector<hsa_agent_t> agents = Runtime::agents();
  REQUIRE(agents.size() == 2);
  for (uint32_t i = 0; i < agents.size(); ++i) {
    CAPTURE(i);
    const hsa_agent_t agent = agents[i];
    char name[64], vendor[64], product[64], uuid[21];
    memset(uuid, 'x', sizeof(uuid));
    REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_VENDOR_NAME, vendor) == HSA_STATUS_SUCCESS);
    REQUIRE(agent_info(agent, HSA_AMD_AGENT_INFO_PRODUCT_NAME, product) == HSA_STATUS_SUCCESS);
    REQUIRE(agent_info(agent, HSA_AMD_AGENT_INFO_UUID, uuid) == HSA_STATUS_SUCCESS);
    CHECK(std::string(name) == "hsa-cpu (" + std::string(product) + ")");
    CHECK(std::strlen(vendor) > 0);
    CHECK(std::string(uuid) == "CPU-XX");

    // Standard attributes (hsa_agent_info_t), in header order.
    CHECK(agent_value<hsa_agent_feature_t>(agent, HSA_AGENT_INFO_FEATURE) == HSA_AGENT_FEATURE_KERNEL_DISPATCH);
    CHECK(agent_value<hsa_machine_model_t>(agent, HSA_AGENT_INFO_MACHINE_MODEL) == HSA_MACHINE_MODEL_LARGE);
    CHECK(agent_value<hsa_profile_t>(agent, HSA_AGENT_INFO_PROFILE) == HSA_PROFILE_FULL);
    CHECK(agent_value<hsa_default_float_rounding_mode_t>(agent, HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE) ==
          HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
    CHECK(agent_value<hsa_default_float_rounding_mode_t>(
              agent, HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES) ==
          HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
    CHECK_FALSE(agent_value<bool>(agent, HSA_AGENT_INFO_FAST_F16_OPERATION));
    const uint32_t wavefront = agent_value<uint32_t>(agent, HSA_AGENT_INFO_WAVEFRONT_SIZE);
    CHECK((wavefront == 4 || wavefront == 8 || wavefront == 16));
    uint16_t wg_dims[3] = {};
    REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, wg_dims) == HSA_STATUS_SUCCESS);
    CHECK(wg_dims[1] == 1024);
    CHECK(agent_value<uint32_t>(agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE) == 1024);
    CHECK(agent_value<hsa_dim3_t>(agent, HSA_AGENT_INFO_GRID_MAX_DIM).z == UINT32_MAX);
    CHECK(agent_value<uint32_t>(agent, HSA_AGENT_INFO_GRID_MAX_SIZE) == UINT32_MAX);
    CHECK(agent_value<uint32_t>(agent, HSA_AGENT_INFO_FBARRIER_MAX_SIZE) == 32);
    CHECK(agent_value<uint32_t>(agent, HSA_AGENT_INFO_QUEUES_MAX) == 128);
    const uint32_t queue_min = agent_value<uint32_t>(agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE);
    const uint32_t queue_max = agent_value<uint32_t>(agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE);
    CHECK(queue_min == 64);
    CHECK(queue_max == 131072);
    CHECK(agent_value<hsa_queue_type32_t>(agent, HSA_AGENT_INFO_QUEUE_TYPE) == HSA_QUEUE_TYPE_MULTI);
    CHECK(agent_value<uint32_t>(agent, HSA_AGENT_INFO_NODE) == i);
    CHECK(agent_value<hsa_device_type_t>(agent, HSA_AGENT_INFO_DEVICE) == HSA_DEVICE_TYPE_CPU);
    uint32_t caches[4] = {};
    REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_CACHE_SIZE, caches) == HSA_STATUS_SUCCESS);
    hsa_isa_t isa = agent_value<hsa_isa_t>(agent, HSA_AGENT_INFO_ISA);
    CHECK(isa.handle != 0);
    uint8_t extensions[128];
    memset(extensions, 0xff, sizeof(extensions));
    REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_EXTENSIONS, extensions) == HSA_STATUS_SUCCESS);
    for (uint8_t e : extensions) CHECK(e == 0);
    CHECK(agent_value<uint16_t>(agent, HSA_AGENT_INFO_VERSION_MAJOR) == 1);
    CHECK(agent_value<uint16_t>(agent, HSA_AGENT_INFO_VERSION_MINOR) == 1);

    // AMD attributes (hsa_amd_agent_info_t), every one in the header.
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_CHIP_ID) == 0);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_CACHELINE_SIZE) ==
          uint32_t(sysconf(_SC_LEVEL1_DCACHE_LINESIZE) > 0 ? sysconf(_SC_LEVEL1_DCACHE_LINESIZE) : 64));
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT) == 3);
    const uint32_t mhz = agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY);
    if (sysfs_max_mhz() != 0) CHECK(mhz == sysfs_max_mhz());  // cpufreq's maximum, not the current clock
    CHECK(mhz > 100);
    CHECK(mhz < 10000);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_DRIVER_NODE_ID) == i);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS) == 0);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_BDFID) == 0);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_MEMORY_WIDTH) == 0);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY) == 0);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU) * wavefront == 1024);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU) == 1);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES) == 1);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE) == 1);
    hsa_amd_hdp_flush_t hdp{reinterpret_cast<uint32_t*>(1), reinterpret_cast<uint32_t*>(1)};
    REQUIRE(agent_info(agent, HSA_AMD_AGENT_INFO_HDP_FLUSH, &hdp) == HSA_STATUS_SUCCESS);
    CHECK(hdp.HDP_MEM_FLUSH_CNTL == nullptr);
    CHECK(hdp.HDP_REG_FLUSH_CNTL == nullptr);
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_DOMAIN) == 0);
    CHECK_FALSE(agent_value<bool>(agent, HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES));
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_ASIC_REVISION) == 0);
    CHECK(agent_value<bool>(agent, HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS));
    CHECK(agent_value<uint32_t>(agent, HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT) == 3);
    const uint64_t tsc_hz = agent_value<uint64_t>(agent, kAgentInfoTimestampFrequency);
    CHECK(tsc_hz > 100000000ull);
    CHECK(tsc_hz < 10000000000ull);

    // Image attributes (hsa_ext_image.h): no image support, so all zero;
    // the row pitch alignment is refused, as ROCR does for CPU agents.
    for (uint32_t attribute = 0x3000; attribute <= 0x300B; ++attribute) {
      CAPTURE(attribute);
      uint32_t dims[3] = {7, 7, 7};
      REQUIRE(agent_info(agent, attribute, dims) == HSA_STATUS_SUCCESS);
      CHECK(dims[0] == 0);
    }
    uint32_t pitch = 0;
    CHECK(agent_info(agent, 0x300C, &pitch) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

    // Pools (each agent has its own), ISAs and caches.
    std::vector<hsa_amd_memory_pool_t> pools;
    REQUIRE(hsa_amd_agent_iterate_memory_pools(
                agent,
                [](hsa_amd_memory_pool_t pool, void* data) {
                  static_cast<std::vector<hsa_amd_memory_pool_t>*>(data)->push_back(pool);
                  return HSA_STATUS_SUCCESS;
                },
                &pools) == HSA_STATUS_SUCCESS);
    CHECK(pools.size() == 4);
    for (hsa_amd_memory_pool_t pool : pools) check_pool(agent, pool);
    std::vector<hsa_isa_t> isas;
    REQUIRE(hsa_agent_iterate_isas(
                agent,
                [](hsa_isa_t isa, void* data) {
                  static_cast<std::vector<hsa_isa_t>*>(data)->push_back(isa);
                  return HSA_STATUS_SUCCESS;
                },
                &isas) == HSA_STATUS_SUCCESS);
    REQUIRE(!isas.empty());
    CHECK(isas[0].handle == isa.handle);
    for (hsa_isa_t each : isas) check_isa(each);
    CHECK(hsa_agent_iterate_caches(
              agent,
              [](hsa_cache_t cache, void*) {
                uint32_t length = 0, size = 0;
                uint8_t level = 0;
                REQUIRE(hsa_cache_get_info(cache, HSA_CACHE_INFO_NAME_LENGTH, &length) == HSA_STATUS_SUCCESS);
                std::vector<char> cache_name(length + 1, '\0');
                REQUIRE(hsa_cache_get_info(cache, HSA_CACHE_INFO_NAME, cache_name.data()) == HSA_STATUS_SUCCESS);
                REQUIRE(hsa_cache_get_info(cache, HSA_CACHE_INFO_LEVEL, &level) == HSA_STATUS_SUCCESS);
                REQUIRE(hsa_cache_get_info(cache, HSA_CACHE_INFO_SIZE, &size) == HSA_STATUS_SUCCESS);
                CHECK(std::string(cache_name.data()) == "L" + std::to_string(level));
                CHECK(size > 0);
                return HSA_STATUS_SUCCESS;
              },
              nullptr) == HSA_STATUS_SUCCESS);
  }
}

TEST_CASE("the agent timestamp frequency is the TSC's; ticks convert to system time") {
  Runtime rt;
  uint64_t tsc_hz = 0;
  REQUIRE(agent_info(rt.agent, kAgentInfoTimestampFrequency, &tsc_hz) == HSA_STATUS_SUCCESS);
  REQUIRE(tsc_hz != 0);
  // Kernels read the device timestamp with __builtin_readcyclecounter
  // (rdtsc): its deltas scaled by the frequency are CLOCK_MONOTONIC deltas.
  for (int attempt = 0; attempt < 3; ++attempt) {
    timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const uint64_t c0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const uint64_t c1 = __rdtsc();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double clock_ns = double(t1.tv_sec - t0.tv_sec) * 1e9 + double(t1.tv_nsec - t0.tv_nsec);
    const double tsc_ns = double(c1 - c0) * 1e9 / double(tsc_hz);
    CAPTURE(clock_ns);
    CAPTURE(tsc_ns);
    CHECK(tsc_ns > clock_ns * 0.97);
    CHECK(tsc_ns < clock_ns * 1.03);
  }
  // The system timestamp stays CLOCK_MONOTONIC ns at 1 GHz.
  uint64_t system_hz = 0;
  REQUIRE(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &system_hz) == HSA_STATUS_SUCCESS);
  CHECK(system_hz == 1000000000ull);
  // An agent tick (TSC) converts to the system domain.
  uint64_t before = 0, after = 0, converted = 0;
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &before);
  const uint64_t tick = __rdtsc();
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &after);
  REQUIRE(hsa_amd_profiling_convert_tick_to_system_domain(rt.agent, tick, &converted) == HSA_STATUS_SUCCESS);
  CHECK(converted + 100000 >= before);  // within 0.1 ms
  CHECK(converted <= after + 100000);
  const uint64_t later_tick = tick + tsc_hz / 100;  // 10 ms later
  uint64_t later = 0;
  REQUIRE(hsa_amd_profiling_convert_tick_to_system_domain(rt.agent, later_tick, &later) == HSA_STATUS_SUCCESS);
  CHECK(later - converted > 9 * kMs);
  CHECK(later - converted < 11 * kMs);
}

}  // TEST_SUITE
