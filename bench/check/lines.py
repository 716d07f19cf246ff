#!/usr/bin/env python3
"""Per-source-line shared-memory counts from Nsight Compute's source-counter CSV.

Usage: python3 bench/check/lines.py results/EX.source.csv[.gz] [...]
Writes results/EX.lines.tsv beside each input, with one row per (kernel, source line) that
has shared-memory instructions:

  file line kernel sass_opcodes executed_instructions shared_wavefronts shared_ideal_wavefronts
and EX.global.tsv with the global-memory instructions ("L2 Theoretical Sectors Global" and
its "Ideal"):
  file line kernel sass_opcodes executed_instructions sectors ideal_sectors

file is the path from examples/ on (or the path as ncu printed it); kernel is the plain
function name (no parameter list); sass_opcodes lists the line's shared-memory SASS
opcodes in address order, OP*N for N instructions of the same opcode; the three counts are
sums over those instructions of ncu's "Instructions Executed" (warp-level),
"L1 Wavefronts Shared" and "L1 Wavefronts Shared Ideal".

The input is what `ncu --page source --csv --print-source cuda,sass` prints: per kernel a
"File Path" row, a "Function Name" row, a header, then each CUDA line's row (its totals)
followed by its SASS rows. ncu 2025.3.1 lists every SASS row of a line twice; rows are
de-duplicated by address. The per-line sums are checked against the CUDA line's own row,
and, where EX.metrics.csv lies beside the input, each kernel's totals against the
kernel-level counters (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum and
smsp__inst_executed_op_shared_{ld,st}.sum): a difference in instructions is printed to
stderr and makes the exit status 1; one in wavefronts is printed as a note, since the
kernel-level wavefront counters also count some other L1 traffic.
"""
import csv
import gzip
import os
import re
import sys
from collections import OrderedDict

SHARED_OP = re.compile(r"^(LDS|STS|ATOMS|LDSM|STSM|LDGSTS)\b")
COLS = {
    "executed": "Instructions Executed",
    "wavefronts": "L1 Wavefronts Shared",
    "ideal": "L1 Wavefronts Shared Ideal",
    "sectors": "L2 Theoretical Sectors Global",
    "ideal_sectors": "L2 Theoretical Sectors Global Ideal",
    "space": "Address Space",
}
# LDGSTS (cp.async) reads global memory too: its row carries the sectors of its global side.
GLOBAL_OP = re.compile(r"^(LDG|STG|ATOMG|RED|ATOM|LDGSTS)\b")


def open_text(path):
    return gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return 0.0


def fmt(x):
    return str(int(x)) if x == int(x) else f"{x:g}"


def opcode(sass):
    """'@!P0 LDS.128 R4, [R2]' -> 'LDS.128'."""
    toks = sass.split()
    if toks and toks[0].startswith("@"):
        toks = toks[1:]
    return toks[0] if toks else ""


def parse(path):
    """Yields (file, kernel, line_no, line_totals, [sass rows]) per CUDA line."""
    file = kernel = None
    idx = None
    cur = None  # [file, kernel, line_no, totals, OrderedDict address -> row]
    with open_text(path) as f:
        for row in csv.reader(f):
            if not row or row[0].startswith("=="):
                continue
            if row[0] == "File Path":
                file = row[1]
                continue
            if row[0] == "Function Name":
                kernel = row[1]
                continue
            if row[0] == "Line No":  # header; the two "Source" columns are 1 (CUDA), 3 (SASS)
                # A kernel without shared-memory instructions has no "L1 Wavefronts Shared*".
                idx = {key: row.index(name, 4) for key, name in COLS.items() if name in row[4:]}
                continue
            if idx is None or len(row) < 4:
                continue
            if row[0]:  # a CUDA line
                if cur:
                    yield cur
                totals = {k: num(row[idx[k]]) if k in idx else 0.0
                          for k in ("executed", "wavefronts", "ideal")}
                cur = [file, kernel, int(row[0]), totals, OrderedDict()]
            elif row[2].startswith("0x") and cur is not None:
                cur[4].setdefault(row[2], {"sass": row[3].strip(),
                                           **{k: row[idx[k]] if k in idx else "0"
                                              for k in COLS}})
    if cur:
        yield cur


def short_file(path):
    i = path.find("examples/")
    return path[i:] if i >= 0 else path


def plain_name(signature):
    """The kernel as bankcheck names it: 'void k<(bool)0, (int)8>(const float *)' ->
    'k<false, 8>' (the source view's spelling; the metrics page writes 'void k<0, 8>(...)')."""
    s, depth = signature.strip(), 0
    for i, c in enumerate(s):
        depth += (c == "<") - (c == ">")
        if c == "(" and depth == 0:
            s = s[:i]
            break
    if s.startswith("void "):
        s = s[len("void "):]
    s = s.replace("(bool)0", "false").replace("(bool)1", "true")
    s = re.sub(r"\((?:unsigned |signed )?(?:int|long|short|char|unsigned)[a-z ]*\)(-?\d+)", r"\1", s)
    return s.strip()


def metrics_key(name):
    """The metrics page writes bool template arguments as 0 and 1."""
    return re.sub(r"\btrue\b", "1", re.sub(r"\bfalse\b", "0", name))


def kernel_metrics(path):
    """{plain kernel name: {metric: value}} from an ncu --metrics CSV, summed over launches."""
    out = {}
    with open_text(path) as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("==")]
    if not rows:
        return out
    head = rows[0]
    k, m, v = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value")
    for r in rows[1:]:
        d = out.setdefault(metrics_key(plain_name(r[k])), {})
        d[r[m]] = d.get(r[m], 0.0) + num(r[v])
    return out


def main(paths):
    status = 0
    for path in paths:
        base = re.sub(r"\.source\.csv(\.gz)?$", "", path)
        out_path = base + ".lines.tsv"
        rows, per_kernel = [], OrderedDict()
        global_rows = []
        for file, kernel, line, totals, sass in parse(path):
            insts = list(sass.values())
            shared = [s for s in insts
                      if SHARED_OP.match(opcode(s["sass"])) or "Shared" in s["space"]]
            # The de-duplicated SASS rows must add up to the CUDA line's row.
            for key in ("executed", "wavefronts", "ideal"):
                got = sum(num(s[key]) for s in insts)
                if insts and abs(got - totals[key]) > 1e-6 * max(1.0, totals[key]):
                    print(f"{path}: {plain_name(kernel)} line {line}: {COLS[key]} of the SASS "
                          f"rows {fmt(got)} != the line's {fmt(totals[key])}", file=sys.stderr)
                    status = 1
            glob = [s for s in insts if GLOBAL_OP.match(opcode(s["sass"]))]
            if glob:
                gops = OrderedDict()
                for s in glob:
                    gops[opcode(s["sass"])] = gops.get(opcode(s["sass"]), 0) + 1
                global_rows.append([short_file(file), str(line), plain_name(kernel),
                                    ",".join(op if n == 1 else f"{op}*{n}" for op, n in gops.items()),
                                    fmt(sum(num(s["executed"]) for s in glob)),
                                    fmt(sum(num(s["sectors"]) for s in glob)),
                                    fmt(sum(num(s["ideal_sectors"]) for s in glob))])
            if not shared:
                continue
            ops = OrderedDict()
            for s in shared:
                op = opcode(s["sass"])
                ops[op] = ops.get(op, 0) + 1
            sums = {k: sum(num(s[k]) for s in shared) for k in ("executed", "wavefronts", "ideal")}
            rows.append([short_file(file), str(line), plain_name(kernel),
                         ",".join(op if n == 1 else f"{op}*{n}" for op, n in ops.items()),
                         fmt(sums["executed"]), fmt(sums["wavefronts"]), fmt(sums["ideal"])])
            k = per_kernel.setdefault(plain_name(kernel), {"ld": [0, 0], "st": [0, 0]})
            for s in shared:
                kind = "st" if opcode(s["sass"]).startswith("STS") else "ld"
                if opcode(s["sass"]).startswith("ATOMS"):
                    continue  # not in the ld/st counters compared below
                k[kind][0] += num(s["executed"])
                k[kind][1] += num(s["wavefronts"])
        rows.sort(key=lambda r: (r[2], int(r[1])))  # by kernel name, then line
        with open(out_path, "w") as f:
            f.write("file\tline\tkernel\tsass_opcodes\texecuted_instructions\t"
                    "shared_wavefronts\tshared_ideal_wavefronts\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
        print(f"{out_path}: {len(rows)} lines, {len(per_kernel)} kernels")
        global_rows.sort(key=lambda r: (r[2], int(r[1])))
        with open(base + ".global.tsv", "w") as f:
            f.write("file\tline\tkernel\tsass_opcodes\texecuted_instructions\t"
                    "sectors\tideal_sectors\n")
            for r in global_rows:
                f.write("\t".join(r) + "\n")
        print(f"{base}.global.tsv: {len(global_rows)} lines")

        metrics_path = base + ".metrics.csv"
        if not os.path.exists(metrics_path) and os.path.exists(metrics_path + ".gz"):
            metrics_path += ".gz"
        if os.path.exists(metrics_path):
            metrics = kernel_metrics(metrics_path)
            for name, k in per_kernel.items():
                m = metrics.get(metrics_key(name))
                if m is None:
                    continue
                for kind in ("ld", "st"):
                    inst = m.get(f"smsp__inst_executed_op_shared_{kind}.sum", 0.0)
                    wave = m.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{kind}.sum", 0.0)
                    if k[kind][0] != inst:
                        print(f"{path}: {name} {kind}: lines give {fmt(k[kind][0])} instructions, "
                              f"the kernel counter {fmt(inst)}", file=sys.stderr)
                        status = 1
                    elif k[kind][1] != wave:  # the kernel counter also counts other L1 traffic
                        print(f"  note: {name} {kind}: lines give {fmt(k[kind][1])} wavefronts, "
                              f"the kernel counter {fmt(wave)} ({wave - k[kind][1]:+g})")
    return status


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
