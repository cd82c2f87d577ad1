// The generated negative tests (one per implicit rule the layer can see) and
// the coverage test that ties them to spec/vuids.json.
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "calls.h"

namespace vtest {

#include "generated/negative_tests.inc"

// Explicit rules whose negative tests are in test_layer.cpp (objects left
// alive, debug names, command-buffer states).
inline const char* const kExplicitTestsInTestLayer[] = {
    "XGPU-VUID-xgpuDestroyInstance-instance-devices",
    "XGPU-VUID-xgpuDestroyInstance-instance-messengers",
    "XGPU-VUID-xgpuDestroyDevice-device-children",
    "XGPU-VUID-xgpuSetObjectName-pNameInfo-objectType",
    "XGPU-VUID-xgpuSetObjectName-pNameInfo-objectHandle",
    "XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-state",
    "XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-oneShot",
    "XGPU-VUID-xgpuBeginCommandBuffer-commandBuffer-recording",
    "XGPU-VUID-xgpuEndCommandBuffer-commandBuffer-recording",
};

// Explicit rules whose negative tests are in test_settings.cpp (the settings
// structure) and test_thread_safety.cpp (external synchronization, forced
// with real threads).
inline const char* const kExplicitTestsInSettingsAndThreads[] = {
    "XGPU-VUID-xgpuCreateInstance-validationSettings-costlyChecks",
    "XGPU-VUID-xgpuCreateInstance-validationSettings-errorAction",
    "XGPU-VUID-xgpuCreateInstance-validationSettings-ppMutedMessageIds",
    "XGPU-VUID-xgpuCreateInstance-validationSettings-synchronizationHazards",
    "XGPU-VUID-xgpuCreateInstance-validationSettings-gpuAssistedValidation",
    "XGPU-VUID-xgpuBeginCommandBuffer-commandBuffer-externsync",
    "XGPU-VUID-xgpuCmdInsertDebugLabel-commandBuffer-externsync",
    "XGPU-VUID-xgpuDestroyBuffer-buffer-externsync",
    "XGPU-VUID-xgpuDestroyCommandBuffer-commandBuffer-externsync",
    "XGPU-VUID-xgpuMapBuffer-buffer-externsync",
};

TEST_CASE("coverage: every rule of spec/vuids.json has its negative test, and no test names another rule") {
  std::ifstream file(XGPU_VALIDATION_TEST_VUIDS_JSON);
  REQUIRE(file.good());
  const nlohmann::json json = nlohmann::json::parse(file);
  std::set<std::string> implicit;
  std::set<std::string> all;
  for (const auto& entry : json["vuids"]) {
    all.insert(entry["id"].get<std::string>());
    if (entry["kind"] == "implicit") implicit.insert(entry["id"].get<std::string>());
  }
  const std::set<std::string> tested(std::begin(kNegativeTests), std::end(kNegativeTests));
  const std::set<std::string> outside(std::begin(kRulesOutsideTheLayer), std::end(kRulesOutsideTheLayer));
  CHECK(tested.size() == std::size(kNegativeTests));  // one test per rule
  for (const std::string& id : implicit) {
    INFO(id);
    CHECK((tested.count(id) + outside.count(id)) == 1);
  }
  for (const std::string& id : tested) {
    INFO(id);
    CHECK(implicit.count(id) == 1);
  }
  for (const std::string& id : outside) {
    INFO(id);
    CHECK(implicit.count(id) == 1);
  }
  // Every explicit rule has a negative test (generated, in explicit_tests.cpp,
  // test_layer.cpp, test_settings.cpp, test_thread_safety.cpp,
  // test_other_driver.cpp or test_pipeline_kernels.cpp); each names an
  // explicit rule of spec/vuids.json.
  std::set<std::string> explicit_tested(std::begin(kGeneratedExplicitTests), std::end(kGeneratedExplicitTests));
  explicit_tested.insert(RuleTests().begin(), RuleTests().end());
  explicit_tested.insert(std::begin(kExplicitTestsInTestLayer), std::end(kExplicitTestsInTestLayer));
  explicit_tested.insert(std::begin(kExplicitTestsInSettingsAndThreads), std::end(kExplicitTestsInSettingsAndThreads));
  for (const std::string& id : all) {
    if (implicit.count(id) != 0) continue;
    INFO(id);
    CHECK(explicit_tested.count(id) == 1);
  }
  for (const std::string& id : explicit_tested) {
    INFO(id);
    CHECK((all.count(id) == 1 && implicit.count(id) == 0));
  }
  // Every ID any test saw reported is a rule of spec/vuids.json.
  CHECK(Fixture::Get().log.UnknownIds().empty());
  MESSAGE(tested.size(), " implicit rules tested; ", outside.size(), " answered by the loader alone; ",
          explicit_tested.size(), " explicit rules tested");
}

}  // namespace vtest
