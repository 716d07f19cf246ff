// The device library of rdc_main.cu (its own translation unit, -rdc=true): functions and two
// variables the other file uses.
__device__ float lib_factor = 3.0f;
__device__ int lib_calls = 0;

__device__ float scale_of(float x, int i) {
  atomicAdd(&lib_calls, 1);
  return x * lib_factor + static_cast<float>(i % 4);
}

__device__ float twice(float x) { return 2.0f * x; }
