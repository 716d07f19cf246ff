// The kernel of structs_header.cu, defined in a header as libraries do.
#pragma once

struct Particle {
  float x, y, z;
};

__global__ void advance(Particle* particles, float* energy, float* trace, int count) {
  __shared__ Particle staged[128];  // 12-byte elements: a stride of 3 words
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) staged[threadIdx.x] = particles[i];
  __syncthreads();
  if (i < count) {
    const Particle p = staged[threadIdx.x];
    energy[i] = p.x * p.x + p.y * p.y + p.z * p.z;
    if (trace) trace[i] = p.x;  // optional buffer
  }
}
