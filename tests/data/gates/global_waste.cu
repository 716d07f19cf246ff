// Global accesses of which one wastes sectors: four coalesced accesses of 4 sectors per
// request (three loads and the store) and a stride-2 load of 8 sectors for an ideal of 4,
// so 4 of the kernel's 24 global sectors are excess: 16.7% (the report sums the line's four
// loads: 20 sectors for an ideal of 16, 5 per request).
// bankcheck: kernel=waste grid=1 block=32 arg=out=zeros:128 arg=a=random:128 arg=b=random:256 arg=c=random:128 arg=d=random:128
__global__ void waste(float* out, const float* a, const float* b, const float* c,
                      const float* d) {
  const int i = threadIdx.x;
  out[i] = a[i] + c[i] + d[i] + b[2 * i];
}
