#!/usr/bin/env python3
"""Writes the TMA corpus: cases.tsv and probe_tma.cu (one kernel per case).

Every case is one TMA instruction alone in its kernel, issued by thread 0 of a CTA of 128
threads (a cluster of two for multicast and shared::cluster copies), on its own source line
(cases.tsv names it): what Nsight Compute's Source Counters list on that line, on which
SASS row (UTMALDG, UTMASTG, UBLKCP, ...) and in which space, shared wavefronts and their
ideal, global sectors and their ideal.

Kinds:
  load        cp.async.bulk.tensor.Nd.shared::cluster.global (tile), mbarrier complete_tx
  load_mc     the same with .multicast::cluster to both CTAs of a cluster of 2
  store       cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group
  reduce      cp.reduce.async.bulk.tensor.2d.global.shared::cta.add (f32)
  prefetch    cp.async.bulk.prefetch.tensor.2d.L2.global
  bulk_g2s    cp.async.bulk.shared::cluster.global (no tensor map)
  bulk_g2s_mc the same, .multicast::cluster
  bulk_s2g    cp.async.bulk.global.shared::cta.bulk_group
  bulk_s2s    cp.async.bulk.shared::cluster.shared::cta: CTA 0 to CTA 1 of a cluster of 2
  bulk_pf     cp.async.bulk.prefetch.L2.global
Tensor maps (cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion) describe a
tight tensor in one 64 MiB buffer: element type, dimensions, box, element strides,
interleave, swizzle, out-of-bounds fill; the coordinates may put the box partly outside.

cases.tsv columns: case id kernel kind dtype rank gdim box estride interleave swizzle oob
coords bytes dst_off src_off size line.
"""
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
SMEM_BYTES = 1024 + 98304
GLOBAL_BYTES = 64 << 20
DTYPES = {"u8": (0, 1), "u16": (1, 2), "u32": (2, 4), "u64": (4, 8), "f16": (6, 2),
          "f32": (7, 4), "f64": (8, 8), "bf16": (9, 2)}
SWZ = {0: 0, 32: 1, 64: 2, 128: 3}
ILV = {0: 0, 16: 1, 32: 2}
cases = []


def ceil_div(a, b):
    return -(-a // b)


def add(cid, kind, dtype="f16", gdim=(), box=(), estride=None, interleave=0, swizzle=0, oob=0,
        coords=None, dst_off=0, src_off=0, size=0):
    rank = len(gdim)
    estride = estride or (1,) * rank
    coords = coords or (0,) * rank
    elem = DTYPES[dtype][1] if rank else 0
    if rank:
        counts = [box[0]] + [ceil_div(b, s) for b, s in zip(box[1:], estride[1:])]
        nbytes = elem
        for c in counts:
            nbytes *= c
        total = elem
        for d in gdim:
            total *= d
        assert total + 4096 <= GLOBAL_BYTES, cid
        assert all(b <= 256 for b in box), cid
        if interleave == 0:
            assert box[0] * elem % 16 == 0, cid
            if swizzle:
                assert box[0] * elem <= swizzle, cid
        assert (gdim[0] * elem) % 16 == 0, cid
    else:
        nbytes = size
    assert dst_off + 2 * max(nbytes, size) <= SMEM_BYTES - 1024, cid
    cases.append(dict(case=cid, kind=kind, dtype=dtype, rank=rank, gdim=tuple(gdim),
                      box=tuple(box), estride=tuple(estride), interleave=interleave,
                      swizzle=swizzle, oob=oob, coords=tuple(coords), bytes=nbytes,
                      dst_off=dst_off, src_off=src_off, size=size))


def families():
    # rank 1
    for dt, box in (("u8", 16), ("u8", 256), ("f16", 128), ("f32", 64), ("f32", 256),
                    ("f64", 32)):
        add(f"load_1d_{dt}_b{box}", "load", dt, (4096,), (box,))
    add("load_1d_f32_b64_c3", "load", "f32", (4096,), (64,), coords=(3,))
    add("load_1d_f32_b64_oob", "load", "f32", (4096,), (64,), coords=(4064,))
    # rank 2: box rows of 16 to 128 bytes, each swizzle the row allows
    for dt, box, swzs in (("f16", (64, 64), (0, 128)), ("f16", (64, 8), (0, 128)),
                          ("f16", (32, 64), (0, 64, 128)), ("f16", (16, 64), (0, 32, 64, 128)),
                          ("f16", (8, 8), (0, 32)), ("f32", (32, 32), (0, 128)),
                          ("f32", (8, 256), (0, 32)), ("u8", (128, 64), (0, 128)),
                          ("f64", (16, 16), (0, 128)), ("bf16", (64, 128), (128,)),
                          ("f16", (64, 256), (128,)), ("u8", (16, 16), (0, 32))):
        for s in swzs:
            add(f"load_2d_{dt}_{box[0]}x{box[1]}_s{s}", "load", dt, (1024, 512), box, swizzle=s)
    add("load_2d_f16_64x64_s128_c8", "load", "f16", (1024, 512), (64, 64), swizzle=128,
        coords=(8, 3))
    add("load_2d_f16_64x64_s128_oob_lo", "load", "f16", (1024, 512), (64, 64), swizzle=128,
        coords=(-16, -8))
    add("load_2d_f16_64x64_s128_oob_hi", "load", "f16", (1024, 512), (64, 64), swizzle=128,
        coords=(992, 480))
    add("load_2d_f16_64x64_s128_oob_all", "load", "f16", (1024, 512), (64, 64), swizzle=128,
        coords=(2048, 0))
    add("load_2d_f32_32x32_s128_oob_nan", "load", "f32", (1024, 512), (32, 32), swizzle=128,
        oob=1, coords=(1008, 0))
    add("load_2d_f16_64x64_s0_es2", "load", "f16", (1024, 512), (64, 64), estride=(1, 2))
    add("load_2d_f16_64x64_s128_es4", "load", "f16", (1024, 512), (64, 64), estride=(1, 4),
        swizzle=128)
    add("load_2d_f16_64x64_s0_dst128", "load", "f16", (1024, 512), (64, 64), swizzle=0,
        dst_off=128)
    add("load_2d_f16_pad_64x64_s0", "load", "f16", (1000, 512), (64, 64))
    # rank 3 to 5
    add("load_3d_f16_64x8x4_s128", "load", "f16", (256, 64, 16), (64, 8, 4), swizzle=128)
    add("load_3d_f16_32x16x4_s0", "load", "f16", (256, 64, 16), (32, 16, 4))
    add("load_3d_f32_8x8x8_s32", "load", "f32", (64, 64, 16), (8, 8, 8), swizzle=32)
    add("load_4d_f16_64x4x2x2_s128", "load", "f16", (128, 16, 8, 8), (64, 4, 2, 2), swizzle=128)
    add("load_4d_u8_64x4x4x4_s64", "load", "u8", (128, 16, 8, 8), (64, 4, 4, 4), swizzle=64)
    add("load_5d_f16_32x2x2x2x2_s64", "load", "f16", (64, 8, 8, 8, 8), (32, 2, 2, 2, 2),
        swizzle=64)
    add("load_5d_f32_8x4x2x2x2_s0", "load", "f32", (64, 8, 8, 8, 8), (8, 4, 2, 2, 2))
    add("load_5d_f16_32x2x2x2x2_oob", "load", "f16", (64, 8, 8, 8, 8), (32, 2, 2, 2, 2),
        swizzle=64, coords=(48, 7, 0, 7, 0))
    # interleaved layouts (rank >= 3; 32B interleave needs the 32B swizzle)
    add("load_3d_f16_ilv16_s0", "load", "f16", (8, 64, 16), (8, 64, 2), interleave=16)
    add("load_3d_f16_ilv16_s128", "load", "f16", (8, 64, 16), (8, 64, 2), interleave=16,
        swizzle=128)
    add("load_3d_f16_ilv32_s32", "load", "f16", (16, 64, 16), (16, 64, 2), interleave=32,
        swizzle=32)
    # multicast within a cluster of 2
    add("load_mc_2d_f16_64x64_s128", "load_mc", "f16", (1024, 512), (64, 64), swizzle=128)
    add("load_mc_2d_f16_64x32_s0", "load_mc", "f16", (1024, 512), (64, 32), swizzle=0)
    # stores
    for dt, box, s in (("f16", (64, 64), 128), ("f16", (64, 64), 0), ("f32", (32, 32), 128),
                       ("f16", (16, 64), 32), ("u8", (128, 64), 128)):
        add(f"store_2d_{dt}_{box[0]}x{box[1]}_s{s}", "store", dt, (1024, 512), box, swizzle=s)
    add("store_1d_f32_b256", "store", "f32", (4096,), (256,))
    add("store_3d_f16_64x8x4_s128", "store", "f16", (256, 64, 16), (64, 8, 4), swizzle=128)
    add("store_5d_f32_8x4x2x2x2_s0", "store", "f32", (64, 8, 8, 8, 8), (8, 4, 2, 2, 2))
    add("store_2d_f16_64x64_s128_oob", "store", "f16", (1024, 512), (64, 64), swizzle=128,
        coords=(992, 480))
    add("reduce_2d_f32_32x32_s0", "reduce", "f32", (1024, 512), (32, 32))
    add("prefetch_2d_f16_64x64", "prefetch", "f16", (1024, 512), (64, 64), swizzle=128)
    # bulk copies without a tensor map
    for size in (16, 128, 1024, 4096, 16384):
        add(f"bulk_g2s_{size}", "bulk_g2s", size=size)
    add("bulk_g2s_4096_src16", "bulk_g2s", size=4096, src_off=16)
    add("bulk_g2s_4096_dst16", "bulk_g2s", size=4096, dst_off=16)
    add("bulk_g2s_512_src48_dst112", "bulk_g2s", size=512, src_off=48, dst_off=112)
    add("bulk_g2s_mc_4096", "bulk_g2s_mc", size=4096)
    for size in (128, 4096):
        add(f"bulk_s2g_{size}", "bulk_s2g", size=size)
    add("bulk_s2g_4096_dst16_src16", "bulk_s2g", size=4096, src_off=16, dst_off=16)
    add("bulk_s2s_1024", "bulk_s2s", size=1024)
    add("bulk_s2s_4096_off16", "bulk_s2s", size=4096, src_off=16, dst_off=16)
    add("bulk_pf_4096", "bulk_pf", size=4096)


families()

PROLOGUE = r'''// Generated by gen_tma.py: one TMA instruction per kernel (cases.tsv), measured by run.sh
// with Nsight Compute's Source Counters. Build: nvcc -gencode arch=compute_90a,code=sm_90a
// -lineinfo -O3.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

struct Args {
  int c[5];
  unsigned bytes, dst_off, src_off, size;
  int z;
};

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ unsigned cta_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void bar_init(unsigned mb) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mb) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void bar_expect(unsigned mb, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(mb), "r"(bytes) : "memory");
}
// Bounded: a wrong transaction count must not hang the probe (the host reports it).
__device__ __forceinline__ bool bar_wait(unsigned mb) {
  for (int i = 0; i < (1 << 20); ++i) {
    unsigned ok;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "r"(mb) : "memory");
    if (ok) return true;
  }
  return false;
}
__device__ __forceinline__ unsigned mapa(unsigned a, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}
'''


def coords_list(rank):
    return ", ".join(f"%{i}" for i in range(rank))


def kernel(idx, c, out):
    k = c["kind"]
    rank = c["rank"]
    cluster = k in ("load_mc", "bulk_g2s_mc", "bulk_s2s")
    name = f"tm{idx}"
    out.append(f"// {c['case']}")
    attr = "__cluster_dims__(2, 1, 1) " if cluster else ""
    out.append(f"__global__ void {attr}__launch_bounds__(128, 1) {name}(const __grid_constant__ "
               f"CUtensorMap map, const Args a, unsigned char* g, float* out) {{")
    out.append("  extern __shared__ __align__(1024) unsigned char sm[];")
    out.append("  __shared__ __align__(8) unsigned long long bar;")
    out.append("  const unsigned base = (smem_addr(sm) + 1023u) & ~1023u;")
    out.append("  const unsigned mb = smem_addr(&bar);")
    out.append("  const bool lead = threadIdx.x == 0;")
    out.append("  const unsigned rank = cta_rank();")
    crd = ", ".join(f'"r"(a.c[{i}])' for i in range(rank))
    cl = "{" + ", ".join(f"%{i + 2}" for i in range(rank)) + "}"
    line = None
    waits = False
    if k in ("load", "load_mc", "bulk_g2s", "bulk_g2s_mc"):
        out.append("  if (lead) bar_init(mb);")
        out.append("  __syncthreads();")
        if cluster:
            out.append("  cluster_sync();")
        out.append("  if (lead) bar_expect(mb, a.bytes);")
        if k == "load":
            ins = (f'  if (lead) asm volatile("cp.async.bulk.tensor.{rank}d.shared::cluster.global'
                   f'.tile.mbarrier::complete_tx::bytes [%0], [%1, {cl}], [%{rank + 2}];" :: '
                   f'"r"(base + a.dst_off), "l"(&map), {crd}, "r"(mb) : "memory");')
        elif k == "load_mc":
            ins = (f'  if (lead && rank == 0) asm volatile("cp.async.bulk.tensor.{rank}d.shared::cluster'
                   f'.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {cl}], '
                   f'[%{rank + 2}], %{rank + 3};" :: "r"(base + a.dst_off), "l"(&map), {crd}, "r"(mb), '
                   f'"h"(static_cast<unsigned short>(3)) : "memory");')
        elif k == "bulk_g2s":
            ins = ('  if (lead) asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::'
                   'complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(base + a.dst_off), '
                   '"l"(g + a.src_off), "r"(a.size), "r"(mb) : "memory");')
        else:
            ins = ('  if (lead && rank == 0) asm volatile("cp.async.bulk.shared::cluster.global.'
                   'mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;" :: '
                   '"r"(base + a.dst_off), "l"(g + a.src_off), "r"(a.size), "r"(mb), '
                   '"h"(static_cast<unsigned short>(3)) : "memory");')
        out.append(ins)
        line = len(out)
        waits = True
    elif k in ("store", "reduce"):
        op = ("cp.async.bulk.tensor" if k == "store" else "cp.reduce.async.bulk.tensor")
        mid = ".global.shared::cta.bulk_group" if k == "store" else ".global.shared::cta.add.bulk_group"
        out.append('  if (lead) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");')
        ccl = "{" + ", ".join(f"%{i + 1}" for i in range(rank)) + "}"
        out.append(f'  if (lead) asm volatile("{op}.{rank}d{mid} [%0, {ccl}], [%{rank + 1}];" :: '
                   f'"l"(&map), {crd}, "r"(base + a.src_off) : "memory");')
        line = len(out)
        out.append('  if (lead) asm volatile("cp.async.bulk.commit_group;" ::: "memory");')
        out.append('  if (lead) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");')
    elif k == "prefetch":
        ccl = "{" + ", ".join(f"%{i + 1}" for i in range(rank)) + "}"
        out.append(f'  if (lead) asm volatile("cp.async.bulk.prefetch.tensor.{rank}d.L2.global '
                   f'[%0, {ccl}];" :: "l"(&map), {crd} : "memory");')
        line = len(out)
    elif k == "bulk_s2g":
        out.append('  if (lead) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");')
        out.append('  if (lead) asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], '
                   '%2;" :: "l"(g + a.dst_off), "r"(base + a.src_off), "r"(a.size) : "memory");')
        line = len(out)
        out.append('  if (lead) asm volatile("cp.async.bulk.commit_group;" ::: "memory");')
        out.append('  if (lead) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");')
    elif k == "bulk_pf":
        out.append('  if (lead) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: '
                   '"l"(g + a.src_off), "r"(a.size) : "memory");')
        line = len(out)
    elif k == "bulk_s2s":
        out.append("  if (lead) bar_init(mb);")
        out.append("  __syncthreads();")
        out.append("  if (lead && rank == 1) bar_expect(mb, a.size);")
        out.append("  cluster_sync();")
        out.append('  if (lead && rank == 0) asm volatile("cp.async.bulk.shared::cluster.shared::cta.'
                   'mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(mapa(base + a.dst_off'
                   ', 1)), "r"(base + a.src_off), "r"(a.size), "r"(mapa(mb, 1)) : "memory");')
        line = len(out)
        out.append("  if (rank == 1 && !bar_wait(mb) && lead) out[1] = 1.0f;")
    else:
        raise ValueError(k)
    if waits:
        out.append("  if (!bar_wait(mb) && lead) out[1] = 1.0f;")
    out.append("  __syncthreads();")
    if cluster:
        out.append("  cluster_sync();")
    out.append("  if (a.z == 12345) out[threadIdx.x + 2] = sm[threadIdx.x];")
    out.append("}")
    return name, line, cluster


def main():
    lines = PROLOGUE.splitlines()
    names, rows = [], []
    for i, c in enumerate(cases):
        name, line, cluster = kernel(i, c, lines)
        names.append(name)
        rows.append((c, name, line, cluster))
    n = len(rows)
    lines.append("")
    lines.append("struct Case { int rank, dtype, interleave, swizzle, oob; unsigned long long gdim[5];"
                 " unsigned box[5], estride[5]; int c[5]; unsigned bytes, dst_off, src_off, size;"
                 " int grid; };")
    lines.append(f"static const Case kCases[{n}] = {{")
    for c, name, line, cluster in rows:
        def arr(v, k=5):
            v = list(v) + [0] * (k - len(v))
            return "{" + ", ".join(str(x) for x in v) + "}"
        dt = DTYPES[c["dtype"]][0] if c["rank"] else 0
        lines.append(f"  {{{c['rank']}, {dt}, {ILV[c['interleave']]}, {SWZ[c['swizzle']]}, "
                     f"{c['oob']}, {arr(c['gdim'])}, {arr(c['box'])}, {arr(c['estride'])}, "
                     f"{arr(c['coords'])}, {c['bytes']}u, {c['dst_off']}u, {c['src_off']}u, "
                     f"{c['size']}u, {2 if cluster else 1}}},  // {c['case']}")
    lines.append("};")
    lines.append("using Kernel = void (*)(const CUtensorMap, const Args, unsigned char*, float*);")
    lines.append(f"static const Kernel kKernels[{n}] = {{ {', '.join(names)} }};")
    lines.append(f"static const char* kNames[{n}] = {{ " +
                 ", ".join(f'"{c["case"]}"' for c, *_ in rows) + " };")
    lines.append(f"constexpr int kCount = {n};")
    lines.append(f"constexpr unsigned kSmem = {SMEM_BYTES};")
    lines.append(f"constexpr size_t kGlobal = {GLOBAL_BYTES};")
    lines += r'''
static const unsigned kElem[10] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2};

// probe_tma [--first I] [--count N] [--skip I,J,...]: launches the cases in order; a tensor
// map the driver refuses, or a copy that never completes its mbarrier, is reported and the
// next case runs; a launch error stops the probe (the context is lost) and names the case.
int main(int argc, char** argv) {
  int first = 0, count = kCount;
  std::set<int> skip;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--first")) first = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--count")) count = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--skip")) {
      std::string s = argv[i + 1];
      for (size_t p = 0; p < s.size();) {
        size_t q = s.find(',', p);
        if (q == std::string::npos) q = s.size();
        if (q > p) skip.insert(std::atoi(s.substr(p, q - p).c_str()));
        p = q + 1;
      }
    }
  }
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode),
                                       12000, cudaEnableDefault, &q) != cudaSuccess || !encode) {
    std::printf("probe_tma: no cuTensorMapEncodeTiled\n");
    return 2;
  }
  unsigned char* g = nullptr;
  float* out = nullptr;
  if (cudaMalloc(&g, kGlobal) != cudaSuccess || cudaMalloc(&out, 4096) != cudaSuccess) {
    std::printf("probe_tma: cudaMalloc failed\n");
    return 2;
  }
  cudaMemset(g, 0, kGlobal);
  int launched = 0, refused = 0, stuck = 0;
  for (int i = first; i < first + count && i < kCount; ++i) {
    if (skip.count(i)) continue;
    std::printf("RUN %d %s\n", i, kNames[i]);
    std::fflush(stdout);
    const Case& c = kCases[i];
    alignas(64) CUtensorMap map;
    std::memset(&map, 0, sizeof map);
    if (c.rank) {
      cuuint64_t strides[4];
      unsigned long long s = kElem[c.dtype];
      for (int d = 0; d + 1 < c.rank; ++d) {
        s *= c.gdim[d];
        s = (s + 31) / 32 * 32;
        strides[d] = s;
      }
      cuuint64_t gdim[5];
      cuuint32_t box[5], es[5];
      for (int d = 0; d < c.rank; ++d) gdim[d] = c.gdim[d], box[d] = c.box[d], es[d] = c.estride[d];
      const CUresult r = encode(&map, static_cast<CUtensorMapDataType>(c.dtype), c.rank, g, gdim,
                                strides, box, es, static_cast<CUtensorMapInterleave>(c.interleave),
                                static_cast<CUtensorMapSwizzle>(c.swizzle),
                                CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                static_cast<CUtensorMapFloatOOBfill>(c.oob));
      if (r != CUDA_SUCCESS) {
        std::printf("REFUSED %d %s: cuTensorMapEncodeTiled %d\n", i, kNames[i], static_cast<int>(r));
        ++refused;
        continue;
      }
    }
    Args a{};
    for (int d = 0; d < 5; ++d) a.c[d] = c.c[d];
    a.bytes = c.bytes, a.dst_off = c.dst_off, a.src_off = c.src_off, a.size = c.size, a.z = 0;
    cudaFuncSetAttribute(kKernels[i], cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    cudaMemset(out, 0, 16);
    kKernels[i]<<<c.grid, 128, kSmem>>>(map, a, g, out);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
      std::printf("FAILED %d %s: %s\n", i, kNames[i], cudaGetErrorString(e));
      return 1;
    }
    float flag[2] = {0, 0};
    cudaMemcpy(flag, out, sizeof flag, cudaMemcpyDeviceToHost);
    if (flag[1] != 0) {
      std::printf("INCOMPLETE %d %s: the mbarrier did not complete\n", i, kNames[i]);
      ++stuck;
    }
    ++launched;
  }
  std::printf("probe_tma: %d cases launched, %d tensor maps refused, %d incomplete\n", launched,
              refused, stuck);
  return 0;
}
'''.splitlines()
    (here / "probe_tma.cu").write_text("\n".join(lines) + "\n")
    cols = ["case", "id", "kernel", "kind", "dtype", "rank", "gdim", "box", "estride",
            "interleave", "swizzle", "oob", "coords", "bytes", "dst_off", "src_off", "size",
            "line"]
    with open(here / "cases.tsv", "w") as f:
        f.write("\t".join(cols) + "\n")
        for i, (c, name, line, cluster) in enumerate(rows):
            j = lambda v: ",".join(map(str, v)) or "-"
            f.write("\t".join(str(v) for v in [
                i, c["case"], name, c["kind"], c["dtype"] if c["rank"] else "-", c["rank"],
                j(c["gdim"]), j(c["box"]), j(c["estride"]), c["interleave"], c["swizzle"],
                c["oob"], j(c["coords"]), c["bytes"], c["dst_off"], c["src_off"], c["size"],
                line]) + "\n")
    print(f"gen_tma.py: {n} cases", file=sys.stderr)


main()
