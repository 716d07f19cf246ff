// A benchmark program in the style of an LLM-training code base's kernel benchmarks: its own
// kernels (a layer norm with a shared-memory reduction, GELU, a bias add) and cuBLAS for the
// matrix products (cublasSgemm, and cublasLtMatmul with a bias epilogue), each validated
// against a CPU reference, then each launched REPEATS times as its timing loop would.
//
//   cublas_mix [REPEATS]     (default 10)
//
// A cuBLAS call that fails (its status printed) is skipped, as such a program goes on with the
// kernels it can check. Prints one line per check and, last, the launches it made:
// "own launches: N, cuBLAS calls: M". Exits 1 when one of its own kernels is wrong.
#include <cublasLt.h>
#include <cublas_v2.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int B = 4, T = 32, C = 128, OC = 96;  // activations (B*T, C), weights (OC, C)

__global__ void layernorm(const float* in, const float* weight, const float* bias, float* out,
                          int rows, int cols) {
  __shared__ float sum[32], sq[32];
  const int row = blockIdx.x;
  float s = 0.0f, q = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = in[row * cols + c];
    s += v;
    q += v * v;
  }
  sum[threadIdx.x] = s;
  sq[threadIdx.x] = q;
  __syncthreads();
  for (int stride = 16; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      sum[threadIdx.x] += sum[threadIdx.x + stride];
      sq[threadIdx.x] += sq[threadIdx.x + stride];
    }
    __syncthreads();
  }
  const float mean = sum[0] / cols;
  const float rstd = rsqrtf(sq[0] / cols - mean * mean + 1e-5f);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[row * cols + c] = (in[row * cols + c] - mean) * rstd * weight[c] + bias[c];
}

__global__ void gelu(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float x = in[i];
    out[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
  }
}

__global__ void add_bias(float* out, const float* bias, int rows, int cols) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) out[i] += bias[i % cols];
}

namespace {

int own_launches = 0, cublas_calls = 0, bad = 0;

void fill(std::vector<float>& v, unsigned seed) {
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
  }
}

float* upload(const std::vector<float>& v) {
  float* d = nullptr;
  cudaMalloc(&d, v.size() * sizeof(float));
  cudaMemcpy(d, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice);
  return d;
}

// Checks `d` against `want`; a kernel of the program's own that is wrong fails the run.
void validate(const char* what, const float* d, const std::vector<float>& want, bool own) {
  std::vector<float> got(want.size());
  cudaMemcpy(got.data(), d, got.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (std::size_t i = 0; i < want.size(); ++i)
    if (std::fabs(got[i] - want[i]) > 1e-3f + 1e-3f * std::fabs(want[i])) {
      std::printf("%s: mismatch at %zu: %g, expected %g\n", what, i, got[i], want[i]);
      if (own) bad = 1;
      return;
    }
  std::printf("%s: ok\n", what);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 10;
  const int rows = B * T;
  std::vector<float> x(rows * C), w(C), b(C), weight(OC * C), bias(OC);
  fill(x, 1);
  fill(w, 2);
  fill(b, 3);
  fill(weight, 4);
  fill(bias, 5);
  float *dx = upload(x), *dw = upload(w), *db = upload(b), *dweight = upload(weight),
        *dbias = upload(bias);
  float *dln = nullptr, *dgelu = nullptr, *dmm = nullptr;
  cudaMalloc(&dln, rows * C * sizeof(float));
  cudaMalloc(&dgelu, rows * C * sizeof(float));
  cudaMalloc(&dmm, rows * OC * sizeof(float));

  // CPU references.
  std::vector<float> ln(rows * C), ge(rows * C), mm(rows * OC);
  for (int r = 0; r < rows; ++r) {
    float s = 0, q = 0;
    for (int c = 0; c < C; ++c) s += x[r * C + c], q += x[r * C + c] * x[r * C + c];
    const float mean = s / C, rstd = 1.0f / std::sqrt(q / C - mean * mean + 1e-5f);
    for (int c = 0; c < C; ++c) ln[r * C + c] = (x[r * C + c] - mean) * rstd * w[c] + b[c];
  }
  for (int i = 0; i < rows * C; ++i) {
    const float v = ln[i];
    ge[i] = 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < OC; ++o) {
      float acc = bias[o];
      for (int c = 0; c < C; ++c) acc += ge[r * C + c] * weight[o * C + c];
      mm[r * OC + o] = acc;
    }

  // The program's own kernels.
  layernorm<<<rows, 32>>>(dx, dw, db, dln, rows, C);
  ++own_launches;
  validate("layernorm", dln, ln, true);
  gelu<<<(rows * C + 127) / 128, 128>>>(dln, dgelu, rows * C);
  ++own_launches;
  validate("gelu", dgelu, ge, true);

  // out (rows x OC, row-major) = gelu (rows x C) * weight^T, then the bias: column-major
  // cuBLAS computes out^T = weight * gelu^T.
  cublasHandle_t handle;
  const cublasStatus_t created = cublasCreate(&handle);
  const float one = 1.0f, zero = 0.0f;
  if (created == CUBLAS_STATUS_SUCCESS) {
    ++cublas_calls;
    const cublasStatus_t s = cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, OC, rows, C, &one,
                                         dweight, C, dgelu, C, &zero, dmm, OC);
    add_bias<<<(rows * OC + 127) / 128, 128>>>(dmm, dbias, rows, OC);
    ++own_launches;
    if (s == CUBLAS_STATUS_SUCCESS)
      validate("matmul (cublasSgemm)", dmm, mm, false);
    else
      std::printf("matmul (cublasSgemm): cuBLAS status %d, not validated\n", static_cast<int>(s));
  } else {
    std::printf("cublasCreate: status %d\n", static_cast<int>(created));
  }

  // The same product through cuBLASLt, the bias in its epilogue.
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtCreate(&lt);
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  const cublasOperation_t transa = CUBLAS_OP_T;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa);
  const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias);
  cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, C, OC, C);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, C, rows, C);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, OC, rows, OC);
  cudaMemset(dmm, 0, rows * OC * sizeof(float));
  ++cublas_calls;
  const cublasStatus_t ls = cublasLtMatmul(lt, desc, &one, dweight, la, dgelu, lb, &zero, dmm, lc,
                                           dmm, lc, nullptr, nullptr, 0, nullptr);
  if (ls == CUBLAS_STATUS_SUCCESS)
    validate("matmul (cublasLtMatmul)", dmm, mm, false);
  else
    std::printf("matmul (cublasLtMatmul): cuBLAS status %d, not validated\n", static_cast<int>(ls));

  // The timing loops.
  for (int i = 0; i < repeats; ++i) {
    layernorm<<<rows, 32>>>(dx, dw, db, dln, rows, C);
    gelu<<<(rows * C + 127) / 128, 128>>>(dln, dgelu, rows * C);
    own_launches += 2;
    if (created == CUBLAS_STATUS_SUCCESS) {
      cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, OC, rows, C, &one, dweight, C, dgelu, C, &zero,
                  dmm, OC);
      ++cublas_calls;
    }
  }
  cudaDeviceSynchronize();
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(lt);
  if (created == CUBLAS_STATUS_SUCCESS) cublasDestroy(handle);
  std::printf("own launches: %d, cuBLAS calls: %d\n", own_launches, cublas_calls);
  return bad;
}
