#!/usr/bin/env python3
"""Writes the per-instruction cp.async corpus: patterns.txt and probe_cpasync.cu.

Every pattern is one cp.async instruction of its own, on its own source line, so that
Nsight Compute's Source Counters give each pattern's "L1 Wavefronts Shared", "... Ideal",
"L2 Theoretical Sectors Global" and "... Ideal" (one warp, one launch per kernel; run.sh).
The kernel-level corpora of bench/hardware/matrix measured wavefronts only; this one
measures the shared ideal and the global sectors that tensor-core tile loaders show.

patterns.txt: `ID KIND lane0..lane31`, a lane `SHARED_BYTE:GLOBAL_BYTE` or '-' (inactive).
KIND: ca4, ca8, ca16 (cp.async.ca), cg16 (cp.async.cg), cg16z16 / cg16z0 / ca16z0 (the
src-size operand, 16 or 0 bytes read). Global bytes are offsets into a 128-byte aligned
buffer.

Families (ID prefix):
  old_*      sampled from bench/hardware/matrix's corpora (cg, cg_from, ca_from,
             ca_small_from), global chunks turned into bytes;
  sparse_*   K active lanes (random) copying consecutive, packed or scattered global data
             to consecutive shared slots: is the ideal per line, per phase or per byte?
  tile_*     tensor-core tile loaders: rows of C 16-byte chunks, rows P bytes apart in
             global (another line each), shared rows plain, padded or XOR-swizzled;
             whole and partial warps;
  dup_*      lanes sharing a global address, or a shared address;
  zfill_*    the same tiles with src-size 16 or 0.
"""
import random
import sys
from pathlib import Path

LANES = 32
here = Path(__file__).resolve().parent
matrix = here.parent / "matrix"
rng = random.Random(2026)
pats = []  # (id, kind, {lane: (shared, global)})


def add(id_, kind, lanes):
    pats.append((id_, kind, lanes))


def read_old(name, kinds):
    out = []
    for line in open(matrix / name):
        if not line.strip() or line.startswith("#"):
            continue
        t = line.split()
        pid, kernel, toks = t[0], t[1], t[2:34]
        width = int("".join(ch for ch in kernel.split("_")[1][2:] if ch.isdigit()))
        lanes = {}
        for l, tok in enumerate(toks):
            if tok == "-":
                continue
            s, _, g = tok.partition(":")
            lanes[l] = (int(s), int(g) * width if g else l * width)
        kind = kinds[kernel] if kernel in kinds else None
        if kind:
            out.append((pid.split(":")[1], kind, lanes))
    return out


for name, kinds, n in (("patterns_cg.txt", {"cp_cg16": "cg16"}, 50),
                       ("patterns_cg_from.txt", {"cp_cg16_from": "cg16"}, 110),
                       ("patterns_ca_from.txt", {"cp_ca16_from": "ca16"}, 110),
                       ("patterns_ca_small_from.txt", {"cp_ca4_from": "ca4", "cp_ca8_from": "ca8"}, 80)):
    old = read_old(name, kinds)
    for pid, kind, lanes in rng.sample(old, min(n, len(old))):
        add(f"old_{pid}", kind, lanes)

WIDTH = {"ca4": 4, "ca8": 8, "ca16": 16, "cg16": 16}
for kind, w in WIDTH.items():
    for n in range(20):
        k = rng.choice((1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 20, 24, 31))
        act = sorted(rng.sample(range(LANES), k))
        mode = ("lane", "packed", "scatter", "lines")[n % 4]
        lanes = {}
        for i, l in enumerate(act):
            s = l * w
            if mode == "lane":
                g = l * w
            elif mode == "packed":
                g = i * w
            elif mode == "scatter":
                g = rng.randrange(0, 64 * 128 // w) * w
            else:  # each lane another line, same offset in it
                g = l * 128 + (l * w) % 128
            lanes[l] = (s, g)
        add(f"sparse_{kind}_{mode}_k{k}_{n}", kind, lanes)

for kind in ("cg16", "ca16"):
    for chunks in (2, 4, 8):
        for pitch in (128, 256, 1024, 4096):
            if pitch < chunks * 16:
                continue
            for layout in ("plain", "pad", "xor"):
                for active in ("all", "half", "odd"):
                    lanes = {}
                    for l in range(LANES):
                        if active == "half" and l >= 16:
                            continue
                        if active == "odd" and l % 2 == 0:
                            continue
                        row, c = divmod(l, chunks)
                        g = row * pitch + c * 16
                        if layout == "plain":
                            s = l * 16
                        elif layout == "pad":
                            s = row * (chunks * 16 + 16) + c * 16
                        else:  # 128-byte shared rows of 8 chunks, chunk XOR row (Swizzle<3,4,3>)
                            flat = l
                            srow, sc = divmod(flat, 8)
                            s = srow * 128 + ((sc ^ (srow % 8)) * 16)
                        lanes[l] = (s, g)
                    add(f"tile_{kind}_c{chunks}_p{pitch}_{layout}_{active}", kind, lanes)

for kind, w in WIDTH.items():
    for n in range(12):
        lanes = {}
        groups = rng.choice((2, 4, 8))
        for l in range(LANES):
            if n % 2:
                lanes[l] = (l * w, (l // groups) * w)  # several lanes read one global slot
            else:
                lanes[l] = (((l // groups) * w) % 4096, l * w)  # several lanes write one slot
        add(f"dup_{kind}_{'global' if n % 2 else 'shared'}_g{groups}_{n}", kind, lanes)

for zk in ("cg16z16", "cg16z0", "ca16z0"):
    for chunks in (4, 8):
        for layout in ("plain", "xor"):
            for pitch in (128, 1024):
                if pitch < chunks * 16:
                    continue
                lanes = {}
                for l in range(LANES):
                    row, c = divmod(l, chunks)
                    srow, sc = divmod(l, 8)
                    s = l * 16 if layout == "plain" else srow * 128 + ((sc ^ srow) * 16)
                    lanes[l] = (s, row * pitch + c * 16)
                add(f"zfill_{zk}_c{chunks}_p{pitch}_{layout}", zk, lanes)

# Checks: aligned, shared within 48 KB.
for pid, kind, lanes in pats:
    w = 16 if kind.startswith(("ca16", "cg16")) else int(kind[2:])
    for l, (s, g) in lanes.items():
        assert s % w == 0 and g % w == 0 and s + w <= 48 * 1024, (pid, l, s, g)

PER_KERNEL = 160
with open(here / "patterns.txt", "w") as f:
    f.write("# id kind lane0..lane31 (SHARED_BYTE:GLOBAL_BYTE, '-' inactive)  generated by gen_corpus.py\n")
    for i, (pid, kind, lanes) in enumerate(pats):
        toks = [f"{lanes[l][0]}:{lanes[l][1]}" if l in lanes else "-" for l in range(LANES)]
        f.write(f"{i}:{pid} {kind} {' '.join(toks)}\n")

# The lane's own predicate inside the asm, as bench/hardware/matrix/probe_matrix.cu has it.
PRED = 'asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0;\\n @p '
ASM = {
    "ca4": PRED + 'cp.async.ca.shared.global [%0], [%1], 4; }" :: "r"(d), "l"(s), "r"(a) : "memory")',
    "ca8": PRED + 'cp.async.ca.shared.global [%0], [%1], 8; }" :: "r"(d), "l"(s), "r"(a) : "memory")',
    "ca16": PRED + 'cp.async.ca.shared.global [%0], [%1], 16; }" :: "r"(d), "l"(s), "r"(a) : "memory")',
    "cg16": PRED + 'cp.async.cg.shared.global [%0], [%1], 16; }" :: "r"(d), "l"(s), "r"(a) : "memory")',
    "cg16z16": PRED + 'cp.async.cg.shared.global [%0], [%1], 16, %3; }" :: "r"(d), "l"(s), "r"(a), "r"(16) : "memory")',
    "cg16z0": PRED + 'cp.async.cg.shared.global [%0], [%1], 16, %3; }" :: "r"(d), "l"(s), "r"(a), "r"(z) : "memory")',
    "ca16z0": PRED + 'cp.async.ca.shared.global [%0], [%1], 16, %3; }" :: "r"(d), "l"(s), "r"(a), "r"(z) : "memory")',
}
# .cg copies without a guard of their own: an LDGSTS.E.BYPASS.128 predicated on P0 reads 0
# in the Source Counters (the ZFILL form does not), and ptxas predicates a guarded copy.
UNGUARDED = {
    "cg16": 'asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(s) : "memory")',
    "cg16z16": 'asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 16;" :: "r"(d), "l"(s) : "memory")',
}
src = []
src.append("// Generated by gen_corpus.py: one cp.async per pattern of patterns.txt, each on its own")
src.append("// line (the map of pattern to line is lines.tsv). Built and measured by run.sh.")
src.append("#include <cstdio>")
src.append("#include <cstdint>")
src.append("#include <vector>")
for kind, body in ASM.items():
    src.append(f"#define CP_{kind.upper()}(d, s) {body}")
# Each copy waits for itself. An LDGSTS.BYPASS predicated on P0 (ptxas's choice when the
# copy sits under an `if`) reads 0 wavefronts, 0 ideal and 0 sectors in Nsight Compute
# 2025.3's Source Counters (run of 2026-11-26: every such copy, none on P1 or P2), so the
# predicate is the copy's own (PRED) and run.sh checks the SASS.
src.append('#define WAIT() asm volatile("cp.async.wait_all;" ::: "memory")')
lines_map = []
# Kernels: a .cg copy alone in its kernel (ptxas then branches around it, as in
# probe_matrix.cu, instead of predicating it), the others PER_KERNEL to a kernel.
groups = []
for i, (pid, kind, lanes) in enumerate(pats):
    alone = kind.startswith("cg")
    if alone or not groups or len(groups[-1]) >= PER_KERNEL or pats[groups[-1][0]][1].startswith("cg"):
        groups.append([])
    groups[-1].append(i)
nk = len(groups)
for k, members in enumerate(groups):
    src.append(f"__global__ void corpus{k}(const uint2* __restrict__ tab, const char* __restrict__ g, int z, int* out) {{")
    src.append("  extern __shared__ __align__(128) char sm[];")
    src.append("  const unsigned sb = static_cast<unsigned>(__cvta_generic_to_shared(sm));")
    src.append("  const int lane = threadIdx.x;")
    for i in members:
        kind = pats[i][1]
        if kind in UNGUARDED:  # alone in its kernel: inactive lanes leave before the copy
            src.append(f"  {{ const uint2 t = tab[{i * 32} + lane]; if (t.x == 0xFFFFFFFFu) return; const unsigned d = sb + t.x; const char* s = g + t.y; {UNGUARDED[kind]}; WAIT(); }}")
        else:
            src.append(f"  {{ const uint2 t = tab[{i * 32} + lane]; const unsigned a = t.x != 0xFFFFFFFFu, d = sb + (a ? t.x : 0); const char* s = g + t.y; CP_{kind.upper()}(d, s); WAIT(); }}")
        lines_map.append((i, len(src), f"corpus{k}"))
    src.append("  __syncthreads();")
    src.append("  if (z == 12345) out[lane] = sm[lane];")
    src.append("}")
src.append("int main() {")
src.append(f"  const int n = {len(pats)};")
src.append("  std::vector<uint2> tab(n * 32, make_uint2(0xFFFFFFFFu, 0));")
src.append("  FILE* f = fopen(\"patterns.txt\", \"r\");")
src.append("  if (!f) { fprintf(stderr, \"probe_cpasync: no patterns.txt here\\n\"); return 2; }")
src.append("  char line[4096]; int p = 0; size_t gmax = 0;")
src.append("  while (fgets(line, sizeof line, f)) {")
src.append("    if (line[0] == '#') continue;")
src.append("    char* q = line; for (int k = 0; k < 2; ++k) { while (*q && *q != ' ') ++q; ++q; }")
src.append("    for (int l = 0; l < 32; ++l) {")
src.append("      unsigned s, gg; int used = 0;")
src.append("      if (sscanf(q, \"%u:%u%n\", &s, &gg, &used) == 2) { tab[p * 32 + l] = make_uint2(s, gg); if (gg + 16 > gmax) gmax = gg + 16; q += used; }")
src.append("      else { while (*q == ' ') ++q; ++q; }")
src.append("      while (*q == ' ') ++q;")
src.append("    }")
src.append("    ++p;")
src.append("  }")
src.append("  fclose(f);")
src.append("  if (p != n) { fprintf(stderr, \"probe_cpasync: %d patterns, expected %d\\n\", p, n); return 2; }")
src.append("  uint2* dtab; char* dg; int* dout;")
src.append("  cudaMalloc(&dtab, tab.size() * sizeof(uint2)); cudaMalloc(&dg, gmax + 4096); cudaMalloc(&dout, 128);")
src.append("  cudaMemcpy(dtab, tab.data(), tab.size() * sizeof(uint2), cudaMemcpyHostToDevice);")
src.append("  cudaMemset(dg, 1, gmax + 4096);")
for k in range(nk):
    src.append(f"  cudaFuncSetAttribute(corpus{k}, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);")
    src.append(f"  corpus{k}<<<1, 32, 48 * 1024>>>(dtab, dg, 0, dout);")
src.append("  const cudaError_t e = cudaDeviceSynchronize();")
src.append(f"  printf(\"probe_cpasync: %d patterns in {nk} kernels: %s\\n\", n, cudaGetErrorString(e));")
src.append("  return e == cudaSuccess ? 0 : 1;")
src.append("}")
(here / "probe_cpasync.cu").write_text("\n".join(src) + "\n")
with open(here / "lines.tsv", "w") as f:
    f.write("pattern\tline\tkernel\n")
    for i, ln, k in lines_map:
        f.write(f"{i}\t{ln}\t{k}\n")
print(f"{len(pats)} patterns, {nk} kernels", file=sys.stderr)
