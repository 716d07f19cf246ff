// A stencil whose first row reads the row above it, before the start of its buffer, then
// mirrors its own row over what it read; its last column writes one element past the end.
#define TX 32
#define TY 4
// bankcheck: kernel=halo grid=4,8 block=32,4 arg=J=iota:16K arg=out=zeros:16K arg=rows=32 arg=cols=128
__global__ void halo(const float* J, float* out, int rows, int cols) {
  __shared__ float tile[TY + 2][TX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r = blockIdx.y * TY + ty, c = blockIdx.x * TX + tx;
  const int idx = r * cols + c;
  tile[ty + 1][tx] = J[idx];
  if (ty == 0) tile[0][tx] = J[idx - cols];
  if (ty == TY - 1) tile[TY + 1][tx] = r + 1 < rows ? J[idx + cols] : J[idx];
  __syncthreads();
  if (r == 0 && ty == 0) tile[0][tx] = tile[1][tx];
  __syncthreads();
  out[idx] = tile[ty][tx] + tile[ty + 2][tx] + tile[ty + 1][tx ^ 1];
  if (r == rows - 1 && c == cols - 1) out[idx + 1] = 0.f;
}
