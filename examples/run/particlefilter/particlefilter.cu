// particlefilter.cu: tracks a bright disk through a synthetic noisy video with a particle
// filter, in the style of Rodinia's particlefilter. Per frame, five kernels:
//   likelihood_kernel         moves every particle (deterministic noise), reads the video
//                             under a disk around it (indices stored per particle: a
//                             strided global layout), weights it, and sums the block's
//                             weights with a shared-memory tree reduction;
//   sum_kernel                one block adds the per-block partial sums;
//   normalize_weights_kernel  divides by the sum and lays out the systematic-resampling
//                             thresholds u[i] = (u1 + i) / N;
//   cdf_kernel                one block scans the weights (Hillis-Steele, double-buffered
//                             in shared memory, a chunk of 256 at a time);
//   find_index_kernel         stages the CDF in dynamic shared memory and binary-searches
//                             it for each u[i] (data-dependent shared addresses), then
//                             copies the chosen particle.
//
//   usage: particlefilter [-x dimX] [-y dimY] [-z frames] [-np particles]
//   default: particlefilter -x 64 -y 64 -z 5 -np 1000
//            (4 tracked frames x 5 launches; likelihood/normalize/find_index grids of 8
//             blocks of 128, sum and cdf one block)
//
// Every frame is checked on the CPU from the same inputs: positions and resampled
// particles exactly, weights and CDF to a relative 1e-4.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

#define THREADS_PER_BLOCK 128
#define SUM_THREADS 256
#define CDF_BLOCK 256
#define RADIUS 5
#define LIKELIHOOD_SCALE 4096.0f  // keeps exp() of the likelihood inside float range
#define MAX_PARTICLES 12288       // the CDF must fit in 48 KB of shared memory

// Uniform noise in [-0.5, 0.5) with 16 bits: exact in float, so the particles' positions
// are the same bits on the GPU and on the CPU.
__host__ __device__ inline float noise(unsigned particle, unsigned frame, unsigned salt) {
  unsigned h = particle * 0x9E3779B1u ^ (frame + 1) * 0x85EBCA77u ^ salt * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  return (float)((h >> 8) & 0xffffu) / 65536.0f - 0.5f;
}

// Sum over the disk of how much more each pixel looks like the object (228) than the
// background (100).
__host__ __device__ inline int likelihood_sum(const unsigned char* I, const int* ind,
                                              int countOnes) {
  int s = 0;
  for (int j = 0; j < countOnes; j++) {
    int v = I[ind[j]];
    s += (v - 100) * (v - 100) - (v - 228) * (v - 228);
  }
  return s;
}

__host__ __device__ inline int clampi(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

__global__ void likelihood_kernel(float* arrayX, float* arrayY, const float* xj, const float* yj,
                                  int* ind, const int* objxy, float* likelihood,
                                  const unsigned char* I, float* weights, int Nparticles,
                                  int countOnes, int IszX, int IszY, int k,
                                  float* partial_sums) {
  __shared__ float buffer[THREADS_PER_BLOCK];
  int i = blockDim.x * blockIdx.x + threadIdx.x;

  if (i < Nparticles) {
    // Move: one pixel right and two up per frame on average, with noise.
    arrayX[i] = xj[i] + 1.0f + 4.0f * noise(i, k, 1);
    arrayY[i] = yj[i] - 2.0f + 2.0f * noise(i, k, 2);

    int px = (int)roundf(arrayX[i]);
    int py = (int)roundf(arrayY[i]);
    const unsigned char* frame = I + (size_t)k * IszX * IszY;
    for (int y = 0; y < countOnes; y++) {
      int indX = clampi(px + objxy[y * 2 + 1], 0, IszX - 1);
      int indY = clampi(py + objxy[y * 2], 0, IszY - 1);
      ind[i * countOnes + y] = indY * IszX + indX;
    }
    likelihood[i] = (float)likelihood_sum(frame, ind + i * countOnes, countOnes) /
                    (LIKELIHOOD_SCALE * countOnes);
    weights[i] = (1.0f / Nparticles) * expf(likelihood[i]);
  }
  buffer[threadIdx.x] = i < Nparticles ? weights[i] : 0.0f;
  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buffer[threadIdx.x] += buffer[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial_sums[blockIdx.x] = buffer[0];
}

__global__ void sum_kernel(const float* partial_sums, int num_blocks, float* total) {
  __shared__ float buffer[SUM_THREADS];
  float s = 0.0f;
  for (int b = threadIdx.x; b < num_blocks; b += blockDim.x) s += partial_sums[b];
  buffer[threadIdx.x] = s;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) buffer[threadIdx.x] += buffer[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) *total = buffer[0];
}

__global__ void normalize_weights_kernel(float* weights, int Nparticles, const float* total,
                                         float* u, float u1) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  float sumWeights = *total;
  if (i < Nparticles) {
    weights[i] = weights[i] / sumWeights;
    u[i] = (u1 + (float)i) / (float)Nparticles;
  }
}

__global__ void cdf_kernel(const float* weights, float* CDF, int Nparticles) {
  __shared__ float buf[2][CDF_BLOCK];
  __shared__ float carry;
  int tid = threadIdx.x;
  if (tid == 0) carry = 0.0f;
  __syncthreads();
  for (int base = 0; base < Nparticles; base += CDF_BLOCK) {
    int pout = 0, pin = 1;
    buf[pout][tid] = base + tid < Nparticles ? weights[base + tid] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < CDF_BLOCK; offset *= 2) {
      pout = 1 - pout;
      pin = 1 - pout;
      float v = buf[pin][tid];
      if (tid >= offset) v += buf[pin][tid - offset];
      buf[pout][tid] = v;
      __syncthreads();
    }
    if (base + tid < Nparticles) CDF[base + tid] = carry + buf[pout][tid];
    __syncthreads();  // every thread has read carry
    if (tid == CDF_BLOCK - 1) carry += buf[pout][tid];
    __syncthreads();
  }
}

__global__ void find_index_kernel(const float* arrayX, const float* arrayY, const float* CDF,
                                  const float* u, float* xj, float* yj, int Nparticles) {
  extern __shared__ float s_cdf[];
  for (int j = threadIdx.x; j < Nparticles; j += blockDim.x) s_cdf[j] = CDF[j];
  __syncthreads();

  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < Nparticles) {
    // The first x with CDF[x] >= u[i]; the last particle when rounding leaves none.
    float ui = u[i];
    int lo = 0, hi = Nparticles - 1;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (s_cdf[mid] >= ui)
        hi = mid;
      else
        lo = mid + 1;
    }
    xj[i] = arrayX[lo];
    yj[i] = arrayY[lo];
  }
}

// ---------------------------------------------------------------------------------------
// Host

static unsigned lcg_state = 0x1234567u;
static int lcg_next(int range) {
  lcg_state = lcg_state * 1103515245u + 12345u;
  return (int)((lcg_state >> 16) % (unsigned)range);
}

// The object's centre in frame k.
static void object_at(int k, int IszX, int IszY, int* x, int* y) {
  *x = IszX / 4 + k;
  *y = IszY / 2 + IszY / 8 - 2 * k;
}

// Frames of background 100 and a disk of 228, each pixel with noise in [-12, 12].
static void video_sequence(std::vector<unsigned char>& I, int IszX, int IszY, int Nfr) {
  for (int k = 0; k < Nfr; k++) {
    int cx, cy;
    object_at(k, IszX, IszY, &cx, &cy);
    for (int y = 0; y < IszY; y++)
      for (int x = 0; x < IszX; x++) {
        int dx = x - cx, dy = y - cy;
        int v = (dx * dx + dy * dy <= RADIUS * RADIUS) ? 228 : 100;
        v += lcg_next(25) - 12;
        I[(size_t)k * IszX * IszY + y * IszX + x] = (unsigned char)clampi(v, 0, 255);
      }
  }
}

static bool close_enough(double got, double want, double rel) {
  return std::fabs(got - want) <= rel * std::fabs(want) + 1e-12;
}

static void usage(const char* argv0) {
  fprintf(stderr, "usage: %s [-x dimX] [-y dimY] [-z frames] [-np particles]\n", argv0);
  exit(EXIT_FAILURE);
}

int main(int argc, char** argv) {
  int IszX = 64, IszY = 64, Nfr = 5, Nparticles = 1000;
  for (int a = 1; a < argc; a++) {
    if (a + 1 >= argc) usage(argv[0]);
    if (!strcmp(argv[a], "-x"))
      IszX = atoi(argv[++a]);
    else if (!strcmp(argv[a], "-y"))
      IszY = atoi(argv[++a]);
    else if (!strcmp(argv[a], "-z"))
      Nfr = atoi(argv[++a]);
    else if (!strcmp(argv[a], "-np"))
      Nparticles = atoi(argv[++a]);
    else
      usage(argv[0]);
  }
  if (IszX < 16 || IszY < 16 || Nfr < 2 || Nparticles < 1 || Nparticles > MAX_PARTICLES) {
    fprintf(stderr, "need dimX, dimY >= 16, frames >= 2, 1 <= particles <= %d\n", MAX_PARTICLES);
    return EXIT_FAILURE;
  }
  printf("video %d x %d, %d frames, %d particles\n", IszX, IszY, Nfr, Nparticles);

  std::vector<unsigned char> I((size_t)IszX * IszY * Nfr);
  video_sequence(I, IszX, IszY, Nfr);

  // Disk offsets (dy, dx) pairs.
  std::vector<int> objxy;
  for (int dy = -RADIUS; dy <= RADIUS; dy++)
    for (int dx = -RADIUS; dx <= RADIUS; dx++)
      if (dx * dx + dy * dy <= RADIUS * RADIUS) {
        objxy.push_back(dy);
        objxy.push_back(dx);
      }
  int countOnes = (int)objxy.size() / 2;

  // All particles start on the object's first position.
  int x0, y0;
  object_at(0, IszX, IszY, &x0, &y0);
  std::vector<float> xj(Nparticles, (float)x0), yj(Nparticles, (float)y0);

  int num_blocks = (Nparticles + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
  float *arrayX_GPU, *arrayY_GPU, *xj_GPU, *yj_GPU, *CDF_GPU, *u_GPU, *likelihood_GPU,
      *weights_GPU, *partial_sums, *total_GPU;
  int *ind_GPU, *objxy_GPU;
  unsigned char* I_GPU;
  size_t fbytes = Nparticles * sizeof(float);
  CUDA_CHECK(cudaMalloc(&arrayX_GPU, fbytes));
  CUDA_CHECK(cudaMalloc(&arrayY_GPU, fbytes));
  CUDA_CHECK(cudaMalloc(&xj_GPU, fbytes));
  CUDA_CHECK(cudaMalloc(&yj_GPU, fbytes));
  CUDA_CHECK(cudaMalloc(&CDF_GPU, fbytes));
  CUDA_CHECK(cudaMalloc(&u_GPU, fbytes));
  CUDA_CHECK(cudaMalloc(&likelihood_GPU, fbytes));
  CUDA_CHECK(cudaMalloc(&weights_GPU, fbytes));
  CUDA_CHECK(cudaMalloc(&partial_sums, num_blocks * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&total_GPU, sizeof(float)));
  CUDA_CHECK(cudaMalloc(&ind_GPU, (size_t)Nparticles * countOnes * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&objxy_GPU, objxy.size() * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&I_GPU, I.size()));
  CUDA_CHECK(cudaMemcpy(I_GPU, I.data(), I.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(objxy_GPU, objxy.data(), objxy.size() * sizeof(int),
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(xj_GPU, xj.data(), fbytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(yj_GPU, yj.data(), fbytes, cudaMemcpyHostToDevice));

  std::vector<float> arrayX(Nparticles), arrayY(Nparticles), weights(Nparticles),
      CDF(Nparticles), u(Nparticles), gx(Nparticles), gy(Nparticles), gw(Nparticles),
      gcdf(Nparticles), gu(Nparticles), gxj(Nparticles), gyj(Nparticles);
  std::vector<int> ind(countOnes);
  bool ok = true;
  int launches = 0;

  for (int k = 1; k < Nfr && ok; k++) {
    float u1 = (float)lcg_next(1 << 16) / 65536.0f;

    likelihood_kernel<<<num_blocks, THREADS_PER_BLOCK>>>(
        arrayX_GPU, arrayY_GPU, xj_GPU, yj_GPU, ind_GPU, objxy_GPU, likelihood_GPU, I_GPU,
        weights_GPU, Nparticles, countOnes, IszX, IszY, k, partial_sums);
    CUDA_CHECK(cudaGetLastError());
    sum_kernel<<<1, SUM_THREADS>>>(partial_sums, num_blocks, total_GPU);
    CUDA_CHECK(cudaGetLastError());
    normalize_weights_kernel<<<num_blocks, THREADS_PER_BLOCK>>>(weights_GPU, Nparticles,
                                                                total_GPU, u_GPU, u1);
    CUDA_CHECK(cudaGetLastError());
    cdf_kernel<<<1, CDF_BLOCK>>>(weights_GPU, CDF_GPU, Nparticles);
    CUDA_CHECK(cudaGetLastError());
    find_index_kernel<<<num_blocks, THREADS_PER_BLOCK, Nparticles * sizeof(float)>>>(
        arrayX_GPU, arrayY_GPU, CDF_GPU, u_GPU, xj_GPU, yj_GPU, Nparticles);
    CUDA_CHECK(cudaGetLastError());
    launches += 5;
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(gx.data(), arrayX_GPU, fbytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gy.data(), arrayY_GPU, fbytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gw.data(), weights_GPU, fbytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gcdf.data(), CDF_GPU, fbytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gu.data(), u_GPU, fbytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gxj.data(), xj_GPU, fbytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gyj.data(), yj_GPU, fbytes, cudaMemcpyDeviceToHost));

    // The same frame on the CPU, from the same particles.
    const unsigned char* frame = I.data() + (size_t)k * IszX * IszY;
    double total = 0.0;
    for (int i = 0; i < Nparticles; i++) {
      arrayX[i] = xj[i] + 1.0f + 4.0f * noise(i, k, 1);
      arrayY[i] = yj[i] - 2.0f + 2.0f * noise(i, k, 2);
      int px = (int)roundf(arrayX[i]), py = (int)roundf(arrayY[i]);
      for (int y = 0; y < countOnes; y++)
        ind[y] = clampi(py + objxy[y * 2], 0, IszY - 1) * IszX +
                 clampi(px + objxy[y * 2 + 1], 0, IszX - 1);
      float lik = (float)likelihood_sum(frame, ind.data(), countOnes) /
                  (LIKELIHOOD_SCALE * countOnes);
      weights[i] = (float)((1.0 / Nparticles) * std::exp((double)lik));
      total += weights[i];
    }
    double run = 0.0;
    for (int i = 0; i < Nparticles; i++) {
      weights[i] = (float)(weights[i] / total);
      run += weights[i];
      CDF[i] = (float)run;
      u[i] = (u1 + (float)i) / (float)Nparticles;
    }
    int bad_pos = 0, bad_w = 0, bad_cdf = 0, bad_u = 0, bad_pick = 0;
    for (int i = 0; i < Nparticles; i++) {
      bad_pos += gx[i] != arrayX[i] || gy[i] != arrayY[i];
      bad_w += !close_enough(gw[i], weights[i], 1e-4);
      bad_cdf += !close_enough(gcdf[i], CDF[i], 1e-4);
      bad_u += gu[i] != u[i];
    }
    // Resampling from the GPU's own CDF: the choice is exact given it.
    for (int i = 0; i < Nparticles; i++) {
      int lo = 0, hi = Nparticles - 1;
      while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (gcdf[mid] >= u[i])
          hi = mid;
        else
          lo = mid + 1;
      }
      xj[i] = arrayX[lo];
      yj[i] = arrayY[lo];
      bad_pick += gxj[i] != xj[i] || gyj[i] != yj[i];
    }
    double ex = 0.0, ey = 0.0;
    for (int i = 0; i < Nparticles; i++) {
      ex += (double)gx[i] * gw[i];
      ey += (double)gy[i] * gw[i];
    }
    int tx, ty;
    object_at(k, IszX, IszY, &tx, &ty);
    printf("frame %d: estimate (%.2f, %.2f), object at (%d, %d); mismatches: positions %d, "
           "weights %d, cdf %d, u %d, resampled %d\n",
           k, ex, ey, tx, ty, bad_pos, bad_w, bad_cdf, bad_u, bad_pick);
    ok = bad_pos == 0 && bad_w == 0 && bad_cdf == 0 && bad_u == 0 && bad_pick == 0;
  }
  printf("%d launches\n", launches);

  CUDA_CHECK(cudaFree(arrayX_GPU));
  CUDA_CHECK(cudaFree(arrayY_GPU));
  CUDA_CHECK(cudaFree(xj_GPU));
  CUDA_CHECK(cudaFree(yj_GPU));
  CUDA_CHECK(cudaFree(CDF_GPU));
  CUDA_CHECK(cudaFree(u_GPU));
  CUDA_CHECK(cudaFree(likelihood_GPU));
  CUDA_CHECK(cudaFree(weights_GPU));
  CUDA_CHECK(cudaFree(partial_sums));
  CUDA_CHECK(cudaFree(total_GPU));
  CUDA_CHECK(cudaFree(ind_GPU));
  CUDA_CHECK(cudaFree(objxy_GPU));
  CUDA_CHECK(cudaFree(I_GPU));

  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
