// Test kernels in C++20: templates, constexpr functions and a function
// object in kernel code, built for every target like the C sources.
#include <xgpu/kernel.h>

#include "test_kernels.h"

namespace {

template <typename T>
constexpr T clamp(T value, T lo, T hi) {
  return value < lo ? lo : (hi < value ? hi : value);
}

// Horner's rule over a coefficient array whose length is a template argument.
template <size_t N>
constexpr float polynomial(const float (&coefficients)[N], float x) {
  float result = 0.0f;
  for (size_t i = 0; i < N; ++i) result = result * x + coefficients[i];
  return result;
}
static_assert(polynomial<3>({1.0f, 2.0f, 3.0f}, 2.0f) == 11.0f, "constexpr in kernel sources");

struct Max {
  constexpr uint32_t operator()(uint32_t a, uint32_t b) const { return a < b ? b : a; }
};

// Folds values[y][0..items_x) into values[y][0], then values[0..items_y)[0]
// into values[0][0], with `op`, halving the stride each step. Every work item
// of the workgroup calls it (it contains barriers).
template <typename Op>
void tile_reduce(XGPU_CTX_BARRIER_PARAM, uint32_t (&values)[XGPU_TEST_TILE][XGPU_TEST_TILE], Op op) {
  const uint32_t x = xgpu_local_id(0), y = xgpu_local_id(1);
  const uint32_t items_x = xgpu_workgroup_item_count(0), items_y = xgpu_workgroup_item_count(1);
  for (uint32_t stride = XGPU_TEST_TILE / 2; stride > 0; stride /= 2) {
    if (x < stride && x + stride < items_x) values[y][x] = op(values[y][x], values[y][x + stride]);
    xgpu_barrier();
  }
  for (uint32_t stride = XGPU_TEST_TILE / 2; stride > 0; stride /= 2) {
    if (x == 0 && y < stride && y + stride < items_y) values[y][0] = op(values[y][0], values[y + stride][0]);
    xgpu_barrier();
  }
}

}  // namespace

XGPU_KERNEL(poly_clamp, poly_clamp_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  const float coefficients[3] = {args->a, args->b, args->c};
  args->out[i] = clamp(polynomial(coefficients, args->in[i]), args->lo, args->hi);
}
XGPU_KERNEL_BINDINGS(poly_clamp, 2);

XGPU_KERNEL_GROUPSHARED_SIZED(tile_max, tile_max_args_t, args, tile_max_shared_t, shared, XGPU_TEST_TILE,
                              XGPU_TEST_TILE, 1u) {
  const uint32_t gx = xgpu_global_id(0), gy = xgpu_global_id(1);
  // The grid is the image: every work item that runs is inside it.
  shared->values[xgpu_local_id(1)][xgpu_local_id(0)] = args->in[gy * args->width + gx];
  xgpu_barrier();
  tile_reduce(XGPU_CTX_BARRIER, shared->values, Max{});
  if (xgpu_local_id(0) == 0 && xgpu_local_id(1) == 0) {
    args->out[xgpu_workgroup_id(1) * xgpu_workgroup_count(0) + xgpu_workgroup_id(0)] = shared->values[0][0];
  }
}
XGPU_KERNEL_BINDINGS(tile_max, 2);
