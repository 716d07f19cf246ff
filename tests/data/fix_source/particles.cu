// An array of structs whose 32-byte stride puts lanes 4 apart in one bank: fix pads the
// struct (a member added), in its own name.
// bankcheck: kernel=aos grid=1 block=256 arg=out=zeros:1024
struct Particle {
  float x, y, z, vx, vy, vz, m, q;
};
__global__ void aos(float* out) {
  __shared__ Particle p[256];
  const int t = threadIdx.x;
  p[t].x = t;
  p[t].m = 1.0f;
  __syncthreads();
  out[t] = p[t].x * p[t].m;
}
