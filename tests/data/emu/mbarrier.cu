// Kernels of tests/emu_mbarrier_test.cpp: mbarrier objects and cp.async.bulk, written the
// ways Hopper kernels write them (cuda::barrier with cuda::memcpy_async, the
// cuda::device:: transaction helpers, inline PTX), each with a CPU reference in the test.
#include <cuda/barrier>
#include <cuda/std/utility>

#include <cstdint>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__device__ inline unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One tile of 256 floats staged by cuda::memcpy_async (a cp.async.bulk completing on the
// barrier's mbarrier), then every thread reads another thread's element.
// out[b * 256 + t] = 2 * in[b * 256 + (t * 7) % 256].
__global__ void stage_barrier(float* out, const float* in) {
  __shared__ alignas(16) float tile[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  if (threadIdx.x == 0)
    cuda::memcpy_async(tile, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(tile)), bar);
  block_barrier::arrival_token t = bar.arrive();
  bar.wait(cuda::std::move(t));
  out[blockIdx.x * 256 + threadIdx.x] = 2.f * tile[(threadIdx.x * 7) % 256];
}

// The same with the transaction helpers: thread 0 arrives with the bytes it expects
// (arrive.expect_tx) after issuing the copy; the result leaves shared memory by a bulk
// copy to global memory (bulk_group).
// out[b * 256 + t] = in[b * 256 + t] + 1.
__global__ void stage_tx(float* out, const float* in) {
  __shared__ alignas(16) float tile[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  block_barrier::arrival_token t;
  if (threadIdx.x == 0) {
    cuda::device::memcpy_async_tx(tile, in + blockIdx.x * 256,
                                  cuda::aligned_size_t<16>(sizeof(tile)), bar);
    t = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
  } else {
    t = bar.arrive();
  }
  bar.wait(cuda::std::move(t));
  tile[threadIdx.x] += 1.f;
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n\t"
        "cp.async.bulk.commit_group;\n\t"
        "cp.async.bulk.wait_group.read 0;" ::"l"(out + blockIdx.x * 256),
        "r"(smem(tile)), "r"(static_cast<unsigned>(sizeof(tile)))
        : "memory");
  }
}

// Waits on the phase of `parity` of the mbarrier at `bar` (a try_wait.parity loop).
__device__ inline void wait_parity(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n\t.reg .pred P1;\n"
      "LAB_WAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
      "@P1 bra DONE;\n\t"
      "bra LAB_WAIT;\n"
      "DONE:\n\t}" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// Double buffering with phase parity: `tiles` tiles of 128 floats pass through two
// buffers, each with its own mbarrier (one arrival: thread 0's arrive.expect_tx). Tile k
// lands in buffer k % 2 and completes that barrier's phase k / 2, so the consumers wait on
// parity (k / 2) & 1. Thread 0 refills a buffer only after every thread has read it.
// out[t] = sum over k of (k + 1) * in[k * 128 + (t + k) % 128].
__global__ void double_buffer(float* out, const float* in, int tiles) {
  __shared__ alignas(16) float buf[2][128];
  __shared__ alignas(8) unsigned long long full[2];
  const unsigned t = threadIdx.x;
  if (t == 0) {
    for (int s = 0; s < 2; ++s)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full[s])) : "memory");
  }
  __syncthreads();
  auto issue = [&](int k) {
    const unsigned bar = smem(&full[k % 2]);
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(512u)
        : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];" ::"r"(smem(buf[k % 2])),
        "l"(in + k * 128), "r"(512u), "r"(bar)
        : "memory");
  };
  if (t == 0) {
    issue(0);
    if (tiles > 1) issue(1);
  }
  float acc = 0.f;
  for (int k = 0; k < tiles; ++k) {
    wait_parity(smem(&full[k % 2]), (k / 2) & 1);
    acc += (k + 1) * buf[k % 2][(t + k) % 128];
    __syncthreads();
    if (t == 0 && k + 2 < tiles) issue(k + 2);
  }
  out[t] = acc;
}

// Arrivals with counts from several warps, an arrive_drop, state tokens and pending_count.
// Phase 0 expects 2 per warp; the last warp arrive_drops its 2, so phase 1 expects 2 per
// warp of the others. Before arriving, each warp's lanes write their slot; after the
// wait, every thread sums every slot: a wait that did not wait would miss later warps'.
// out[t] = sum of phase 0's slots, out[n + t] = sum of phase 1's (the last warp's slots
// unchanged), pending[0] = the sum over warps of the pending count their token saw.
__global__ void arrive_counts(unsigned* out, unsigned* pending) {
  __shared__ unsigned slot[1024];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned t = threadIdx.x, w = t / 32, lane = t % 32, warps = blockDim.x / 32;
  const unsigned b = smem(&bar);
  if (t == 0)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"(2 * warps)
                 : "memory");
  __syncthreads();
  for (unsigned phase = 0; phase < 2; ++phase) {
    if (phase == 0 || w + 1 < warps) slot[t] = t * 3 + phase;
    __syncwarp();
    unsigned long long token = 0;
    if (lane == 0 && phase == 0 && w + 1 == warps) {
      asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1], 2;" : "=l"(token) : "r"(b) : "memory");
    } else if (lane == 0 && (phase == 0 || w + 1 < warps)) {
      asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], 2;" : "=l"(token) : "r"(b) : "memory");
    }
    if (lane == 0 && phase == 0) {
      unsigned n;
      asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(n) : "l"(token));
      atomicAdd(pending, n);
    }
    // Every lane waits on the phase's parity with test_wait (the token lives in lane 0).
    unsigned done = 0;
    while (!done)
      asm volatile(
          "{\n\t.reg .pred p;\n\t"
          "mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n\t"
          "selp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(done)
          : "r"(b), "r"(phase)
          : "memory");
    unsigned sum = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) sum += slot[i];
    out[phase * blockDim.x + t] = sum;
    __syncthreads();
  }
  if (t == 0) asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(b) : "memory");
}

// A bulk copy whose source is 8 bytes off the 16-byte alignment the ISA requires.
__global__ void misaligned_bulk(float* out, const float* in) {
  __shared__ alignas(16) float tile[64];
  __shared__ alignas(8) unsigned long long bar;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(smem(&bar)) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 256, [%2];" ::"r"(smem(tile)), "l"(in + 2), "r"(smem(&bar)) : "memory");  // ERROR: misaligned_bulk
  }
  __syncthreads();
  wait_parity(smem(&bar), 0);
  out[threadIdx.x] = tile[threadIdx.x];
}

// One arrival more expected than the threads make: the phase never completes.
__global__ void deadlock(float* out) {
  __shared__ alignas(8) unsigned long long bar;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(&bar)), "r"(blockDim.x + 1) : "memory");
  __syncthreads();
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&bar)) : "memory");
  asm volatile("{\n\t.reg .pred p;\nW:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t@!p bra W;\n\t}" ::"r"(smem(&bar)) : "memory");  // ERROR: deadlock
  out[threadIdx.x] = 1.f;
}

// cp.async copies whose completion each thread hands to an mbarrier
// (cp.async.mbarrier.arrive.noinc: one arrival per thread, counted by init).
// out[t] = in[(t + 1) % n].
__global__ void cp_async_arrive(float* out, const float* in) {
  __shared__ float s[256];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned t = threadIdx.x;
  if (t == 0)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem(&bar)), "r"(blockDim.x) : "memory");
  __syncthreads();
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(&s[t])), "l"(in + t) : "memory");
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(smem(&bar)) : "memory");
  wait_parity(smem(&bar), 0);
  out[t] = s[(t + 1) % blockDim.x];
}

// test_wait before the thread's own arrival: the phase cannot have completed, so every
// thread sees false, does its work, arrives, then waits for the others.
// out[t] = 0 (the early test), out[n + t] = in[n - 1 - t] (after the wait).
__global__ void test_before_arrive(float* out, const float* in) {
  __shared__ float s[256];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned t = threadIdx.x, n = blockDim.x;
  if (t == 0)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem(&bar)), "r"(n) : "memory");
  __syncthreads();
  unsigned early;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.test_wait.parity.shared.b64 p, [%1], 0;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(early)
      : "r"(smem(&bar))
      : "memory");
  s[t] = in[t];
  asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(smem(&bar)) : "memory");
  wait_parity(smem(&bar), 0);
  out[t] = static_cast<float>(early);
  out[n + t] = s[n - 1 - t];
}
