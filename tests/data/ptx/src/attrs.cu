// Test input: -rdc=true linkage (.weak, .extern, .visible), __maxnreg__, cluster launch bounds.
template <typename T> __device__ __noinline__ T tmax(T a, T b) { return a > b ? a : b; }
extern "C" __device__ int ident(int x) { return x; }
extern "C" __device__ int ident_alias(int x) __attribute__((alias("ident")));
__device__ __noinline__ void [[noreturn]] bail() { __trap(); }
__device__ int gcommon;
extern __device__ float vals[];
__global__ void __maxnreg__(32) k1(int* o) { o[0] = tmax(o[1], o[2]) + ident_alias(o[3]) + (int)vals[1] + gcommon; if (o[5]) bail(); }
__global__ void __launch_bounds__(64, 4, 2) k2(float* o) {
  __shared__ float4 sv[8];
  __shared__ double sd[4][2];
  sv[threadIdx.x & 7] = make_float4(1,2,3,4); sd[threadIdx.x&3][1] = 2.0;
  __syncthreads();
  o[threadIdx.x] = sv[threadIdx.x ^ 1].y + sd[0][1] + tmax(1.0f, o[2]);
}
__global__ void __cluster_dims__(2,1,1) k3(int* o) { o[blockIdx.x] = 1; }
