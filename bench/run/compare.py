#!/usr/bin/env python3
"""Per-line agreement of `bankcheck run` with Nsight Compute on the programs of examples/run:
shared-memory wavefronts and ideal wavefronts, global 32-byte sectors and ideal sectors.

For every run of examples/run/programs.txt with measurements in bench/run/measured/h100 (truth.sh),
runs the program under `bankcheck run --format json` from its directory and compares, per
source line (file base name and line) and memory space, bankcheck's counts with ncu's summed
over the same launches:
  --launches all   every launch analysed; against RUN.program_lines.tsv (the whole run);
  default          the first launch of each kernel and configuration; against the launches
                   whose IDs the report lists (analysed_ids), from RUN.launch_lines.tsv.
A site counts on every line the cubin's .debug_line gives its SASS (nsight_lines), as Nsight
Compute lists it. A cp.async's global sectors, which Nsight Compute lists on its LDGSTS
(shared) row, are compared with the report's global sites of the line (async_copy_sectors).
A line agrees when both numbers are equal.

Usage: compare.py BANKCHECK PROGRAMS_DIR [--runs R1,R2] [--mode all|default|both]
       [--results DIR] [--markdown FILE] [--known FILE]
PROGRAMS_DIR holds the built programs (a build's examples/run/bin). --known FILE lists
differences understood but not removed (TSV: run, file, line, space, reason): they pass while
they differ and fail once they agree.
Prints the table and "N passed, M failed"; exits 1 on a difference.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "bench", "run", "measured", "h100")
FIELDS = {"shared": ("wavefronts", "ideal_wavefronts"), "global": ("sectors", "ideal_sectors")}


def manifest():
    progs, runs = {}, []
    with open(os.path.join(ROOT, "examples", "run", "programs.txt")) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "program":
                progs[w[1]] = w[2]
            elif w[0] == "run":
                runs.append((w[1], w[2], w[3:]))
    return progs, runs


BACKEND = []


def run_bankcheck(binary, programs, progs, name, args, launches_all):
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    cmd = [binary, "run", "--no-progress", "--format", "json", "-o", out] + BACKEND
    if launches_all:
        cmd += ["--launches", "all"]
    cmd += ["--", os.path.join(programs, name)] + args
    p = subprocess.run(cmd, cwd=os.path.join(ROOT, "examples", "run", progs[name]),
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-3000:]}")
    with open(out) as f:
        report = json.load(f)
    os.unlink(out)
    return report


def kernels_of(report):
    if "files" in report:
        for f in report["files"]:
            yield from (f.get("report") or f).get("kernels", [])
    else:
        yield from report.get("kernels", [])


def our_lines(report):
    """(file base name, line, space) -> [cost, ideal], and the analysed launch IDs."""
    lines, ids = {}, []
    for k in kernels_of(report):
        for l in k.get("launches", []):
            ids.extend(l["analysed_ids"])
        for s in k["sites"]:
            space = s["space"]
            if space not in FIELDS:
                continue
            cost, ideal = FIELDS[space]
            frames = ([(f["file"], f["line"]) for f in s["nsight_lines"]] if s.get("nsight_lines")
                      else [(s["file"], s["line"])])
            for file, line in frames:
                key = (os.path.basename(file), line, space)
                v = lines.setdefault(key, [0, 0])
                v[0] += s.get(cost, 0)
                v[1] += s.get(ideal, 0)
    return lines, ids


def truth_lines(run, ids=None):
    lines = {}
    name = f"{run}.program_lines.tsv" if ids is None else f"{run}.launch_lines.tsv"
    with open(os.path.join(RESULTS, name)) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if ids is not None and int(r["launch"]) not in ids:
                continue
            space = r["space"]
            cost, ideal = FIELDS[space]
            key = (os.path.basename(r["file"]), int(r["line"]), space)
            v = lines.setdefault(key, [0, 0, set()])
            v[0] += int(r[cost])
            v[1] += int(r[ideal])
            v[2].add(r["sass_opcodes"])
            sectors = async_copy_sectors(space, r)
            if sectors:
                g = lines.setdefault(key[:2] + ("global",), [0, 0, set()])
                g[0] += sectors[0]
                g[1] += sectors[1]
                g[2].add(r["sass_opcodes"])
    return lines


def async_copy_sectors(space, row):
    """(sectors, ideal) of a shared row's global side, or None. Nsight Compute lists a cp.async's
    global sectors on its LDGSTS row (the only shared instruction with sectors), where a
    report has them on a global site of the same line; they are compared as global, as
    bench/check/lines.py pairs them for the emulator's replays."""
    if space != "shared":
        return None
    sectors, ideal = int(float(row["sectors"])), int(float(row["ideal_sectors"]))
    return (sectors, ideal) if sectors or ideal else None


KNOWN = {}


def load_known(path):
    with open(path) as f:
        for r in csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"):
            KNOWN[(r["run"], r["file"], int(r["line"]), r["space"])] = r["reason"]


def compare(run, ours, truth, mode):
    rows, failed = [], 0
    for key in sorted(set(ours) | set(truth)):
        file, line, space = key
        t = truth.get(key, [0, 0, set()])
        o = ours.get(key, [0, 0])
        # A line Nsight lists with no sectors and no wavefronts (instructions that never move
        # data, or SASS of a space it does not count) is no difference.
        if key not in ours and t[0] == 0 and t[1] == 0:
            continue
        same = (t[0], t[1]) == (o[0], o[1])
        reason = KNOWN.get((run, file, line, space))
        if reason is None:
            verdict = "yes" if same else "NO"
            failed += not same
        else:  # a known difference that disappeared fails too: the list must say what is true
            verdict = f"known: {reason}" if not same else "NO (listed as known, agrees)"
            failed += same
        rows.append((f"{run} ({mode})", f"{file}:{line}", space, ",".join(sorted(t[2])) or "-",
                     t[0], t[1], o[0], o[1], verdict))
    return rows, failed


def main():
    global RESULTS
    ap = argparse.ArgumentParser()
    ap.add_argument("bankcheck")
    ap.add_argument("programs")
    ap.add_argument("--runs")
    ap.add_argument("--mode", default="both", choices=["all", "default", "both"])
    ap.add_argument("--results")
    ap.add_argument("--markdown")
    ap.add_argument("--known")
    ap.add_argument("--backend", choices=["emulator", "gpu", "auto"],
                    help="bankcheck run's backend (default: bankcheck's own default)")
    a = ap.parse_args()
    if a.known:
        load_known(a.known)
    if a.results:
        RESULTS = os.path.abspath(a.results)
    if a.backend:
        BACKEND[:] = ["--backend", a.backend]
    progs, runs = manifest()
    if a.runs:
        wanted = a.runs.split(",")
        runs = [r for r in runs if r[0] in wanted]
    runs = [r for r in runs if os.path.exists(os.path.join(RESULTS, r[0] + ".program_lines.tsv"))]
    table, failed = [], 0
    for run, name, args in runs:
        for mode in (["all", "default"] if a.mode == "both" else [a.mode]):
            try:
                report = run_bankcheck(a.bankcheck, os.path.abspath(a.programs), progs, name,
                                       args, mode == "all")
            except SystemExit as e:  # one program's failure is reported, the rest still run
                print(f"{run} ({mode}): {e}", file=sys.stderr)
                failed += 1
                continue
            ours, ids = our_lines(report)
            truth = truth_lines(run, None if mode == "all" else set(ids))
            rows, bad = compare(run, ours, truth, mode)
            table += rows
            failed += bad
    text = ("| run | line | space | SASS (ncu) | ncu cost | ncu ideal | bankcheck cost | "
            "bankcheck ideal | agree |\n|---|---|---|---|---:|---:|---:|---:|---|\n" +
            "".join("| " + " | ".join(str(x) for x in r) + " |\n" for r in table))
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    print(f"agreement: {len(table) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
