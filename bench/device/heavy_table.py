#!/usr/bin/env python3
"""The table of bench/device/heavy.sh from its heavy.tsv: per program the plain run, the GPU
backend's default and --launches all against their targets (default <= 1.1 x plain + 0.3 s,
all <= 2 x plain), ncu's time, the per-line agreement with ncu and with the emulator, and what
went wrong (an exit code other than the plain run's, a time-out, kernels bankcheck missed).

Usage: heavy_table.py heavy.tsv
"""
import csv
import sys


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def main():
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    print("| program | plain s | gpu s | gpu / plain (<= 1.1x + 0.3 s) | all s | all / plain (<= 2x) "
          "| ncu s | lines equal (ncu) | emulator | kernels named incomplete | default's patching | notes |")
    print("|---|---:|---:|---|---:|---|---:|---|---|---|---|---|")
    met = {"gpu": 0, "all": 0}
    for r in rows:
        p, g, a, n = (num(r[k]) for k in ("plain_s", "gpu_s", "all_s", "ncu_s"))
        notes = []
        for k in ("gpu", "all", "ncu"):
            rc = r[k + "_rc"]
            if rc == "124" or rc == "137":
                notes.append(f"{k} cut off")
            elif rc == "skipped":
                notes.append(f"{k} skipped (deadline)")
            elif k != "ncu" and rc != r["plain_rc"]:
                notes.append(f"{k} rc={rc} (plain {r['plain_rc']})")
        if r["plain_rc"] not in ("0", "skipped"):
            notes.append(f"plain rc={r['plain_rc']}")
        if r["kernels_missed"] not in ("-", "0"):
            notes.append(f"{r['kernels_missed']} kernels ncu profiled are not in the report")
        if r["kernels_only_bankcheck"] not in ("-", "0"):
            notes.append(f"{r['kernels_only_bankcheck']} kernels only in the report")

        def ratio(t, limit, key):
            if p is None or t is None or r[key + "_rc"] in ("124", "137"):
                return "-"
            ok = t <= limit
            met[key] += ok
            return f"{t / p:.2f}x {'ok' if ok else 'OVER'}"

        gr = ratio(g, 1.1 * p + 0.3 if p is not None else 0, "gpu")
        ar = ratio(a, 2 * p if p is not None else 0, "all")
        lines = f"{r['lines_equal']} / {r['lines']}" if r["lines"] != "-" else "-"
        fmt = lambda x: "-" if x is None else f"{x:.2f}"
        print(f"| {r['program']} | {fmt(p)} | {fmt(g)} | {gr} | {fmt(a)} | {ar} | {fmt(n)} | "
              f"{lines} | {r['emu']} | {r.get('incomplete', '-')} | {r.get('instrumentation', '-')} | "
              f"{'; '.join(notes)} |")
    eq = sum(int(r["lines_equal"]) for r in rows if r["lines_equal"] != "-")
    total = sum(int(r["lines"]) for r in rows if r["lines"] != "-")
    print(f"\n{len(rows)} programs: default within target on {met['gpu']}, --launches all within "
          f"target on {met['all']}; lines equal to ncu {eq} of {total}")


if __name__ == "__main__":
    main()
