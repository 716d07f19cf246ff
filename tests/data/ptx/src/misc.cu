// Test input: printf, initialized globals, structs by value, scoped inline asm, atomics, shfl/vote/match.
#include <cstdio>
#include <cuda_fp16.h>
struct S { double a; int b; float c; };
__constant__ float coeffs[4] = {1.0f, 2.5f, -3.0f, 0.125f};
__device__ int counters[3] = {1, 2, 3};
__device__ double dval = 3.25;
__device__ short sarr[2][3] = {{1,2,3},{4,5,6}};
__device__ __noinline__ int helper(int a, S s) { return a * s.b + (int)s.a; }
__device__ __noinline__ void dies() { __trap(); }
extern __shared__ float dyn[];
__global__ void kernel(S s, int* out, __half* h, float* f, double* d) {
  __shared__ int buf[64];
  int t = threadIdx.x;
  buf[t] = helper(t, s);
  __syncthreads();
  float4 v = reinterpret_cast<float4*>(dyn)[t];
  dyn[t + 1] = v.x + v.y + v.z + v.w + coeffs[t & 3];
  int lane; asm volatile("{ .reg .pred p; .reg .b32 q; setp.eq.u32 p, %1, 0; selp.b32 %0, 1, 0, p; }" : "=r"(lane) : "r"(t));
  int l2; asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; @p mov.u32 %0, 7; @!p mov.u32 %0, 9; }" : "=r"(l2) : "r"(t));
  unsigned ln; asm("mov.u32 %0, %%laneid;" : "=r"(ln));
  unsigned long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
  unsigned m; asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  int x = __shfl_sync(0xffffffff, buf[t], (t + 1) & 31);
  unsigned b = __ballot_sync(0xffffffff, x > 3);
  unsigned mm = __match_any_sync(0xffffffff, x);
  atomicAdd(&out[0], x + lane + l2 + (int)ln + (int)c + (int)m + (int)b + (int)mm);
  atomicCAS(&buf[1], 0, 1);
  atomicAdd(&f[0], 1.5f);
  h[t] = __hadd(h[t], __float2half(2.0f));
  d[t] = d[t] * 1.000001 + dval + counters[t % 3] + sarr[t&1][t%3];
  if (t == 0) printf("x=%d %f\n", x, d[t]);
  if (t == 1000) dies();
}
