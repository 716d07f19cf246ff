#!/usr/bin/env python3
"""bankcheck's counts of the first-hour programs next to Nsight Compute's, before and after
`bankcheck fix --apply` (bench/first_hour/run.sh wrote OUT): per program, version and
kernel, the shared wavefronts and the global sectors each counts (every launch), and the
kernel's time on the GPU.

usage: compare.py OUT
"""
import csv
import json
import sys
from collections import defaultdict


def bankcheck_counts(path):
    """kernel -> (shared wavefronts, global sectors) over every file of a run's JSON report."""
    out = {}
    with open(path) as f:
        report = json.load(f)
    for file in report["files"]:
        for k in file.get("kernels", []):
            sectors = sum(l["sectors"] for l in k["lines"] if l["space"] == "global")
            out[k["name"]] = (k["shared_wavefronts"], sectors)
    return out


def main():
    out = sys.argv[1]
    ncu = defaultdict(dict)  # (program, version, kernel) -> metric -> value
    with open(f"{out}/ncu.tsv") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            ncu[(r["program"], r["version"], r["kernel"])][r["metric"]] = int(float(r["value"]))
    print("program    version   kernel               shared (bankcheck / ncu)   "
          "global sectors (bankcheck / ncu)   time (us)")
    equal = total = 0
    for program in ("transpose", "histogram", "sgemm"):
        for version, name in (("original", "before"), ("fixed", "after")):
            try:
                ours = bankcheck_counts(f"{out}/{program}.{name}.json")
            except OSError:
                continue
            for kernel, (wavefronts, sectors) in sorted(ours.items()):
                m = ncu.get((program, version, kernel), {})
                nw = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
                ns = (sum(m.get(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum", 0)
                          for op in ("ld", "st", "atom", "red")) if m else None)
                t = m.get("gpu__time_duration.sum")
                total += 2
                equal += (nw == wavefronts) + (ns == sectors)
                print(f"{program:<10} {version:<9} {kernel:<20} {wavefronts:>10} / {nw!s:>10}   "
                      f"{sectors:>12} / {ns!s:>12}   {t / 1000 if t else float('nan'):>9.1f}")
    print(f"{equal} of {total} counts equal (the kernel-level shared counter also counts other "
          f"L1 traffic; per-line agreement is bench/run's)")


if __name__ == "__main__":
    main()
