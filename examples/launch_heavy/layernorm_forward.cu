// LayerNorm forward over activations of B = 8, T = 1024, C = 768: per row the mean and the
// reciprocal standard deviation (kept for the backward pass) and out = (x - mean) * rstd *
// weight + bias.
//
//   layernorm_forward [KERNEL [BLOCK_SIZE [REPEATS]]]
// kernel 1: one thread per row (each warp walks 32 rows: uncoalesced)
// kernel 2: three kernels: a block per row for the mean, a block per row for rstd (shared
//           memory trees), then one thread per element
// kernel 3: one warp per row, shuffle reductions, two passes
// kernel 4: one warp per row, float4 loads and stores
#include "common.h"

// ----------------------------------------------------------------------------
// CPU reference

void layernorm_forward_cpu(float* out, float* mean, float* rstd, const float* inp,
                           const float* weight, const float* bias, int N, int C) {
  const float eps = 1e-5f;
  for (int n = 0; n < N; n++) {
    const float* x = inp + (size_t)n * C;
    float m = 0.0f;
    for (int i = 0; i < C; i++) m += x[i];
    m = m / C;
    float v = 0.0f;
    for (int i = 0; i < C; i++) {
      float xshift = x[i] - m;
      v += xshift * xshift;
    }
    v = v / C;
    float s = 1.0f / sqrtf(v + eps);
    float* out_n = out + (size_t)n * C;
    for (int i = 0; i < C; i++) out_n[i] = (s * (x[i] - m)) * weight[i] + bias[i];
    mean[n] = m;
    rstd[n] = s;
  }
}

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void layernorm_forward_kernel1(float* out, float* mean, float* rstd, const float* inp,
                                          const float* weight, const float* bias, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const float eps = 1e-5f;
  if (idx < N) {
    const float* x = inp + idx * C;
    float m = 0.0f;
    for (int i = 0; i < C; i++) m += x[i];
    m = m / C;
    float v = 0.0f;
    for (int i = 0; i < C; i++) {
      float xshift = x[i] - m;
      v += xshift * xshift;
    }
    v = v / C;
    float s = 1.0f / sqrtf(v + eps);
    float* out_idx = out + idx * C;
    for (int i = 0; i < C; i++) out_idx[i] = (s * (x[i] - m)) * weight[i] + bias[i];
    mean[idx] = m;
    rstd[idx] = s;
  }
}

// A block per row: each thread sums a strided part of the row, then a shared-memory tree.
__global__ void mean_kernel(float* mean, const float* inp, int N, int C, int block_size) {
  extern __shared__ float shared[];
  int idx = blockIdx.x;
  int tid = threadIdx.x;
  const float* x = inp + idx * C;
  float sum = 0.0f;
  for (int i = tid; i < C; i += block_size) sum += x[i];
  shared[tid] = sum;
  __syncthreads();
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] += shared[tid + stride];
  }
  if (tid == 0) mean[idx] = shared[0] / C;
}

__global__ void rstd_kernel(float* rstd, const float* inp, const float* mean, int N, int C,
                            int block_size) {
  extern __shared__ float shared[];
  int idx = blockIdx.x;
  int tid = threadIdx.x;
  const float* x = inp + idx * C;
  float m = mean[idx];
  float sum = 0.0f;
  for (int i = tid; i < C; i += block_size) {
    float diff = x[i] - m;
    sum += diff * diff;
  }
  shared[tid] = sum;
  __syncthreads();
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] += shared[tid + stride];
  }
  if (tid == 0) rstd[idx] = 1.0f / sqrtf(shared[0] / C + 1e-5f);
}

__global__ void normalization_kernel(float* out, const float* inp, const float* mean,
                                     const float* rstd, const float* weight, const float* bias,
                                     int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * C) {
    int row = idx / C;
    int c = idx % C;
    float m = mean[row];
    float s = rstd[row];
    out[idx] = (s * (inp[idx] - m)) * weight[c] + bias[c];
  }
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void layernorm_forward_kernel3(float* out, float* mean, float* rstd, const float* inp,
                                          const float* weight, const float* bias, int N, int C) {
  int lane = threadIdx.x % 32;
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= N) return;
  const float* x = inp + row * C;
  float sum = 0.0f;
  for (int i = lane; i < C; i += 32) sum += x[i];
  float m = warp_sum(sum) / C;
  sum = 0.0f;
  for (int i = lane; i < C; i += 32) {
    float diff = x[i] - m;
    sum += diff * diff;
  }
  float s = rsqrtf(warp_sum(sum) / C + 1e-5f);
  if (lane == 0) {
    mean[row] = m;
    rstd[row] = s;
  }
  float* o = out + row * C;
  for (int i = lane; i < C; i += 32) o[i] = (s * (x[i] - m)) * weight[i] + bias[i];
}

// C a multiple of 128: each lane takes float4s 128 floats apart.
__global__ void layernorm_forward_kernel4(float4* out, float* mean, float* rstd, const float4* inp,
                                          const float4* weight, const float4* bias, int N, int C) {
  int lane = threadIdx.x % 32;
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= N) return;
  int C4 = C / 4;
  const float4* x = inp + row * C4;
  float sum = 0.0f;
  for (int i = lane; i < C4; i += 32) {
    float4 v = x[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  float m = warp_sum(sum) / C;
  sum = 0.0f;
  for (int i = lane; i < C4; i += 32) {
    float4 v = x[i];
    float a = v.x - m, b = v.y - m, c = v.z - m, d = v.w - m;
    sum += (a * a + b * b) + (c * c + d * d);
  }
  float s = rsqrtf(warp_sum(sum) / C + 1e-5f);
  if (lane == 0) {
    mean[row] = m;
    rstd[row] = s;
  }
  float4* o = out + row * C4;
  for (int i = lane; i < C4; i += 32) {
    float4 v = x[i], w = weight[i], b = bias[i];
    o[i] = make_float4((s * (v.x - m)) * w.x + b.x, (s * (v.y - m)) * w.y + b.y,
                       (s * (v.z - m)) * w.z + b.z, (s * (v.w - m)) * w.w + b.w);
  }
}

// ----------------------------------------------------------------------------
// kernel launchers

void layernorm_forward(int kernel, float* out, float* mean, float* rstd, const float* inp,
                       const float* weight, const float* bias, int N, int C, int block_size) {
  switch (kernel) {
    case 1:
      layernorm_forward_kernel1<<<ceil_div(N, block_size), block_size>>>(out, mean, rstd, inp,
                                                                         weight, bias, N, C);
      break;
    case 2:
      mean_kernel<<<N, block_size, block_size * sizeof(float)>>>(mean, inp, N, C, block_size);
      cudaCheck(cudaGetLastError());
      rstd_kernel<<<N, block_size, block_size * sizeof(float)>>>(rstd, inp, mean, N, C, block_size);
      cudaCheck(cudaGetLastError());
      normalization_kernel<<<ceil_div(N * C, block_size), block_size>>>(out, inp, mean, rstd,
                                                                        weight, bias, N, C);
      break;
    case 3:
      layernorm_forward_kernel3<<<ceil_div(N * 32, block_size), block_size>>>(out, mean, rstd, inp,
                                                                              weight, bias, N, C);
      break;
    case 4:
      layernorm_forward_kernel4<<<ceil_div(N * 32, block_size), block_size>>>(
          (float4*)out, mean, rstd, (const float4*)inp, (const float4*)weight, (const float4*)bias,
          N, C);
      break;
  }
  cudaCheck(cudaGetLastError());
}

// ----------------------------------------------------------------------------

int main(int argc, char** argv) {
  const Options args = parse_args(argc, argv, 4);
  const int B = 8, T = 1024, C = 768, N = B * T;
  const char* names[] = {"", "thread per row", "mean, rstd, normalization kernels", "warp per row",
                         "warp per row, float4"};
  cudaCheck(cudaSetDevice(0));

  std::vector<float> inp = make_random_float((size_t)N * C, 1, 2.0f);
  std::vector<float> weight = make_random_float(C, 2);
  std::vector<float> bias = make_random_float(C, 3);
  std::vector<float> out((size_t)N * C), mean(N), rstd(N);
  layernorm_forward_cpu(out.data(), mean.data(), rstd.data(), inp.data(), weight.data(),
                        bias.data(), N, C);

  float* d_inp = device_copy(inp);
  float* d_weight = device_copy(weight);
  float* d_bias = device_copy(bias);
  float *d_out, *d_mean, *d_rstd;
  cudaCheck(cudaMalloc(&d_out, out.size() * sizeof(float)));
  cudaCheck(cudaMalloc(&d_mean, N * sizeof(float)));
  cudaCheck(cudaMalloc(&d_rstd, N * sizeof(float)));

  const std::vector<int> sizes = block_sizes(args, {32, 128, 256, 512, 1024});
  bool ok = true;
  for (int k = 1; k <= 4; k++) {
    if (args.kernel && args.kernel != k) continue;
    printf("kernel %d: %s\n", k, names[k]);
    bool kernel_ok = true;
    for (int block_size : sizes) {
      cudaCheck(cudaMemset(d_out, 0xff, out.size() * sizeof(float)));  // NaNs
      cudaCheck(cudaMemset(d_mean, 0xff, N * sizeof(float)));
      cudaCheck(cudaMemset(d_rstd, 0xff, N * sizeof(float)));
      layernorm_forward(k, d_out, d_mean, d_rstd, d_inp, d_weight, d_bias, N, C, block_size);
      cudaCheck(cudaDeviceSynchronize());
      printf("  checking block size %d\n", block_size);
      kernel_ok = validate_result(d_out, out.data(), "out", out.size(), 1e-4f) && kernel_ok;
      kernel_ok = validate_result(d_mean, mean.data(), "mean", N, 1e-5f) && kernel_ok;
      kernel_ok = validate_result(d_rstd, rstd.data(), "rstd", N, 1e-4f) && kernel_ok;
    }
    ok = ok && kernel_ok;
    if (!kernel_ok || args.repeats == 0) continue;
    for (int block_size : sizes) {
      float ms = benchmark_kernel(args.repeats, layernorm_forward, k, d_out, d_mean, d_rstd, d_inp,
                                  d_weight, d_bias, N, C, block_size);
      // inp read once, out written once (what an ideal kernel moves)
      double gbps = 2.0 * N * C * sizeof(float) / (ms * 1e6);
      printf("  block_size %4d | time %.4f ms | bandwidth %.2f GB/s\n", block_size, ms, gbps);
    }
  }

  cudaCheck(cudaFree(d_inp));
  cudaCheck(cudaFree(d_weight));
  cudaCheck(cudaFree(d_bias));
  cudaCheck(cudaFree(d_out));
  cudaCheck(cudaFree(d_mean));
  cudaCheck(cudaFree(d_rstd));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
