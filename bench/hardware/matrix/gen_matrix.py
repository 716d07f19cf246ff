#!/usr/bin/env python3
"""Generate the single-warp ldmatrix / stmatrix / cp.async patterns (format: README.md).

Deterministic (fixed seed). ldmatrix/stmatrix row addresses follow the layouts tensor-core
kernels use, over a row-major tile of W halves per row (row stride 2W bytes):
- `afrag`: lane l -> row l % 16, column block l / 16 (the A operand of m16n8k16, x4);
- `bfrag`: lane l -> row (l % 8) + 8 * (l / 16), column block (l / 8) % 2;
- `rows`:  lane l -> row l, column 0 (matrix m = rows 8m..8m+7);
with strides 16..256 bytes and beyond, padded rows (+16 bytes), CuTe XOR swizzles
Swizzle<B,4,3> (B = 1, 2, 3) applied to the byte offset (16-byte chunk index XOR row
bits), random 16-byte-aligned rows, duplicate rows and, for .x1/.x2, garbage in the lanes
the instruction ignores. cp.async: destination strides, random and permuted destinations,
broadcast, partial masks and per-lane src-sizes (0 = zero fill).

Patterns are interleaved across kernels, so a run cut short still covers every kernel.

Usage: gen_matrix.py [--seed N] > patterns.txt
"""
import argparse
import random

SMEM = 48 * 1024
LANES = 32
MATRIX = ["ldsm_x1", "ldsm_x2", "ldsm_x4", "ldsm_x1_trans", "ldsm_x2_trans", "ldsm_x4_trans",
          "stsm_x1", "stsm_x2", "stsm_x4", "stsm_x1_trans", "stsm_x2_trans", "stsm_x4_trans"]
CPASYNC = {"cp_ca4": 4, "cp_ca8": 8, "cp_ca16": 16, "cp_cg16": 16,
           "cp_ca4_zfill": 4, "cp_ca8_zfill": 8, "cp_ca16_zfill": 16, "cp_cg16_zfill": 16}


def swizzle(off, b, m=4, s=3):
    """CuTe Swizzle<B,M,S> on a byte offset: bits [M+S, M+S+B) XOR into bits [M, M+B)."""
    mask = ((1 << b) - 1) << (m + s)
    return off ^ ((off & mask) >> s)


def layout(kind, lane):
    """(row, 8-half column block) of a lane's row address."""
    if kind == "afrag":
        return lane % 16, lane // 16
    if kind == "bfrag":
        return (lane % 8) + 8 * (lane // 16), (lane // 8) % 2
    return lane, 0  # rows


def tile(kind, width_halves, col0=0, base=0, swz=0):
    stride = 2 * width_halves
    out = []
    for l in range(LANES):
        r, c = layout(kind, l)
        off = r * stride + (col0 + 8 * c) * 2
        out.append(base + (swizzle(off, swz) if swz else off))
    return out


def matrix_families(rng, full):
    """(name, addrs); `full` adds the families that matter most for .x4."""
    yield "contig", [16 * l for l in range(LANES)]
    for base in (16, 48, 112, 1040):
        yield f"contig_base{base}", [base + 16 * l for l in range(LANES)]
    # Rows at a byte stride: 16..256 in steps of 16, then a few wider.
    for s in list(range(16, 257, 16)) + [272, 384, 512, 1024, 1040]:
        yield f"rows_stride{s}", [s * l for l in range(LANES)]
    # Tensor-core tiles, plain and padded.
    widths = (16, 32, 40, 64, 72, 128, 136) if full else (32, 64, 72, 128)
    for kind in ("afrag", "bfrag") if full else ("afrag",):
        for w in widths:
            yield f"{kind}_w{w}", tile(kind, w)
            yield f"{kind}_w{w}_col16", tile(kind, w, col0=16)
    # XOR swizzles, matched to the tile width (conflict-free by design) and mismatched.
    for b in (1, 2, 3):
        for w in (32, 64, 128):
            for kind in ("afrag", "rows", "bfrag") if full else ("rows",):
                for col0 in (0, 16) if full else (0,):
                    yield f"{kind}_w{w}_col{col0}_swz{b}43", tile(kind, w, col0=col0, swz=b)
    # Random 16-byte-aligned rows, from a small region (many collisions) and the whole array.
    for region in (1024, 8192, SMEM):
        for i in range(2 if full else 1):
            yield f"rand_r{region}_{i}", [rng.randrange(region // 16) * 16 for _ in range(LANES)]
    # Duplicate rows.
    yield "dup_all", [256] * LANES
    yield "dup_pairs", [(l // 2) * 16 for l in range(LANES)]
    yield "dup_pairs_stride128", [(l // 2) * 128 for l in range(LANES)]
    yield "dup_matrices", [(l % 8) * 16 for l in range(LANES)]
    yield "dup_matrices_stride128", [(l % 8) * 128 for l in range(LANES)]
    yield "dup_half", [(l % 16) * 128 for l in range(LANES)]
    perm = list(range(LANES))
    rng.shuffle(perm)
    yield "perm_stride16", [16 * p for p in perm]


def ignored_lane_families(rng, used):
    """For .x1/.x2: the used lanes' rows clean, the ignored lanes' rows conflicting."""
    for name, clean in (("contig", [16 * l for l in range(LANES)]),
                        ("afrag_w64_swz343", tile("afrag", 64, swz=3))):
        junk = [rng.randrange(8) * 128 for _ in range(LANES)]
        yield f"{name}_ignored_junk", clean[:used] + junk[used:]
        yield f"{name}_ignored_same", clean[:used] + [0] * (LANES - used)


def cp_families(size, rng):
    for s in (0, 1, 2, 3, 4, 8, 16, 32, 33):
        yield f"stride{s}", [l * s * size for l in range(LANES)]
    for sb in (128, 144, 256):
        yield f"bstride{sb}", [l * sb for l in range(LANES)]
    for base in (16, 112):
        yield f"stride1_base{base}", [base + l * size for l in range(LANES)]
    yield "afrag_w64", [a // size * size for a in tile("afrag", 64)]
    yield "afrag_w64_swz343", [a // size * size for a in tile("afrag", 64, swz=3)]
    for region in (512, SMEM):
        for i in range(2):
            yield f"rand_r{region}_{i}", [rng.randrange(region // size) * size
                                          for _ in range(LANES)]
    pool = [rng.randrange(64) * size for _ in range(4)]
    yield "pool4", [rng.choice(pool) for _ in range(LANES)]
    perm = list(range(LANES))
    rng.shuffle(perm)
    yield "perm", [p * size for p in perm]


MASKS = [("lane0", 0x1), ("even", 0x55555555), ("low_half", 0x0000FFFF),
         ("quarter1", 0x0000FF00), ("none", 0)]


def cp_patterns(name, rng):
    size = CPASYNC[name]
    zfill = name.endswith("_zfill")
    fams = list(cp_families(size, rng))
    out = []
    for fname, addrs in fams:
        out.append((fname, addrs, [size] * LANES))
    sample = [f for f in fams if f[0] in ("stride1", "bstride128", "rand_r512_0")]
    for mname, m in MASKS + [("rand", rng.getrandbits(32))]:
        for fname, addrs in sample[:2]:
            out.append((f"{fname}_mask_{mname}",
                        [a if (m >> l) & 1 else None for l, a in enumerate(addrs)], [size] * LANES))
    if zfill:
        for fname, addrs in sample:
            out.append((f"{fname}_src0", addrs, [0] * LANES))
            out.append((f"{fname}_src_alt0", addrs, [0 if l % 2 else size for l in range(LANES)]))
            out.append((f"{fname}_src_rand", addrs, [rng.randint(0, size) for _ in range(LANES)]))
            out.append((f"{fname}_src_half", addrs, [size // 2] * LANES))
    res = []
    for pname, addrs, sizes in out:
        toks = []
        for a, s in zip(addrs, sizes):
            if a is None:
                toks.append("-")
            else:
                a %= SMEM - 16
                toks.append(f"{a}:{s}" if zfill else str(a))
        res.append((name, pname, toks))
    return res


def matrix_patterns(name, rng):
    num = int(name.split("_x")[1][0])
    fams = list(matrix_families(rng, full=num == 4))
    if num < 4:
        fams += list(ignored_lane_families(rng, 8 * num))
    return [(name, f, [str(a % (SMEM - 16) // 16 * 16) for a in addrs]) for f, addrs in fams]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261208)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    per_kernel = [matrix_patterns(k, rng) for k in MATRIX] + [cp_patterns(k, rng) for k in CPASYNC]
    order = []
    for i in range(max(len(p) for p in per_kernel)):
        for p in per_kernel:
            if i < len(p):
                order.append(p[i])
    print("# id kernel lane0..lane31 (ADDR[:SRCSIZE], '-' inactive)  generated by "
          f"gen_matrix.py --seed {args.seed}")
    for i, (kernel, pname, toks) in enumerate(order):
        print(f"{i}:{pname} {kernel} {' '.join(toks)}")


if __name__ == "__main__":
    main()
