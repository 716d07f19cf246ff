#!/usr/bin/env python3
"""Writes the wgmma corpus: cases.tsv and probe_wgmma.cu (one kernel per case).

Every case is one `wgmma.mma_async` alone in its kernel (one warpgroup, one CTA), so that
whatever Nsight Compute's Source Counters list for the kernel belongs to that instruction
and its descriptors: which SASS rows carry "L1 Wavefronts Shared" (the HGMMA row, or the
rows that build its descriptors), how many, and the ideal. The operands are not filled:
the values a tensor core reads do not change which bytes it reads.

Families (case id prefix):
  shape_*   the shape and type families, K-major, 128-byte swizzle, A and B in shared
            memory, canonical strides: f16 (f32 and f16 accumulators), bf16, tf32, e4m3,
            e5m2, e4m3 x e5m2, s8, u8; N from 8 to 256;
  rs_*      A from registers, B in shared memory;
  swz_*     every swizzle mode (none, 32, 64, 128 B) for A and B, K-major and MN-major
            (the transpose bits, f16 and bf16 only);
  addr_*    start offsets (within and across the swizzle atom, the K steps a main loop
            takes), the base-offset field, leading and stride byte offsets away from the
            canonical ones;
  loop_*    the descriptor built in the kernel by a helper and advanced through a K loop
            of four wgmma (each on its own line), as hand-written GEMMs do: which lines
            Nsight Compute lists the operand reads under.

cases.tsv columns: case id kernel type n a_src trans_a trans_b swz_a swz_b a_start b_start
lbo_a sbo_a lbo_b sbo_b base_a base_b desc_a desc_b wgmma_line. Descriptors are written with
their start-address field relative to the kernel's 1024-byte aligned shared base (A) and
that base + 64 KiB (B); the kernel adds the base. Swizzle field: 0 none, 1 128B, 2 64B,
3 32B (the PTX ISA's matrix descriptor).
"""
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
B_REGION = 65536      # B operand's region starts here (bytes past the aligned base)
SMEM_BYTES = 1024 + 65536 + 98304  # alignment slack, A region, B region

# type: (ptx type suffix, K, accumulator kind, element bytes, has imm-scale, transposable)
TYPES = {
    "f16": (".f32.f16.f16", 16, "f32", 2, True, True),
    "f16acc16": (".f16.f16.f16", 16, "f16", 2, True, True),
    "bf16": (".f32.bf16.bf16", 16, "f32", 2, True, True),
    "tf32": (".f32.tf32.tf32", 8, "f32", 4, True, False),
    "e4m3": (".f32.e4m3.e4m3", 32, "f32", 1, True, False),
    "e5m2": (".f32.e5m2.e5m2", 32, "f32", 1, True, False),
    "e4m3e5m2": (".f32.e4m3.e5m2", 32, "f32", 1, True, False),
    "s8": (".s32.s8.s8", 32, "s32", 1, False, False),
    "u8": (".s32.u8.u8", 32, "s32", 1, False, False),
}
SWZ_FIELD = {0: 0, 128: 1, 64: 2, 32: 3}  # swizzle bytes -> descriptor field


def desc(start, lbo, sbo, base, swz):
    """The 64-bit matrix descriptor (start address relative to the region)."""
    assert start % 16 == 0 and lbo % 16 == 0 and sbo % 16 == 0
    assert start >> 4 < 1 << 14 and lbo >> 4 < 1 << 14 and sbo >> 4 < 1 << 14
    return ((start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (base << 49) |
            (SWZ_FIELD[swz] << 62))


def canonical(rows, swz, mn_major):
    """(lbo, sbo) of the canonical layout of one operand of `rows` rows (M or N) and 32
    bytes of K (every wgmma's K extent), CuTe's GMMA layouts (mma_traits_sm90_gmma.hpp)."""
    if not mn_major:
        if swz == 0:
            return 128, 256          # core matrices: K neighbour next, then 8 rows on
        return 16, 8 * swz           # LBO unused; 8-row groups one atom apart
    # MN-major (2-byte types, K = 16: two groups of 8 K rows)
    if swz == 0:
        return 128, 256              # the two K groups next to each other, MN on
    atom = 8 * swz
    return 2 * atom, atom            # MN atoms 2 apart (both K groups between them)


def footprint(rows, swz, mn_major, lbo, sbo, start):
    """An upper bound of the bytes past the region start the operand may reach, under
    either reading of LBO and SBO (the probe must stay inside its allocation)."""
    if swz == 0:
        groups, last = rows // 8, 128  # core matrices along M/N, each 128 bytes
    elif not mn_major:
        groups, last = rows // 8, 8 * swz
    else:
        groups, last = max(1, rows * 2 // swz), 8 * swz
    reach = max((groups - 1) * sbo + lbo, (groups - 1) * lbo + sbo) + lbo + sbo + last
    return start + reach


cases = []


def add(cid, typ, n, a_src="smem", ta=0, tb=0, swz_a=128, swz_b=128, a_start=0, b_start=0,
        lbo_a=None, sbo_a=None, lbo_b=None, sbo_b=None, base_a=0, base_b=0):
    t = TYPES[typ]
    if not t[5]:
        assert ta == 0 and tb == 0, cid
    ca = canonical(64, swz_a, ta)
    cb = canonical(n, swz_b, tb)
    lbo_a = ca[0] if lbo_a is None else lbo_a
    sbo_a = ca[1] if sbo_a is None else sbo_a
    lbo_b = cb[0] if lbo_b is None else lbo_b
    sbo_b = cb[1] if sbo_b is None else sbo_b
    if a_src == "smem":
        assert footprint(64, swz_a, ta, lbo_a, sbo_a, a_start) <= B_REGION, cid
    assert footprint(n, swz_b, tb, lbo_b, sbo_b, b_start) <= SMEM_BYTES - 1024 - B_REGION, cid
    cases.append(dict(case=cid, type=typ, n=n, a_src=a_src, ta=ta, tb=tb, swz_a=swz_a,
                      swz_b=swz_b, a_start=a_start, b_start=b_start, lbo_a=lbo_a, sbo_a=sbo_a,
                      lbo_b=lbo_b, sbo_b=sbo_b, base_a=base_a, base_b=base_b))


def families():
    # shape_*: the shape and type families
    for n in (8, 16, 24, 32, 48, 64, 96, 128, 192, 256):
        add(f"shape_f16_n{n}", "f16", n)
    for n in (64, 256):
        add(f"shape_f16acc16_n{n}", "f16acc16", n)
    for n in (8, 64, 256):
        add(f"shape_bf16_n{n}", "bf16", n)
    for n in (8, 16, 64, 128, 256):
        add(f"shape_tf32_n{n}", "tf32", n)
    for n in (8, 16, 64, 128, 256):
        add(f"shape_e4m3_n{n}", "e4m3", n)
    add("shape_e5m2_n64", "e5m2", 64)
    add("shape_e4m3e5m2_n64", "e4m3e5m2", 64)
    for n in (8, 16, 24, 64, 256):
        add(f"shape_s8_n{n}", "s8", n)
    add("shape_u8_n64", "u8", 64)
    # rs_*: A from registers
    for typ, n in (("f16", 8), ("f16", 64), ("f16", 256), ("bf16", 128), ("tf32", 64),
                   ("e4m3", 64), ("s8", 64)):
        add(f"rs_{typ}_n{n}", typ, n, a_src="reg")
    for swz in (0, 32, 64):
        add(f"rs_f16_n64_swzb{swz}", "f16", 64, a_src="reg", swz_b=swz)
    for swz in (0, 32, 64, 128):
        add(f"rs_f16_n64_tb_swzb{swz}", "f16", 64, a_src="reg", tb=1, swz_b=swz)
    # swz_*: swizzle modes x majors
    for n in (64, 256):
        for swz in (0, 32, 64, 128):
            for ta, tb in ((0, 0), (1, 0), (0, 1), (1, 1)):
                if swz == 128 and (ta, tb) == (0, 0):
                    continue  # shape_f16_n{n}
                add(f"swz_f16_n{n}_s{swz}_t{ta}{tb}", "f16", n, ta=ta, tb=tb, swz_a=swz,
                    swz_b=swz)
    for typ in ("tf32", "e4m3", "s8", "bf16"):
        for swz in (0, 32, 64):
            add(f"swz_{typ}_n64_s{swz}", typ, 64, swz_a=swz, swz_b=swz)
    add("swz_bf16_n64_s64_t11", "bf16", 64, ta=1, tb=1, swz_a=64, swz_b=64)
    add("swz_f16_n64_a0_b128", "f16", 64, swz_a=0, swz_b=128)
    add("swz_f16_n64_a128_b0", "f16", 64, swz_a=128, swz_b=0)
    # addr_*: start offsets, base offset, LBO / SBO
    for swz, steps in ((128, (32, 64, 96, 128, 256, 512, 16, 48)), (64, (32, 64, 128, 16)),
                       (32, (16, 128, 256)), (0, (16, 32, 64, 128))):
        for off in steps:
            add(f"addr_f16_n64_s{swz}_off{off}", "f16", 64, swz_a=swz, swz_b=swz,
                a_start=off, b_start=off)
    for swz, atom in ((128, 1024), (64, 512), (32, 256)):
        for k in (1, 3):  # start moved by k rows of the atom, base offset field k or 0
            off = k * 128 if swz == 128 else k * (atom // 8)
            for base in (0, k):
                add(f"addr_f16_n64_s{swz}_row{k}_base{base}", "f16", 64, swz_a=swz,
                    swz_b=swz, a_start=off, b_start=off, base_a=base, base_b=base)
    for lbo, sbo in ((256, 512), (1024, 128), (128, 2048), (2048, 128), (144, 288), (128, 128),
                     (16, 128), (128, 16), (640, 1280)):
        add(f"addr_f16_n64_s0_lbo{lbo}_sbo{sbo}", "f16", 64, swz_a=0, swz_b=0, lbo_a=lbo,
            sbo_a=sbo, lbo_b=lbo, sbo_b=sbo)
    for sbo in (2048, 512, 1152, 128):
        add(f"addr_f16_n64_s128_sbo{sbo}", "f16", 64, sbo_a=sbo, sbo_b=sbo)
    for sbo in (1024, 256):
        add(f"addr_f16_n64_s64_sbo{sbo}", "f16", 64, swz_a=64, swz_b=64, sbo_a=sbo, sbo_b=sbo)
    for lbo in (4096, 1024, 256):
        add(f"addr_f16_n256_s128_tb_lbo{lbo}", "f16", 256, tb=1, lbo_b=lbo)
    add("addr_f16_n64_s0_t11_lbo1024_sbo128", "f16", 64, ta=1, tb=1, swz_a=0, swz_b=0,
        lbo_a=1024, sbo_a=128, lbo_b=1024, sbo_b=128)
    add("addr_f16_n64_s0_t11_lbo128_sbo256", "f16", 64, ta=1, tb=1, swz_a=0, swz_b=0,
        lbo_a=128, sbo_a=256, lbo_b=128, sbo_b=256)
    add("addr_tf32_n64_s128_off64", "tf32", 64, a_start=64, b_start=64)
    add("addr_e4m3_n64_s128_off96", "e4m3", 64, a_start=96, b_start=96)
    add("addr_s8_n64_s0_lbo256_sbo512", "s8", 64, swz_a=0, swz_b=0, lbo_a=256, sbo_a=512,
        lbo_b=256, sbo_b=512)


families()
LOOPS = [  # (case id, type, n, swizzle): a K loop of four wgmma, descriptors built inside
    ("loop_f16_n128_s128", "f16", 128, 128),
    ("loop_f16_n64_s0", "f16", 64, 0),
]


def acc_decl(typ, n):
    kind = TYPES[typ][2]
    count = n // 2 if kind in ("f32", "s32") else n // 4
    ctype, cons = ("float", "+f") if kind == "f32" else ("unsigned", "+r")
    return count, ctype, cons


def wgmma_asm(c, da, db, zvar, acc="d"):
    """One wgmma asm statement (a single source line)."""
    typ, n = c["type"], c["n"]
    suffix, k, kind, _, scale, trans = TYPES[typ]
    count, ctype, cons = acc_decl(typ, n)
    regs = ", ".join(f"%{i}" for i in range(count))
    ops = [f'"{cons}"({acc}[{i}])' for i in range(count)]
    nxt = count
    if c["a_src"] == "reg":
        a = "{" + ", ".join(f"%{nxt + i}" for i in range(4)) + "}"
        ins = [f'"r"(ar[{i}])' for i in range(4)]
        nxt += 4
    else:
        a = f"%{nxt}"
        ins = [f'"l"({da})']
        nxt += 1
    b = f"%{nxt}"
    ins.append(f'"l"({db})')
    nxt += 1
    z = f"%{nxt}"
    ins.append(f'"r"({zvar})')
    tail = ["p"]
    if scale:
        tail += ["1", "1"]
    if trans:
        if c["a_src"] == "smem":
            tail.append(str(c["ta"]))
        tail.append(str(c["tb"]))
    text = (f"{{ .reg .pred p; setp.ne.b32 p, {z}, 0; wgmma.mma_async.sync.aligned.m64n{n}k{k}"
            f"{suffix} {{{regs}}}, {a}, {b}, {', '.join(tail)}; }}")
    return f'asm volatile("{text}" : {", ".join(ops)} : {", ".join(ins)} : "memory");'


def kernel_text(idx, c, lines):
    """Kernel source lines (appended to `lines`); returns the wgmma's line number."""
    count, ctype, _ = acc_decl(c["type"], c["n"])
    name = f"wg{idx}"
    out = lines
    out.append(f"// {c['case']}")
    out.append(f"__global__ void __launch_bounds__(128, 1) {name}(const unsigned long long* "
               f"__restrict__ tab, float* __restrict__ out, int z) {{")
    out.append("  extern __shared__ __align__(1024) unsigned char sm[];")
    out.append("  const unsigned base = (static_cast<unsigned>(__cvta_generic_to_shared(sm)) + "
               "1023u) & ~1023u;")
    if c["a_src"] == "smem":
        out.append(f"  const unsigned long long da = tab[{2 * idx}] + (base >> 4);")
    out.append(f"  const unsigned long long db = tab[{2 * idx + 1}] + ((base + {B_REGION}u) >> 4);")
    out.append(f"  {ctype} d[{count}];")
    out.append(f"  for (int i = 0; i < {count}; ++i) d[i] = 0;")
    if c["a_src"] == "reg":
        out.append("  unsigned ar[4];")
        out.append("  for (int i = 0; i < 4; ++i) ar[i] = threadIdx.x * 4u + i;")
    out.append('  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");')
    out.append("  " + wgmma_asm(c, "da", "db", "z"))
    line = len(out)
    out.append('  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");')
    out.append('  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");')
    out.append(f"  {ctype} s = 0;")
    out.append(f"  for (int i = 0; i < {count}; ++i) s += d[i];")
    out.append("  if (z == 12345) out[threadIdx.x] = static_cast<float>(s);")
    out.append("}")
    return name, line


def loop_kernel_text(idx, cid, typ, n, swz, lines):
    """A K loop of four wgmma whose descriptors a helper builds in the kernel."""
    c = dict(case=cid, type=typ, n=n, a_src="smem", ta=0, tb=0)
    count, ctype, _ = acc_decl(typ, n)
    name = f"wg{idx}"
    lbo, sbo = canonical(64, swz, 0)
    lbo_b, sbo_b = canonical(n, swz, 0)
    step = 32 if swz else 2 * lbo  # the next 16 K: 32 bytes on in the row, or two core matrices
    out = lines
    out.append(f"// {cid}")
    out.append(f"__global__ void __launch_bounds__(128, 1) {name}(const unsigned long long* "
               f"__restrict__ tab, float* __restrict__ out, int z) {{")
    out.append("  extern __shared__ __align__(1024) unsigned char sm[];")
    out.append("  const unsigned base = (static_cast<unsigned>(__cvta_generic_to_shared(sm)) + "
               "1023u) & ~1023u;")
    out.append(f"  {ctype} d[{count}];")
    out.append(f"  for (int i = 0; i < {count}; ++i) d[i] = 0;")
    out.append('  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");')
    wl = []
    for k in range(4):
        out.append(f"  const unsigned long long da{k} = make_desc(base + {k * step}u + "
                   f"static_cast<unsigned>(z), {lbo}u, {sbo}u, {SWZ_FIELD[swz]}u);")
        out.append(f"  const unsigned long long db{k} = make_desc(base + {B_REGION + k * step}u"
                   f" + static_cast<unsigned>(z), {lbo_b}u, {sbo_b}u, {SWZ_FIELD[swz]}u);")
        out.append("  " + wgmma_asm(c, f"da{k}", f"db{k}", "1"))
        wl.append(len(out))
    out.append('  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");')
    out.append('  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");')
    out.append(f"  {ctype} s = 0;")
    out.append(f"  for (int i = 0; i < {count}; ++i) s += d[i];")
    out.append("  if (z == 12345) out[threadIdx.x] = static_cast<float>(s);")
    out.append("}")
    row = dict(case=cid, type=typ, n=n, a_src="smem", ta=0, tb=0, swz_a=swz, swz_b=swz,
               a_start=0, b_start=0, lbo_a=lbo, sbo_a=sbo, lbo_b=lbo_b, sbo_b=sbo_b, base_a=0,
               base_b=0)
    return name, wl, row


def main():
    lines = [
        "// Generated by gen_wgmma.py: one wgmma.mma_async per kernel (cases.tsv), measured by",
        "// run.sh with Nsight Compute's Source Counters. Build: nvcc -gencode",
        "// arch=compute_90a,code=sm_90a -lineinfo -O3.",
        "#include <cstdio>",
        "#include <cstdlib>",
        "#include <cstring>",
        "#include <set>",
        "#include <string>",
        "#include <vector>",
        "#include <cuda_runtime.h>",
        "",
        "// A matrix descriptor of the PTX ISA: start address, leading and stride byte offsets",
        "// (all >> 4), swizzle mode in bits 62-63.",
        "__device__ __forceinline__ unsigned long long make_desc(unsigned addr, unsigned lbo,",
        "                                                        unsigned sbo, unsigned swz) {",
        "  unsigned long long d = (addr >> 4) & 0x3FFFu;",
        "  d |= static_cast<unsigned long long>((lbo >> 4) & 0x3FFFu) << 16;",
        "  d |= static_cast<unsigned long long>((sbo >> 4) & 0x3FFFu) << 32;",
        "  d |= static_cast<unsigned long long>(swz) << 62;",
        "  return d;",
        "}",
        "",
    ]
    rows = []
    names = []
    for i, c in enumerate(cases):
        name, line = kernel_text(i, c, lines)
        names.append(name)
        da = desc(c["a_start"], c["lbo_a"], c["sbo_a"], c["base_a"], c["swz_a"])
        db = desc(c["b_start"], c["lbo_b"], c["sbo_b"], c["base_b"], c["swz_b"])
        rows.append((c, name, da, db, str(line)))
    for j, (cid, typ, n, swz) in enumerate(LOOPS):
        idx = len(cases) + j
        name, wl, row = loop_kernel_text(idx, cid, typ, n, swz, lines)
        names.append(name)
        rows.append((row, name, 0, 0, ",".join(map(str, wl))))
    ncases = len(rows)
    lines += [
        "",
        f"static const unsigned long long kTab[{2 * ncases}] = {{",
    ]
    for c, name, da, db, _ in rows:
        lines.append(f"  0x{da:016x}ull, 0x{db:016x}ull,  // {c['case']}")
    lines += ["};", "", "using Kernel = void (*)(const unsigned long long*, float*, int);",
              f"static const Kernel kKernels[{ncases}] = {{"]
    lines.append("  " + ", ".join(names))
    lines += ["};", f"static const char* kNames[{ncases}] = {{"]
    lines.append("  " + ", ".join(f'"{c["case"]}"' for c, *_ in rows))
    lines += [
        "};",
        "",
        "// probe_wgmma [--first I] [--count N] [--skip I,J,...]: launches the cases in order",
        "// (one CTA of 128 threads each), stops at the first failure and names it.",
        "int main(int argc, char** argv) {",
        f"  int first = 0, count = {ncases};",
        "  std::set<int> skip;",
        "  for (int i = 1; i + 1 < argc; i += 2) {",
        '    if (!std::strcmp(argv[i], "--first")) first = std::atoi(argv[i + 1]);',
        '    else if (!std::strcmp(argv[i], "--count")) count = std::atoi(argv[i + 1]);',
        '    else if (!std::strcmp(argv[i], "--skip")) {',
        "      std::string s = argv[i + 1];",
        "      for (size_t p = 0; p < s.size();) {",
        "        size_t q = s.find(',', p);",
        "        if (q == std::string::npos) q = s.size();",
        "        if (q > p) skip.insert(std::atoi(s.substr(p, q - p).c_str()));",
        "        p = q + 1;",
        "      }",
        "    }",
        "  }",
        "  unsigned long long* tab = nullptr;",
        "  float* out = nullptr;",
        "  if (cudaMalloc(&tab, sizeof(kTab)) != cudaSuccess || cudaMalloc(&out, 4096) != cudaSuccess) {",
        '    std::printf("probe_wgmma: cudaMalloc failed\\n");',
        "    return 2;",
        "  }",
        "  cudaMemcpy(tab, kTab, sizeof(kTab), cudaMemcpyHostToDevice);",
        "  int launched = 0;",
        f"  for (int c = first; c < first + count && c < {ncases}; ++c) {{",
        "    if (skip.count(c)) continue;",
        '    std::printf("RUN %d %s\\n", c, kNames[c]);',
        "    std::fflush(stdout);",
        f"    cudaFuncSetAttribute(kKernels[c], cudaFuncAttributeMaxDynamicSharedMemorySize, {SMEM_BYTES});",
        f"    kKernels[c]<<<1, 128, {SMEM_BYTES}>>>(tab, out, 0);",
        "    cudaError_t e = cudaDeviceSynchronize();",
        "    if (e == cudaSuccess) e = cudaGetLastError();",
        "    if (e != cudaSuccess) {",
        '      std::printf("FAILED %d %s: %s\\n", c, kNames[c], cudaGetErrorString(e));',
        "      return 1;",
        "    }",
        "    ++launched;",
        "  }",
        '  std::printf("probe_wgmma: %d cases launched, no error\\n", launched);',
        "  return 0;",
        "}",
    ]
    (here / "probe_wgmma.cu").write_text("\n".join(lines) + "\n")
    cols = ["case", "id", "kernel", "type", "n", "a_src", "trans_a", "trans_b", "swz_a", "swz_b",
            "a_start", "b_start", "lbo_a", "sbo_a", "lbo_b", "sbo_b", "base_a", "base_b",
            "desc_a", "desc_b", "wgmma_lines"]
    with open(here / "cases.tsv", "w") as f:
        f.write("\t".join(cols) + "\n")
        for i, (c, name, da, db, wl) in enumerate(rows):
            f.write("\t".join(str(v) for v in [
                i, c["case"], name, c["type"], c["n"], c["a_src"], c["ta"], c["tb"], c["swz_a"],
                c["swz_b"], c["a_start"], c["b_start"], c["lbo_a"], c["sbo_a"], c["lbo_b"],
                c["sbo_b"], c["base_a"], c["base_b"], f"0x{da:016x}", f"0x{db:016x}", wl]) + "\n")
    print(f"gen_wgmma.py: {ncases} cases", file=sys.stderr)


main()
