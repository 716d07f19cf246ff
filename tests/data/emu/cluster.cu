// Kernels of tests/emu_cluster_test.cpp: thread-block clusters (distributed shared memory,
// the cluster barrier, cluster special registers, mbarriers completed by another CTA,
// multicast bulk copies) and cooperative groups' grid synchronization, each with a CPU
// reference in the test.
#include <cooperative_groups.h>

#include <cstdint>

namespace cg = cooperative_groups;

__device__ inline unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// A ring in each cluster of 4 CTAs: every CTA writes its tile, the cluster syncs, every CTA
// reads its right neighbour's tile through distributed shared memory.
// out[b * 64 + t] = 1000 * (rank + 1) % 4... see the test.
__global__ void __cluster_dims__(4, 1, 1) ring(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int tile[64];
  const unsigned rank = cluster.block_rank();
  tile[threadIdx.x] = static_cast<int>(1000 * rank + threadIdx.x + 100000 * blockIdx.x);
  cluster.sync();
  const int* right = cluster.map_shared_rank(tile, (rank + 1) % cluster.num_blocks());
  const int v = right[(threadIdx.x + 1) % 64];
  cluster.sync();  // the neighbour may not leave while its tile is read
  out[blockIdx.x * 64 + threadIdx.x] = v;
}

// The cluster special registers, by inline PTX: rank, cluster count, position.
__global__ void specials(unsigned* out) {
  unsigned r, n, cx, cy, ix, iy, nx;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(cx));
  asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(cy));
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(ix));
  asm("mov.u32 %0, %%clusterid.y;" : "=r"(iy));
  asm("mov.u32 %0, %%nclusterid.x;" : "=r"(nx));
  if (threadIdx.x == 0) {
    unsigned* o = out + 8 * (blockIdx.y * gridDim.x + blockIdx.x);
    o[0] = r, o[1] = n, o[2] = cx, o[3] = cy, o[4] = ix, o[5] = iy, o[6] = nx;
  }
}

// A sum through atomics on rank 0's shared memory: every CTA of the cluster adds its
// threads' values to rank 0's accumulator (atom.shared::cluster), then rank 0 writes it.
__global__ void __cluster_dims__(2, 1, 1) cluster_sum(int* out, const int* in) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int acc;
  if (threadIdx.x == 0) acc = 0;
  cluster.sync();
  int* target = cluster.map_shared_rank(&acc, 0);
  atomicAdd(target, in[blockIdx.x * blockDim.x + threadIdx.x]);
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) out[blockIdx.x / 2] = acc;
}

// A producer CTA fills its consumer's buffer and arrives on the consumer's mbarrier
// (mbarrier.arrive.shared::cluster on a mapa address): rank 1 waits on its own barrier.
__global__ void __cluster_dims__(2, 1, 1) remote_arrive(int* out) {
  __shared__ int buf[32];
  __shared__ alignas(8) unsigned long long bar;
  unsigned rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;");
  if (rank == 0) {
    unsigned remote_buf, remote_bar;
    asm("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(remote_buf) : "r"(smem(&buf[threadIdx.x])));
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(remote_buf), "r"(7 * threadIdx.x + 1));
    __syncwarp();
    if (threadIdx.x == 0) {
      asm("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(remote_bar) : "r"(smem(&bar)));
      asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote_bar)
                   : "memory");
    }
  } else {
    asm volatile(
        "{\n\t.reg .pred P1;\n"
        "WAIT:\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P1, [%0], 0;\n\t"
        "@!P1 bra WAIT;\n\t}" ::"r"(smem(&bar))
        : "memory");
    out[threadIdx.x] = buf[threadIdx.x];
  }
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;");
}

// Rank 0 multicasts a tile of global memory to both CTAs' shared memory (cp.async.bulk
// .multicast::cluster), completing on each CTA's mbarrier; each writes what it received.
__global__ void __cluster_dims__(2, 1, 1) multicast(float* out, const float* in) {
  __shared__ alignas(128) float tile[64];
  __shared__ alignas(8) unsigned long long bar;
  unsigned rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&bar)),
                 "r"(256));
  }
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;");
  if (rank == 0 && threadIdx.x == 0)
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
        "[%0], [%1], 256, [%2], %3;" ::"r"(smem(tile)),
        "l"(in + (blockIdx.x / 2) * 64), "r"(smem(&bar)), "h"(static_cast<unsigned short>(3))
        : "memory");
  asm volatile(
      "{\n\t.reg .pred P1;\n"
      "WAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], 0;\n\t"
      "@!P1 bra WAIT;\n\t}" ::"r"(smem(&bar))
      : "memory");
  out[blockIdx.x * 64 + threadIdx.x] = tile[threadIdx.x] * (rank + 1);
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;");
}

// A reduction over the whole grid with cooperative groups' grid synchronization: each CTA
// writes its partial sum, the grid syncs, CTA 0 adds the partials.
__global__ void grid_reduce(int* partial, int* total, const int* in) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int s[128];
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += partial[b];
    *total = sum;
  }
}

// A flag one CTA sets and another spins on (a volatile load): runs when the CTAs run
// together (a cooperative launch), and is a deadlock when the setter never comes.
__global__ void spin_flag(int* flag, int* out, int setter) {
  if (threadIdx.x != 0) return;
  if (static_cast<int>(blockIdx.x) == setter) {
    out[blockIdx.x] = 1;
    __threadfence();
    atomicExch(flag, 1);
  } else {
    while (*static_cast<volatile int*>(flag) == 0) {
    }
    out[blockIdx.x] = 2;
  }
}
