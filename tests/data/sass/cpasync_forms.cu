// cp.async.cg in the three SASS forms ptxas gives it (tests/sass_compiled_test.cpp), each
// copying a clean 512-byte tile per warp (lane i: 16 bytes at 16 * i on both sides):
//   a literal src-size equal to the copy size: dropped, plain LDGSTS.E.BYPASS.128;
//   src-size selected 16 or 0 by a predicate (Triton's and CUTLASS's zero fill): the
//     zero-fill predicate form, LDGSTS.E.BYPASS.128 [..], [..], P;
//   a src-size ptxas cannot know: LDGSTS.E.BYPASS.128.ZFILL.
// bankcheck: grid=2 block=64 arg=out=zeros:3K arg=in=iota:3K arg=n=40 arg=size=16
__global__ void cpasync_forms(float* out, const float* in, unsigned n, unsigned size) {
  __shared__ __align__(128) float s[3][256];
  const unsigned t = threadIdx.x;
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(&s[0][4 * t]));
  const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&s[1][4 * t]));
  const unsigned c = static_cast<unsigned>(__cvta_generic_to_shared(&s[2][4 * t]));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 16;" ::"r"(a), "l"(in + 4 * t));
  asm volatile(
      "{\n\t.reg .pred p;\n\t.reg .b32 z;\n\tsetp.lt.u32 p, %2, %3;\n\t"
      "selp.b32 z, 16, 0, p;\n\tcp.async.cg.shared.global [%0], [%1], 0x10, z;\n\t}" ::"r"(b),
      "l"(in + 256 + 4 * t), "r"(t), "r"(n));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(c), "l"(in + 512 + 4 * t),
               "r"(size));
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  for (unsigned k = 0; k < 3; ++k) out[256 * k + t] = s[k][t];
}
