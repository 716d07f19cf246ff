// A 64x64 f16 tile a tensor copy writes without a swizzle (128-byte rows), then read down
// a column by ldmatrix: each 8-row matrix lies in one bank group, 8 wavefronts where 1 would
// do. fix suggests the TMA's 128-byte swizzle (tests/fix_tile_test.cpp).
#include <cuda.h>

__device__ inline unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// bankcheck: kernel=column_reads grid=2 block=32 arg=map=tensormap:f16,64x128,64x64,data=iota arg=out=zeros:256
__global__ void column_reads(const __grid_constant__ CUtensorMap map, unsigned* out) {
  __shared__ alignas(1024) unsigned short tile[64][64];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned b = smem(&bar), t = smem(tile);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 8192;" ::"r"(b));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], "
        "[%1, {%2, %3}], [%4];" ::"r"(t),
        "l"(&map), "r"(0), "r"(static_cast<int>(blockIdx.x * 64)), "r"(b)
        : "memory");
  }
  __syncwarp();
  asm volatile(
      "{\n\t.reg .pred P1;\n"
      "WAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], 0;\n\t"
      "@!P1 bra WAIT;\n\t}" ::"r"(b)
      : "memory");
  unsigned r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"  // READ
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(t + threadIdx.x * 128));
  out[blockIdx.x * 32 + threadIdx.x] = r0 + r1 + r2 + r3;
}
