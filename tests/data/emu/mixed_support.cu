// A file mixing kernels the emulator runs with kernels it refuses: each refusal stops its
// own kernel only. `check` analyses the others, names the refused ones with the reason,
// the PTX line and the source line, and exits 2 only when a kernel it was asked to run is
// refused.

// bankcheck: kernel=transpose_tile grid=1 block=32,8
__global__ void transpose_tile(float* out, const float* in) {
    __shared__ float tile[32][33];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.x * 32 + threadIdx.y] = tile[threadIdx.x][threadIdx.y];
}

// A barrier reduction on a named barrier with a thread count (bar.red.popc.u32 d, 1, 64, p):
// not emulated.
__global__ void counted_reduction(float* out) {
    __shared__ float s[64];
    s[threadIdx.x] = threadIdx.x;
    unsigned n;
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; bar.red.popc.u32 %0, 1, 64, q; }" : "=r"(n) : "r"(threadIdx.x));
    out[threadIdx.x] = s[63 - threadIdx.x] + n;
}

// bankcheck: kernel=warp_sum grid=1 block=64
__global__ void warp_sum(unsigned* out, const unsigned* in) {
    __shared__ unsigned partial[2];
    const unsigned v = __reduce_add_sync(0xffffffffu, in[threadIdx.x]);
    if (threadIdx.x % warpSize == 0) partial[threadIdx.x / warpSize] = v;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = partial[0] + partial[1];
}

// A device function kept out of line: inlined by the decoder.
__device__ __noinline__ float twice(float x) { return 2.0f * x; }

__global__ void calls_a_function(float* out, const float* in) {
    out[threadIdx.x] = twice(in[threadIdx.x]);
}

// Recursion: calls nest deeper than the decoder inlines.
__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__global__ void recursive_fib(unsigned* out) { out[threadIdx.x] = fib(threadIdx.x); }
