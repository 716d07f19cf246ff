// Kernels that go wrong, for emu_test: each error must name this file and the line (the
// lines are found through the ERROR: markers).
#include <cassert>

__global__ void shared_oob(int* out, int idx) {
    __shared__ int s[64];
    s[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[idx + threadIdx.x];  // ERROR: shared_oob
}

__global__ void global_oob(int* out, int idx) {
    out[threadIdx.x] = 1;
    out[idx + threadIdx.x] = 2;  // ERROR: global_oob
}

__global__ void misaligned(float* out, const char* in, int off) {
    float4 v = *reinterpret_cast<const float4*>(in + off);  // ERROR: misaligned
    out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

__global__ void spin(int* out, const int* flag) {
    int n = 0;
    while (*(volatile const int*)flag == 0) ++n;  // ERROR: spin
    out[threadIdx.x] = n;
}

__global__ void trapping(int* out, int x) {
    out[threadIdx.x] = 1;
    if (threadIdx.x == 5 && x == 3) __trap();  // ERROR: trap
    out[threadIdx.x] = 2;
}

__global__ void asserting(int* out, const int* in) {
    int v = in[threadIdx.x];
    assert(v >= 0);  // ERROR: assert
    out[threadIdx.x] = v * 2;
}
