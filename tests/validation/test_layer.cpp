// Hand-written tests of the validation layer.
#include "calls.h"

namespace vtest {

TEST_CASE("fixture: the layer is loaded and tracks the fixture's objects") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  CHECK((f.LayerDeviceFunction("xgpuCreateBuffer") != nullptr));
  f.ExpectNone();
}

}  // namespace vtest
