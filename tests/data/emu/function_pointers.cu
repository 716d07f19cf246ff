// Function pointers: a table of them in a __device__ initializer, each thread calling the one
// its index picks (the warp diverges over three functions), a function's address taken in a
// kernel, and a __device__ pointer initialized to a variable's element.
typedef int (*op_t)(int, int);

__device__ __noinline__ int add(int a, int b) { return a + b; }
__device__ __noinline__ int mul(int a, int b) { return a * b; }
__device__ __noinline__ int sub(int a, int b) { return a - b; }

__device__ op_t ops[3] = {add, mul, sub};
__device__ int values[4] = {10, 20, 30, 40};
__device__ int* third = &values[2];

__global__ void through_table(int* out, const int* a, const int* b) {
  const int t = threadIdx.x;
  out[t] = ops[t % 3](a[t], b[t]) + *third;
}

__global__ void address_of(op_t* out) { *out = mul; }
