#version 450
// The Vulkan peer of kernels.c: one invocation adds a constant to one counter.
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer Counters { uint counters[]; };
layout(push_constant) uniform Constants { uint index; uint value; uint pad0; uint pad1; } c;
void main() { atomicAdd(counters[c.index], c.value); }
