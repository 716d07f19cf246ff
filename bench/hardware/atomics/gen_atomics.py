#!/usr/bin/env python3
"""Generate the single-warp shared-atomic patterns measured on the GPU (format: README.md).

Deterministic (fixed seed). The families aim at what separates the SASS forms' costs:
- all lanes in one bank on k distinct words (k = 1..32), each word shared by 32/k lanes:
  "most lanes per bank" is 32 throughout, "most distinct words per bank" is k;
- one hot word shared by h lanes plus distinct words in the same bank, and random
  mixtures over a few banks, where the two rules disagree by varying amounts;
- strides, broadcast, pools of few addresses, random, permutations, partial masks;
- operand values that make CAS hit or miss and MIN/MAX update or not, and equal versus
  distinct operands for ADD (whether the hardware merges equal operands at run time).
Warp-uniform kernels get only patterns whose active lanes share one address.

Patterns are interleaved across kernels, so a run cut short by its time budget still
covers every kernel.

Usage: gen_atomics.py [--seed N] > patterns.txt
"""
import argparse
import random

SMEM = 48 * 1024
LANES = 32

# kernel -> (width in bytes, operand kind); probe_atomics.cu defines the kernels.
KERNELS = {
    "inc_unused": (4, "none"), "inc_unused_red_ptx": (4, "none"),
    "inc_uniform_param": (4, "uniform"), "inc_uniform_shfl": (4, "uniform"),
    "add_uniform_param_val": (4, "uniform_val"), "inc_used": (4, "none"),
    "add_u32_used": (4, "add"), "add_u32_unused": (4, "add"), "red_add_u32_ptx": (4, "add"),
    "add_u64_used": (8, "add_loop"), "add_f32_used": (4, "add"), "add_f32_unused": (4, "add"),
    "cas_b32": (4, "cas"), "cas_b64": (8, "cas"),
    "exch_b32": (4, "val"), "exch_b64": (8, "val"),
    "min_s32": (4, "minmax"), "max_s32": (4, "minmax"), "min_u32": (4, "minmax"),
    "max_u32": (4, "minmax"), "min_u64": (8, "minmax"),
    "and_b32": (4, "val"), "or_b32": (4, "val"), "xor_b32": (4, "val"),
    "inc_wrap_u32": (4, "val"),
}

MASKS = [("lane0", 0x1), ("lane31", 0x80000000), ("even", 0x55555555),
         ("low_half", 0x0000FFFF), ("high_half", 0xFFFF0000), ("quarter1", 0x0000FF00)]


def init(addr):
    """The word's value before the atomic (probe_atomics.cu: init32/init64)."""
    return 1000 + addr


def address_families(w, rng):
    """(name, byte addresses) for a width; one bank is 4 bytes wide, a row 128 bytes."""
    row = 128
    for s in (0, 1, 2, 3, 4, 8, 16, 32, 33):
        yield f"stride{s}", [l * s * w for l in range(LANES)]
    # All lanes in bank 0, k distinct words, lanes spread round robin or in blocks.
    for k in (2, 4, 8, 16, 32):
        yield f"bank0_words{k}", [(l % k) * row for l in range(LANES)]
    for k in (2, 8):
        yield f"bank0_words{k}_blocked", [(l // (LANES // k)) * row for l in range(LANES)]
    # One hot word shared by h lanes, the other lanes on distinct words of the same bank.
    for h in (2, 8, 16, 24, 31):
        yield f"hot{h}_plus_distinct", [0 if l < h else (l - h + 1) * row for l in range(LANES)]
    # Two banks: bank 0 with h lanes on one word, bank 1 with d lanes on d words.
    for h, d in ((16, 4), (24, 8), (8, 2), (4, 16)):
        addrs = [0] * h + [4 + i * row for i in range(d)]
        addrs += [8 + 4 * (i % 24) for i in range(LANES - len(addrs))]
        yield f"bankA{h}same_bankB{d}words", addrs[:LANES]
    # Random mixtures: each lane picks a bank from a few and a word from a small pool.
    for i in range(6):
        banks = rng.sample(range(32), rng.randint(1, 4))
        pools = {b: [b * 4 + rng.randrange(SMEM // row) * row for _ in range(rng.randint(1, 6))]
                 for b in banks}
        yield f"mix{i}", [rng.choice(pools[rng.choice(banks)]) for _ in range(LANES)]
    for n in (2, 4, 8, 16):
        for region in (row, 4096):
            pool = [rng.randrange(region) for _ in range(n)]
            yield f"pool{n}_r{region}", [rng.choice(pool) for _ in range(LANES)]
    for region in (512, SMEM):
        yield f"rand_r{region}", [rng.randrange(region) for _ in range(LANES)]
    perm = list(range(LANES))
    rng.shuffle(perm)
    yield "perm", [p * w for p in perm]


def uniform_families(rng):
    for a in (0, 4, 124, 128, 4096 + 60, rng.randrange(SMEM)):
        yield f"uniform{a}", [a] * LANES


def operands(kind, w, addrs, scheme, rng):
    """Per-lane (val, cmp) for an operand kind and a value scheme."""
    out = []
    for l, a in enumerate(addrs):
        if a is None:
            out.append(None)
            continue
        i = init(a)
        if scheme == "lane":
            out.append((l + 1, None))
        elif scheme == "same":
            out.append((1, None))
        elif scheme == "zero":
            out.append((0, None))
        elif scheme == "hit":      # CAS: compare equal to the initial value
            out.append((l + 7, i))
        elif scheme == "miss":
            out.append((l + 7, i + 1))
        elif scheme == "mixed":
            out.append((l + 7, i if l % 2 else i + 1))
        elif scheme == "below":    # MIN updates, MAX does not
            out.append((i - 1 - l, None))
        elif scheme == "above":
            out.append((i + 1 + l, None))
        elif scheme == "negative":  # signed and unsigned orders disagree
            out.append((-1 - l, None))
        else:
            raise ValueError(scheme)
    return out


SCHEMES = {"none": [None], "uniform": [None], "uniform_val": ["lane", "same"],
           "add": ["lane"], "add_loop": ["lane"], "val": ["lane"],
           "cas": ["hit"], "minmax": ["below"]}
# Extra schemes tried on the families where lanes share words only.
EXTRA = {"add": ["same", "zero"], "val": ["same"], "cas": ["miss", "mixed"],
         "minmax": ["above", "negative"]}


def token(a, ops):
    if a is None:
        return "-"
    if ops is None or ops[0] is None:
        return str(a)
    val, cmp = ops
    return f"{a}:{val}" if cmp is None else f"{a}:{val}:{cmp}"


def fit(addrs, w):
    return [None if a is None else (a % SMEM) // w * w for a in addrs]


def masked(addrs, m):
    return [a if (m >> l) & 1 else None for l, a in enumerate(addrs)]


def kernel_patterns(name, rng):
    w, kind = KERNELS[name]
    fams = list(uniform_families(rng) if kind.startswith("uniform") else address_families(w, rng))
    if kind == "add_loop":  # a CAS loop: its cost depends on retries; a small sample
        fams = fams[:12]
    out = []
    schemes = SCHEMES[kind]
    for fname, addrs in fams:
        for s in schemes:
            out.append((f"{fname}" + (f"_{s}" if s else ""), fit(addrs, w), s))
    for s in EXTRA.get(kind, []):
        for fname, addrs in fams:
            if fname in ("stride0", "stride1", "bank0_words4", "bank0_words32", "hot16_plus_distinct",
                         "mix1", "pool4_r128"):
                out.append((f"{fname}_{s}", fit(addrs, w), s))
    # Partial masks over a sample of families, and random masks.
    sample = [f for f in fams if f[0].startswith(("stride1", "stride0", "bank0_words8",
                                                   "hot16", "mix0", "uniform0", "uniform128"))]
    sample = sample or fams[:3]
    for mname, m in MASKS + [("rand", rng.getrandbits(32)), ("rand", rng.getrandbits(32) | 1)]:
        for fname, addrs in sample[:2]:
            out.append((f"{fname}_mask_{mname}", fit(masked(addrs, m), w), schemes[0]))
    result = []
    for pname, addrs, s in out:
        ops = operands(kind, w, addrs, s, rng) if s else [None] * LANES
        result.append((name, pname, [token(a, o) for a, o in zip(addrs, ops)]))
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261207)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    per_kernel = [kernel_patterns(k, rng) for k in KERNELS]
    order = []
    for i in range(max(len(p) for p in per_kernel)):
        for p in per_kernel:
            if i < len(p):
                order.append(p[i])
    print("# id kernel lane0..lane31 (ADDR[:VAL[:CMP]], '-' inactive)  generated by "
          f"gen_atomics.py --seed {args.seed}")
    for i, (kernel, pname, toks) in enumerate(order):
        print(f"{i}:{pname} {kernel} {' '.join(toks)}")


if __name__ == "__main__":
    main()
