// A column read of a member of a shared struct: fix pads the member, s.x, in the struct.
// bankcheck: kernel=soa grid=1 block=32,8 arg=out=zeros:4096
__global__ void soa(float* out) {
  __shared__ struct { float x[32][32]; float y[32][32]; } s;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int j = ty; j < 32; j += 8) s.x[j][tx] = j;
  __syncthreads();
  for (int j = ty; j < 32; j += 8) out[j * 32 + tx] = s.x[tx][j];
}
