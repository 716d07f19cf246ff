// One small kernel per shared-memory instruction form of sm_90 SASS, so that
// `cuobjdump -sass` of this file (bench/sass/run.sh) shows how ptxas encodes each
// form and the decoder in src/sass/ can be checked against it. Inline PTX keeps each
// form exactly what it says; every result is stored to global memory so that ptxas
// keeps the instruction. Each kernel's name says the form it is about.
#include <cstdint>

#define SHARED_INDEX (threadIdx.x)

// ---- ld.shared / st.shared of every width, with and without a guard predicate ----
__global__ void ld_st_widths(int *out, int n) {
  __shared__ __align__(16) unsigned char s[4096];
  unsigned base = (unsigned)__cvta_generic_to_shared(s);
  unsigned a = base + SHARED_INDEX * 16;
  unsigned u8, s8, u16, s16, b32;
  unsigned long long b64;
  unsigned v0, v1, v2, v3;
  asm volatile("st.shared.u8 [%0], %1;" ::"r"(a), "r"(n));
  asm volatile("st.shared.u16 [%0+2], %1;" ::"r"(a), "r"(n));
  asm volatile("st.shared.u32 [%0+4], %1;" ::"r"(a), "r"(n));
  asm volatile("st.shared.u64 [%0+8], %1;" ::"r"(a), "l"((unsigned long long)n));
  asm volatile("st.shared.v4.u32 [%0+2048], {%1,%1,%1,%1};" ::"r"(a), "r"(n));
  __syncthreads();
  asm volatile("ld.shared.u8 %0, [%1];" : "=r"(u8) : "r"(a));
  asm volatile("ld.shared.s8 %0, [%1+1];" : "=r"(s8) : "r"(a));
  asm volatile("ld.shared.u16 %0, [%1+2];" : "=r"(u16) : "r"(a));
  asm volatile("ld.shared.s16 %0, [%1+6];" : "=r"(s16) : "r"(a));
  asm volatile("ld.shared.u32 %0, [%1+4];" : "=r"(b32) : "r"(a));
  asm volatile("ld.shared.u64 %0, [%1+8];" : "=l"(b64) : "r"(a));
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4+2048];"
               : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
               : "r"(a));
  out[threadIdx.x] = u8 + s8 + u16 + s16 + b32 + (unsigned)b64 + v0 + v1 + v2 + v3;
}

__global__ void ld_st_predicated(int *out, int n) {
  __shared__ int s[1024];
  int v = 0;
  if (threadIdx.x < n) s[threadIdx.x] = n; // @P STS
  __syncthreads();
  if (threadIdx.x > n) v = s[threadIdx.x ^ 1]; // @P LDS
  out[threadIdx.x] = v;
}

// ---- atom.shared / red.shared: every operation and type ----
__global__ void atoms_32(unsigned *out, unsigned x) {
  __shared__ unsigned s[256];
  unsigned a = (unsigned)__cvta_generic_to_shared(s) + (SHARED_INDEX % 64) * 4;
  unsigned r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12;
  asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(r0) : "r"(a), "r"(x));
  asm volatile("atom.shared.min.u32 %0, [%1], %2;" : "=r"(r1) : "r"(a), "r"(x));
  asm volatile("atom.shared.max.u32 %0, [%1], %2;" : "=r"(r2) : "r"(a), "r"(x));
  asm volatile("atom.shared.min.s32 %0, [%1], %2;" : "=r"(r3) : "r"(a), "r"(x));
  asm volatile("atom.shared.max.s32 %0, [%1], %2;" : "=r"(r4) : "r"(a), "r"(x));
  asm volatile("atom.shared.inc.u32 %0, [%1], %2;" : "=r"(r5) : "r"(a), "r"(x));
  asm volatile("atom.shared.dec.u32 %0, [%1], %2;" : "=r"(r6) : "r"(a), "r"(x));
  asm volatile("atom.shared.and.b32 %0, [%1], %2;" : "=r"(r7) : "r"(a), "r"(x));
  asm volatile("atom.shared.or.b32 %0, [%1], %2;" : "=r"(r8) : "r"(a), "r"(x));
  asm volatile("atom.shared.xor.b32 %0, [%1], %2;" : "=r"(r9) : "r"(a), "r"(x));
  asm volatile("atom.shared.exch.b32 %0, [%1], %2;" : "=r"(r10) : "r"(a), "r"(x));
  asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(r11) : "r"(a), "r"(x), "r"(r0));
  asm volatile("atom.shared.add.u32 %0, [%1+64], %2;" : "=r"(r12) : "r"(a), "r"(x));
  out[threadIdx.x] = r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7 + r8 + r9 + r10 + r11 + r12;
}

__global__ void atoms_64(unsigned long long *out, unsigned long long x) {
  __shared__ unsigned long long s[256];
  unsigned a = (unsigned)__cvta_generic_to_shared(s) + (SHARED_INDEX % 64) * 8;
  unsigned long long r0, r1, r2, r3, r4, r5, r6;
  asm volatile("atom.shared.add.u64 %0, [%1], %2;" : "=l"(r0) : "r"(a), "l"(x));
  asm volatile("atom.shared.min.u64 %0, [%1], %2;" : "=l"(r1) : "r"(a), "l"(x));
  asm volatile("atom.shared.max.s64 %0, [%1], %2;" : "=l"(r2) : "r"(a), "l"(x));
  asm volatile("atom.shared.and.b64 %0, [%1], %2;" : "=l"(r3) : "r"(a), "l"(x));
  asm volatile("atom.shared.exch.b64 %0, [%1], %2;" : "=l"(r4) : "r"(a), "l"(x));
  asm volatile("atom.shared.cas.b64 %0, [%1], %2, %3;" : "=l"(r5) : "r"(a), "l"(x), "l"(r0));
  asm volatile("atom.shared.or.b64 %0, [%1], %2;" : "=l"(r6) : "r"(a), "l"(x));
  out[threadIdx.x] = r0 + r1 + r2 + r3 + r4 + r5 + r6;
}

__global__ void atoms_float(float *out, float x) {
  __shared__ float s[256];
  __shared__ double d[256];
  float f = atomicAdd(&s[threadIdx.x % 64], x);
  double g = atomicAdd(&d[threadIdx.x % 64], (double)x);
  out[threadIdx.x] = f + (float)g;
}

__global__ void red_shared(unsigned *out, unsigned x) {
  __shared__ unsigned s[256];
  unsigned a = (unsigned)__cvta_generic_to_shared(s) + (SHARED_INDEX % 64) * 4;
  asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(a), "r"(x));
  asm volatile("red.shared.min.s32 [%0], %1;" ::"r"(a), "r"(x));
  asm volatile("red.shared.or.b32 [%0], %1;" ::"r"(a), "r"(x));
  asm volatile("red.shared.add.u64 [%0], %1;" ::"r"(a), "l"((unsigned long long)x));
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x % 256];
}

// atomicAdd(p, 1) with the result unused: ptxas's ATOMS.POPC.INC.
__global__ void atoms_popc_inc(unsigned *out, const unsigned *keys) {
  __shared__ unsigned hist[256];
  hist[threadIdx.x % 256] = 0;
  __syncthreads();
  atomicAdd(&hist[keys[threadIdx.x] % 256], 1u);
  __syncthreads();
  out[threadIdx.x] = hist[threadIdx.x % 256];
}

// A warp-uniform address: ptxas aggregates the warp into one lane's ATOMS.ADD.
__global__ void atoms_uniform(unsigned *out, unsigned x) {
  __shared__ unsigned counter[4];
  if (threadIdx.x < 4) counter[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&counter[0], x);
  __syncthreads();
  out[threadIdx.x] = counter[0];
}

// ---- ldmatrix / stmatrix ----
__global__ void ldsm_forms(unsigned *out) {
  __shared__ __align__(16) unsigned short s[4096];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = (unsigned short)i;
  __syncthreads();
  unsigned a = (unsigned)__cvta_generic_to_shared(s) + (threadIdx.x % 32) * 16;
  unsigned r0, r1, r2, r3, t0, t1, t2, t3, u0, u1, w0, w1, w2, w3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
               : "=r"(u0), "=r"(u1)
               : "r"(a));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r1), "=r"(r2), "=r"(r3), "=r"(w0)
               : "r"(a));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(t0) : "r"(a));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
               : "=r"(t1), "=r"(t2)
               : "r"(a));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4+512];"
               : "=r"(t3), "=r"(w1), "=r"(w2), "=r"(w3)
               : "r"(a));
  out[threadIdx.x] = r0 + r1 + r2 + r3 + t0 + t1 + t2 + t3 + u0 + u1 + w0 + w1 + w2 + w3;
}

__global__ void stsm_forms(unsigned *out, unsigned x) {
  __shared__ __align__(16) unsigned short s[4096];
  unsigned a = (unsigned)__cvta_generic_to_shared(s) + (threadIdx.x % 32) * 16;
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(a), "r"(x));
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%1};" ::"r"(a), "r"(x + 1));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%1,%1,%1};" ::"r"(a),
               "r"(x + 2));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0+512], {%1,%1,%1,%1};" ::"r"(a),
               "r"(x + 3));
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

// ---- cp.async (LDGSTS) ----
__global__ void ldgsts_forms(int *out, const int4 *g, int n) {
  __shared__ __align__(16) int4 s[1024];
  unsigned a = (unsigned)__cvta_generic_to_shared(s) + threadIdx.x * 16;
  const int4 *p = g + threadIdx.x;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(a), "l"(p));
  asm volatile("cp.async.ca.shared.global [%0+4096], [%1], 8;" ::"r"(a), "l"(p));
  asm volatile("cp.async.ca.shared.global [%0+8192], [%1], 16;" ::"r"(a), "l"(p));
  asm volatile("cp.async.cg.shared.global [%0+12288], [%1], 16;" ::"r"(a), "l"(p));
  asm volatile("cp.async.ca.shared.global [%0+4], [%1], 4, %2;" ::"r"(a), "l"(p), "r"(n & 3));
  asm volatile("cp.async.cg.shared.global [%0+12304], [%1], 16, %2;" ::"r"(a), "l"(p), "r"(n & 15));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x].x + s[threadIdx.x + 256].y;
}
