// Matmul forward, the attention projection of GPT-2: out (B*T, OC) = inp (B*T, C) @
// weight (OC, C)^T + bias (OC), B = 8, T = 1024, C = OC = 768.
//
//   matmul_forward [KERNEL [BLOCK_SIZE [REPEATS]]]
// kernel 1: one thread per output, 2D blocks of sqrt(BLOCK_SIZE)^2 threads
// kernel 2: shared-memory tiles of sqrt(BLOCK_SIZE)^2 (8, 16 or 32 on a side)
// kernel 3: cublasSgemm, then a kernel adding the bias (one thread per element)
#include <cublas_v2.h>

#include "common.h"

// ----------------------------------------------------------------------------
// CPU reference

void matmul_forward_cpu(float* out, const float* inp, const float* weight, const float* bias,
                        int BT, int C, int OC) {
  for (int bt = 0; bt < BT; bt++) {
    const float* inp_bt = inp + (size_t)bt * C;
    float* out_bt = out + (size_t)bt * OC;
    for (int o = 0; o < OC; o++) {
      const float* w_o = weight + (size_t)o * C;
      float val = bias[o];
      for (int i = 0; i < C; i++) val += inp_bt[i] * w_o[i];
      out_bt[o] = val;
    }
  }
}

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void matmul_forward_kernel1(float* out, const float* inp, const float* weight,
                                       const float* bias, int BT, int C, int OC) {
  int bt = blockIdx.x * blockDim.x + threadIdx.x;
  int oc = blockIdx.y * blockDim.y + threadIdx.y;
  if (bt < BT && oc < OC) {
    float val = bias[oc];
    const float* wrow = weight + oc * C;
    const float* inp_bt = inp + bt * C;
    for (int i = 0; i < C; i++) val += inp_bt[i] * wrow[i];
    out[bt * OC + oc] = val;
  }
}

// A TILE x TILE block computes a TILE x TILE tile of out. Both tiles are stored as read from
// global memory (row = threadIdx.y); the inner product reads wtile[tx][i]: a column of the
// weight tile across the warp.
template <int TILE>
__global__ void matmul_forward_kernel2(float* out, const float* inp, const float* weight,
                                       const float* bias, int BT, int C, int OC) {
  __shared__ float itile[TILE][TILE];
  __shared__ float wtile[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int bt = blockIdx.y * TILE + ty;
  int oc = blockIdx.x * TILE + tx;
  int oc_row = blockIdx.x * TILE + ty;  // the weight row this thread loads
  float val = 0.0f;
  for (int k0 = 0; k0 < C; k0 += TILE) {
    itile[ty][tx] = bt < BT && k0 + tx < C ? inp[bt * C + k0 + tx] : 0.0f;
    wtile[ty][tx] = oc_row < OC && k0 + tx < C ? weight[oc_row * C + k0 + tx] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; i++) val += itile[ty][i] * wtile[tx][i];
    __syncthreads();
  }
  if (bt < BT && oc < OC) out[bt * OC + oc] = val + bias[oc];
}

__global__ void add_bias(float* out, const float* bias, int BT, int OC) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < BT * OC) out[idx] += bias[idx % OC];
}

// ----------------------------------------------------------------------------
// kernel launchers

cublasHandle_t cublas_handle;
cublasStatus_t cublas_status = CUBLAS_STATUS_SUCCESS;  // the last cuBLAS call's

void matmul_forward(int kernel, float* out, const float* inp, const float* weight,
                    const float* bias, int BT, int C, int OC, int block_size) {
  int sqrt_block_size = 1;
  while (sqrt_block_size * sqrt_block_size < block_size) sqrt_block_size++;
  switch (kernel) {
    case 1: {
      dim3 block(sqrt_block_size, sqrt_block_size);
      dim3 grid(ceil_div(BT, sqrt_block_size), ceil_div(OC, sqrt_block_size));
      matmul_forward_kernel1<<<grid, block>>>(out, inp, weight, bias, BT, C, OC);
      break;
    }
    case 2: {
      dim3 block(sqrt_block_size, sqrt_block_size);
      dim3 grid(ceil_div(OC, sqrt_block_size), ceil_div(BT, sqrt_block_size));
      if (sqrt_block_size == 8)
        matmul_forward_kernel2<8><<<grid, block>>>(out, inp, weight, bias, BT, C, OC);
      else if (sqrt_block_size == 16)
        matmul_forward_kernel2<16><<<grid, block>>>(out, inp, weight, bias, BT, C, OC);
      else if (sqrt_block_size == 32)
        matmul_forward_kernel2<32><<<grid, block>>>(out, inp, weight, bias, BT, C, OC);
      else {
        printf("kernel 2: no tile for block size %d (64, 256 or 1024)\n", block_size);
        exit(EXIT_FAILURE);
      }
      break;
    }
    case 3: {
      // out^T (OC x BT, column-major: out row-major) = weight (C x OC col-major)^T @ inp^T
      const float alpha = 1.0f, beta = 0.0f;
      cublas_status = cublasSgemm(cublas_handle, CUBLAS_OP_T, CUBLAS_OP_N, OC, BT, C, &alpha,
                                  weight, C, inp, C, &beta, out, OC);
      add_bias<<<ceil_div(BT * OC, block_size), block_size>>>(out, bias, BT, OC);
      break;
    }
  }
  cudaCheck(cudaGetLastError());
}

// ----------------------------------------------------------------------------

int main(int argc, char** argv) {
  const Options args = parse_args(argc, argv, 3);
  const int B = 8, T = 1024, C = 768, OC = 768, BT = B * T;
  const char* names[] = {"", "thread per output", "shared-memory tiles", "cuBLAS + bias kernel"};
  cudaCheck(cudaSetDevice(0));

  std::vector<float> inp = make_random_float((size_t)BT * C, 1);
  std::vector<float> weight = make_random_float((size_t)OC * C, 2, 0.1f);
  std::vector<float> bias = make_random_float(OC, 3);
  std::vector<float> out((size_t)BT * OC);
  matmul_forward_cpu(out.data(), inp.data(), weight.data(), bias.data(), BT, C, OC);

  float* d_inp = device_copy(inp);
  float* d_weight = device_copy(weight);
  float* d_bias = device_copy(bias);
  float* d_out;
  cudaCheck(cudaMalloc(&d_out, out.size() * sizeof(float)));

  const std::vector<int> sizes = block_sizes(args, {64, 256, 1024});
  bool ok = true;
  for (int k = 1; k <= 3; k++) {
    if (args.kernel && args.kernel != k) continue;
    printf("kernel %d: %s\n", k, names[k]);
    if (k == 3) {
      cublasStatus_t s = cublasCreate(&cublas_handle);
      if (s != CUBLAS_STATUS_SUCCESS) {
        printf("  cublasCreate failed: %s\n", cublasGetStatusString(s));
        ok = false;
        continue;
      }
    }
    bool kernel_ok = true;
    for (int block_size : sizes) {
      cudaCheck(cudaMemset(d_out, 0xff, out.size() * sizeof(float)));  // NaNs
      matmul_forward(k, d_out, d_inp, d_weight, d_bias, BT, C, OC, block_size);
      cudaCheck(cudaDeviceSynchronize());
      printf("  checking block size %d\n", block_size);
      if (cublas_status != CUBLAS_STATUS_SUCCESS) {
        printf("  cublasSgemm failed: %s\n", cublasGetStatusString(cublas_status));
        cublas_status = CUBLAS_STATUS_SUCCESS;
        kernel_ok = false;
        continue;
      }
      kernel_ok = validate_result(d_out, out.data(), "out", out.size(), 1e-3f) && kernel_ok;
    }
    ok = ok && kernel_ok;
    if (kernel_ok && args.repeats > 0) {
      for (int block_size : sizes) {
        float ms = benchmark_kernel(args.repeats, matmul_forward, k, d_out, d_inp, d_weight, d_bias,
                                    BT, C, OC, block_size);
        double tflops = 2.0 * BT * C * OC / (ms * 1e9);
        printf("  block_size %4d | time %.4f ms | %.2f TFLOP/s\n", block_size, ms, tflops);
      }
    }
    if (k == 3) cublasDestroy(cublas_handle);
  }

  cudaCheck(cudaFree(d_inp));
  cudaCheck(cudaFree(d_weight));
  cudaCheck(cudaFree(d_bias));
  cudaCheck(cudaFree(d_out));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
