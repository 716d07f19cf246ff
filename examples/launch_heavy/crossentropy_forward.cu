// Cross-entropy loss of a classifier over B = 8, T = 1024 positions and a vocabulary of
// V = 4096: losses[b,t] = -log(probs[b,t,targets[b,t]]), from the probabilities or, fused
// with the softmax, from the logits.
//
//   crossentropy_forward [KERNEL [BLOCK_SIZE [REPEATS]]]
// kernel 1: from the probabilities, one thread per position (one load each)
// kernel 2: from the logits, one block per position: softmax's max and sum in shared memory
// kernel 3: from the logits, one warp per position, shuffle reductions
#include <cfloat>

#include "common.h"

// ----------------------------------------------------------------------------
// CPU reference

void softmax_cpu(float* probs, const float* logits, int N, int V) {
  for (int n = 0; n < N; n++) {
    const float* x = logits + (size_t)n * V;
    float* p = probs + (size_t)n * V;
    float maxval = -FLT_MAX;
    for (int i = 0; i < V; i++) maxval = fmaxf(maxval, x[i]);
    float sum = 0.0f;
    for (int i = 0; i < V; i++) {
      p[i] = expf(x[i] - maxval);
      sum += p[i];
    }
    for (int i = 0; i < V; i++) p[i] /= sum;
  }
}

void crossentropy_forward_cpu(float* losses, const float* probs, const int* targets, int N, int V) {
  for (int n = 0; n < N; n++) losses[n] = -logf(probs[(size_t)n * V + targets[n]]);
}

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void crossentropy_forward_kernel1(float* losses, const float* probs, const int* targets,
                                             int N, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) losses[i] = -logf(probs[(size_t)i * V + targets[i]]);
}

__global__ void crossentropy_softmax_kernel2(float* losses, const float* logits, const int* targets,
                                             int N, int V) {
  extern __shared__ float shared[];
  int n = blockIdx.x;
  int tid = threadIdx.x;
  int block_size = blockDim.x;
  const float* x = logits + (size_t)n * V;
  float maxval = -FLT_MAX;
  for (int i = tid; i < V; i += block_size) maxval = fmaxf(maxval, x[i]);
  shared[tid] = maxval;
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] = fmaxf(shared[tid], shared[tid + stride]);
  }
  __syncthreads();
  float offset = shared[0];
  __syncthreads();
  float sum = 0.0f;
  for (int i = tid; i < V; i += block_size) sum += expf(x[i] - offset);
  shared[tid] = sum;
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] += shared[tid + stride];
  }
  if (tid == 0) losses[n] = logf(shared[0]) - (x[targets[n]] - offset);
}

__global__ void crossentropy_softmax_kernel3(float* losses, const float* logits, const int* targets,
                                             int N, int V) {
  int lane = threadIdx.x % 32;
  int n = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (n >= N) return;
  const float* x = logits + (size_t)n * V;
  float maxval = -FLT_MAX;
  for (int i = lane; i < V; i += 32) maxval = fmaxf(maxval, x[i]);
  for (int offset = 16; offset > 0; offset /= 2)
    maxval = fmaxf(maxval, __shfl_xor_sync(0xffffffffu, maxval, offset));
  float sum = 0.0f;
  for (int i = lane; i < V; i += 32) sum += expf(x[i] - maxval);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0) losses[n] = logf(sum) - (x[targets[n]] - maxval);
}

// ----------------------------------------------------------------------------
// kernel launchers

void crossentropy_forward(int kernel, float* losses, const float* probs, const float* logits,
                          const int* targets, int N, int V, int block_size) {
  switch (kernel) {
    case 1:
      crossentropy_forward_kernel1<<<ceil_div(N, block_size), block_size>>>(losses, probs, targets,
                                                                            N, V);
      break;
    case 2:
      crossentropy_softmax_kernel2<<<N, block_size, block_size * sizeof(float)>>>(losses, logits,
                                                                                  targets, N, V);
      break;
    case 3:
      crossentropy_softmax_kernel3<<<ceil_div(N * 32, block_size), block_size>>>(losses, logits,
                                                                                 targets, N, V);
      break;
  }
  cudaCheck(cudaGetLastError());
}

// ----------------------------------------------------------------------------

int main(int argc, char** argv) {
  const Options args = parse_args(argc, argv, 3);
  const int B = 8, T = 1024, V = 4096, N = B * T;
  const char* names[] = {"", "from probabilities, thread per position",
                         "softmax fused, block per position", "softmax fused, warp per position"};
  cudaCheck(cudaSetDevice(0));

  float *d_logits, *d_probs, *d_losses;
  int* d_targets;
  std::vector<float> losses(N);
  {
    std::vector<float> logits = make_random_float((size_t)N * V, 1, 4.0f);
    std::vector<int> targets = make_random_int(N, V, 2);
    std::vector<float> probs((size_t)N * V);
    softmax_cpu(probs.data(), logits.data(), N, V);
    crossentropy_forward_cpu(losses.data(), probs.data(), targets.data(), N, V);
    d_logits = device_copy(logits);
    d_probs = device_copy(probs);
    d_targets = device_copy(targets);
  }
  cudaCheck(cudaMalloc(&d_losses, N * sizeof(float)));

  const std::vector<int> sizes = block_sizes(args, {32, 128, 512, 1024});
  bool ok = true;
  for (int k = 1; k <= 3; k++) {
    if (args.kernel && args.kernel != k) continue;
    printf("kernel %d: %s\n", k, names[k]);
    bool kernel_ok = true;
    for (int block_size : sizes) {
      cudaCheck(cudaMemset(d_losses, 0xff, N * sizeof(float)));  // NaNs
      crossentropy_forward(k, d_losses, d_probs, d_logits, d_targets, N, V, block_size);
      cudaCheck(cudaDeviceSynchronize());
      printf("  checking block size %d\n", block_size);
      kernel_ok = validate_result(d_losses, losses.data(), "losses", N, 1e-4f) && kernel_ok;
    }
    ok = ok && kernel_ok;
    if (!kernel_ok || args.repeats == 0) continue;
    for (int block_size : sizes) {
      float ms = benchmark_kernel(args.repeats, crossentropy_forward, k, d_losses, d_probs,
                                  d_logits, d_targets, N, V, block_size);
      double bytes =
          k == 1 ? (double)N * (2 * sizeof(float) + sizeof(int)) : (double)N * V * sizeof(float);
      printf("  block_size %4d | time %.4f ms | bandwidth %.2f GB/s\n", block_size, ms,
             bytes / (ms * 1e6));
    }
  }

  cudaCheck(cudaFree(d_logits));
  cudaCheck(cudaFree(d_probs));
  cudaCheck(cudaFree(d_targets));
  cudaCheck(cudaFree(d_losses));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
