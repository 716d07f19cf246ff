// probe_bulk.cu: what the H100's counters see of cp.async.bulk (the TMA unit) writing and
// reading shared memory, to measure before bankcheck models it (docs/model.md: counted as
// no wavefront and no conflict, unmeasured).
//
// One launch per case, so that the kernel-level metrics of each can be read apart:
//   copy_only<SIZE, DST, SRC>: thread 0 copies SIZE bytes from global (SRC bytes past a
//       128-byte boundary) to shared (DST bytes past one) and every thread waits on the
//       mbarrier; no other shared access. Whatever shared wavefronts, instructions or
//       conflicts the LSU counters show here belong to the bulk copy (and the mbarrier).
//   copy_then_read<SIZE, DST, SRC>: the same, then every thread reads the tile with
//       conflict-free 4-byte loads (one line of its own), to see that the reads cost what
//       ordinary loads cost.
//   stores_then_read<SIZE, DST>: the tile written by ordinary 4-byte stores instead, then
//       the same reads: the baseline.
//   copy_out<SIZE, SRC>: shared to global (bulk_group), after ordinary stores.
// main() checks every copied tile against its source and prints OK or WRONG per case.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                   cudaGetErrorString(err_));                                        \
      std::exit(2);                                                                  \
    }                                                                                \
  } while (0)

constexpr int kThreads = 256;
constexpr int kMaxBytes = 16384;

__device__ inline unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ inline void init_bar(unsigned long long* bar) {
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
}

__device__ inline void bulk_in(void* dst, const void* src, unsigned bytes,
                               unsigned long long* bar) {
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)),
                 "r"(bytes) : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];" ::"r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(bar)) : "memory");
  }
  asm volatile(
      "{\n\t.reg .pred P1;\n"
      "LAB_WAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], 0;\n\t"
      "@P1 bra DONE;\n\t"
      "bra LAB_WAIT;\n"
      "DONE:\n\t}" ::"r"(smem(bar)) : "memory");
}

template <int SIZE, int DST, int SRC>
__global__ void copy_only(const char* in, char* out) {
  __shared__ alignas(128) char tile[kMaxBytes + 128];
  __shared__ alignas(8) unsigned long long bar;
  init_bar(&bar);
  bulk_in(tile + DST, in + SRC, SIZE, &bar);
  // The check reads through global memory by a bulk copy back out: no LSU shared read.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n\t"
        "cp.async.bulk.commit_group;\n\t"
        "cp.async.bulk.wait_group 0;" ::"l"(out), "r"(smem(tile + DST)), "r"(SIZE) : "memory");
  }
}

template <int SIZE, int DST, int SRC>
__global__ void copy_then_read(const char* in, char* out) {
  __shared__ alignas(128) char tile[kMaxBytes + 128];
  __shared__ alignas(8) unsigned long long bar;
  init_bar(&bar);
  bulk_in(tile + DST, in + SRC, SIZE, &bar);
  const unsigned* words = reinterpret_cast<const unsigned*>(tile + DST);
  for (int i = threadIdx.x; i < SIZE / 4; i += kThreads)
    reinterpret_cast<unsigned*>(out)[i] = words[i];  // PROBE: read after bulk copy
}

template <int SIZE, int DST>
__global__ void stores_then_read(const char* in, char* out) {
  __shared__ alignas(128) char tile[kMaxBytes + 128];
  unsigned* words = reinterpret_cast<unsigned*>(tile + DST);
  for (int i = threadIdx.x; i < SIZE / 4; i += kThreads)
    words[i] = reinterpret_cast<const unsigned*>(in)[i];  // PROBE: baseline stores
  __syncthreads();
  for (int i = threadIdx.x; i < SIZE / 4; i += kThreads)
    reinterpret_cast<unsigned*>(out)[i] = words[i];  // PROBE: baseline reads
}

template <int SIZE, int SRC>
__global__ void copy_out(const char* in, char* out) {
  __shared__ alignas(128) char tile[kMaxBytes + 128];
  unsigned* words = reinterpret_cast<unsigned*>(tile + SRC);
  for (int i = threadIdx.x; i < SIZE / 4; i += kThreads)
    words[i] = reinterpret_cast<const unsigned*>(in)[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n\t"
        "cp.async.bulk.commit_group;\n\t"
        "cp.async.bulk.wait_group 0;" ::"l"(out), "r"(smem(words)), "r"(SIZE) : "memory");
  }
}

int failures = 0;

template <typename K>
void launch(const char* name, K kernel, int size, int src, const char* d_in, char* d_out,
            const std::vector<char>& in) {
  CHECK(cudaMemset(d_out, 0, kMaxBytes));
  kernel<<<1, kThreads>>>(d_in, d_out);
  CHECK(cudaGetLastError());
  std::vector<char> out(size);
  CHECK(cudaMemcpy(out.data(), d_out, size, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < size; ++i) ok = ok && out[i] == in[src + i];
  std::printf("%s size=%d src=%d: %s\n", name, size, src, ok ? "OK" : "WRONG");
  failures += !ok;
}

#define CASE(SIZE, DST, SRC)                                                                \
  launch("copy_only dst=" #DST, copy_only<SIZE, DST, SRC>, SIZE, SRC, d_in, d_out, in);     \
  launch("copy_then_read dst=" #DST, copy_then_read<SIZE, DST, SRC>, SIZE, SRC, d_in, d_out, \
         in);

int main() {
  std::vector<char> in(kMaxBytes + 256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<char>(i * 131 + 7);
  char *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, in.size()));
  CHECK(cudaMalloc(&d_out, kMaxBytes));
  CHECK(cudaMemcpy(d_in, in.data(), in.size(), cudaMemcpyHostToDevice));
  CASE(16, 0, 0)
  CASE(128, 0, 0)
  CASE(512, 0, 0)
  CASE(4096, 0, 0)
  CASE(16384, 0, 0)
  CASE(512, 16, 0)
  CASE(512, 48, 0)
  CASE(512, 112, 0)
  CASE(512, 0, 16)
  CASE(512, 64, 80)
  CASE(4096, 16, 48)
  launch("stores_then_read dst=0", stores_then_read<4096, 0>, 4096, 0, d_in, d_out, in);
  launch("stores_then_read dst=16", stores_then_read<4096, 16>, 4096, 0, d_in, d_out, in);
  launch("copy_out src=0", copy_out<4096, 0>, 4096, 0, d_in, d_out, in);
  launch("copy_out src=16", copy_out<4096, 16>, 4096, 0, d_in, d_out, in);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return failures ? 1 : 0;
}
