#!/usr/bin/env python3
"""Per-line agreement of one `bankcheck run --format json` report with Nsight Compute's source
counters of the same launches, kernel by kernel, or with another bankcheck report (the GPU
backend against the emulator).

Usage: compare_heavy.py REPORT.json (NCU.source.csv[.gz] | OTHER.json) [--markdown FILE]
                        [--run NAME] [--summary FILE] [--known FILE]
       compare_heavy.py --replay DIR [--known FILE]
--replay compares, for each DIR/NAME/ that holds both, gpu.json with ncu.source.csv.gz (the
results heavy.sh keeps), and all.json with emu_all.json and gpu.json with emu.json where those
are kept; --known FILE (default DIR/known.tsv) lists differences understood (TSV: run,
kernel, line, space, reason): they pass while they differ and fail once they agree.

Against ncu (`ncu --section SourceCounters --page source --csv --print-source cuda,sass`, with
the same launch filter as bankcheck's: `--filter-mode per-launch-config --launch-count 1` for
its default): the kernels are paired by name (launch_lines.name_key); for the kernels both
list, every (file base name, line, space) of either side is compared, shared wavefronts and
ideal wavefronts, global sectors and ideal sectors, summed over the kernel's analysed
(profiled) launches. A kernel ncu profiled that the report does not list is a failure (a
launch bankcheck missed); a kernel only the report lists is named (ncu groups launch
configurations its own way) but not compared. Lines whose instructions the report names as
not counted (wgmma operands, bulk copies) pass when bankcheck has nothing there. A cp.async's
global sectors, which Nsight Compute lists on its LDGSTS row, are compared with the report's
global sites of the line (bench/run/compare.py's async_copy_sectors).

Prints the table, then "kernels: ..." and "agreement: N passed, M failed"; --summary FILE
writes one line "passed total kernels_both kernels_missed kernels_only_bankcheck". Exit 1 on
a failure.
"""
import argparse
import csv
import gzip
import json
import os
import sys
from collections import OrderedDict

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "run"))
import compare as run_compare  # noqa: E402
import launch_lines  # noqa: E402

FIELDS = {"shared": ("wavefronts", "ideal_wavefronts"), "global": ("sectors", "ideal_sectors")}


def kernels_of(report):
    if "files" in report:
        for f in report["files"]:
            yield from (f.get("report") or f).get("kernels", [])
    else:
        yield from report.get("kernels", [])


def report_kernels(report):
    """{kernel key: {(file, line, space): [cost, ideal]}}, and {key: lines noted as not
    counted}."""
    out, noted = OrderedDict(), {}
    for k in kernels_of(report):
        key = launch_lines.name_key(k.get("signature") or k.get("name", "?"))
        lines = out.setdefault(key, {})
        for s in k.get("sites", []):
            space = s.get("space")
            if space not in FIELDS:
                continue
            cost, ideal = FIELDS[space]
            frames = ([(f["file"], f["line"]) for f in s["nsight_lines"]] if s.get("nsight_lines")
                      else [(s.get("file", ""), s.get("line", 0))])
            for file, line in frames:
                v = lines.setdefault((os.path.basename(file), int(line), space), [0, 0])
                v[0] += s.get(cost, 0)
                v[1] += s.get(ideal, 0)
        for n in k.get("notes", []):
            if n.get("message", "").startswith("not counted") and "file" in n:
                noted.setdefault(key, set()).add((os.path.basename(n["file"]), n.get("line", 0)))
    return out, noted


def ncu_kernels(path):
    """{kernel key: {(file, line, space): [cost, ideal]}} summed over the profiled launches."""
    out = OrderedDict()
    errors, notes = [], []  # notes: Nsight's line rows that do not add up with Hopper's async ops
    for signature, files in launch_lines.split_launches(launch_lines.read_blocks(path)):
        key = launch_lines.name_key(signature or "?")
        lines = out.setdefault(key, {})
        for file, flines in files:
            rows = launch_lines.line_rows(flines, path, key, errors, notes)
            for (line, space), (_, sums) in rows.items():
                cost, ideal = FIELDS[space]
                v = lines.setdefault((os.path.basename(file), int(line), space), [0, 0])
                v[0] += int(sums[cost])
                v[1] += int(sums[ideal])
                sectors = run_compare.async_copy_sectors(space, sums)
                if sectors:  # a cp.async's global side, listed on its LDGSTS row
                    g = lines.setdefault((os.path.basename(file), int(line), "global"), [0, 0])
                    g[0] += sectors[0]
                    g[1] += sectors[1]
    for e in errors:
        print(e, file=sys.stderr)
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    return out


KNOWN = {}


def load_known(path):
    with open(path) as f:
        for r in csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"):
            KNOWN[(r["run"], r["kernel"], r["line"], r["space"])] = r["reason"]


def compare(run, ours, noted, theirs, their_name):
    rows, failed = [], 0
    both = [k for k in theirs if k in ours]
    missed = [k for k in theirs if k not in ours]
    only_ours = [k for k in ours if k not in theirs]
    for k in both:
        o, t = ours[k], theirs[k]
        for key in sorted(set(o) | set(t)):
            file, line, space = key
            a, b = o.get(key, [0, 0]), t.get(key, [0, 0])
            if key not in o and b == [0, 0]:
                continue  # a line with no traffic on either side
            if key not in t and a == [0, 0]:
                continue
            same = a == b
            verdict = "yes"
            reason = KNOWN.get((run, k, f"{file}:{line}", space))
            if reason is not None:  # a known difference that disappeared fails too
                verdict = f"known: {reason}" if not same else "NO (listed as known, agrees)"
                failed += same
            elif not same and a == [0, 0] and (file, line) in noted.get(k, set()):
                verdict = "not counted (named in a note)"
            elif not same:
                verdict = "NO"
                failed += 1
            rows.append((run, k, f"{file}:{line}", space, b[0], b[1], a[0], a[1], verdict))
    for k in missed:
        rows.append((run, k, "-", "-", "-", "-", "-", "-",
                     f"NO: {their_name} has this kernel, the report does not"))
        failed += 1
    return rows, failed, len(both), missed, only_ours


def kept(d, name):
    """DIR/NAME, or DIR/NAME.gz where a large report was kept compressed; None if neither."""
    for p in (os.path.join(d, name), os.path.join(d, name + ".gz")):
        if os.path.exists(p):
            return p
    return None


def open_kept(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def replay(results):
    """Every kept run of heavy.sh under `results`: (rows, failed)."""
    rows, failed = [], 0
    for name in sorted(os.listdir(results)):
        d = os.path.join(results, name)
        pairs = [("gpu.json", "ncu.source.csv.gz", "ncu"), ("gpu.json", "emu.json", "emulator"),
                 ("all.json", "emu_all.json", "emulator, all")]
        for mine, truth, what in pairs:
            mine_path, truth_path = kept(d, mine), kept(d, truth)
            if not (mine_path and truth_path):
                continue
            with open_kept(mine_path) as f:
                ours, noted = report_kernels(json.load(f))
            if truth.endswith(".json"):
                with open_kept(truth_path) as f:
                    theirs, _ = report_kernels(json.load(f))
            else:
                theirs = ncu_kernels(truth_path)
            r, bad, _, _, _ = compare(f"{name} ({what})", ours, noted, theirs, what)
            rows += r
            failed += bad
    return rows, failed


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--replay":
        ap = argparse.ArgumentParser()
        ap.add_argument("--replay", required=True)
        ap.add_argument("--known")
        a = ap.parse_args()
        known = a.known or os.path.join(a.replay, "known.tsv")
        if os.path.exists(known):
            load_known(known)
        rows, failed = replay(a.replay)
        for r in rows:
            if not r[-1].startswith("yes"):
                print("| " + " | ".join(str(x) for x in r) + " |")
        print(f"agreement: {len(rows) - failed} passed, {failed} failed")
        return 1 if failed or not rows else 0
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("truth")
    ap.add_argument("--markdown")
    ap.add_argument("--run", default="")
    ap.add_argument("--summary")
    ap.add_argument("--known")
    a = ap.parse_args()
    if a.known:
        load_known(a.known)
    with open(a.report) as f:
        ours, noted = report_kernels(json.load(f))
    if a.truth.endswith(".json"):
        with open(a.truth) as f:
            theirs, _ = report_kernels(json.load(f))
        their_name = "the other report"
    else:
        theirs = ncu_kernels(a.truth)
        their_name = "ncu"
    rows, failed, nboth, missed, only_ours = compare(a.run or os.path.basename(a.report), ours,
                                                      noted, theirs, their_name)
    text = (f"| run | kernel | line | space | {their_name} cost | {their_name} ideal | "
            "bankcheck cost | bankcheck ideal | agree |\n|---|---|---|---|---:|---:|---:|---:|---|\n" +
            "".join("| " + " | ".join(str(x) for x in r) + " |\n" for r in rows))
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    print(f"kernels: {nboth} in both, {len(missed)} only in {their_name} "
          f"({', '.join(missed) or '-'}), {len(only_ours)} only in the report "
          f"({', '.join(only_ours) or '-'})")
    print(f"agreement: {len(rows) - failed} passed, {failed} failed")
    if a.summary:
        with open(a.summary, "w") as f:
            f.write(f"{len(rows) - failed} {len(rows)} {nboth} {len(missed)} {len(only_ours)}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
