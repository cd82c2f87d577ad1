#version 450
// The Vulkan peer of kernels.c: y = a * x + y, element i = row * 262144 + column.
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Constants { float a; uint n; } c;
void main() {
  uint i = gl_GlobalInvocationID.y * 262144u + gl_GlobalInvocationID.x;
  if (i < c.n) y[i] = c.a * x[i] + y[i];
}
