#!/usr/bin/env python3
"""Turn a corpus's raw Nsight Compute CSV into one line per measured pattern:

    id kernel form wavefronts conflicts inst_executed shared_wavefronts

`form` is the SASS the kernel compiled to (the sass-form lines of *_sass.txt);
`wavefronts`, `conflicts` and `inst_executed` come from the metric of that instruction
class, the first of a list of candidates that the CSV has (the header says which);
`shared_wavefronts` is the total over every shared instruction class where measured
(it includes the atomics' initial STS), '-' where not. This is what CPU tests replay:
pattern -> wavefronts.

The CSV holds several ncu runs; a line "==CHUNK== first=I count=N" before each says which
patterns (by position in the pattern file) it covers, in order. A launch whose kernel is
not the pattern's kernel is reported and skipped; patterns never launched are left out.

Usage: summarize.py PATTERNS NCU_CSV[.gz] SASS_TXT      (the atomics corpus)
matrix/summarize.py reuses `summarize` with its own candidates.
"""
import csv
import gzip
import re
import sys

TOTAL = ["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]

# Kernel-name regex -> candidates per column, first present wins.
ATOMICS = [
    (r".*", {
        "wavefronts": ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"],
        "conflicts": ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"],
        "inst_executed": ["smsp__inst_executed_op_shared_atom.sum",
                          "smsp__sass_inst_executed_op_shared_atom.sum"],
    }),
]


def read_patterns(path):
    out = []
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            f = line.split()
            out.append((f[0], f[1]))
    return out


def read_forms(path):
    forms = {}
    for line in open(path, errors="replace"):
        m = re.match(r"sass-form (\S+) (\S+)", line)
        if m:
            forms[m.group(1)] = m.group(2)
    return forms


def read_launches(path):
    """[(pattern index, kernel, {metric: value})] in file order."""
    opener = gzip.open if path.endswith(".gz") else open
    launches, first, ids = [], 0, {}
    with opener(path, "rt", errors="replace") as f:
        for line in f:
            m = re.match(r"==CHUNK== first=(\d+)", line)
            if m:
                first, ids = int(m.group(1)), {}
                continue
            if line.startswith("==") or line.startswith('"ID"') or not line.strip():
                continue
            row = next(csv.reader([line]))
            if len(row) < 15:
                continue
            if row[0] not in ids:
                ids[row[0]] = len(launches)
                kernel = row[4].split("(")[0].strip()
                launches.append((first + len(ids) - 1, kernel, {}))
            value = row[14].replace(",", "")
            try:
                launches[ids[row[0]]][2][row[12]] = float(value)
            except ValueError:
                launches[ids[row[0]]][2][row[12]] = float("nan")
    return launches


def fmt(v):
    if v is None:
        return "-"
    return str(int(v)) if v == int(v) else f"{v:g}"


def summarize(patterns_path, csv_path, sass_path, families, out=sys.stdout):
    patterns = read_patterns(patterns_path)
    forms = read_forms(sass_path)
    launches = read_launches(csv_path)
    present = set()
    for _, _, metrics in launches:
        present |= set(metrics)
    chosen = []  # (regex, {column: metric or None})
    for regex, cols in families:
        chosen.append((re.compile(regex), {c: next((m for m in cands if m in present), None)
                                            for c, cands in cols.items()}))
    total = next((m for m in TOTAL if m in present), None)
    print("# id kernel form wavefronts conflicts inst_executed shared_wavefronts", file=out)
    for regex, cols in chosen:
        print(f"# kernels /{regex.pattern}/: " +
              ", ".join(f"{c} = {m or 'not measured'}" for c, m in cols.items()), file=out)
    print(f"# shared_wavefronts = {total or 'not measured'}", file=out)
    done, bad = 0, 0
    for index, kernel, metrics in launches:
        if index >= len(patterns) or patterns[index][1] != kernel:
            want = patterns[index][1] if index < len(patterns) else "none"
            print(f"# launch {index}: kernel {kernel}, pattern expects {want}: skipped", file=out)
            bad += 1
            continue
        pid, _ = patterns[index]
        cols = next(c for r, c in chosen if r.fullmatch(kernel))
        vals = [metrics.get(cols[c]) if cols[c] else None
                for c in ("wavefronts", "conflicts", "inst_executed")]
        vals.append(metrics.get(total) if total else None)
        print(pid, kernel, forms.get(kernel, "unknown"), *map(fmt, vals), file=out)
        done += 1
    print(f"# {done} of {len(patterns)} patterns measured, {bad} launches skipped", file=out)
    return done


def main(families=ATOMICS):
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    summarize(*sys.argv[1:], families)
    return 0


if __name__ == "__main__":
    sys.exit(main())
