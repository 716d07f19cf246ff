#!/usr/bin/env python3
"""Per-line agreement of `bankcheck check` with Nsight Compute on the bundled examples:
shared-memory wavefronts (EX.lines.tsv) and global-memory sectors (EX.global.tsv).

For every examples/EX.cu with measurements in bench/check/measured/h100/EX.lines.tsv, runs
`bankcheck check EX.cu --blocks all --format json` (every kernel with a launch comment,
the whole grid, as on the GPU) and compares, per kernel and source line, the shared
wavefronts and ideal wavefronts with the hardware's. A line agrees when both numbers are
equal; any difference is a failure. bankcheck counts the requests the cubin's SASS makes
(ptxas run on the same PTX), so widened loads and rewritten atomics count as on the GPU.

Usage: compare.py BANKCHECK [--markdown FILE] [--examples EX,...] [--results DIR] [--known FILE]
--results reads the measurements from DIR (default bench/check/measured/h100), every EX.lines.tsv
under it, EX its path there (tuned/mixed: examples/tuned/mixed.cu). --known FILE lists
differences understood but not yet removed (a TSV: example, kernel, file, line, space,
reason): they pass while they differ and fail once they agree.
Prints the table and "N passed, M failed"; exits 1 on a difference.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "bench", "check", "measured", "h100")

def load_measured(example, suffix=".lines.tsv"):
    """(kernel, file name, line) -> the measured row. Files by their base name: headers of the
    toolkit keep their path on either machine, the example's own is relative here."""
    rows = {}
    path = os.path.join(RESULTS, example + suffix)
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            key = (r["kernel"], os.path.basename(r["file"]), int(r["line"]))
            rows[key] = r
    return rows


def run_bankcheck(binary, example):
    src = os.path.join("examples", example + ".cu")
    out = subprocess.run([binary, "check", src, "--blocks", "all", "--format", "json"], cwd=ROOT,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bankcheck failed on {src}:\n{out.stderr}")
    report = json.loads(out.stdout)
    return report["files"][0] if "files" in report else report  # one file's report


# What each memory space compares: bankcheck's JSON fields, the measured columns, and how
# to read access widths off the SASS opcodes.
SPACES = {
    "shared": (("wavefronts", "ideal_wavefronts"), (".lines.tsv", "shared_wavefronts", "shared_ideal_wavefronts")),
    "global": (("sectors", "ideal_sectors"), (".global.tsv", "sectors", "ideal_sectors")),
}


def compare(example, report, space):
    """Rows (kernel, file:line, ncu's SASS, bankcheck's SASS, ncu cost, ncu ideal, ours, ours
    ideal, verdict) and the count of differences, for one example and memory space. As
    Nsight Compute does, a site counts on every line the cubin's .debug_line gives its SASS
    instructions (nsight_lines: the helper's line in its header, and the caller's where
    ptxas wrote a row for it)."""
    (cost, ideal), (suffix, m_cost, m_ideal) = SPACES[space]
    measured = load_measured(example, suffix)
    ours, sass = {}, {}
    for k in report["kernels"]:
        for s in k["sites"]:
            # Nsight's L2 Theoretical Sectors Global has no rows for global atomics (RED/ATOMG);
            # a cp.async's global side is on its LDGSTS row (lines.py).
            if s["space"] != space or (space == "global" and s["op"] not in ("load", "store")):
                continue
            # Where Nsight lists it: the cubin's .debug_line rows of its SASS (nsight_lines);
            # without SASS, its line and its inline frames in other files.
            frames = ([(f["file"], f["line"]) for f in s["nsight_lines"]] if s.get("nsight_lines")
                      else [(s["file"], s["line"])] + [(f["file"], f["line"])
                                                         for f in s.get("inlined", [])])
            for file, line in frames:
                key = (k["name"], os.path.basename(file), line)
                a, b = ours.get(key, (0, 0))
                ours[key] = (a + s[cost], b + s[ideal])
                for op in s.get("sass", []):
                    sass.setdefault(key, {}).setdefault(op, 0)
                    sass[key][op] += 1
    rows, failed = [], 0
    for key in sorted(set(measured) | set(ours)):
        kernel, file, line = key
        m = measured.get(key)
        hw = (int(m[m_cost]), int(m[m_ideal])) if m else (0, 0)
        bc = ours.get(key, (0, 0))
        ncu_sass = m["sass_opcodes"] if m else "-"
        our_sass = ",".join(op if n == 1 else f"{op}*{n}" for op, n in sass.get(key, {}).items()) or "-"
        reason = KNOWN.get((example, kernel, file, line, space))
        USED.add((example, kernel, file, line, space))
        if reason is None:
            verdict = "yes" if hw == bc else "NO"
            failed += hw != bc
        else:
            # A known difference that disappeared fails too: the list must say what is true.
            verdict = f"known: {reason}" if hw != bc else "NO (listed as known, agrees)"
            failed += hw == bc
        rows.append((example, kernel, f"{file}:{line}", ncu_sass, our_sass, hw[0], hw[1], bc[0], bc[1],
                     verdict))
    return rows, failed


# Differences understood but not yet removed (--known FILE): (example, kernel, file name,
# line, space) -> the reason, from a TSV with those columns and `reason`.
KNOWN = {}
USED = set()  # the (example, kernel, file, line, space) keys compared


def load_known(path):
    with open(path) as f:
        for r in csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"):
            KNOWN[(r["example"], r["kernel"], r["file"], int(r["line"]), r["space"])] = r["reason"]


def markdown(rows, unit):
    header = (f"| example | kernel | line | SASS (ncu) | SASS (bankcheck) | ncu {unit} | ncu ideal "
              f"| bankcheck {unit} | bankcheck ideal | agree |\n"
              "|---|---|---|---|---|---:|---:|---:|---:|---|\n")
    return header + "".join("| " + " | ".join(str(x) for x in r) + " |\n" for r in rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bankcheck")
    ap.add_argument("--markdown")
    ap.add_argument("--examples")
    ap.add_argument("--results")
    ap.add_argument("--known")
    args = ap.parse_args()
    if args.known:
        load_known(args.known)
    global RESULTS
    if args.results:
        RESULTS = os.path.abspath(args.results)
    examples = sorted(os.path.relpath(os.path.join(d, f), RESULTS)[:-len(".lines.tsv")]
                      for d, _, files in os.walk(RESULTS) for f in files if f.endswith(".lines.tsv"))
    if args.examples:
        examples = [e for e in examples if e in args.examples.split(",")]
    tables = {"shared": [], "global": []}
    failed = 0
    for ex in examples:
        report = run_bankcheck(args.bankcheck, ex)
        for space, table in tables.items():
            rows, bad = compare(ex, report, space)
            table.extend(rows)
            failed += bad
    # A known difference on a line neither side lists any more is stale: it fails too.
    for key in sorted(k for k in KNOWN if k[0] in examples and k not in USED):
        print(f"known difference on no compared line: {' '.join(map(str, key))}")
        failed += 1
    passed = sum(len(t) for t in tables.values()) - failed
    text = ("### Shared memory: wavefronts\n\n" + markdown(tables["shared"], "wavefronts") +
            "\n### Global memory: 32-byte sectors (L2 Theoretical Sectors Global)\n\n" +
            markdown(tables["global"], "sectors"))
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    print(f"agreement: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
