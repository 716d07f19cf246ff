// The MLP's element-wise kernels over activations of B = 8, T = 1024, C = 768: GELU (the
// tanh approximation GPT-2 uses) and the residual add out = inp1 + inp2.
//
//   gelu_residual_forward [KERNEL [BLOCK_SIZE [REPEATS]]]
// kernel 1: GELU, one thread per element
// kernel 2: GELU, one thread per float4
// kernel 3: GELU, grid-stride loop over a grid sized from the SM count
// kernel 4: residual, one thread per element
// kernel 5: residual, one thread per float4
#include "common.h"

#define GELU_SCALING_FACTOR 0.7978845608028654f  // sqrt(2 / pi)

// ----------------------------------------------------------------------------
// CPU reference

void gelu_forward_cpu(float* out, const float* inp, int N) {
  for (int i = 0; i < N; i++) {
    float x = inp[i];
    float cube = 0.044715f * x * x * x;
    out[i] = 0.5f * x * (1.0f + tanhf(GELU_SCALING_FACTOR * (x + cube)));
  }
}

void residual_forward_cpu(float* out, const float* inp1, const float* inp2, int N) {
  for (int i = 0; i < N; i++) out[i] = inp1[i] + inp2[i];
}

// ----------------------------------------------------------------------------
// GPU kernels

__device__ float gelu(float x) {
  float cube = 0.044715f * x * x * x;
  return 0.5f * x * (1.0f + tanhf(GELU_SCALING_FACTOR * (x + cube)));
}

__global__ void gelu_forward_kernel1(float* out, const float* inp, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = gelu(inp[i]);
}

__global__ void gelu_forward_kernel2(float4* out, const float4* inp, int N4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N4) {
    float4 x = inp[i];
    out[i] = make_float4(gelu(x.x), gelu(x.y), gelu(x.z), gelu(x.w));
  }
}

__global__ void gelu_forward_kernel3(float* out, const float* inp, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
    out[i] = gelu(inp[i]);
}

__global__ void residual_forward_kernel1(float* out, const float* inp1, const float* inp2, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = inp1[i] + inp2[i];
}

__global__ void residual_forward_kernel2(float4* out, const float4* inp1, const float4* inp2,
                                         int N4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N4) {
    float4 a = inp1[i], b = inp2[i];
    out[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}

// ----------------------------------------------------------------------------
// kernel launchers

void forward(int kernel, float* out, const float* inp1, const float* inp2, int N, int block_size,
             int sms) {
  switch (kernel) {
    case 1:
      gelu_forward_kernel1<<<ceil_div(N, block_size), block_size>>>(out, inp1, N);
      break;
    case 2:
      gelu_forward_kernel2<<<ceil_div(N / 4, block_size), block_size>>>((float4*)out,
                                                                        (const float4*)inp1, N / 4);
      break;
    case 3:  // as many blocks as fit on the GPU at 2048 threads per SM
      gelu_forward_kernel3<<<sms*(2048 / block_size), block_size>>>(out, inp1, N);
      break;
    case 4:
      residual_forward_kernel1<<<ceil_div(N, block_size), block_size>>>(out, inp1, inp2, N);
      break;
    case 5:
      residual_forward_kernel2<<<ceil_div(N / 4, block_size), block_size>>>(
          (float4*)out, (const float4*)inp1, (const float4*)inp2, N / 4);
      break;
  }
  cudaCheck(cudaGetLastError());
}

// ----------------------------------------------------------------------------

int main(int argc, char** argv) {
  const Options args = parse_args(argc, argv, 5);
  const int B = 8, T = 1024, C = 768, N = B * T * C;
  const char* names[] = {"",
                         "GELU, thread per element",
                         "GELU, float4 per thread",
                         "GELU, grid-stride",
                         "residual, thread per element",
                         "residual, float4 per thread"};
  cudaCheck(cudaSetDevice(0));
  int sms = 0;
  cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  std::vector<float> inp1 = make_random_float(N, 1, 4.0f);
  std::vector<float> inp2 = make_random_float(N, 2);
  std::vector<float> gelu_out(N), residual_out(N);
  gelu_forward_cpu(gelu_out.data(), inp1.data(), N);
  residual_forward_cpu(residual_out.data(), inp1.data(), inp2.data(), N);

  float* d_inp1 = device_copy(inp1);
  float* d_inp2 = device_copy(inp2);
  float* d_out;
  cudaCheck(cudaMalloc(&d_out, (size_t)N * sizeof(float)));

  const std::vector<int> sizes = block_sizes(args, {64, 256, 1024});
  bool ok = true;
  for (int k = 1; k <= 5; k++) {
    if (args.kernel && args.kernel != k) continue;
    printf("kernel %d: %s\n", k, names[k]);
    const float* want = k <= 3 ? gelu_out.data() : residual_out.data();
    bool kernel_ok = true;
    for (int block_size : sizes) {
      cudaCheck(cudaMemset(d_out, 0xff, (size_t)N * sizeof(float)));  // NaNs
      forward(k, d_out, d_inp1, d_inp2, N, block_size, sms);
      cudaCheck(cudaDeviceSynchronize());
      printf("  checking block size %d\n", block_size);
      kernel_ok = validate_result(d_out, want, "out", N, 1e-5f) && kernel_ok;
    }
    ok = ok && kernel_ok;
    if (!kernel_ok || args.repeats == 0) continue;
    for (int block_size : sizes) {
      float ms =
          benchmark_kernel(args.repeats, forward, k, d_out, d_inp1, d_inp2, N, block_size, sms);
      double bytes = (k <= 3 ? 2.0 : 3.0) * N * sizeof(float);
      printf("  block_size %4d | time %.4f ms | bandwidth %.2f GB/s\n", block_size, ms,
             bytes / (ms * 1e6));
    }
  }

  cudaCheck(cudaFree(d_inp1));
  cudaCheck(cudaFree(d_inp2));
  cudaCheck(cudaFree(d_out));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
