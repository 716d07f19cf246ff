"""Triton's tl.dot on Hopper, for `bankcheck run --backend gpu -- python3 triton_dot.py` and
Nsight Compute on the same launches (bench/hardware/hopper_truth.sh).

matmul_kernel: fp16 tiles loaded with tl.load (cp.async into shared memory, a pipeline of
  three stages) and multiplied with tl.dot: on sm_90 a wgmma reading both operands from
  shared memory.
matmul_tma_kernel: the same product with its tiles loaded through tensor descriptors (TMA).
attention_kernel: softmax(Q K^T / sqrt(d)) V over blocks of 64 keys with an online softmax:
  two tl.dot a step, the second with P in registers (wgmma's A from registers).
Prints PASSED when every result matches PyTorch's.
"""
import sys

import torch
import triton
import triton.language as tl


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
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, SEQ, scale,
                     BLOCK_Q: tl.constexpr, BLOCK_KV: tl.constexpr, D: tl.constexpr):
    pid = tl.program_id(0)
    head = tl.program_id(1)
    base = head * SEQ * D
    rq = pid * BLOCK_Q + tl.arange(0, BLOCK_Q)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + base + rq[:, None] * D + rd[None, :])
    m = tl.full((BLOCK_Q,), float("-inf"), tl.float32)
    l = tl.zeros((BLOCK_Q,), tl.float32)
    acc = tl.zeros((BLOCK_Q, D), tl.float32)
    for j in range(0, SEQ, BLOCK_KV):
        rk = j + tl.arange(0, BLOCK_KV)
        kt = tl.load(k_ptr + base + rk[None, :] * D + rd[:, None])
        s = tl.dot(q, kt) * scale
        m_new = tl.maximum(m, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        corr = tl.exp(m - m_new)
        l = l * corr + tl.sum(p, 1)
        v = tl.load(v_ptr + base + rk[:, None] * D + rd[None, :])
        acc = acc * corr[:, None] + tl.dot(p.to(tl.float16), v)
        m = m_new
    tl.store(o_ptr + base + rq[:, None] * D + rd[None, :], acc / l[:, None])


def main():
    torch.manual_seed(0)
    ok = True
    M = N = K = 512
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    ref = a.float() @ b.float()
    c = torch.empty(M, N, device="cuda", dtype=torch.float32)
    matmul_kernel[(M // 128, N // 128)](a, b, c, M, N, K, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64,
                                        num_warps=8, num_stages=3)
    ok &= torch.allclose(c, ref, atol=1e-1, rtol=1e-2)
    from triton.tools.tensor_descriptor import TensorDescriptor
    a_desc = TensorDescriptor.from_tensor(a, [128, 64])
    b_desc = TensorDescriptor.from_tensor(b, [64, 128])
    c2 = torch.empty(M, N, device="cuda", dtype=torch.float32)
    matmul_tma_kernel[(M // 128, N // 128)](a_desc, b_desc, c2, M, N, K, BLOCK_M=128,
                                            BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3)
    ok &= torch.allclose(c2, ref, atol=1e-1, rtol=1e-2)
    heads, seq, d = 4, 256, 64
    q = torch.randn(heads, seq, d, device="cuda", dtype=torch.float16)
    k = torch.randn(heads, seq, d, device="cuda", dtype=torch.float16)
    v = torch.randn(heads, seq, d, device="cuda", dtype=torch.float16)
    o = torch.empty(heads, seq, d, device="cuda", dtype=torch.float32)
    attention_kernel[(seq // 64, heads)](q, k, v, o, seq, d ** -0.5, BLOCK_Q=64, BLOCK_KV=64, D=d,
                                         num_warps=4, num_stages=2)
    ref_o = torch.softmax(q.float() @ k.float().transpose(1, 2) * d ** -0.5, -1) @ v.float()
    ok &= torch.allclose(o, ref_o, atol=2e-2, rtol=2e-2)
    torch.cuda.synchronize()
    print("PASSED" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
