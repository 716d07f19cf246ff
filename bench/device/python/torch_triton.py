"""A PyTorch program with a custom CUDA extension kernel and two Triton kernels, for
`bankcheck run --backend gpu -- python3 torch_triton.py` (bench/device/python.sh).

transpose_naive (the extension, built at run time with -lineinfo): a 32x32 shared tile read
down its columns, a 32-way bank conflict on every load of the tile.
transpose_padded: the same with one padding column (no conflict).
matmul_kernel (Triton): fp16 tiles loaded with cp.async (LDGSTS) and multiplied with tl.dot,
which on an H100 Triton issues as wgmma reading shared memory (not an LSU access: the report
names it as not counted).
matmul_tma_kernel (Triton): the same product with its tiles loaded through tensor maps (TMA
copies, named as not counted too).
scale_kernel (Triton): an elementwise kernel, coalesced global loads and stores.
Prints PASSED when every result is right.
"""
import os
import sys

import torch
import triton
import triton.language as tl
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>

__global__ void transpose_naive(const float* in, float* out, int n) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void transpose_padded(const float* in, float* out, int n) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

torch::Tensor transpose(torch::Tensor in, bool padded) {
  const int n = in.size(0);
  auto out = torch::empty_like(in);
  dim3 grid(n / 32, n / 32), block(32, 32);
  if (padded)
    transpose_padded<<<grid, block>>>(in.data_ptr<float>(), out.data_ptr<float>(), n);
  else
    transpose_naive<<<grid, block>>>(in.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
"""

ext = load_inline(
    name="bankcheck_transpose_ext",
    cpp_sources="torch::Tensor transpose(torch::Tensor in, bool padded);",
    cuda_sources=CUDA,
    functions=["transpose"],
    extra_cuda_cflags=["-lineinfo", "-O3", "-gencode=arch=compute_90,code=sm_90"],
    build_directory=os.environ.get("EXT_DIR") or None,
    verbose=False,
)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def matmul_tma_kernel(a_desc, b_desc, c_ptr, M, N, K,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([pid_m * BLOCK_M, k])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc += tl.dot(a, b)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=m) * 2.0, mask=m)


def main():
    torch.manual_seed(0)
    ok = True
    n = 1024
    x = torch.randn(n, n, device="cuda")
    for padded in (False, True):
        ok &= torch.equal(ext.transpose(x, padded), x.t().contiguous())
    M = N = K = 512
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float32)
    matmul_kernel[(M // 128, N // 128)](a, b, c, M, N, K, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64,
                                        num_warps=8, num_stages=3)
    ok &= torch.allclose(c, (a.float() @ b.float()), atol=1e-1, rtol=1e-2)
    # The same product with tensor-map (TMA) loads: cp.async.bulk.tensor into shared memory.
    from triton.tools.tensor_descriptor import TensorDescriptor
    a_desc = TensorDescriptor.from_tensor(a, [128, 64])
    b_desc = TensorDescriptor.from_tensor(b, [64, 128])
    c2 = torch.empty(M, N, device="cuda", dtype=torch.float32)
    matmul_tma_kernel[(M // 128, N // 128)](a_desc, b_desc, c2, M, N, K, BLOCK_M=128,
                                            BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3)
    ok &= torch.allclose(c2, (a.float() @ b.float()), atol=1e-1, rtol=1e-2)
    v = torch.randn(100000, device="cuda")
    w = torch.empty_like(v)
    scale_kernel[(triton.cdiv(v.numel(), 1024),)](v, w, v.numel(), BLOCK=1024)
    ok &= torch.equal(w, v * 2)
    torch.cuda.synchronize()
    print("PASSED" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
