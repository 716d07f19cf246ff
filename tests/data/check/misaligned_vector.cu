// A float4 load from a pointer 4 bytes past alignment: the GPU faults ("misaligned
// address"); check reports the line instead of counting it.
// bankcheck: kernel=misaligned grid=1 block=32 arg=in=random:1024 arg=out=zeros:1024
__global__ void misaligned(const char* in, float4* out) {
  const float4* p = reinterpret_cast<const float4*>(in + 4);
  out[threadIdx.x] = p[threadIdx.x];
}
