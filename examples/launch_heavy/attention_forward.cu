// The attention block's own kernels around its two matmuls, GPT-2 sizes B = 8, T = 1024,
// C = 768, NH = 12 heads of HS = 64:
//   permute:   qkv (B, T, 3, NH, HS) -> q, k, v, each (B, NH, T, HS)
//   softmax:   the causal, scaled softmax of the attention scores, here for 4 heads'
//              (T, T) score matrices (16 MB of the 400 MB a whole batch would take)
//   unpermute: y (B, NH, T, HS) -> out (B, T, C)
//
//   attention_forward [KERNEL [BLOCK_SIZE [REPEATS]]]
// kernel 1: permute, one thread per element of q (writes q, k and v)
// kernel 2: softmax, one thread per row
// kernel 3: softmax, one block per row, shared-memory trees for the max and the sum
// kernel 4: softmax, one warp per row, online max and sum with shuffles
// kernel 5: unpermute, one thread per element
#include <cfloat>

#include "common.h"

// ----------------------------------------------------------------------------
// CPU reference

void permute_cpu(float* q, float* k, float* v, const float* inp, int B, int T, int NH, int HS) {
  const int C = NH * HS;
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int h = 0; h < NH; h++)
        for (int d = 0; d < HS; d++) {
          size_t from = (size_t)(b * T + t) * 3 * C + h * HS + d;
          size_t to = ((size_t)(b * NH + h) * T + t) * HS + d;
          q[to] = inp[from];
          k[to] = inp[from + C];
          v[to] = inp[from + 2 * C];
        }
}

// Rows of T scores, row r being query t = r % T: entries 0..t kept, the others 0.
void softmax_causal_cpu(float* out, const float* inp, int rows, int T, float scale) {
  for (int r = 0; r < rows; r++) {
    const float* x = inp + (size_t)r * T;
    float* y = out + (size_t)r * T;
    int t = r % T;
    float maxval = -FLT_MAX;
    for (int i = 0; i <= t; i++) maxval = fmaxf(maxval, x[i]);
    float sum = 0.0f;
    for (int i = 0; i <= t; i++) {
      y[i] = expf(scale * (x[i] - maxval));
      sum += y[i];
    }
    for (int i = 0; i < T; i++) y[i] = i <= t ? y[i] / sum : 0.0f;
  }
}

void unpermute_cpu(float* out, const float* inp, int B, int T, int NH, int HS) {
  for (int b = 0; b < B; b++)
    for (int h = 0; h < NH; h++)
      for (int t = 0; t < T; t++)
        for (int d = 0; d < HS; d++)
          out[(size_t)(b * T + t) * NH * HS + h * HS + d] =
              inp[((size_t)(b * NH + h) * T + t) * HS + d];
}

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void permute_kernel(float* q, float* k, float* v, const float* inp, int B, int T, int NH,
                               int HS) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * NH * T * HS) {
    int b = idx / (NH * T * HS);
    int rest = idx % (NH * T * HS);
    int h = rest / (T * HS);
    rest = rest % (T * HS);
    int t = rest / HS;
    int d = rest % HS;
    int from = (b * T + t) * 3 * NH * HS + h * HS + d;
    q[idx] = inp[from];
    k[idx] = inp[from + NH * HS];
    v[idx] = inp[from + 2 * NH * HS];
  }
}

__global__ void softmax_kernel1(float* out, const float* inp, int rows, int T, float scale) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float* x = inp + r * T;
    float* y = out + r * T;
    int t = r % T;
    float maxval = -FLT_MAX;
    for (int i = 0; i <= t; i++) maxval = fmaxf(maxval, x[i]);
    float sum = 0.0f;
    for (int i = 0; i <= t; i++) sum += expf(scale * (x[i] - maxval));
    for (int i = 0; i < T; i++) y[i] = i <= t ? expf(scale * (x[i] - maxval)) / sum : 0.0f;
  }
}

__global__ void softmax_kernel2(float* out, const float* inp, int rows, int T, float scale) {
  extern __shared__ float shared[];
  int r = blockIdx.x;
  int tid = threadIdx.x;
  int block_size = blockDim.x;
  int t = r % T;
  const float* x = inp + r * T;
  float maxval = -FLT_MAX;
  for (int i = tid; i <= t; i += block_size) maxval = fmaxf(maxval, x[i]);
  shared[tid] = maxval;
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] = fmaxf(shared[tid], shared[tid + stride]);
  }
  __syncthreads();
  float offset = shared[0];
  __syncthreads();
  float sum = 0.0f;
  for (int i = tid; i <= t; i += block_size) sum += expf(scale * (x[i] - offset));
  shared[tid] = sum;
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] += shared[tid + stride];
  }
  __syncthreads();
  float total = shared[0];
  for (int i = tid; i < T; i += block_size)
    out[r * T + i] = i <= t ? expf(scale * (x[i] - offset)) / total : 0.0f;
}

__global__ void softmax_kernel3(float* out, const float* inp, int rows, int T, float scale) {
  int lane = threadIdx.x % 32;
  int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (r >= rows) return;
  int t = r % T;
  const float* x = inp + r * T;
  // Online: each lane keeps the max of what it saw and the sum scaled to it.
  float maxval = -FLT_MAX, sum = 0.0f;
  for (int i = lane; i <= t; i += 32) {
    float m = fmaxf(maxval, x[i]);
    sum = sum * expf(scale * (maxval - m)) + expf(scale * (x[i] - m));
    maxval = m;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    float other_max = __shfl_xor_sync(0xffffffffu, maxval, offset);
    float other_sum = __shfl_xor_sync(0xffffffffu, sum, offset);
    float m = fmaxf(maxval, other_max);
    sum = sum * expf(scale * (maxval - m)) + other_sum * expf(scale * (other_max - m));
    maxval = m;
  }
  float* y = out + r * T;
  for (int i = lane; i < T; i += 32) y[i] = i <= t ? expf(scale * (x[i] - maxval)) / sum : 0.0f;
}

__global__ void unpermute_kernel(float* out, const float* inp, int B, int T, int NH, int HS) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * NH * T * HS) {
    int b = idx / (NH * T * HS);
    int rest = idx % (NH * T * HS);
    int h = rest / (T * HS);
    rest = rest % (T * HS);
    int t = rest / HS;
    int d = rest % HS;
    out[(b * T + t) * NH * HS + h * HS + d] = inp[idx];
  }
}

// ----------------------------------------------------------------------------
// kernel launchers

struct Buffers {
  float *qkv, *q, *k, *v, *scores, *att, *y, *out;
};

void attention_piece(int kernel, Buffers d, int B, int T, int NH, int HS, int rows,
                     int block_size) {
  const float scale = 1.0f / sqrtf((float)HS);
  switch (kernel) {
    case 1:
      permute_kernel<<<ceil_div(B * NH * T * HS, block_size), block_size>>>(d.q, d.k, d.v, d.qkv, B,
                                                                            T, NH, HS);
      break;
    case 2:
      softmax_kernel1<<<ceil_div(rows, block_size), block_size>>>(d.att, d.scores, rows, T, scale);
      break;
    case 3:
      softmax_kernel2<<<rows, block_size, block_size * sizeof(float)>>>(d.att, d.scores, rows, T,
                                                                        scale);
      break;
    case 4:
      softmax_kernel3<<<ceil_div(rows * 32, block_size), block_size>>>(d.att, d.scores, rows, T,
                                                                       scale);
      break;
    case 5:
      unpermute_kernel<<<ceil_div(B * NH * T * HS, block_size), block_size>>>(d.out, d.y, B, T, NH,
                                                                              HS);
      break;
  }
  cudaCheck(cudaGetLastError());
}

// ----------------------------------------------------------------------------

int main(int argc, char** argv) {
  const Options args = parse_args(argc, argv, 5);
  const int B = 8, T = 1024, C = 768, NH = 12, HS = C / NH;
  const int heads = 4, rows = heads * T;  // the softmax's rows
  const size_t n = (size_t)B * T * C;
  const char* names[] = {"",
                         "permute, thread per element",
                         "causal softmax, thread per row",
                         "causal softmax, block per row",
                         "causal softmax, warp per row, online",
                         "unpermute, thread per element"};
  cudaCheck(cudaSetDevice(0));

  std::vector<float> qkv = make_random_float(3 * n, 1);
  std::vector<float> scores = make_random_float((size_t)rows * T, 2, 8.0f);
  std::vector<float> y = make_random_float(n, 3);
  std::vector<float> q(n), k(n), v(n), att((size_t)rows * T), out(n);
  permute_cpu(q.data(), k.data(), v.data(), qkv.data(), B, T, NH, HS);
  softmax_causal_cpu(att.data(), scores.data(), rows, T, 1.0f / sqrtf((float)HS));
  unpermute_cpu(out.data(), y.data(), B, T, NH, HS);

  Buffers d;
  d.qkv = device_copy(qkv);
  d.scores = device_copy(scores);
  d.y = device_copy(y);
  cudaCheck(cudaMalloc(&d.q, n * sizeof(float)));
  cudaCheck(cudaMalloc(&d.k, n * sizeof(float)));
  cudaCheck(cudaMalloc(&d.v, n * sizeof(float)));
  cudaCheck(cudaMalloc(&d.att, att.size() * sizeof(float)));
  cudaCheck(cudaMalloc(&d.out, n * sizeof(float)));

  const std::vector<int> sizes = block_sizes(args, {64, 256, 1024});
  bool ok = true;
  for (int kn = 1; kn <= 5; kn++) {
    if (args.kernel && args.kernel != kn) continue;
    printf("kernel %d: %s\n", kn, names[kn]);
    bool kernel_ok = true;
    for (int block_size : sizes) {
      for (float* p : {d.q, d.k, d.v, d.out}) cudaCheck(cudaMemset(p, 0xff, n * sizeof(float)));
      cudaCheck(cudaMemset(d.att, 0xff, att.size() * sizeof(float)));
      attention_piece(kn, d, B, T, NH, HS, rows, block_size);
      cudaCheck(cudaDeviceSynchronize());
      printf("  checking block size %d\n", block_size);
      if (kn == 1) {
        kernel_ok = validate_result(d.q, q.data(), "q", n, 0.0f) && kernel_ok;
        kernel_ok = validate_result(d.k, k.data(), "k", n, 0.0f) && kernel_ok;
        kernel_ok = validate_result(d.v, v.data(), "v", n, 0.0f) && kernel_ok;
      } else if (kn == 5) {
        kernel_ok = validate_result(d.out, out.data(), "out", n, 0.0f) && kernel_ok;
      } else {
        kernel_ok = validate_result(d.att, att.data(), "att", att.size(), 1e-6f) && kernel_ok;
      }
    }
    ok = ok && kernel_ok;
    if (!kernel_ok || args.repeats == 0) continue;
    for (int block_size : sizes) {
      float ms =
          benchmark_kernel(args.repeats, attention_piece, kn, d, B, T, NH, HS, rows, block_size);
      double bytes = kn == 1   ? 6.0 * n * sizeof(float)
                     : kn == 5 ? 2.0 * n * sizeof(float)
                               : 2.0 * rows * T * sizeof(float);
      printf("  block_size %4d | time %.4f ms | bandwidth %.2f GB/s\n", block_size, ms,
             bytes / (ms * 1e6));
    }
  }

  for (float* p : {d.qkv, d.q, d.k, d.v, d.scores, d.att, d.y, d.out}) cudaCheck(cudaFree(p));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
