/* A real amdgcn code object (gfx942), which hsa-cpu must refuse. */
__attribute__((amdgpu_kernel)) void amdgcn_store(int* out) { out[0] = 42; }
