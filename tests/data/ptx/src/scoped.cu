// Inline asm with scoped registers, texture fetches, assert, negative offsets.
#include <cassert>
__global__ void scoped(int* out, const float* in, cudaTextureObject_t tex) {
  __shared__ int s[256];
  int t = threadIdx.x, r;
  asm volatile("{\n\t.reg .pred p;\n\t.reg .b32 t<3>;\n\tsetp.lt.s32 p, %1, 16;\n\t{\n\t.reg .pred p;\n\tsetp.gt.s32 p, %1, 4;\n\t@p add.s32 t1, %1, 1;\n\t@!p mov.b32 t1, %1;\n\tmov.b32 %0, t1;\n\t}\n\t@p add.s32 %0, %0, t1;\n\t}" : "=r"(r) : "r"(t));
  int q; asm("{ .reg .b32 t<3>; mov.b32 t2, %1; add.s32 %0, t2, -1; }" : "=r"(q) : "r"(r));
  unsigned a, b; asm("mov.b64 {%0, %1}, %2;" : "=r"(a), "=r"(b) : "l"((unsigned long long)in));
  asm volatile("st.shared.v2.u32 [%0+-8], {%1, %2};" :: "r"((unsigned)__cvta_generic_to_shared(s + 4)), "r"(a), "r"(b));
  float4 tv = tex2D<float4>(tex, 0.5f, 1.5f);
  assert(t < 1000);
  const float* p = in + t;
  #pragma unroll 1
  for (int i = 0; i < t; ++i) s[(i * 7) & 255] += i;
  unsigned long long ns; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  out[t] = r + q + s[t ^ 3] + (int)tv.x + (int)ns + (int)p[-1] + (int)p[-3];
}
