#include "cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>

namespace hsa_cuda {

bool cuda_driver_load(CudaDriver* driver, const char** out_error) {
  const char* path = std::getenv("HSA_CUDA_LIBRARY");
  if (!path || !*path) path = "libcuda.so.1";
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    *out_error = "libcuda.so.1 (the NVIDIA driver) is not installed";
    return false;
  }
#define HSA_CUDA_RESOLVE(member, symbol, ret, params)                              \
  driver->member = reinterpret_cast<ret(*) params>(dlsym(library, symbol));        \
  if (!driver->member) {                                                           \
    *out_error = "libcuda.so.1 lacks " symbol " (the driver is older than CUDA 12)"; \
    dlclose(library);                                                              \
    return false;                                                                  \
  }
  HSA_CUDA_DRIVER_FUNCTIONS(HSA_CUDA_RESOLVE)
#undef HSA_CUDA_RESOLVE
  driver->library = library;
  return true;
}

}  // namespace hsa_cuda
