#!/usr/bin/env python3
"""Turns run.sh's Source Counters CSV into results.tsv, one row per pattern of patterns.tsv:

  pattern id kernel line op width target, then for the memory rows on the pattern's line:
  sass (opcodes), space, executed, wavefronts, ideal, sectors, ideal_sectors.

Usage: python3 bench/hardware/dsmem/parse.py measured/dsmem_source.csv.gz > results.tsv
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
import sourcecounters as sc  # noqa: E402


def main():
    pats = list(csv.DictReader(open(here / "patterns.tsv"), delimiter="\t"))
    per_line = defaultdict(list)
    kernels = set()
    for r in sc.rows(sys.argv[1:]):
        kernels.add(r["kernel"])
        if sc.is_memory(r):
            per_line[(r["kernel"], r["line"])].append(r)
    keys = ["pattern", "id", "kernel", "line", "op", "width", "target"]
    print("\t".join(keys + ["sass", "space", "executed", "wavefronts", "ideal", "sectors",
                            "ideal_sectors"]))
    for p in pats:
        head = [p[k] for k in keys]
        if p["kernel"] not in kernels:
            print("\t".join(head + ["-"] * 7))
            continue
        on = [r for r in per_line.get((p["kernel"], int(p["line"])), [])
              if not r["opcode"].startswith("LDG")]  # the lane's offset from the table
        print("\t".join(head + [
            ",".join(r["opcode"] for r in on) or "none",
            ",".join(sorted({r["space"] for r in on if r["space"] not in ("", "-")})) or "-",
            *(str(sum(r[k] for r in on)) for k in ("executed", "wavefronts", "ideal", "sectors",
                                                    "ideal_sectors"))]))


main()
