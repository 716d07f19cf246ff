#!/usr/bin/env python3
"""Writes patterns_cg_from.txt (default) or, with --kernel cp_ca16_from, patterns_ca_from.txt:
cp.async.cg (LDGSTS.E.BYPASS.128) or .ca 16 bytes (LDGSTS.E.128) with each lane's global
chunk chosen apart from its lane number (kernel cp_cg16_from of probe_matrix.cu; a lane is
SHARED_BYTE:GLOBAL_CHUNK, the chunk a 16-byte step into a 128-byte aligned buffer, so
chunks 8r..8r+7 are global line r).

The first corpora tied lane l to global chunk l, so lane order and global order could not
be told apart, and rows whose chunks were permuted cost more than any rule of the
(global, shared) pairs explained. Families:
  pair_gG_sS_gH_sT   lanes 0 and 1: chunk G to shared chunk S, chunk H to T (G, S in 0-1;
                     H in 0-7; T in 0-15): which two chunks one wavefront can move.
  rev_...            the same pair with the lanes exchanged (lane order against chunk order).
  far_...            the same pair on lanes 0 and 5 (does a lane's number matter?).
  tri_N              lanes 0-2: random distinct chunks of line 0 to random distinct shared
                     chunks of 0-15.
  perm8_oO_N         lanes 0-7: a random permutation of line 0's chunks to shared chunks
                     O..O+7 in random order.
  set_N_orderK       one perm8 set of (global, shared) pairs given to the lanes in three
                     orders: is the cost a function of the set?
  warp_N             32 lanes: global chunks 0-31 in random order to shared chunks 0-31.
  xor_N              32 lanes: row r (lanes 8r..8r+7, global line r) to shared row r of
                     128 bytes, chunk c to c ^ m_r for a random mask per row (CuTe-style).
"""
import argparse
import random

LANES = 32


def line(id_, kernel, lanes):
    toks = ["-"] * LANES
    for l, (s, g) in lanes.items():
        toks[l] = f"{16 * s}:{g}"
    return f"{id_} {kernel} {' '.join(toks)}"


def tiles(rng):
    """For .ca (whose L1 side has bank conflicts of its own): tile loaders whose global rows
    are shorter than a line, as a 64-byte-row tile reads a row-major matrix.
      tile_rR_sS_N   32 lanes to shared chunks 0-31 in order; every R consecutive lanes
                     read one global row of R chunks, rows S lines apart in global.
      bank_N         random shared chunks (bank conflicts of the L1 side) from random
                     global chunks of one or several lines.
      rowsX_N        R lanes per global row, shared rows X chunks apart (padding)."""
    out = []
    for r in (1, 2, 4, 8):
        for stride in (1, 2, 3):
            for n in range(4):
                base = [rng.randrange(0, 8 - r + 1) if r < 8 else 0 for _ in range(LANES // r)]
                lanes = {}
                for l in range(LANES):
                    row = l // r
                    lanes[l] = (l, min(63, (row * stride * 8) % 64 + base[row] + l % r))
                out.append((f"tile_r{r}_s{stride}_{n}", lanes))
    for n in range(60):
        lines = rng.choice((1, 2, 4))
        ss = rng.sample(range(64), LANES) if n % 2 else [rng.randrange(64) for _ in range(LANES)]
        gs = [rng.randrange(8 * lines) for _ in range(LANES)]
        out.append((f"bank_{n}", {l: (ss[l], gs[l]) for l in range(LANES)}))
    for x in (4, 5, 8, 9, 12):
        for r in (4, 8):
            for n in range(3):
                lanes = {}
                for l in range(LANES):
                    row, col = l // r, l % r
                    if row * x + col >= 64:
                        continue
                    lanes[l] = (row * x + col, min(63, row * 8 + col))
                out.append((f"rows{x}_r{r}_{n}", lanes))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="cp_cg16_from")
    args = ap.parse_args()
    ca = args.kernel.startswith("cp_ca")
    rng = random.Random(20261124 + (1 if ca else 0))
    out = []
    pairs = []
    for g0 in range(2):
        for s0 in range(2):
            for g1 in range(8):
                for s1 in range(16):
                    pairs.append((g0, s0, g1, s1))
                    out.append((f"pair_g{g0}_s{s0}_g{g1}_s{s1}", {0: (s0, g0), 1: (s1, g1)}))
    for g0, s0, g1, s1 in rng.sample(pairs, 96):
        out.append((f"rev_g{g0}_s{s0}_g{g1}_s{s1}", {0: (s1, g1), 1: (s0, g0)}))
    for g0, s0, g1, s1 in rng.sample(pairs, 64):
        out.append((f"far_g{g0}_s{s0}_g{g1}_s{s1}", {0: (s0, g0), 5: (s1, g1)}))
    for n in range(200):
        gs = rng.sample(range(8), 3)
        ss = rng.sample(range(16), 3)
        out.append((f"tri_{n}", {l: (ss[l], gs[l]) for l in range(3)}))
    sets = []
    for n in range(200):
        o = 0 if n < 120 else rng.randrange(1, 8)
        gs = rng.sample(range(8), 8)
        ss = [o + c for c in rng.sample(range(8), 8)]
        sets.append(list(zip(ss, gs)))
        out.append((f"perm8_o{o}_{n}", {l: (ss[l], gs[l]) for l in range(8)}))
    for n in range(40):
        base = sets[rng.randrange(len(sets))]
        orders = [sorted(base, key=lambda p: p[1]), sorted(base, key=lambda p: p[0]),
                  rng.sample(base, 8)]
        for k, order in enumerate(orders):
            out.append((f"set_{n}_order{k}", dict(enumerate(order))))
    for n in range(40):
        gs = rng.sample(range(32), 32)
        out.append((f"warp_{n}", {l: (l, gs[l]) for l in range(32)}))
    for n in range(40):
        masks = [rng.randrange(8) for _ in range(4)]
        out.append((f"xor_{n}", {l: (8 * (l // 8) + ((l % 8) ^ masks[l // 8]), l)
                                 for l in range(32)}))
    if ca:
        out += tiles(rng)
    print("# id kernel lane0..lane31 (SHARED_BYTE:GLOBAL_CHUNK, '-' inactive)  "
          f"generated by gen_cg_from.py --kernel {args.kernel}")
    for i, (name, lanes) in enumerate(out):
        print(line(f"{i}:{name}", args.kernel, lanes))


if __name__ == "__main__":
    main()
