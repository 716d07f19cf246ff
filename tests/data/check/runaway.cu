// A loop that never ends for any lane: the instruction budget stops it with a message.
// bankcheck: kernel=spin grid=1 block=32 arg=out=zeros:128 arg=n=0
__global__ void spin(int* out, int n) {
  int i = 0;
  while (i >= n) i = (i + 1) & 0xff;  // n = 0: always true
  out[threadIdx.x] = i;
}
