// Half of a program built with -rdc=true: a kernel calling a device function defined in the
// other file, so that the program's device code is linked by nvcc's device-link step.
__device__ int twice(int x);

__global__ void linked(int* p) { p[threadIdx.x] = twice(static_cast<int>(threadIdx.x)); }

void launch_linked(int* p) { linked<<<2, 32>>>(p); }
