#!/usr/bin/env python3
"""A short table of one family's results.tsv (hopper_corpus.sh prints it at the end).

Usage: hopper_summary.py wgmma|tma|dsmem results.tsv
"""
import csv
import sys
from collections import Counter


def main():
    family, path = sys.argv[1], sys.argv[2]
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    measured = [r for r in rows if r.get("executed", "-") != "-"]
    print(f"## {family}: {len(measured)} of {len(rows)} measured")
    if family == "wgmma":
        print("id\twavefronts\tideal\tkernel_wavefronts\twhere")
        for r in measured[:40]:
            print(f'{r["id"]}\t{r["wavefronts"]}\t{r["ideal"]}\t{r["kernel_wavefronts"]}\t'
                  f'{r["where"][:60]}')
        others = Counter(r["others"] != "-" for r in measured)
        print(f"cases with shared wavefronts off the HGMMA rows: {others[True]}")
    elif family == "tma":
        print("id\tsass\tspace\twavefronts\tideal\tsectors\tideal_sectors")
        for r in measured:
            print(f'{r["id"]}\t{r["sass"][:30]}\t{r["space"]}\t{r["wavefronts"]}\t{r["ideal"]}\t'
                  f'{r["sectors"]}\t{r["ideal_sectors"]}')
    else:
        print("id\tsass\tspace\twavefronts\tideal\tsectors\tideal_sectors")
        for r in measured[:40]:
            print(f'{r["id"]}\t{r["sass"][:24]}\t{r["space"]}\t{r["wavefronts"]}\t{r["ideal"]}\t'
                  f'{r["sectors"]}\t{r["ideal_sectors"]}')


main()
