#!/usr/bin/env python3
"""Turns run.sh's Source Counters CSVs into results.tsv, one row per case of cases.tsv:

  the case's columns, then: hgmma (its SASS rows' opcodes), executed (warp-level, summed over
  the HGMMA rows), wavefronts and ideal (the HGMMA rows), kernel_wavefronts and kernel_ideal
  (every row of the kernel: whatever else carries shared wavefronts shows as a difference),
  where (each line listing shared wavefronts: `line:wavefronts/ideal`, an instruction counted
  under every line that lists it), others (the non-HGMMA rows with shared wavefronts).

Usage: python3 bench/hardware/wgmma/parse.py measured/wgmma_source*.csv.gz > results.tsv
A case that ncu did not list gets `-` (its kernel failed, or the budget ran out).
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
import sourcecounters as sc  # noqa: E402


def main():
    cases = list(csv.DictReader(open(here / "cases.tsv"), delimiter="\t"))
    per_kernel = defaultdict(list)
    for r in sc.rows(sys.argv[1:]):
        per_kernel[r["kernel"]].append(r)
    cols = list(cases[0].keys()) + ["hgmma", "executed", "wavefronts", "ideal",
                                    "kernel_wavefronts", "kernel_ideal", "where", "others"]
    print("\t".join(cols))
    for c in cases:
        rs = per_kernel.get(c["kernel"])
        if not rs:
            print("\t".join(list(c.values()) + ["-"] * 8))
            continue
        unique = {}
        for r in rs:
            unique.setdefault(r["address"], r)
        hg = [r for r in unique.values() if r["opcode"].startswith("HGMMA")]
        lines = defaultdict(lambda: [0, 0])
        for r in rs:
            if r["wavefronts"] or r["ideal"]:
                lines[r["line"]][0] += r["wavefronts"]
                lines[r["line"]][1] += r["ideal"]
        others = [f'{r["opcode"]}@{r["line"]}:{r["wavefronts"]}/{r["ideal"]}'
                  for r in unique.values()
                  if not r["opcode"].startswith("HGMMA") and (r["wavefronts"] or r["ideal"])]
        print("\t".join(list(c.values()) + [
            ",".join(r["opcode"] for r in hg) or "none",
            str(sum(r["executed"] for r in hg)),
            str(sum(r["wavefronts"] for r in hg)),
            str(sum(r["ideal"] for r in hg)),
            str(sum(r["wavefronts"] for r in unique.values())),
            str(sum(r["ideal"] for r in unique.values())),
            ",".join(f"{l}:{w}/{i}" for l, (w, i) in sorted(lines.items(), key=lambda x: x[0] or 0))
            or "-",
            ",".join(others) or "-"]))


main()
