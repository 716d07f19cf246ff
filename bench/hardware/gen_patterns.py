#!/usr/bin/env python3
"""Generate the single-warp shared-memory patterns measured on the GPU.

Writes one pattern a line: "ID OP WIDTH A0 ... A31" (byte offsets into a 48 KiB array,
'-' for an inactive lane). Deterministic (fixed seed) so the corpus can be regenerated.
The families aim at the rules that matter: strides, broadcast, repeated addresses,
lanes sharing addresses in pairs / quads / halves / quarters, inactive lanes, random
addresses from small pools (many duplicates) and from the whole array.

Usage: gen_patterns.py [--set NAME] > patterns.txt
"""
import argparse
import random

SMEM = 48 * 1024
LANES = 32


def fit(addrs, width):
    """Wrap into the array, keeping each address aligned to its width."""
    return [None if a is None else (a % SMEM) // width * width for a in addrs]


def families(width, rng):
    """Yield (name, addrs) for one access width; addresses in bytes."""
    w = width
    # Strides in elements, 0..64 and beyond.
    for s in list(range(0, 65)) + [65, 72, 96, 127, 128, 129, 255, 256, 257, 384, 511, 513]:
        yield f"stride{s}", [l * s * w for l in range(LANES)]
    # Byte strides for narrow types (several lanes in one word).
    if w < 4:
        for s in (1, 2, 3, 4, 5, 6, 8, 12, 16, 33):
            yield f"bstride{s}", [(l * s) // w * w for l in range(LANES)]
    # Strided with a base offset.
    for s in (1, 2, 4, 8, 16, 32):
        base = rng.randrange(0, 4096) // w * w
        yield f"stride{s}_base{base}", [base + l * s * w for l in range(LANES)]
    # Broadcast: every lane the same address.
    for a in (0, 4, 124, 128, 4096 + 60, rng.randrange(SMEM)):
        yield f"bcast{a}", [a // w * w] * LANES
    # Lanes sharing addresses in groups: pairs, quads, octets, halves, quarters.
    for g in (2, 4, 8, 16):
        for s in (1, 2, 3, 8, 16, 32):
            yield f"group{g}_s{s}", [(l // g) * s * w for l in range(LANES)]
    for period in (2, 4, 8, 16):  # lane l uses the address of lane l % period
        for s in (1, 2, 32, 33):
            yield f"period{period}_s{s}", [(l % period) * s * w for l in range(LANES)]
    # Halves / quarters touching complementary bank ranges (merge candidates).
    for k in (2, 4, 8):
        size = LANES // k
        for variant in range(3):
            addrs = []
            for l in range(LANES):
                part, i = divmod(l, size)
                if variant == 0:      # same addresses in every part
                    addrs.append(i * w)
                elif variant == 1:    # each part shifted by its share of 128 bytes
                    addrs.append(part * 128 // k + (i * w) % (128 // k) + (i * w) // (128 // k) * 128)
                else:                 # each part in its own 128-byte row
                    addrs.append(part * 128 + i * w)
            yield f"parts{k}_v{variant}", addrs
    # Neighbouring lanes with the same address, shifted rows.
    for s in (1, 2, 4):
        yield f"pairs_rows{s}", [((l // 2) * w * s) + (l % 2) * 0 for l in range(LANES)]
    # Transpose-like column accesses of a 32-wide row of this type, with padding.
    for pad in (0, 1, 2, 4):
        row = 32 + pad
        yield f"column_pad{pad}", [l * row * w for l in range(LANES)]
    # Random addresses from pools of n distinct addresses.
    for n in (1, 2, 3, 4, 5, 8, 12, 16, 24, 32):
        for region in (128, 256, 1024, SMEM):
            for _ in range(2):
                pool = [rng.randrange(region) // w * w for _ in range(n)]
                yield f"pool{n}_r{region}", [rng.choice(pool) for _ in range(LANES)]
    # Fully random.
    for region in (128, 512, 2048, SMEM):
        for _ in range(4):
            yield f"rand_r{region}", [rng.randrange(region) // w * w for _ in range(LANES)]
    # Permutations of a clean access.
    for _ in range(4):
        perm = list(range(LANES))
        rng.shuffle(perm)
        yield "perm", [p * w for p in perm]


def masks(rng):
    full = (1 << LANES) - 1
    return [("full", full), ("lane0", 1), ("lane31", 1 << 31), ("even", 0x55555555),
            ("low_half", 0xFFFF), ("high_half", 0xFFFF0000), ("quarter1", 0xFF00),
            ("rand", rng.getrandbits(32)), ("rand", rng.getrandbits(32) | 1),
            ("none", 0)]


def pair_patterns(width, rng):
    """Patterns for the load merge rule: lanes n and n^d sharing addresses, for each d,
    with and without conflicts, broken by one lane, and under masks."""
    w = width
    for d in (1, 2, 3, 4, 8, 16):
        for kind in ("stride1", "stride2", "stride32", "stride33", "pool", "rand"):
            pool = [rng.randrange(SMEM) // w * w for _ in range(4)]
            def f(k):
                return {"stride1": k * w, "stride2": 2 * k * w, "stride32": k * 128,
                        "stride33": k * 132 // w * w, "pool": rng.choice(pool),
                        "rand": rng.randrange(SMEM) // w * w}[kind]
            rep = {}
            addrs = []
            for l in range(LANES):
                key = min(l, l ^ d) if d in (1, 2, 4, 8, 16) else min(l, l ^ 1, l ^ 2, l ^ 3)
                if key not in rep:
                    rep[key] = f(key)
                addrs.append(rep[key])
            yield f"pair{d}_{kind}", addrs
            broken = list(addrs)
            victim = rng.randrange(LANES)
            broken[victim] = (broken[victim] + 128 * rng.randrange(1, 8)) % SMEM
            yield f"pair{d}_{kind}_broken{victim}", broken
            for mname, m in (("even", 0x55555555), ("odd", 0xAAAAAAAA), ("lowpairs", 0x33333333),
                             ("rand", rng.getrandbits(32)), ("rand", rng.getrandbits(32)),
                             ("half", 0x0000FFFF), ("q13", 0xFF00FF00)):
                yield f"pair{d}_{kind}_mask_{mname}", [a if (m >> l) & 1 else None
                                                        for l, a in enumerate(addrs)]
            # Broken only on a lane whose partner is inactive.
            m = rng.getrandbits(32) | 1
            m &= ~(1 << (0 ^ d if d < 32 else 1))
            b2 = [a if (m >> l) & 1 else None for l, a in enumerate(addrs)]
            b2[0] = (addrs[0] + 256) % SMEM
            yield f"pair{d}_{kind}_brokenlonely", b2
    # One half satisfies d=1, the other d=2.
    for _ in range(4):
        lo = [(rng.randrange(64) * w) for _ in range(8)]
        hi = [(rng.randrange(64) * w) for _ in range(8)]
        addrs = [lo[l // 2] for l in range(16)] + [hi[(l & ~2) % 8] for l in range(16)]
        yield "mixed_d1_d2", [a % SMEM // w * w for a in addrs]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--set", choices=("broad", "merge"), default="broad")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = []
    if args.set == "merge":
        return main_merge(rng, args)
    combos = [("ld", 1), ("ld", 2), ("ld", 4), ("ld", 8), ("ld", 16),
              ("st", 1), ("st", 2), ("st", 4), ("st", 8), ("st", 16), ("atom", 4)]
    for op, w in combos:
        fams = list(families(w, rng))
        for name, addrs in fams:
            out.append((op, w, name, fit(addrs, w)))
        # Inactive lanes: a sample of the families under several masks.
        for mname, m in masks(rng):
            for name, addrs in rng.sample(fams, 6):
                a = [addrs[l] if (m >> l) & 1 else None for l in range(LANES)]
                out.append((op, w, f"{name}_mask_{mname}", fit(a, w)))
    print("# id op width a0..a31 (bytes; '-' inactive)  generated by gen_patterns.py "
          f"--seed {args.seed}")
    for i, (op, w, name, addrs) in enumerate(out):
        lanes = " ".join("-" if a is None else str(a) for a in addrs)
        print(f"{i}:{name} {op} {w} {lanes}")


def main_merge(rng, args):
    """Targeted set: the load merge rule's edges, stores under the same patterns, and
    other atomic flavours (exch, cas, red, 64-bit add) over a sample of the broad families."""
    out = []
    for op, w in (("ld", 8), ("ld", 16), ("st", 8), ("st", 16), ("ld", 4), ("atom", 4)):
        for name, addrs in pair_patterns(w, rng):
            out.append((op, w, name, fit(addrs, w)))
    for op, w in (("atom.exch", 4), ("atom.cas", 4), ("red", 4), ("atom", 8)):
        fams = list(families(w, rng))
        for name, addrs in rng.sample(fams, 60) + [f for f in fams if f[0].startswith(("stride", "bcast"))][:40]:
            out.append((op, w, name, fit(addrs, w)))
    print("# id op width a0..a31 (bytes; '-' inactive)  generated by gen_patterns.py "
          f"--set merge --seed {args.seed}")
    for i, (op, w, name, addrs) in enumerate(out):
        lanes = " ".join("-" if a is None else str(a) for a in addrs)
        print(f"{i}:{name} {op} {w} {lanes}")


if __name__ == "__main__":
    main()
