"""A small PyTorch training loop with a CUDA extension kernel and Triton kernels in every step,
for `bankcheck run --backend gpu` timed against the plain run and Nsight Compute
(bench/device/heavy.sh). Each of STEPS steps (default 200, argv[1]) runs, inside the NVTX
range "step":

  unpack      (the extension, built at run time with load_inline and -lineinfo): the raw
              batch arrives feature-major and is transposed through a 32x32 shared tile read
              down its columns (a 32-way bank conflict on every load of the tile);
  layernorm   (Triton): one program per row, the row's mean and variance reduced across the
              program's warps (through shared memory);
  the model   (PyTorch: two Linear layers and a GELU, cross-entropy, backward, AdamW);
  softmax     (Triton): the predictions' probabilities for the step's accuracy, the row's
              maximum and sum reduced across warps;
  regroup     (Triton): the logits tile transposed with tl.trans, a layout conversion Triton
              makes through shared memory.

At the end every custom kernel is checked against PyTorch on the last step's data and the
loss must have fallen; prints PASSED (exit 0) or FAILED (exit 1).
"""
import os
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>

// in: features x batch (feature-major), out: batch x features.
__global__ void unpack_kernel(const float* in, float* out, int features, int batch) {
  __shared__ float tile[32][32];
  int f = blockIdx.y * 32 + threadIdx.y, b = blockIdx.x * 32 + threadIdx.x;
  tile[threadIdx.y][threadIdx.x] = in[f * batch + b];
  __syncthreads();
  b = blockIdx.x * 32 + threadIdx.y;
  f = blockIdx.y * 32 + threadIdx.x;
  out[b * features + f] = tile[threadIdx.x][threadIdx.y];
}

torch::Tensor unpack(torch::Tensor in) {
  const int features = in.size(0), batch = in.size(1);
  auto out = torch::empty({batch, features}, in.options());
  dim3 grid(batch / 32, features / 32), block(32, 32);
  unpack_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
      in.data_ptr<float>(), out.data_ptr<float>(), features, batch);
  return out;
}
"""

ext = load_inline(
    name="bankcheck_train_ext",
    cpp_sources="torch::Tensor unpack(torch::Tensor in);",
    cuda_sources="#include <ATen/cuda/CUDAContext.h>\n" + CUDA,
    functions=["unpack"],
    extra_cuda_cflags=["-lineinfo", "-O3", "-gencode=arch=compute_90,code=sm_90"],
    build_directory=os.environ.get("EXT_DIR") or None,
    verbose=False,
)


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=1.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, d / tl.sqrt(var + eps) * w + b, mask=mask)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def regroup_kernel(x_ptr, y_ptr, rows, cols, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * cols + rn[None, :],
                mask=(rm[:, None] < rows) & (rn[None, :] < cols), other=0.0)
    tl.store(y_ptr + rn[:, None] * rows + rm[None, :], tl.trans(x),
             mask=(rn[:, None] < cols) & (rm[None, :] < rows))


def layernorm(x, w, b):
    y = torch.empty_like(x)
    layernorm_kernel[(x.shape[0],)](x, w, b, y, x.shape[1], 1e-5,
                                    BLOCK=triton.next_power_of_2(x.shape[1]), num_warps=4)
    return y


def softmax(x):
    y = torch.empty_like(x)
    softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]),
                                  num_warps=4)
    return y


def regroup(x):
    rows, cols = x.shape
    y = torch.empty(cols, rows, device=x.device, dtype=x.dtype)
    regroup_kernel[(triton.cdiv(rows, 64), triton.cdiv(cols, 64))](x, y, rows, cols, BM=64, BN=64,
                                                                   num_warps=4)
    return y


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    torch.manual_seed(0)
    features, hidden, classes, batch, batches = 1024, 2048, 1000, 256, 8
    # A learnable task: the label is the class whose prototype is nearest to the input.
    protos = torch.randn(classes, features, device="cuda")
    labels = torch.randint(0, classes, (batches, batch), device="cuda")
    raw = (protos[labels] + 0.5 * torch.randn(batches, batch, features, device="cuda"))
    raw = raw.transpose(1, 2).contiguous()  # feature-major, as the batch arrives
    gamma = torch.ones(features, device="cuda")
    beta = torch.zeros(features, device="cuda")
    model = torch.nn.Sequential(torch.nn.Linear(features, hidden), torch.nn.GELU(),
                                torch.nn.Linear(hidden, classes)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    first = last = None
    for step in range(steps):
        torch.cuda.nvtx.range_push("step")
        i = step % batches
        with torch.no_grad():
            x = layernorm(ext.unpack(raw[i]), gamma, beta)
        logits = model(x)
        loss = F.cross_entropy(logits, labels[i])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        with torch.no_grad():
            probs = softmax(logits)
            by_class = regroup(probs)
            accuracy = (by_class.argmax(0) == labels[i]).float().mean()
        torch.cuda.nvtx.range_pop()
        if step == 0:
            first = loss.item()
        if step % 50 == 0 or step == steps - 1:
            print(f"step {step}: loss {loss.item():.4f} accuracy {accuracy.item():.3f}")
    last = loss.item()
    torch.cuda.synchronize()
    # The custom kernels against PyTorch on the last step's data.
    ok = True
    u = ext.unpack(raw[i])
    ok &= torch.equal(u, raw[i].t())
    ok &= torch.allclose(layernorm(u, gamma, beta),
                         F.layer_norm(u, (features,), gamma, beta, 1e-5), atol=1e-4, rtol=1e-4)
    ok &= torch.allclose(probs, torch.softmax(logits, 1), atol=1e-5, rtol=1e-4)
    ok &= torch.equal(by_class, probs.t())
    ok &= last < first
    print(f"loss {first:.4f} -> {last:.4f}")
    print("PASSED" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
