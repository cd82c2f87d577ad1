// hsa_cuda_core_tests: hsa-cpu's suites of the core's parts run against
// hsa-cuda: signals (tests/hsa-cpu/test_signals.cpp) and memory
// (test_memory_core.cpp). Both runtimes' signals and allocations are the
// core's (hsa-core/); what differs is the back-end: signals in pinned memory
// a device writes, waits that re-check every 50 µs, processors that wake
// every sleeper when a completion lands; device memory the host does not
// reach and pinned host memory every device maps. Without a CUDA device hsa_init fails and the suite is
// skipped (it says so and exits 0), as every GPU test in CI.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <hsa/hsa.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (hsa_init() != HSA_STATUS_SUCCESS) {
    std::printf("hsa_cuda_core_tests: no CUDA device (hsa_init failed): skipped\n");
    return 0;
  }
  hsa_shut_down();
  doctest::Context context(argc, argv);
  return context.run();
}
