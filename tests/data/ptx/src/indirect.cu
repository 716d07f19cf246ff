// Test input: forward-declared functions, a function-pointer table and an indirect call.
typedef int (*fn_t)(int);
__device__ int f1(int x) { return x + 1; }
__device__ int f2(int x) { return x * 2; }
__device__ fn_t table[2] = {f1, f2};
__global__ void __launch_bounds__(128) ind(int* o, int k) { o[threadIdx.x] = table[k & 1](threadIdx.x); }
__global__ void neg(int* p) { p[threadIdx.x - 1] = p[threadIdx.x - 2]; }
