#!/usr/bin/env python3
"""Per-launch and per-line counts of a whole program from Nsight Compute's source counters.

Usage: launch_lines.py RUN.source.csv[.gz] [RUN.launches.csv[.gz]]

RUN.source.csv is what `ncu --section SourceCounters --page source --csv --print-source
cuda,sass` prints for every launch of one program run; RUN.launches.csv is what
`ncu --metrics ... --csv` prints for the same run (one row per launch and metric, with the
launch's ID, kernel name, block and grid). Writes, beside the first file:

  RUN.launches.tsv       launch kernel grid block [the metrics' values...]
  RUN.launch_lines.tsv   launch kernel file line space sass_opcodes requests
                         wavefronts ideal_wavefronts sectors ideal_sectors
  RUN.lines.tsv          the same summed over the launches of each kernel (no launch column)
  RUN.program_lines.tsv  file line space sass_opcodes requests wavefronts ideal_wavefronts
                         sectors ideal_sectors, summed over every launch of every kernel:
                         the per-line totals a whole-program report gives

space is shared (LDS, STS, ATOMS, LDSM, STSM, LDGSTS instructions and every instruction whose
address space ncu gives as Shared) or global (LDG, STG, ATOMG, REDG, RED, ATOM); requests is ncu's
"Instructions Executed" (warp-level, warps whose lanes are all predicated off included);
wavefronts are "L1 Wavefronts Shared" (and "Ideal"), sectors "L2 Theoretical Sectors
Global" (and "Ideal"). A line with both spaces has a row for each.

The source CSV lists, per launch, one block per source file ("File Path", "Function Name",
a header, then each CUDA line's totals followed by its SASS rows, every SASS row twice);
SASS rows are de-duplicated by address as bench/check/lines.py does, and each line's
de-duplicated rows must add up to its CUDA row. A launch ends where the kernel name changes
or a file comes back. The launches are then paired in order with the metrics CSV's IDs, and
each launch's shared load and store instructions are checked against its kernel-level
smsp__inst_executed_op_shared_{ld,st} when those were collected. Any mismatch is printed to
stderr and makes the exit status 1, but a line's own row in a launch with wgmma, TMA or cluster
instructions, which Nsight Compute computes otherwise (HOPPER_ASYNC below): those are counted
in one note.
"""
import csv
import os
import re
import sys
from collections import OrderedDict

sys.dont_write_bytecode = True  # no __pycache__ left in bench/check
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "check"))
from lines import (COLS, SHARED_OP, fmt, num, opcode, open_text, plain_name,  # noqa: E402
                   short_file)

# lines.py's global opcodes and REDG (a global reduction whose result is unused), so that
# every global instruction's requests are counted.
GLOBAL_OP = re.compile(r"^(LDG|STG|ATOMG|REDG|RED|ATOM)\b")

COUNTS = ("requests", "wavefronts", "ideal_wavefronts", "sectors", "ideal_sectors")
SOURCE_COL = {"requests": "executed", "wavefronts": "wavefronts",
              "ideal_wavefronts": "ideal", "sectors": "sectors", "ideal_sectors": "ideal_sectors"}


def name_key(name):
    """A kernel name both CSVs agree on: plain_name's, with casts and integer suffixes gone
    ('k<(unsigned int)256>' and 'k<256U>' -> 'k<256>'; false/true -> 0/1)."""
    s = plain_name(name)
    s = re.sub(r"\([a-z ]+\)(-?\d)", r"\1", s)
    s = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", s)
    s = re.sub(r"\bfalse\b", "0", re.sub(r"\btrue\b", "1", s))
    return s.replace(" ", "")


def read_blocks(path):
    """Yields (kernel signature, file, [(line, totals, [sass rows])]) per source block."""
    file = kernel = None
    idx = None
    lines = None
    with open_text(path) as f:
        for row in csv.reader(f):
            if not row or row[0].startswith("=="):
                continue
            if row[0] == "File Path":
                if lines is not None:
                    yield kernel, file, lines
                file, kernel, idx, lines = row[1], None, None, []
                continue
            if row[0] == "Function Name":
                kernel = row[1]
                continue
            if row[0] == "Line No":
                idx = {key: row.index(name, 4) for key, name in COLS.items() if name in row[4:]}
                continue
            if idx is None or lines is None or len(row) < 4:
                continue
            if row[0]:
                totals = {k: num(row[idx[k]]) if k in idx else 0.0
                          for k in ("executed", "wavefronts", "ideal")}
                lines.append((int(row[0]), totals, OrderedDict()))
            elif row[2].startswith("0x") and lines:
                lines[-1][2].setdefault(row[2], {"sass": row[3].strip(),
                                                 **{k: row[idx[k]] if k in idx else "0"
                                                    for k in COLS}})
    if lines is not None:
        yield kernel, file, lines


def split_launches(blocks):
    """Groups source blocks into launches: [(kernel signature, [(file, lines)])]."""
    launches = []
    for kernel, file, lines in blocks:
        cur = launches[-1] if launches else None
        if cur is None or cur[0] != kernel or any(f == file for f, _ in cur[1]):
            launches.append((kernel, []))
        launches[-1][1].append((file, lines))
    return launches


def read_launches(path):
    """[(id, kernel signature, grid, block, {metric: value})] in ID order, from ncu --csv."""
    with open_text(path) as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("==")]
    if not rows:
        return []
    head = rows[0]
    col = {name: head.index(name) for name in
           ("ID", "Kernel Name", "Block Size", "Grid Size", "Metric Name", "Metric Value")}
    out = OrderedDict()
    for r in rows[1:]:
        if len(r) < len(head):
            continue
        key = int(r[col["ID"]])
        entry = out.setdefault(key, [key, r[col["Kernel Name"]],
                                     r[col["Grid Size"]].strip("()").replace(" ", ""),
                                     r[col["Block Size"]].strip("()").replace(" ", ""), {}])
        entry[4][r[col["Metric Name"]]] = num(r[col["Metric Value"]])
    return [tuple(v) for _, v in sorted(out.items())]


def align(launches, meta):
    """The metrics' launches that have source counters, in order, paired by kernel name: a
    kernel without line information (a library's) has a metrics row but no source block.
    Returns (the paired metrics, whether some source launch found none, notes)."""
    paired, notes, m = [], [], 0
    for signature, _ in launches:
        while m < len(meta) and name_key(meta[m][1]) != name_key(signature):
            notes.append(f"launch {meta[m][0]} ({plain_name(meta[m][1])}): no source counters")
            m += 1
        if m == len(meta):
            return meta, True, []
        paired.append(meta[m])
        m += 1
    for rest in meta[m:]:
        notes.append(f"launch {rest[0]} ({plain_name(rest[1])}): no source counters")
    return paired, False, notes


# Hopper's asynchronous instructions: wgmma (HGMMA, QGMMA, IGMMA), TMA copies (UTMA*, UBLK*),
# mbarriers (SYNCS), cluster barriers (UCGABAR*) and st.async (STAS). In a launch with any of
# them Nsight Compute's own per-line rows do not add up to the SASS rows it lists under the
# line (measured on the H200, bench/hardware/hopper_truth_results and the Hopper corpus: a TMA
# copy's line given 504 wavefronts its UTMALDG row does not have, a wgmma loop's lines 0 where
# their HGMMA rows list 32 each, inlined helpers' lines off by their instructions); the SASS
# rows, de-duplicated by address, are what the tables use there too.
HOPPER_ASYNC = re.compile(r"^(HGMMA|QGMMA|IGMMA|UTMA|UBLK|SYNCS|UCGABAR|STAS)")


def line_rows(lines, path, kernel, errors, notes):
    """Per (line, space): [sass opcode counts, sums of COUNTS], checking the line totals (in a
    launch with Hopper's asynchronous instructions a mismatch is a note, not an error)."""
    out = OrderedDict()
    hopper = any(HOPPER_ASYNC.match(opcode(s["sass"])) for _, _, sass in lines
                 for s in sass.values())
    for line, totals, sass in lines:
        insts = list(sass.values())
        for key in ("executed", "wavefronts", "ideal"):
            got = sum(num(s[key]) for s in insts)
            if insts and abs(got - totals[key]) > 1e-6 * max(1.0, totals[key]):
                (notes if hopper else errors).append(
                    f"{path}: {kernel} line {line}: {COLS[key]} of the SASS rows {fmt(got)} "
                    f"!= the line's {fmt(totals[key])}")
        for s in insts:
            op = opcode(s["sass"])
            if SHARED_OP.match(op) or "Shared" in s["space"]:
                space = "shared"
            elif GLOBAL_OP.match(op):
                space = "global"
            else:
                continue
            ops, sums = out.setdefault((line, space), [OrderedDict(), dict.fromkeys(COUNTS, 0.0)])
            ops[op] = ops.get(op, 0) + 1
            for c in COUNTS:
                sums[c] += num(s[SOURCE_COL[c]])
    return out


def ops_text(ops):
    return ",".join(op if n == 1 else f"{op}*{n}" for op, n in ops.items())


def merge(into, key, ops, sums):
    """Adds one launch's line to a kernel's: counts add, instructions are the same."""
    o, s = into.setdefault(key, [OrderedDict(), dict.fromkeys(COUNTS, 0.0)])
    for op, n in ops.items():
        o[op] = max(o.get(op, 0), n)  # the same instructions in every launch: count them once
    for c in COUNTS:
        s[c] += sums[c]


def write_tsv(path, header, rows):
    with open(path, "w") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    source = argv[1]
    base = re.sub(r"\.source\.csv(\.gz)?$", "", source)
    errors, notes = [], []
    launches = split_launches(read_blocks(source))
    meta = read_launches(argv[2]) if len(argv) > 2 and os.path.exists(argv[2]) else []
    aligned = []  # metrics launches without source counters
    if meta and len(meta) != len(launches):
        meta, unmatched, aligned = align(launches, meta)
        if unmatched:
            errors.append(f"{source}: {len(launches)} launches in the source counters, "
                          f"{len(meta)} in {argv[2]}")
    metric_names = sorted({m for entry in meta for m in entry[4]})

    launch_rows, per_kernel, per_program, launch_table = [], OrderedDict(), OrderedDict(), []
    for n, (signature, files) in enumerate(launches):
        kernel = plain_name(signature)
        lid, grid, block, metrics = n, "-", "-", {}
        if n < len(meta):
            lid, msig, grid, block, metrics = meta[n]
            if name_key(msig) != name_key(signature):
                errors.append(f"{source}: launch {n} is {kernel} in the source counters, "
                              f"{plain_name(msig)} in the metrics")
        launch_table.append([lid, kernel, grid, block] +
                            [fmt(metrics[m]) if m in metrics else "-" for m in metric_names])
        for file, lines in files:
            for (line, space), (ops, sums) in line_rows(lines, source, kernel, errors,
                                                        notes).items():
                f = short_file(file)
                launch_rows.append([lid, kernel, f, line, space, ops_text(ops)] +
                                   [fmt(sums[c]) for c in COUNTS])
                merge(per_kernel, (kernel, f, line, space), ops, sums)
        # Kernel-level instruction counters against the launch's own lines.
        for kind, prefix in (("ld", "LDS"), ("st", "STS")):
            metric = f"smsp__inst_executed_op_shared_{kind}.sum"
            if metric not in metrics:
                continue
            got = 0.0
            for file, lines in files:
                for line, totals, sass in lines:
                    for s in sass.values():
                        op = opcode(s["sass"])
                        if op.startswith(prefix) and not op.startswith(prefix + "M"):
                            got += num(s["executed"])
            if got != metrics[metric]:
                errors.append(f"{source}: launch {lid} ({kernel}) {kind}: lines give {fmt(got)} "
                              f"instructions, {metric} {fmt(metrics[metric])}")

    # A line's instructions in several kernels (an inlined helper) add up.
    for (_, f, line, sp), (ops, sums) in per_kernel.items():
        o, s = per_program.setdefault((f, line, sp), [OrderedDict(), dict.fromkeys(COUNTS, 0.0)])
        for op, n in ops.items():
            o[op] = o.get(op, 0) + n
        for c in COUNTS:
            s[c] += sums[c]

    write_tsv(base + ".launches.tsv", ["launch", "kernel", "grid", "block"] + metric_names,
              launch_table)
    write_tsv(base + ".launch_lines.tsv",
              ["launch", "kernel", "file", "line", "space", "sass_opcodes"] + list(COUNTS),
              launch_rows)
    write_tsv(base + ".lines.tsv",
              ["kernel", "file", "line", "space", "sass_opcodes"] + list(COUNTS),
              [list(key) + [ops_text(o)] + [fmt(s[c]) for c in COUNTS]
               for key, (o, s) in sorted(per_kernel.items())])
    write_tsv(base + ".program_lines.tsv",
              ["file", "line", "space", "sass_opcodes"] + list(COUNTS),
              [list(key) + [ops_text(o)] + [fmt(s[c]) for c in COUNTS]
               for key, (o, s) in sorted(per_program.items())])
    print(f"{base}: {len(launches)} launches ({len(meta)} with launch metrics), "
          f"{len(per_kernel)} kernel lines, {len(per_program)} program lines")
    for n in aligned:
        print(n)
    if notes:
        print(f"{base}: {len(notes)} line rows of launches with wgmma, TMA or cluster "
              "instructions differ from their SASS rows (Nsight Compute's own per-line rows; the "
              "SASS rows are used)", file=sys.stderr)
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
