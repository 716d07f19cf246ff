// GPT-2 encoder forward: out[b,t,:] = wte[inp[b,t],:] + wpe[t,:] (token plus position
// embedding), B = 8, T = 1024, C = 768, a vocabulary of 50257.
//
//   encoder_forward [KERNEL [BLOCK_SIZE [REPEATS]]]
// kernel 1: one thread per token, looping over the channels (each warp walks 32 rows)
// kernel 2: one thread per output element
// kernel 3: one thread per four channels, float4 loads and stores
#include "common.h"

// ----------------------------------------------------------------------------
// CPU reference

void encoder_forward_cpu(float* out, const int* inp, const float* wte, const float* wpe, int B,
                         int T, int C) {
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++) {
      float* out_bt = out + (size_t)(b * T + t) * C;
      const float* wte_ix = wte + (size_t)inp[b * T + t] * C;
      const float* wpe_t = wpe + (size_t)t * C;
      for (int i = 0; i < C; i++) out_bt[i] = wte_ix[i] + wpe_t[i];
    }
}

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void encoder_forward_kernel1(float* out, const int* inp, const float* wte,
                                        const float* wpe, int B, int T, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * T) {
    int t = idx % T;
    float* out_bt = out + idx * C;
    const float* wte_ix = wte + inp[idx] * C;
    const float* wpe_t = wpe + t * C;
    for (int i = 0; i < C; i++) out_bt[i] = wte_ix[i] + wpe_t[i];
  }
}

__global__ void encoder_forward_kernel2(float* out, const int* inp, const float* wte,
                                        const float* wpe, int B, int T, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * T * C) {
    int bt = idx / C;
    int c = idx % C;
    int t = bt % T;
    out[idx] = wte[inp[bt] * C + c] + wpe[t * C + c];
  }
}

__global__ void encoder_forward_kernel3(float4* out, const int* inp, const float4* wte,
                                        const float4* wpe, int B, int T, int C4) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * T * C4) {
    int bt = idx / C4;
    int c = idx % C4;
    int t = bt % T;
    float4 a = wte[inp[bt] * C4 + c];
    float4 p = wpe[t * C4 + c];
    out[idx] = make_float4(a.x + p.x, a.y + p.y, a.z + p.z, a.w + p.w);
  }
}

// ----------------------------------------------------------------------------
// kernel launchers

void encoder_forward(int kernel, float* out, const int* inp, const float* wte, const float* wpe,
                     int B, int T, int C, int block_size) {
  switch (kernel) {
    case 1:
      encoder_forward_kernel1<<<ceil_div(B * T, block_size), block_size>>>(out, inp, wte, wpe, B, T,
                                                                           C);
      break;
    case 2:
      encoder_forward_kernel2<<<ceil_div(B * T * C, block_size), block_size>>>(out, inp, wte, wpe,
                                                                               B, T, C);
      break;
    case 3:
      encoder_forward_kernel3<<<ceil_div(B * T * C / 4, block_size), block_size>>>(
          (float4*)out, inp, (const float4*)wte, (const float4*)wpe, B, T, C / 4);
      break;
  }
  cudaCheck(cudaGetLastError());
}

// ----------------------------------------------------------------------------

int main(int argc, char** argv) {
  const Options args = parse_args(argc, argv, 3);
  const int B = 8, T = 1024, C = 768, V = 50257;
  const char* names[] = {"", "thread per token", "thread per element", "float4 per thread"};
  cudaCheck(cudaSetDevice(0));

  std::vector<int> inp = make_random_int((size_t)B * T, V, 1);
  std::vector<float> wte = make_random_float((size_t)V * C, 2);
  std::vector<float> wpe = make_random_float((size_t)T * C, 3);
  std::vector<float> out((size_t)B * T * C);
  encoder_forward_cpu(out.data(), inp.data(), wte.data(), wpe.data(), B, T, C);

  int* d_inp = device_copy(inp);
  float* d_wte = device_copy(wte);
  float* d_wpe = device_copy(wpe);
  float* d_out;
  cudaCheck(cudaMalloc(&d_out, out.size() * sizeof(float)));

  const std::vector<int> sizes = block_sizes(args, {64, 128, 256, 512, 1024});
  bool ok = true;
  for (int k = 1; k <= 3; k++) {
    if (args.kernel && args.kernel != k) continue;
    printf("kernel %d: %s\n", k, names[k]);
    bool kernel_ok = true;
    for (int block_size : sizes) {
      cudaCheck(cudaMemset(d_out, 0xff, out.size() * sizeof(float)));  // NaNs
      encoder_forward(k, d_out, d_inp, d_wte, d_wpe, B, T, C, block_size);
      cudaCheck(cudaDeviceSynchronize());
      printf("  checking block size %d\n", block_size);
      kernel_ok = validate_result(d_out, out.data(), "out", out.size(), 1e-5f) && kernel_ok;
    }
    ok = ok && kernel_ok;
    if (!kernel_ok || args.repeats == 0) continue;
    for (int block_size : sizes) {
      float ms = benchmark_kernel(args.repeats, encoder_forward, k, d_out, d_inp, d_wte, d_wpe, B,
                                  T, C, block_size);
      // read wte row + wpe row + write out, per element
      double gbps = (double)B * T * C * 3 * sizeof(float) / (ms * 1e6);
      printf("  block_size %4d | time %.4f ms | bandwidth %.2f GB/s\n", block_size, ms, gbps);
    }
  }

  cudaCheck(cudaFree(d_out));
  cudaCheck(cudaFree(d_inp));
  cudaCheck(cudaFree(d_wte));
  cudaCheck(cudaFree(d_wpe));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
