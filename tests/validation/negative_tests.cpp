// The generated negative tests (one per implicit rule the layer can see) and
// the coverage test that ties them to spec/vuids.json.
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "calls.h"

namespace vtest {

#include "generated/negative_tests.inc"

TEST_CASE("coverage: every implicit rule of spec/vuids.json has its negative test, and no test names another rule") {
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
  // The explicit rules with generated tests are explicit rules of spec/vuids.json.
  for (const char* id : kGeneratedExplicitTests) {
    INFO(id);
    CHECK((all.count(id) == 1 && implicit.count(id) == 0));
  }
  // Every ID any test saw reported is a rule of spec/vuids.json.
  CHECK(Fixture::Get().log.UnknownIds().empty());
  MESSAGE(tested.size(), " implicit rules tested; ", outside.size(), " answered by the loader alone; ",
          std::size(kGeneratedExplicitTests), " explicit rules with generated tests");
}

}  // namespace vtest
