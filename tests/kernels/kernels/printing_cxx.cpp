// A kernel that prints, in C++20: overloads pick each value's conversion
// (<xgpu/kernel.h>), a template helper prints.
#include <xgpu/kernel.h>

#include "test_kernels.h"

namespace {

template <typename T>
void print_pair(XGPU_CTX_PARAM, const char* name, T value) {
  xgpu_printf("%s = %f\n", name, value);
}

}  // namespace

XGPU_KERNEL(print_cxx, print_test_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  const bool odd = (i & 1u) != 0;
  xgpu_printf("%u %d %lld %c %d %s %p %p\n", i, -static_cast<int>(i), static_cast<long long>(i) - 9, 'x', odd,
              "text", args->out, nullptr);
  print_pair(XGPU_CTX, "half", 0.5f * static_cast<float>(i));
  args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(print_cxx, 1);
