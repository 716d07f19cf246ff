#!/usr/bin/env python3
"""Per-line agreement of one `bankcheck run --format json --launches all` report with Nsight
Compute's source counters of the same program run (launch_lines.py's RUN.program_lines.tsv),
line by line as bench/run/compare.py compares (file base name, line, space; shared
wavefronts and ideal, global sectors and ideal). A cp.async's global sectors, which Nsight
Compute lists on its LDGSTS (shared) row, are compared with the report's global sites of the
same line (compare.async_copy_sectors).

Usage: compare_report.py REPORT.json RUN.program_lines.tsv [--markdown FILE]
Prints the table and "N passed, M failed"; exits 1 on a difference.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "run"))
import compare  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("program_lines")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    import json
    with open(a.report) as f:
        report = json.load(f)
    ours, _ = compare.our_lines(report)
    path = os.path.abspath(a.program_lines)
    compare.RESULTS = os.path.dirname(path)
    run = os.path.basename(path)[: -len(".program_lines.tsv")]
    rows, failed = compare.compare(run, ours, compare.truth_lines(run), "all")
    # Lines whose instructions the report names as not counted (wgmma operands, bulk copies):
    # a difference there is what the note says, not a failure.
    noted = set()
    for k in compare.kernels_of(report):
        for n in k.get("notes", []):
            if n.get("message", "").startswith("not counted"):
                noted.add((os.path.basename(n["file"]), n["line"]))
    for i, r in enumerate(rows):
        file, line = r[1].rsplit(":", 1)
        if r[8] == "NO" and r[6] == 0 and r[7] == 0 and (file, int(line)) in noted:
            rows[i] = r[:8] + ("not counted (named in a note)",)
            failed -= 1
    # Lines only bankcheck has (ncu listed none) are differences too.
    truth_keys = {(r[1], r[2]) for r in rows}
    for (file, line, space), (cost, ideal) in sorted(ours.items()):
        if (f"{file}:{line}", space) not in truth_keys and (cost or ideal):
            rows.append((f"{run} (all)", f"{file}:{line}", space, "-", 0, 0, cost, ideal, "NO"))
            failed += 1
    text = ("| run | line | space | SASS (ncu) | ncu cost | ncu ideal | bankcheck cost | "
            "bankcheck ideal | agree |\n|---|---|---|---|---:|---:|---:|---:|---|\n" +
            "".join("| " + " | ".join(str(x) for x in r) + " |\n" for r in rows))
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    print(f"agreement: {len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
