// A kernel nvcc rejects: check passes nvcc's own message through.
__global__ void broken(int* out) { out[threadIdx.x] = undeclared_name; }
