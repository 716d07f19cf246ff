// A tile whose dimensions are template parameters, instantiated twice: `bankcheck fix` binds
// W and PAD to the arguments of each instantiation it checks (transpose_t<32, 0>: 32 rows
// of 128 B; transpose_t<16, 0>: 16 rows of 64 B), and its padding is written in them.
#include <cuda_runtime.h>

template <int W, int PAD = 0>
__global__ void transpose_t(const float* in, float* out) {
    __shared__ float tile[W][W + PAD];
    tile[threadIdx.y][threadIdx.x] = in[(blockIdx.y * W + threadIdx.y) * 64 + blockIdx.x * W + threadIdx.x];
    __syncthreads();
    out[(blockIdx.x * W + threadIdx.y) * 64 + blockIdx.y * W + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 64 * 64 * sizeof(float));
    cudaMalloc(&out, 64 * 64 * sizeof(float));
    transpose_t<32, 0><<<dim3(2, 2), dim3(32, 32)>>>(in, out);
    transpose_t<16><<<dim3(4, 4), dim3(16, 16)>>>(in, out);
    cudaDeviceSynchronize();
    return 0;
}
