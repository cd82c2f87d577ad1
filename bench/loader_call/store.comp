#version 450
// The Vulkan peer of kernels.c: copies the 16 bytes of push constants into the output.
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer Out { uint o[]; };
layout(push_constant) uniform Constants { uint v[4]; } c;
void main() { for (uint i = 0u; i < 4u; ++i) o[i] = c.v[i]; }
