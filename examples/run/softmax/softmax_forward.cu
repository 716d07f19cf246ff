/*
Kernels for softmax forward pass over the last dimension of an (N, C) matrix, in the
style of LLM-training kernel tests: each variant is checked against the CPU for several
block sizes, then timed.

Compile example:
nvcc -O3 -lineinfo softmax_forward.cu -o softmax_forward

version 1 is naive port from CPU code to kernel: parallelizes over N, one thread per row
(three passes over a row: neighbouring threads read C floats apart)
./softmax_forward 1

version 2 is one block per row, max and sum each reduced through dynamic shared memory
with a tree (a barrier per level)
./softmax_forward 2

version 3 is one warp per row, warp shuffles only
./softmax_forward 3

version 4 is one block per row: warp shuffles, then one value per warp through shared
memory
./softmax_forward 4

version 5 is the online softmax: one warp per row finds the max and the sum in one pass,
rescaling the sum when the max grows
./softmax_forward 5

version 6 stages the row in dynamic shared memory (a template on the block size) and gives
each thread a contiguous chunk of it: thread t reads row[t * per + j], per = ceil(C / block)
words apart, so a warp's reads pile up in few banks
./softmax_forward 6

usage: softmax_forward [kernel] [repeat_times] [N] [C]
default: softmax_forward 1 20 128 500; each kernel is launched once per block size
(64, 128, 256) to validate, then repeat_times times per block size to time.
*/
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common.h"

// ----------------------------------------------------------------------------
// CPU code reference

void softmax_forward_cpu(float* out, const float* inp, int N, int C) {
  for (int i = 0; i < N; i++) {
    const float* inp_row = inp + (size_t)i * C;
    float* out_row = out + (size_t)i * C;

    float maxval = -INFINITY;
    for (int j = 0; j < C; j++) maxval = fmaxf(maxval, inp_row[j]);
    double sum = 0.0;
    for (int j = 0; j < C; j++) {
      out_row[j] = expf(inp_row[j] - maxval);
      sum += out_row[j];
    }
    float norm = 1.f / (float)sum;
    for (int j = 0; j < C; j++) out_row[j] *= norm;
  }
}

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void softmax_forward_kernel1(float* out, const float* inp, int N, int C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    const float* inp_row = inp + (size_t)i * C;
    float* out_row = out + (size_t)i * C;

    float maxval = -INFINITY;
    for (int j = 0; j < C; j++) maxval = fmaxf(maxval, inp_row[j]);
    double sum = 0.0;
    for (int j = 0; j < C; j++) {
      out_row[j] = expf(inp_row[j] - maxval);
      sum += out_row[j];
    }
    for (int j = 0; j < C; j++) out_row[j] /= (float)sum;
  }
}

__global__ void softmax_forward_kernel2(float* out, const float* inp, int N, int C) {
  extern __shared__ float shared[];
  int idx = blockIdx.x;  // row
  int tid = threadIdx.x;
  int block_size = blockDim.x;
  const float* x = inp + (size_t)idx * C;

  float maxval = -INFINITY;
  for (int i = tid; i < C; i += block_size) maxval = fmaxf(maxval, x[i]);
  shared[tid] = maxval;
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] = fmaxf(shared[tid], shared[tid + stride]);
  }
  __syncthreads();
  float offset = shared[0];

  for (int i = tid; i < C; i += block_size) out[(size_t)idx * C + i] = expf(x[i] - offset);
  __syncthreads();  // everyone has read shared[0]

  x = out + (size_t)idx * C;
  float sumval = 0.0f;
  for (int i = tid; i < C; i += block_size) sumval += x[i];
  shared[tid] = sumval;
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] += shared[tid + stride];
  }
  __syncthreads();
  float sum = shared[0];
  for (int i = tid; i < C; i += block_size) out[(size_t)idx * C + i] = x[i] / sum;
}

__device__ float warpReduceMax(float val) {
  for (int offset = 16; offset > 0; offset /= 2)
    val = fmaxf(val, __shfl_down_sync(0xFFFFFFFF, val, offset));
  return val;
}

__device__ float warpReduceSum(float val) {
  for (int offset = 16; offset > 0; offset /= 2) val += __shfl_down_sync(0xFFFFFFFF, val, offset);
  return val;
}

__global__ void softmax_forward_kernel3(float* out, const float* inp, int N, int C) {
  int warp = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  int row = blockIdx.x * (blockDim.x / 32) + warp;
  if (row >= N) return;  // the whole warp leaves together
  const float* x = inp + (size_t)row * C;
  float* y = out + (size_t)row * C;

  float maxval = -INFINITY;
  for (int i = lane; i < C; i += 32) maxval = fmaxf(maxval, x[i]);
  maxval = __shfl_sync(0xFFFFFFFF, warpReduceMax(maxval), 0);

  float sumval = 0.0f;
  for (int i = lane; i < C; i += 32) {
    float e = expf(x[i] - maxval);
    y[i] = e;
    sumval += e;
  }
  sumval = __shfl_sync(0xFFFFFFFF, warpReduceSum(sumval), 0);
  for (int i = lane; i < C; i += 32) y[i] = y[i] / sumval;
}

__global__ void softmax_forward_kernel4(float* out, const float* inp, int N, int C) {
  extern __shared__ float shared[];
  int idx = blockIdx.x;
  int tid = threadIdx.x;
  int warpId = threadIdx.x / 32;
  int laneId = threadIdx.x % 32;
  int warpsPerBlock = blockDim.x / 32;

  // first half for the warps' maxima, second half for their sums
  float* maxvals = shared;
  float* sumvals = &shared[warpsPerBlock];

  const float* x = inp + (size_t)idx * C;
  float maxval = -INFINITY;
  for (int i = tid; i < C; i += blockDim.x) maxval = fmaxf(maxval, x[i]);
  maxval = warpReduceMax(maxval);
  if (laneId == 0) maxvals[warpId] = maxval;
  __syncthreads();
  if (tid == 0) {
    float val = maxvals[tid];
    for (int i = 1; i < warpsPerBlock; i++) val = fmaxf(val, maxvals[i]);
    maxvals[0] = val;
  }
  __syncthreads();
  float offset = maxvals[0];

  for (int i = tid; i < C; i += blockDim.x) out[(size_t)idx * C + i] = expf(x[i] - offset);

  x = out + (size_t)idx * C;
  float sumval = 0.0f;
  for (int i = tid; i < C; i += blockDim.x) sumval += x[i];
  sumval = warpReduceSum(sumval);
  if (laneId == 0) sumvals[warpId] = sumval;
  __syncthreads();
  if (tid == 0) {
    float val = sumvals[tid];
    for (int i = 1; i < warpsPerBlock; ++i) val += sumvals[i];
    sumvals[0] = val;
  }
  __syncthreads();
  float sum = sumvals[0];
  for (int i = tid; i < C; i += blockDim.x) out[(size_t)idx * C + i] = x[i] / sum;
}

// Merges two (max, sum of exp(x - max)) pairs; a pair with no element has max -inf.
__device__ void online_merge(float& maxval, float& sumval, float other_max, float other_sum) {
  float m = fmaxf(maxval, other_max);
  if (m == -INFINITY) return;
  sumval = sumval * expf(maxval - m) + other_sum * expf(other_max - m);
  maxval = m;
}

__global__ void softmax_forward_online_kernel5(float* out, const float* inp, int N, int C) {
  int warp = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  int row = blockIdx.x * (blockDim.x / 32) + warp;
  if (row >= N) return;
  const float* x = inp + (size_t)row * C;
  float* y = out + (size_t)row * C;

  float maxval = -INFINITY, sumval = 0.0f;
  for (int i = lane; i < C; i += 32) online_merge(maxval, sumval, x[i], 1.0f);
  for (int offset = 16; offset > 0; offset /= 2) {
    float other_max = __shfl_xor_sync(0xFFFFFFFF, maxval, offset);
    float other_sum = __shfl_xor_sync(0xFFFFFFFF, sumval, offset);
    online_merge(maxval, sumval, other_max, other_sum);
  }
  for (int i = lane; i < C; i += 32) y[i] = expf(x[i] - maxval) / sumval;
}

template <int BLOCK>
__global__ void softmax_forward_smem_kernel6(float* out, const float* inp, int N, int C) {
  extern __shared__ float row[];  // C floats
  __shared__ float warp_max[BLOCK / 32];
  __shared__ float warp_sum[BLOCK / 32];
  int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const float* x = inp + (size_t)blockIdx.x * C;

  for (int i = tid; i < C; i += BLOCK) row[i] = x[i];
  __syncthreads();

  // Thread tid's chunk of the row.
  int per = (C + BLOCK - 1) / BLOCK;
  int begin = min(tid * per, C);
  int end = min(begin + per, C);

  float m = -INFINITY;
  for (int i = begin; i < end; i++) m = fmaxf(m, row[i]);
  m = warpReduceMax(m);
  if (lane == 0) warp_max[warp] = m;
  __syncthreads();
  float maxval = warp_max[0];
  for (int w = 1; w < BLOCK / 32; w++) maxval = fmaxf(maxval, warp_max[w]);

  float s = 0.0f;
  for (int i = begin; i < end; i++) {
    float e = expf(row[i] - maxval);
    row[i] = e;
    s += e;
  }
  s = warpReduceSum(s);
  if (lane == 0) warp_sum[warp] = s;
  __syncthreads();
  float sum = 0.0f;
  for (int w = 0; w < BLOCK / 32; w++) sum += warp_sum[w];

  for (int i = tid; i < C; i += BLOCK) out[(size_t)blockIdx.x * C + i] = row[i] / sum;
}

// ----------------------------------------------------------------------------
// kernel launchers

void softmax_forward1(float* out, const float* inp, int N, int C, int block_size) {
  const int grid_size = ceil_div(N, block_size);
  softmax_forward_kernel1<<<grid_size, block_size>>>(out, inp, N, C);
  cudaCheck(cudaGetLastError());
}

void softmax_forward2(float* out, const float* inp, int N, int C, int block_size) {
  size_t shared_mem_size = block_size * sizeof(float);
  softmax_forward_kernel2<<<N, block_size, shared_mem_size>>>(out, inp, N, C);
  cudaCheck(cudaGetLastError());
}

void softmax_forward3(float* out, const float* inp, int N, int C, int block_size) {
  const int grid_size = ceil_div(N, block_size / 32);
  softmax_forward_kernel3<<<grid_size, block_size>>>(out, inp, N, C);
  cudaCheck(cudaGetLastError());
}

void softmax_forward4(float* out, const float* inp, int N, int C, int block_size) {
  size_t shared_mem_size = 2 * (block_size / 32) * sizeof(float);
  softmax_forward_kernel4<<<N, block_size, shared_mem_size>>>(out, inp, N, C);
  cudaCheck(cudaGetLastError());
}

void softmax_forward5(float* out, const float* inp, int N, int C, int block_size) {
  const int grid_size = ceil_div(N, block_size / 32);
  softmax_forward_online_kernel5<<<grid_size, block_size>>>(out, inp, N, C);
  cudaCheck(cudaGetLastError());
}

void softmax_forward6(float* out, const float* inp, int N, int C, int block_size) {
  size_t shared_mem_size = C * sizeof(float);
  switch (block_size) {
    case 64:
      softmax_forward_smem_kernel6<64><<<N, 64, shared_mem_size>>>(out, inp, N, C);
      break;
    case 128:
      softmax_forward_smem_kernel6<128><<<N, 128, shared_mem_size>>>(out, inp, N, C);
      break;
    case 256:
      softmax_forward_smem_kernel6<256><<<N, 256, shared_mem_size>>>(out, inp, N, C);
      break;
    default:
      printf("kernel 6: no instantiation for block size %d\n", block_size);
      exit(EXIT_FAILURE);
  }
  cudaCheck(cudaGetLastError());
}

// kernel version dispatch
void softmax_forward(int kernel_num, float* out, const float* inp, int N, int C, int block_size) {
  switch (kernel_num) {
    case 1:
      softmax_forward1(out, inp, N, C, block_size);
      break;
    case 2:
      softmax_forward2(out, inp, N, C, block_size);
      break;
    case 3:
      softmax_forward3(out, inp, N, C, block_size);
      break;
    case 4:
      softmax_forward4(out, inp, N, C, block_size);
      break;
    case 5:
      softmax_forward5(out, inp, N, C, block_size);
      break;
    case 6:
      softmax_forward6(out, inp, N, C, block_size);
      break;
    default:
      printf("Invalid kernel number\n");
      exit(EXIT_FAILURE);
  }
}

// ----------------------------------------------------------------------------

int main(int argc, char** argv) {
  int kernel_num = argc > 1 ? atoi(argv[1]) : 1;
  int repeat_times = argc > 2 ? atoi(argv[2]) : 20;
  int N = argc > 3 ? atoi(argv[3]) : 128;
  int C = argc > 4 ? atoi(argv[4]) : 500;
  if (kernel_num < 1 || kernel_num > 6 || repeat_times < 0 || N < 1 || C < 1 ||
      (size_t)C * sizeof(float) > 48 * 1024) {
    printf("usage: %s [kernel 1..6] [repeat_times] [N] [C <= 12288]\n", argv[0]);
    return EXIT_FAILURE;
  }
  int deviceIdx = 0;
  cudaCheck(cudaSetDevice(deviceIdx));
  printf("Using kernel %d, N = %d, C = %d\n", kernel_num, N, C);

  // Logits in [-5, 5), with a few rows far from zero: exp() without the max would overflow.
  std::vector<float> inp = make_random_float((size_t)N * C, 42);
  for (size_t i = 0; i < inp.size(); i++) inp[i] *= 5.0f;
  for (int r = 3; r < N; r += 17)
    for (int j = 0; j < C; j++) inp[(size_t)r * C + j] += 90.0f;
  std::vector<float> out((size_t)N * C);
  softmax_forward_cpu(out.data(), inp.data(), N, C);

  float *d_out, *d_inp;
  cudaCheck(cudaMalloc(&d_out, (size_t)N * C * sizeof(float)));
  cudaCheck(cudaMalloc(&d_inp, (size_t)N * C * sizeof(float)));
  cudaCheck(cudaMemcpy(d_inp, inp.data(), (size_t)N * C * sizeof(float), cudaMemcpyHostToDevice));

  int block_sizes[] = {64, 128, 256};
  bool ok = true;

  // first check the correctness of the kernel
  for (int block_size : block_sizes) {
    printf("Checking block size %d.\n", block_size);
    cudaCheck(cudaMemset(d_out, 0xff, (size_t)N * C * sizeof(float)));  // NaNs
    softmax_forward(kernel_num, d_out, d_inp, N, C, block_size);
    cudaCheck(cudaDeviceSynchronize());
    ok = validate_result(d_out, out.data(), "out", (size_t)N * C, 1e-4f) && ok;
  }
  if (ok) printf("All results match. Starting benchmarks.\n\n");

  // time the kernel at different block sizes
  for (int block_size : block_sizes) {
    if (!ok || repeat_times == 0) break;
    float elapsed_time = benchmark_kernel(repeat_times, softmax_forward, kernel_num, d_out, d_inp,
                                          N, C, block_size);
    printf("block_size %4d | time %.4f ms | per token %.2f ns\n", block_size, elapsed_time,
           elapsed_time * 1e6 / N);
  }

  cudaCheck(cudaFree(d_out));
  cudaCheck(cudaFree(d_inp));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
