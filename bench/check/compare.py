#!/usr/bin/env python3
"""Per-line agreement of `bankcheck check` with Nsight Compute on the bundled examples:
shared-memory wavefronts (EX.lines.tsv) and global-memory sectors (EX.global.tsv).

For every examples/EX.cu with measurements in bench/check/results/EX.lines.tsv, runs
`bankcheck check EX.cu --blocks all --format json` (every kernel with a launch comment,
the whole grid, as on the GPU) and compares, per kernel and source line, the shared
wavefronts and ideal wavefronts with the hardware's. A line agrees when both numbers are
equal. Where they differ, the reason is looked up in the instructions: ptxas merged or
split PTX accesses into SASS accesses of another width (the hardware then counts other
requests). Lines that differ for any other reason are failures.

Usage: compare.py BANKCHECK [--markdown FILE] [--examples EX,...]
Prints the table and "N passed, M failed" (explained differences count as passed);
exits 1 on an unexplained difference.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "bench", "check", "results")

GLOBAL_WIDTH = {"LDG.E": 4, "STG.E": 4, "LDG.E.64": 8, "STG.E.64": 8, "LDG.E.128": 16, "STG.E.128": 16,
                "LDG.E.U8": 1, "STG.E.U8": 1, "LDG.E.U16": 2, "STG.E.U16": 2, "LDG.E.S8": 1, "LDG.E.S16": 2,
                "LDG.E.CONSTANT": 4, "LDG.E.64.CONSTANT": 8, "LDG.E.128.CONSTANT": 16}
WIDTH_OF_SASS = {"LDS": 4, "STS": 4, "LDS.U8": 1, "LDS.S8": 1, "LDS.U16": 2, "LDS.S16": 2,
                 "STS.U8": 1, "STS.U16": 2, "LDS.64": 8, "STS.64": 8, "LDS.128": 16,
                 "STS.128": 16, "ATOMS.ADD": 4}


def sass_widths(opcodes):
    """'LDS.64*2,STS' -> {8, 4}"""
    widths = set()
    for part in opcodes.split(","):
        op = part.split("*")[0].strip()
        if op in WIDTH_OF_SASS:
            widths.add(WIDTH_OF_SASS[op])
    return widths


def global_widths(opcodes):
    widths = set()
    for part in opcodes.split(","):
        op = part.split("*")[0].strip()
        if op in GLOBAL_WIDTH:
            widths.add(GLOBAL_WIDTH[op])
        elif op.startswith(("LDG", "STG")):
            widths.add(-1)  # a form not in the table: unknown width
    return widths


def load_measured(example, suffix=".lines.tsv"):
    rows = {}
    path = os.path.join(RESULTS, example + suffix)
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            key = (r["kernel"], int(r["line"]))
            rows[key] = r
    return rows


def run_bankcheck(binary, example):
    src = os.path.join("examples", example + ".cu")
    out = subprocess.run([binary, "check", src, "--blocks", "all", "--format", "json"], cwd=ROOT,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bankcheck failed on {src}:\n{out.stderr}")
    return json.loads(out.stdout)


# What each memory space compares: bankcheck's JSON fields, the measured columns, and how
# to read access widths off the SASS opcodes.
SPACES = {
    "shared": (("wavefronts", "ideal_wavefronts"), (".lines.tsv", "shared_wavefronts", "shared_ideal_wavefronts"),
               sass_widths),
    "global": (("sectors", "ideal_sectors"), (".global.tsv", "sectors", "ideal_sectors"), global_widths),
}


def compare(example, report, space):
    """Rows (kernel, line, sass, ncu cost, ncu ideal, ours, ours ideal, verdict, note) and
    the count of unexplained differences, for one example and memory space."""
    (cost, ideal), (suffix, m_cost, m_ideal), widths_of = SPACES[space]
    measured = load_measured(example, suffix)
    ours, widths = {}, {}
    for k in report["kernels"]:
        for l in k["lines"]:
            if l["space"] != space:
                continue
            key = (k["name"], l["line"])
            a, b = ours.get(key, (0, 0))
            ours[key] = (a + l[cost], b + l[ideal])
            widths.setdefault(key, set()).add(l["width"])
    rows, failed = [], 0
    for key in sorted(set(measured) | set(ours)):
        kernel, line = key
        m = measured.get(key)
        hw = (int(m[m_cost]), int(m[m_ideal])) if m else (0, 0)
        bc = ours.get(key, (0, 0))
        sass = m["sass_opcodes"] if m else "-"
        ptx_w = widths.get(key, set())
        if hw == bc:
            verdict, note = "yes", ""
        elif m and widths_of(sass) and widths_of(sass) != ptx_w:
            verdict = "explained"
            note = (f"ptxas changed the access width: PTX {sorted(ptx_w)} B, "
                    f"SASS {sorted(widths_of(sass))} B ({sass})")
        else:
            verdict, note = "NO", "unexplained"
            failed += 1
        rows.append((example, kernel, line, sass, hw[0], hw[1], bc[0], bc[1], verdict, note))
    return rows, failed


def markdown(rows, unit):
    header = (f"| example | kernel | line | SASS | ncu {unit} | ncu ideal | bankcheck {unit} "
              "| bankcheck ideal | agree | note |\n|---|---|---:|---|---:|---:|---:|---:|---|---|\n")
    return header + "".join("| " + " | ".join(str(x) for x in r) + " |\n" for r in rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bankcheck")
    ap.add_argument("--markdown")
    ap.add_argument("--examples")
    args = ap.parse_args()
    examples = sorted(f[:-len(".lines.tsv")] for f in os.listdir(RESULTS) if f.endswith(".lines.tsv"))
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
