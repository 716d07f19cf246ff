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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bankcheck")
    ap.add_argument("--markdown")
    ap.add_argument("--examples")
    args = ap.parse_args()
    examples = sorted(f[:-len(".lines.tsv")] for f in os.listdir(RESULTS) if f.endswith(".lines.tsv"))
    if args.examples:
        examples = [e for e in examples if e in args.examples.split(",")]
    table = []
    gtable = []
    passed = failed = 0
    for ex in examples:
        measured = load_measured(ex)
        report = run_bankcheck(args.bankcheck, ex)
        ours = {}
        widths = {}
        for k in report["kernels"]:
            for l in k["lines"]:
                if l["space"] != "shared":
                    continue
                key = (k["name"], l["line"])
                w, i = ours.get(key, (0, 0))
                ours[key] = (w + l["wavefronts"], i + l["ideal_wavefronts"])
                widths.setdefault(key, set()).add(l["width"])
        for key in sorted(set(measured) | set(ours), key=lambda k: (k[0], k[1])):
            kernel, line = key
            m = measured.get(key)
            hw = (int(m["shared_wavefronts"]), int(m["shared_ideal_wavefronts"])) if m else (0, 0)
            bc = ours.get(key, (0, 0))
            sass = m["sass_opcodes"] if m else "-"
            ptx_w = widths.get(key, set())
            if hw == bc:
                verdict, note = "yes", ""
                passed += 1
            elif m and sass_widths(sass) and sass_widths(sass) != ptx_w:
                verdict = "explained"
                note = (f"ptxas changed the access width: PTX {sorted(ptx_w)} B, "
                        f"SASS {sorted(sass_widths(sass))} B ({sass})")
                passed += 1
            else:
                verdict, note = "NO", "unexplained"
                failed += 1
            table.append((ex, kernel, line, sass, hw[0], hw[1], bc[0], bc[1], verdict, note))
        # Global memory: 32-byte sectors and the ideal, per line.
        gmeasured = load_measured(ex, ".global.tsv")
        gours, gwidths = {}, {}
        for k in report["kernels"]:
            for l in k["lines"]:
                if l["space"] != "global":
                    continue
                key = (k["name"], l["line"])
                a, b = gours.get(key, (0, 0))
                gours[key] = (a + l["sectors"], b + l["ideal_sectors"])
                gwidths.setdefault(key, set()).add(l["width"])
        for key in sorted(set(gmeasured) | set(gours), key=lambda k: (k[0], k[1])):
            kernel, line = key
            m = gmeasured.get(key)
            hw = (int(m["sectors"]), int(m["ideal_sectors"])) if m else (0, 0)
            bc = gours.get(key, (0, 0))
            sass = m["sass_opcodes"] if m else "-"
            if hw == bc:
                verdict, note = "yes", ""
                passed += 1
            elif m and global_widths(sass) and global_widths(sass) != gwidths.get(key, set()):
                verdict = "explained"
                note = (f"ptxas changed the access width: PTX {sorted(gwidths.get(key, set()))} B, "
                        f"SASS {sorted(global_widths(sass))} B ({sass})")
                passed += 1
            else:
                verdict, note = "NO", "unexplained"
                failed += 1
            gtable.append((ex, kernel, line, sass, hw[0], hw[1], bc[0], bc[1], verdict, note))
    header = ("| example | kernel | line | SASS | ncu wavefronts | ncu ideal | bankcheck wavefronts "
              "| bankcheck ideal | agree | note |\n|---|---|---:|---|---:|---:|---:|---:|---|---|\n")
    body = "".join(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | {r[6]} | {r[7]} | {r[8]} | {r[9]} |\n"
                   for r in table)
    gheader = ("| example | kernel | line | SASS | ncu sectors | ncu ideal | bankcheck sectors "
               "| bankcheck ideal | agree | note |\n|---|---|---:|---|---:|---:|---:|---:|---|---|\n")
    gbody = "".join(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | {r[6]} | {r[7]} | {r[8]} | {r[9]} |\n"
                    for r in gtable)
    text = ("### Shared memory: wavefronts\n\n" + header + body +
            "\n### Global memory: 32-byte sectors (L2 Theoretical Sectors Global)\n\n" + gheader + gbody)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    print(f"agreement: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
