#!/usr/bin/env python3
"""Turns run.sh's Source Counters CSV into results.tsv, one row per pattern:

  pattern id kind sass wavefronts ideal sectors ideal_sectors

Usage: python3 bench/hardware/cpasync/parse.py results/cpasync_source.csv.gz > results/results.tsv
The CSV lists per kernel each CUDA line's row, then its SASS rows; ncu 2025.3.1 lists
every SASS row twice (the second listing is skipped by address). lines.tsv maps a pattern
to its line; a pattern's row is its line's one LDGSTS (anything else is an error).
"""
import csv
import gzip
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
COLS = ("L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal", "L2 Theoretical Sectors Global",
        "L2 Theoretical Sectors Global Ideal", "Instructions Executed")


def main():
    path = sys.argv[1]
    line_of = {}
    for row in csv.DictReader(open(here / "lines.tsv"), delimiter="\t"):
        line_of[(row["kernel"], int(row["line"]))] = int(row["pattern"])
    pats = [l.split()[:2] for l in open(here / "patterns.txt") if l.strip() and not l.startswith("#")]
    got = {}
    kernel = None
    header = None
    cur = None
    seen = set()
    for r in csv.reader(gzip.open(path, "rt", newline="")):
        if not r:
            continue
        if r[0] == "Function Name":
            kernel = r[1].split("(")[0]
            continue
        if r[0] == "Line No":
            header = r
            continue
        if header is None or len(r) < 4:
            continue
        if r[0]:
            cur = int(r[0])
            continue
        addr, sass = r[2], r[3].strip()
        if (kernel, addr) in seen:
            continue
        seen.add((kernel, addr))
        if "LDGSTS" not in sass:
            continue
        d = dict(zip(header[4:], r[4:]))
        p = line_of.get((kernel, cur))
        if p is None:
            sys.exit(f"parse.py: an LDGSTS on {kernel} line {cur} that no pattern has")
        if p in got:
            sys.exit(f"parse.py: pattern {p} has two LDGSTS")
        got[p] = (sass.split()[1] if sass.startswith("@") else sass.split()[0],) + tuple(
            d[c].replace(",", "") for c in COLS)
    missing = [p for p in range(len(pats)) if p not in got]
    if missing:
        sys.exit(f"parse.py: no LDGSTS for patterns {missing[:10]}")
    print("pattern\tid\tkind\tsass\twavefronts\tideal\tsectors\tideal_sectors\texecuted")
    for p, (pid, kind) in enumerate(pats):
        print("\t".join([str(p), pid.split(":", 1)[1], kind] + list(got[p])))


main()
