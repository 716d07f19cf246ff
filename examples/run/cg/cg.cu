// cg.cu: conjugate gradient solver for a sparse symmetric positive definite system, the
// way iterative-solver benchmarks (HPCG-like, SHOC's spmv) write it: the matrix is a
// shifted 5-point Laplacian on an nx x ny grid in CSR form. Per iteration:
//   spmv_csr_scalar       q = A p, one thread per row (each thread walks its own row:
//                         neighbouring threads read addresses ~5 entries apart);
//   dot_partial<256>      p.q, a grid-stride sum per thread, then a block reduction:
//                         shared-memory tree with a barrier per level down to 64 values,
//                         then warp shuffles;
//   cg_update<128>        x += alpha p, r -= alpha q, and the block's partial r.r with the
//                         same reduction;
//   update_direction      p = r + beta p.
// The host reads the per-block partial sums back after each dot product, adds them, and
// stops when |r| / |b| < tol or after max_iter iterations.
//
//   usage: cg [nx] [ny] [max_iter] [tol]
//   default: cg 40 40 50 1e-5   (1,600 unknowns; one dot_partial for |r0|^2, then per
//            iteration spmv_csr_scalar (13 blocks of 128), dot_partial (7 x 256),
//            cg_update (13 x 128) and, unless converged, update_direction (13 x 128);
//            about 12 iterations)
//
// The GPU's x is compared with a double-precision CPU CG run for the same number of
// iterations, and its true residual |b - A x| / |b| is checked.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                               \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
              cudaGetErrorString(err_));                                               \
      exit(EXIT_FAILURE);                                                              \
    }                                                                                  \
  } while (0)

#define SPMV_THREADS 128
#define DOT_THREADS 256
#define UPDATE_THREADS 128
#define MAX_DOT_BLOCKS 64

// Sum of v over the block, valid in thread 0. BLOCK threads, a power of two >= 64.
template <int BLOCK>
__device__ float block_reduce_sum(float v) {
  static_assert(BLOCK >= 64 && (BLOCK & (BLOCK - 1)) == 0, "BLOCK: a power of two >= 64");
  __shared__ float sdata[BLOCK];
  int tid = threadIdx.x;
  sdata[tid] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  float sum = 0.0f;
  if (tid < 32) {
    sum = sdata[tid] + sdata[tid + 32];
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
  }
  return sum;
}

__global__ void spmv_csr_scalar(int n, const int* row_ptr, const int* col_idx,
                                const float* vals, const float* x, float* y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float sum = 0.0f;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++) sum += vals[k] * x[col_idx[k]];
    y[row] = sum;
  }
}

template <int BLOCK>
__global__ void dot_partial(int n, const float* a, const float* b, float* partial) {
  float sum = 0.0f;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x)
    sum += a[i] * b[i];
  sum = block_reduce_sum<BLOCK>(sum);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

template <int BLOCK>
__global__ void cg_update(int n, float alpha, const float* p, const float* q, float* x,
                          float* r, float* partial) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float rr = 0.0f;
  if (i < n) {
    x[i] += alpha * p[i];
    float ri = r[i] - alpha * q[i];
    r[i] = ri;
    rr = ri * ri;
  }
  rr = block_reduce_sum<BLOCK>(rr);
  if (threadIdx.x == 0) partial[blockIdx.x] = rr;
}

__global__ void update_direction(int n, float beta, const float* r, float* p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = r[i] + beta * p[i];
}

// ---------------------------------------------------------------------------------------
// Host

struct Csr {
  int n;
  std::vector<int> row_ptr, col_idx;
  std::vector<float> vals;
};

// -Laplacian + 2 I on an nx x ny grid (Dirichlet boundary): 6 on the diagonal.
static Csr laplacian(int nx, int ny) {
  Csr a;
  a.n = nx * ny;
  a.row_ptr.push_back(0);
  for (int y = 0; y < ny; y++)
    for (int x = 0; x < nx; x++) {
      auto add = [&](int c, float v) {
        a.col_idx.push_back(c);
        a.vals.push_back(v);
      };
      if (y > 0) add((y - 1) * nx + x, -1.0f);
      if (x > 0) add(y * nx + x - 1, -1.0f);
      add(y * nx + x, 6.0f);
      if (x < nx - 1) add(y * nx + x + 1, -1.0f);
      if (y < ny - 1) add((y + 1) * nx + x, -1.0f);
      a.row_ptr.push_back((int)a.col_idx.size());
    }
  return a;
}

static void spmv_cpu(const Csr& a, const std::vector<double>& x, std::vector<double>& y) {
  for (int i = 0; i < a.n; i++) {
    double s = 0.0;
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; k++) s += a.vals[k] * x[a.col_idx[k]];
    y[i] = s;
  }
}

static double dot_cpu(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); i++) s += a[i] * b[i];
  return s;
}

static double sum_partials(const float* d_partial, int blocks) {
  float h[MAX_DOT_BLOCKS > 1024 ? MAX_DOT_BLOCKS : 1024];
  CUDA_CHECK(cudaMemcpy(h, d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0.0;
  for (int b = 0; b < blocks; b++) s += h[b];
  return s;
}

int main(int argc, char** argv) {
  int nx = 40, ny = 40, max_iter = 50;
  double tol = 1e-5;
  if (argc > 1) nx = atoi(argv[1]);
  if (argc > 2) ny = atoi(argv[2]);
  if (argc > 3) max_iter = atoi(argv[3]);
  if (argc > 4) tol = atof(argv[4]);
  if (nx < 2 || ny < 2 || max_iter < 1 || !(tol > 0.0) || (long long)nx * ny > 1024 * UPDATE_THREADS) {
    fprintf(stderr, "usage: %s [nx] [ny] [max_iter] [tol]   (nx * ny <= %d)\n", argv[0],
            1024 * UPDATE_THREADS);
    return EXIT_FAILURE;
  }

  Csr a = laplacian(nx, ny);
  int n = a.n;
  int nnz = (int)a.vals.size();
  printf("CG on a %d x %d grid: n = %d, nnz = %d, tol %g, at most %d iterations\n", nx, ny, n,
         nnz, tol, max_iter);

  // b = A x_true for a bumpy x_true made with exact arithmetic (no libm: the same b on
  // every machine).
  std::vector<double> x_true(n), b(n);
  for (int y = 0; y < ny; y++)
    for (int x = 0; x < nx; x++)
      x_true[y * nx + x] = ((x * 7 + y * 13) % 17) / 16.0 - 0.5 + 0.25 * ((x * y) % 5);
  spmv_cpu(a, x_true, b);
  std::vector<float> bf(b.begin(), b.end());

  int *d_row_ptr, *d_col_idx;
  float *d_vals, *d_x, *d_r, *d_p, *d_q, *d_partial;
  CUDA_CHECK(cudaMalloc(&d_row_ptr, (n + 1) * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_col_idx, nnz * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_vals, nnz * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_r, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_p, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_q, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_partial, 1024 * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_row_ptr, a.row_ptr.data(), (n + 1) * sizeof(int),
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_col_idx, a.col_idx.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_vals, a.vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
  // x0 = 0, r0 = p0 = b.
  CUDA_CHECK(cudaMemset(d_x, 0, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_r, bf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_p, bf.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  int spmv_blocks = (n + SPMV_THREADS - 1) / SPMV_THREADS;
  int dot_blocks = (n + DOT_THREADS - 1) / DOT_THREADS;
  if (dot_blocks > MAX_DOT_BLOCKS) dot_blocks = MAX_DOT_BLOCKS;
  int update_blocks = (n + UPDATE_THREADS - 1) / UPDATE_THREADS;
  int launches = 0;

  dot_partial<DOT_THREADS><<<dot_blocks, DOT_THREADS>>>(n, d_r, d_r, d_partial);
  CUDA_CHECK(cudaGetLastError());
  ++launches;
  double rr = sum_partials(d_partial, dot_blocks);
  double norm_b = std::sqrt(rr);

  int iter = 0;
  double resid = 1.0;
  bool converged = false;
  while (iter < max_iter) {
    spmv_csr_scalar<<<spmv_blocks, SPMV_THREADS>>>(n, d_row_ptr, d_col_idx, d_vals, d_p, d_q);
    CUDA_CHECK(cudaGetLastError());
    dot_partial<DOT_THREADS><<<dot_blocks, DOT_THREADS>>>(n, d_p, d_q, d_partial);
    CUDA_CHECK(cudaGetLastError());
    double pq = sum_partials(d_partial, dot_blocks);
    float alpha = (float)(rr / pq);
    cg_update<UPDATE_THREADS><<<update_blocks, UPDATE_THREADS>>>(n, alpha, d_p, d_q, d_x, d_r,
                                                                 d_partial);
    CUDA_CHECK(cudaGetLastError());
    launches += 3;
    double rr_new = sum_partials(d_partial, update_blocks);
    ++iter;
    resid = std::sqrt(rr_new) / norm_b;
    printf("iteration %2d: |r| / |b| = %.3e\n", iter, resid);
    if (resid < tol) {
      converged = true;
      break;
    }
    float beta = (float)(rr_new / rr);
    rr = rr_new;
    update_direction<<<update_blocks, UPDATE_THREADS>>>(n, beta, d_r, d_p);
    CUDA_CHECK(cudaGetLastError());
    ++launches;
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("%s after %d iterations, %d launches\n", converged ? "converged" : "stopped", iter,
         launches);

  std::vector<float> x_gpu(n);
  CUDA_CHECK(cudaMemcpy(x_gpu.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost));

  // The same number of iterations in double precision.
  std::vector<double> x(n, 0.0), r = b, p = b, q(n);
  double rr_ref = dot_cpu(r, r);
  for (int it = 0; it < iter; it++) {
    spmv_cpu(a, p, q);
    double alpha = rr_ref / dot_cpu(p, q);
    for (int i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    double rr_new = dot_cpu(r, r);
    double beta = rr_new / rr_ref;
    rr_ref = rr_new;
    for (int i = 0; i < n; i++) p[i] = r[i] + beta * p[i];
  }
  double max_diff = 0.0, max_x = 0.0;
  std::vector<double> xg(x_gpu.begin(), x_gpu.end()), ax(n);
  for (int i = 0; i < n; i++) {
    double d = std::fabs(xg[i] - x[i]);
    if (std::isnan(d)) d = INFINITY;
    if (d > max_diff) max_diff = d;
    if (std::fabs(x[i]) > max_x) max_x = std::fabs(x[i]);
  }
  spmv_cpu(a, xg, ax);
  double res2 = 0.0;
  for (int i = 0; i < n; i++) res2 += (b[i] - ax[i]) * (b[i] - ax[i]);
  double true_resid = std::sqrt(res2) / norm_b;
  printf("max |x_gpu - x_cpu| / max |x_cpu| = %.3e, true residual |b - A x_gpu| / |b| = %.3e\n",
         max_diff / max_x, true_resid);

  CUDA_CHECK(cudaFree(d_row_ptr));
  CUDA_CHECK(cudaFree(d_col_idx));
  CUDA_CHECK(cudaFree(d_vals));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_r));
  CUDA_CHECK(cudaFree(d_p));
  CUDA_CHECK(cudaFree(d_q));
  CUDA_CHECK(cudaFree(d_partial));

  bool ok = max_diff / max_x < 1e-4 && (!converged || true_resid < 10.0 * tol + 1e-5);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
