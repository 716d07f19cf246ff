// CTAs that run together under `bankcheck run`: a cooperative launch whose kernel
// synchronizes the grid (cooperative groups' this_grid().sync()), made both ways the runtime
// offers (cudaLaunchCooperativeKernel, and cudaLaunchKernelEx with the cooperative attribute,
// which reach the driver's cuLaunchCooperativeKernel and cuLaunchKernelEx), one too large to be
// resident refused as the driver refuses it, and a launch with a cluster shape
// (cudaLaunchKernelEx) whose CTAs read each other's shared memory. Prints "together: ok" when
// every result is right; names the wrong one and exits 1 otherwise.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

__global__ void grid_sum(int* partial, int* total, const int* in) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int s[64];
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

__global__ void neighbours(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int tile[32];
  tile[threadIdx.x] = static_cast<int>(blockIdx.x * 100 + threadIdx.x);
  cluster.sync();
  const int* other = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1);
  const int v = other[threadIdx.x];
  cluster.sync();
  out[blockIdx.x * 32 + threadIdx.x] = v;
}

int main() {
  const int blocks = 8;
  std::vector<int> in(blocks * 64);
  int want = 0;
  for (std::size_t i = 0; i < in.size(); ++i) want += (in[i] = static_cast<int>(i % 7) - 3);
  int *d_in, *d_partial, *d_total, *d_out;
  cudaMalloc(&d_in, in.size() * sizeof(int));
  cudaMalloc(&d_partial, blocks * sizeof(int));
  cudaMalloc(&d_total, sizeof(int));
  cudaMalloc(&d_out, blocks * 32 * sizeof(int));
  cudaMemcpy(d_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice);
  void* args[] = {&d_partial, &d_total, &d_in};
  cudaError_t e =
      cudaLaunchCooperativeKernel((const void*)grid_sum, dim3(blocks), dim3(64), args, 0, 0);
  int total = 0;
  if (e == cudaSuccess) e = cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess || total != want) {
    std::printf("grid sync: %s, total %d, want %d\n", cudaGetErrorString(e), total, want);
    return 1;
  }

  // The same through cudaLaunchKernelEx's cooperative attribute.
  cudaMemset(d_total, 0, sizeof(int));
  cudaLaunchConfig_t cooperative = {};
  cooperative.gridDim = dim3(blocks);
  cooperative.blockDim = dim3(64);
  cudaLaunchAttribute together[1];
  together[0].id = cudaLaunchAttributeCooperative;
  together[0].val.cooperative = 1;
  cooperative.attrs = together;
  cooperative.numAttrs = 1;
  e = cudaLaunchKernelEx(&cooperative, grid_sum, d_partial, d_total, static_cast<const int*>(d_in));
  total = 0;
  if (e == cudaSuccess) e = cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess || total != want) {
    std::printf("grid sync (attribute): %s, total %d, want %d\n", cudaGetErrorString(e), total,
                want);
    return 1;
  }
  // A grid that cannot be resident at once is refused, not run.
  e = cudaLaunchCooperativeKernel((const void*)grid_sum, dim3(1 << 20), dim3(64), args, 0, 0);
  if (e != cudaErrorCooperativeLaunchTooLarge) {
    std::printf("grid sync (too large): %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaGetLastError();

  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(32);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  e = cudaLaunchKernelEx(&config, neighbours, d_out);
  std::vector<int> out(blocks * 32);
  if (e == cudaSuccess)
    e = cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks && e == cudaSuccess; ++b)
    for (int t = 0; t < 32; ++t)
      if (out[b * 32 + t] != (b ^ 1) * 100 + t) {
        std::printf("cluster: block %d thread %d got %d\n", b, t, out[b * 32 + t]);
        return 1;
      }
  if (e != cudaSuccess) {
    std::printf("cluster: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("together: ok\n");
  return 0;
}
