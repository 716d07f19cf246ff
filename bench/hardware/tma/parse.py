#!/usr/bin/env python3
"""Turns run.sh's Source Counters CSVs into results.tsv, one row per case of cases.tsv:

  the case's columns, then for the SASS rows on the case's line that are not plain
  arithmetic (the TMA instruction and whatever issues it): sass (opcodes), executed,
  space, wavefronts, ideal, sectors, ideal_sectors (summed over those rows), and
  kernel_wavefronts / kernel_sectors (every row of the kernel), others (rows elsewhere in the
  kernel with memory counts: `opcode@line:wavefronts/ideal/sectors/ideal_sectors`).

Usage: python3 bench/hardware/tma/parse.py measured/tma_source*.csv.gz > results.tsv
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
import sourcecounters as sc  # noqa: E402

TMA = ("UTMA", "UBLKCP", "UBLKPF", "UBLKRED", "UTMAPF", "UTMAREDG", "UTMALDG", "UTMASTG")


def main():
    cases = list(csv.DictReader(open(here / "cases.tsv"), delimiter="\t"))
    per_kernel = defaultdict(list)
    for r in sc.rows(sys.argv[1:]):
        per_kernel[r["kernel"]].append(r)
    cols = list(cases[0].keys()) + ["sass", "executed", "space", "wavefronts", "ideal", "sectors",
                                    "ideal_sectors", "kernel_wavefronts", "kernel_sectors",
                                    "others"]
    print("\t".join(cols))
    for c in cases:
        rs = per_kernel.get(c["kernel"])
        if not rs:
            print("\t".join(list(c.values()) + ["-"] * 10))
            continue
        line = int(c["line"])
        on = [r for r in rs if r["line"] == line and (r["opcode"].startswith(TMA) or sc.is_memory(r))]
        unique = {}
        for r in rs:
            unique.setdefault(r["address"], r)
        others = [f'{r["opcode"]}@{r["line"]}:{r["wavefronts"]}/{r["ideal"]}/{r["sectors"]}/'
                  f'{r["ideal_sectors"]}' for r in rs
                  if r["line"] != line and sc.is_memory(r) and (r["wavefronts"] or r["sectors"])]
        print("\t".join(list(c.values()) + [
            ",".join(r["opcode"] for r in on) or "none",
            str(sum(r["executed"] for r in on)),
            ",".join(sorted({r["space"] for r in on if r["space"] not in ("", "-")})) or "-",
            *(str(sum(r[k] for r in on)) for k in ("wavefronts", "ideal", "sectors",
                                                    "ideal_sectors")),
            str(sum(r["wavefronts"] for r in unique.values())),
            str(sum(r["sectors"] for r in unique.values())),
            ",".join(others) or "-"]))


main()
