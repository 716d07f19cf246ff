#!/usr/bin/env python3
"""Per-line agreement of `bankcheck run` with Nsight Compute on the launch-heavy programs of
examples/launch_heavy: shared-memory wavefronts and ideal wavefronts, global 32-byte sectors
and ideal sectors, over the launches `bankcheck run` analyses by default (the first of each
kernel and launch configuration), against the same launches profiled on the GPU
(bench/run/launch_heavy_truth.sh with ncu --filter-mode per-launch-config --launch-count 1;
results in bench/run/measured/launch_heavy).

Each program runs with the arguments `0 0 0`: every variant and block size validated, no
timed launch. The launches analysed are those of the default arguments (every timed launch
repeats a validated configuration); the timing loop only adds time. matmul_forward runs its
variants 1 and 2: variant 3 calls cuBLAS, whose kernels carry no PTX and cannot run without
a GPU. The program must exit 0 and print PASSED.

Every launch bankcheck analysed must be one the GPU profiled (kernel, grid, block), and
every profiled launch of a kernel bankcheck ran must be one it analysed; lines are then
compared over those launches, as bench/run/compare.py compares them.

Usage: compare_launch_heavy.py BANKCHECK PROGRAMS_DIR [--programs P1,P2] [--results DIR]
       [--known FILE] [--markdown FILE] [--args A,B,C]
PROGRAMS_DIR holds the programs (the static-runtime builds, as CMake builds them; the
shared-runtime copies work the same). --args runs each program once with those arguments
instead (e.g. `2,64,0`: matmul_forward's tiled variant at one block size); the profiled
launches of kernels that run did not reach are listed as not replayed, with their lines.
Prints the table and "N passed, M failed"; exits 1 on a difference.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare as run_compare  # noqa: E402
from launch_lines import name_key  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
RESULTS = os.path.join(HERE, "measured", "launch_heavy")
RUNS = {"matmul_forward": [["1", "0", "0"], ["2", "0", "0"]]}


def programs():
    with open(os.path.join(ROOT, "examples", "launch_heavy", "programs.txt")) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def run_bankcheck(binary, programs_dir, name, args):
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    cmd = [binary, "run", "--no-progress", "--format", "json", "-o", out, "--",
           os.path.join(programs_dir, name)] + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 or "\nPASSED\n" not in "\n" + p.stdout:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stdout[-2000:]}"
                         f"{p.stderr[-2000:]}")
    with open(out) as f:
        report = json.load(f)
    os.unlink(out)
    return report


def dims(text):
    return tuple(int(x) for x in text.split(","))


def truth_launches(results, name):
    """[(launch id, kernel key, grid, block)] of the profiled launches with source counters."""
    with open(os.path.join(results, f"{name}.launches.tsv")) as f:
        return [(int(r["launch"]), name_key(r["kernel"]), dims(r["grid"]), dims(r["block"]))
                for r in csv.DictReader(f, delimiter="\t")]


def truth_lines(results, name, ids):
    lines = {}
    with open(os.path.join(results, f"{name}.launch_lines.tsv")) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if int(r["launch"]) not in ids:
                continue
            cost, ideal = run_compare.FIELDS[r["space"]]
            key = (os.path.basename(r["file"]), int(r["line"]), r["space"])
            v = lines.setdefault(key, [0, 0, set()])
            v[0] += int(r[cost])
            v[1] += int(r[ideal])
            v[2].add(r["sass_opcodes"])
    return lines


def check_program(binary, programs_dir, results, name, runs=None):
    """(table rows, failures, problems, launches compared, not replayed) of one program."""
    ours, analysed, problems = {}, [], []
    for args in runs or RUNS.get(name, [["0", "0", "0"]]):
        report = run_bankcheck(binary, programs_dir, name, args)
        lines, _ = run_compare.our_lines(report)
        for key, (cost, ideal) in lines.items():
            v = ours.setdefault(key, [0, 0])
            v[0] += cost
            v[1] += ideal
        for k in run_compare.kernels_of(report):
            for l in k.get("launches", []):
                analysed += [(name_key(k["name"]), tuple(l["grid"]), tuple(l["block"]))] * \
                    l["analysed"]
    profiled = truth_launches(results, name)
    ran = {a[0] for a in analysed}
    ids, unmatched, skipped = set(), list(analysed), []
    for lid, kernel, grid, block in profiled:
        if (kernel, grid, block) in unmatched:
            unmatched.remove((kernel, grid, block))
            ids.add(lid)
        elif kernel in ran:
            problems.append(f"{name}: launch {lid} ({kernel}, grid {grid}, block {block}) was "
                            "profiled and not analysed")
        else:
            skipped.append(lid)
    compared = truth_lines(results, name, ids)
    not_replayed = [f"{name}: launch {lid} ({kernel}, grid {grid}, block {block}) not replayed"
                    for lid, kernel, grid, block in profiled if lid in skipped]
    not_replayed += [f"{name}: {f}:{line} {space} not replayed"
                     for (f, line, space) in sorted(truth_lines(results, name, set(skipped)))
                     if (f, line, space) not in compared]
    for kernel, grid, block in unmatched:
        problems.append(f"{name}: {kernel} (grid {grid}, block {block}) was analysed and "
                        "not profiled")
    rows, failed = run_compare.compare(name, ours, compared, "default")
    return rows, failed, problems, len(ids), not_replayed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bankcheck")
    ap.add_argument("programs")
    ap.add_argument("--programs", dest="names")
    ap.add_argument("--results", default=RESULTS)
    ap.add_argument("--known")
    ap.add_argument("--markdown")
    ap.add_argument("--args")
    a = ap.parse_args()
    runs = [a.args.split(",")] if a.args else None
    if a.known:
        run_compare.load_known(a.known)
    names = [n for n in programs()
             if os.path.exists(os.path.join(a.results, f"{n}.launch_lines.tsv"))]
    if a.names:
        names = [n for n in names if n in a.names.split(",")]
    table, failed, launch_problems = [], 0, 0
    for name in names:
        try:
            rows, bad, problems, launches, not_replayed = check_program(
                a.bankcheck, os.path.abspath(a.programs), a.results, name, runs)
        except SystemExit as e:  # one program's failure is reported, the rest still run
            print(f"{name}: {e}", file=sys.stderr)
            launch_problems += 1
            continue
        for p in problems:
            print(p, file=sys.stderr)
        launch_problems += len(problems)
        for n in not_replayed:
            print(n, file=sys.stderr)
        print(f"{name}: {launches} launches compared, {len(rows)} lines", file=sys.stderr)
        table += rows
        failed += bad
    text = ("| program | line | space | SASS (ncu) | ncu cost | ncu ideal | bankcheck cost | "
            "bankcheck ideal | agree |\n|---|---|---|---|---:|---:|---:|---:|---|\n" +
            "".join("| " + " | ".join(str(x) for x in r) + " |\n" for r in table))
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    print(f"agreement: {len(table) - failed} passed, {failed} failed; {launch_problems} launches "
          "analysed or profiled alone")
    sys.exit(1 if failed or launch_problems or not names else 0)


if __name__ == "__main__":
    main()
