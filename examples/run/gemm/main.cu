// main.cu: the SGEMM ladder's driver, as in the well-known SGEMM tutorial: picks one
// kernel by number, checks one run against the CPU, then times repeated runs with CUDA
// events.
//   1 naive (uncoalesced)          5 1D blocktiling (64x64 blocks, 8 results a thread)
//   2 global memory coalesced      6 2D blocktiling (128x128, or 64x64 below 128)
//   3 shared tiles, A transposed   7 vectorized float4 (128x128)
//   4 shared tiles, padded
//
//   usage: gemm KERNEL [SIZE [REPEATS]]    C (SIZE x SIZE) = alpha A B + beta C
//   default: gemm KERNEL 256 3   (1 + 3 launches of the kernel; grids: 1, 2: 8x8 of 32x32;
//            3, 4: 8x8 of 32x32; 5: 4x4 of 512; 6, 7: 2x2 of 256)
#include <cmath>
#include <vector>

#include "runner.cuh"

static void randomize(std::vector<float>& v, unsigned seed) {
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = (float)(seed >> 8) / (float)(1u << 24) * 2.0f - 1.0f;  // [-1, 1)
  }
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    fprintf(stderr, "usage: %s KERNEL [SIZE [REPEATS]]   KERNEL: 1..%d\n", argv[0], kNumKernels);
    return EXIT_FAILURE;
  }
  int kernel_num = atoi(argv[1]);
  int size = argc > 2 ? atoi(argv[2]) : 256;
  int repeats = argc > 3 ? atoi(argv[3]) : 3;
  const char* why = "";
  if (!kernel_name(kernel_num)) {
    fprintf(stderr, "KERNEL must be 1..%d\n", kNumKernels);
    return EXIT_FAILURE;
  }
  if (size <= 0 || repeats < 0 || !kernel_supports(kernel_num, size, size, size, &why)) {
    fprintf(stderr, "kernel %d (%s) needs %s; size %d\n", kernel_num, kernel_name(kernel_num),
            why, size);
    return EXIT_FAILURE;
  }

  int deviceIdx = 0;
  CUDA_CHECK(cudaSetDevice(deviceIdx));
  cudaDeviceProp props;
  CUDA_CHECK(cudaGetDeviceProperties(&props, deviceIdx));
  printf("device %s, kernel %d: %s\n", props.name, kernel_num, kernel_name(kernel_num));

  const int M = size, N = size, K = size;
  const float alpha = 1.5f, beta = 0.5f;
  std::vector<float> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N);
  randomize(A, 1);
  randomize(B, 2);
  randomize(C, 3);

  float *dA, *dB, *dC;
  CUDA_CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dC, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  // Correctness: one run against the CPU.
  run_kernel(kernel_num, M, N, K, alpha, dA, dB, beta, dC, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> got(C.size());
  CUDA_CHECK(cudaMemcpy(got.data(), dC, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double max_err = 0.0;
  size_t worst = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double acc = 0.0;
      for (int k = 0; k < K; k++) acc += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
      double want = alpha * acc + beta * C[(size_t)i * N + j];
      double err = std::fabs(got[(size_t)i * N + j] - want) / (1.0 + std::fabs(want));
      if (std::isnan(err)) err = INFINITY;
      if (err > max_err) {
        max_err = err;
        worst = (size_t)i * N + j;
      }
    }
  printf("max relative error %.3g at (%zu, %zu)\n", max_err, worst / N, worst % N);
  bool ok = max_err < 1e-4;

  // Timing.
  if (ok && repeats > 0) {
    cudaEvent_t beg, end;
    CUDA_CHECK(cudaEventCreate(&beg));
    CUDA_CHECK(cudaEventCreate(&end));
    CUDA_CHECK(cudaEventRecord(beg, stream));
    for (int r = 0; r < repeats; r++)
      run_kernel(kernel_num, M, N, K, alpha, dA, dB, beta, dC, stream);
    CUDA_CHECK(cudaEventRecord(end, stream));
    CUDA_CHECK(cudaEventSynchronize(end));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, beg, end));
    double flops = 2.0 * M * N * K * repeats;
    printf("%d runs: %.4f ms each, %.1f GFLOPS\n", repeats, ms / repeats,
           flops / (ms * 1e-3) / 1e9);
    CUDA_CHECK(cudaEventDestroy(beg));
    CUDA_CHECK(cudaEventDestroy(end));
  }

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
