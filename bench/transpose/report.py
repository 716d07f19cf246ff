#!/usr/bin/env python3
"""report.py: the transpose ladder's results as Markdown tables and an SVG bar chart.

Reads bench/transpose/measured/ (what run.sh packs): runK.tsv from the timed runs,
transpose.metrics.csv and transpose.sections.csv[.gz] from Nsight Compute, and, if present, bankcheck.json
(`bankcheck check bench/transpose/transpose_bench.cu --format json -o ...`, no GPU needed)
and transpose.lines.tsv (`python3 bench/check/lines.py results/transpose.source.csv.gz`).
Writes the tables between the `<!-- transpose-table:begin -->` and `<!-- transpose-table:end -->`
markers of docs/transpose.md and bench/transpose/README.md, and the chart to
docs/transpose.svg. Standard library only.

    python3 bench/transpose/report.py [--results DIR] [--check]

--check: write nothing, exit 1 if a file would change (the generated parts are up to date).
"""
import argparse
import csv
import glob
import gzip
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BEGIN, END = "<!-- transpose-table:begin -->", "<!-- transpose-table:end -->"
GOAL = 95.0  # percent of the device-to-device copy

SHAPE_TITLE = {
    "memcpy": "cudaMemcpy device to device",
    "32x32": "32x32 threads, one element each (seed 004's shape)",
    "32x8": "32x8 threads, four elements each (the classic shape)",
    "64x2": "64x2 threads, 32 elements each, 64x64 tile + 512 B (the occupancy case)",
    "64x8": "64x8 threads, 8 elements each, 64x64 tile",
    "float4": "256 threads, 4 float4 loads and stores each, 64x64 tile",
    "probe": "probes, not in the ladder",
}
VARIANT_TITLE = {
    "copy": "copy",
    "naive": "naive (no shared memory)",
    "conflicting": "shared, conflicting",
    "padded": "padded (+1 element per row)",
    "xor": "XOR swizzle",
    "rotated": "rotation",
    "tileswap": "tiles swapped, not transposed",
}


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def read_ncu(path):
    """{kernel: {metric name: value string}} from an ncu --csv file (metrics or details page)."""
    out = {}
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    if not os.path.exists(path):
        return out
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        name = row.get("Kernel Name", "").split("(")[0]
        if not name or not row.get("Metric Name"):
            continue
        out.setdefault(name, {})[row["Metric Name"]] = row.get("Metric Value", "")
    return out


def number(s):
    try:
        return float(s.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def read_bankcheck(path):
    """{kernel: (worst ways of shared stores, of shared loads)} over the tile's lines."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    if not os.path.exists(path):
        return {}
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        data = json.load(f)
    out = {}
    # schema_version 2 has `files`; a report of version 1 (one file) the kernels at the top.
    kernels = [k for part in data.get("files", [data]) for k in part.get("kernels", [])]
    for k in kernels:
        st = [s["ways"] for s in k["sites"] if s["space"] == "shared" and s["op"] == "store"]
        ld = [s["ways"] for s in k["sites"] if s["space"] == "shared" and s["op"] == "load"]
        out[k["name"]] = (max(st) if st else None, max(ld) if ld else None)
    return out


def read_lines(path):
    """{kernel: (worst store line, worst load line)}: shared wavefronts per executed
    instruction on the H100, from bench/check/lines.py's transpose.lines.tsv."""
    if not os.path.exists(path):
        return {}
    worst = {}
    for r in read_tsv(path):
        n = int(r["executed_instructions"])
        if n == 0:
            continue
        per = int(r["shared_wavefronts"]) / n
        st, ld = worst.get(r["kernel"], (None, None))
        if r["sass_opcodes"].startswith("STS"):
            st = per if st is None else max(st, per)
        elif r["sass_opcodes"].startswith("LDS"):
            ld = per if ld is None else max(ld, per)
        worst[r["kernel"]] = (st, ld)
    return worst


def pair(p):
    """'st/ld' from a (store, load) pair of numbers or Nones; '–' when both are missing."""
    if not p or p == (None, None):
        return "–"
    return "/".join("–" if x is None else f"{x:g}" for x in p)


def fmt(x, digits=0):
    if x is None:
        return "–"
    return f"{x:,.{digits}f}"


def tables(runs, ncu, sections, bankcheck, per_request):
    first = runs[0]
    lines = []
    lines.append(
        "| kernel | shape | what | median ms | min–max ms | GB/s | % of copy | % of copy, every run |"
    )
    lines.append("|---|---|---|---:|---:|---:|---:|---:|")
    for row in first:
        k = row["kernel"]
        pct = [float(r["pct_of_memcpy"]) for run in runs for r in run if r["kernel"] == k]
        pcts = ", ".join(f"{p:.1f}" for p in pct)
        name = f"`{k}`" if k != "memcpy" else "`cudaMemcpy` D2D"
        pct_txt = f"{float(row['pct_of_memcpy']):.1f}"
        if row["variant"] in ("padded", "xor", "rotated"):
            pct_txt = f"**{pct_txt}**"
        lines.append(
            f"| {name} | {row['shape']} | {VARIANT_TITLE[row['variant']]} | "
            f"{float(row['median_ms']):.4f} | {float(row['min_ms']):.4f}–{float(row['max_ms']):.4f} | "
            f"{float(row['median_GBps']):,.0f} | {pct_txt} | {pcts} |"
        )
    lines.append("")
    lines.append(
        "| kernel | registers | static smem (B) | resident blocks/SM | "
        "theoretical occupancy % | achieved occupancy % | DRAM throughput % of peak | "
        "bankcheck ways st/ld | H100 wavefronts per request st/ld | "
        "kernel-level bank conflicts ld/st |"
    )
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in first:
        k = row["kernel"]
        if k == "memcpy":
            continue
        m = ncu.get(k, {})
        s = sections.get(k, {})
        limits = [number(m.get("launch__occupancy_limit_" + w))
                  for w in ("blocks", "registers", "shared_mem", "warps")]
        resident = min(limits) if None not in limits else None
        ld_c = number(m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"))
        st_c = number(m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"))
        lines.append(
            f"| `{k}` | {row['regs']} | {int(row['static_smem_B']):,} | {fmt(resident)} | "
            f"{fmt(number(s.get('Theoretical Occupancy')), 1)} | "
            f"{fmt(number(m.get('sm__warps_active.avg.pct_of_peak_sustained_active')), 1)} | "
            f"{fmt(number(s.get('DRAM Throughput')), 1)} | {pair(bankcheck.get(k))} | "
            f"{pair(per_request.get(k))} | {fmt(ld_c)} / {fmt(st_c)} |"
        )
    return "\n".join(lines) + "\n"


def across_sets(runs, results):
    """Per ladder kernel, % of the copy (median over a set's processes) in every earlier set
    of runs kept under results/earlier/ (setN_runK.tsv, one run.sh each) and in this one."""
    sets = {}
    for p in glob.glob(os.path.join(results, "earlier", "set*_run*.tsv")):
        n = int(re.match(r"set(\d+)_", os.path.basename(p)).group(1))
        sets.setdefault(n, []).append(read_tsv(p))
    if not sets:
        return ""
    order = sorted(sets)
    columns = [sets[n] for n in order] + [runs]
    names = [f"set {n}" for n in order] + ["this set"]
    lines = ["| kernel | " + " | ".join(names) + " |",
             "|---|" + "---:|" * len(names)]
    for row in runs[0]:
        k = row["kernel"]
        if row["shape"] == "probe" or k == "memcpy":
            continue
        cells = []
        for col in columns:
            vals = [float(r["pct_of_memcpy"]) for run in col for r in run if r["kernel"] == k]
            cells.append(f"{statistics.median(vals):.1f}" if vals else "–")
        lines.append(f"| `{k}` | " + " | ".join(cells) + " |")
    copies = []
    for col in columns:
        vals = [float(r["median_GBps"]) for run in col for r in run if r["kernel"] == "memcpy"]
        copies.append(f"{statistics.median(vals):,.0f}")
    lines.append("| copy GB/s | " + " | ".join(copies) + " |")
    return "\n".join(lines) + "\n"


def svg(runs):
    """Horizontal bars: percent of the copy per kernel, grouped by shape, goal line at 95%."""
    rows = [r for r in runs[0]]
    bar_h, gap, group_gap = 18, 4, 26
    left, right, top = 250, 150, 80
    width = 1000
    scale_max = 110.0
    plot_w = width - left - right
    x = lambda pct: left + plot_w * min(pct, scale_max) / scale_max
    colors = {
        "copy": "#7f7f7f", "naive": "#bcbd22", "conflicting": "#d62728",
        "padded": "#1f77b4", "xor": "#2ca02c", "rotated": "#9467bd", "tileswap": "#8c564b",
    }
    items, y, shape = [], top, None
    for r in rows:
        if r["shape"] != shape:
            shape = r["shape"]
            y += group_gap if items else 0
            items.append(("title", shape, y))
            y += 18
        items.append(("bar", r, y))
        y += bar_h + gap
    height = y + 40
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">'
        "8192x8192 float transpose on the H100: percent of a device-to-device copy</text>",
        f'<text x="{width / 2}" y="40" text-anchor="middle" fill="#555">'
        f"median of {runs[0][0]['reps']} timed runs each; copy = cudaMemcpy, "
        f"{float(runs[0][0]['median_GBps']):,.0f} GB/s (bytes read + written)</text>",
    ]
    for pct in range(0, 111, 10):
        out.append(
            f'<line x1="{x(pct):.1f}" y1="{top - 4}" x2="{x(pct):.1f}" y2="{y}" '
            f'stroke="#e5e5e5"/>'
        )
        out.append(
            f'<text x="{x(pct):.1f}" y="{y + 16}" text-anchor="middle" fill="#555">{pct}%</text>'
        )
    out.append(
        f'<line x1="{x(GOAL):.1f}" y1="{top - 4}" x2="{x(GOAL):.1f}" y2="{y}" '
        f'stroke="#ff7f0e" stroke-width="2" stroke-dasharray="6,3"/>'
    )
    out.append(
        f'<text x="{x(GOAL) - 4:.1f}" y="{top - 8}" text-anchor="end" fill="#ff7f0e">'
        f"goal {GOAL:.0f}%</text>"
    )
    for kind, what, yy in items:
        if kind == "title":
            out.append(
                f'<text x="8" y="{yy + 12}" font-weight="bold">{SHAPE_TITLE[what]}</text>'
            )
            continue
        r = what
        pct = float(r["pct_of_memcpy"])
        label = "cudaMemcpy" if r["kernel"] == "memcpy" else r["kernel"]
        out.append(
            f'<text x="{left - 8}" y="{yy + bar_h - 5}" text-anchor="end">{label}</text>'
        )
        out.append(
            f'<rect x="{left}" y="{yy}" width="{x(pct) - left:.1f}" height="{bar_h}" '
            f'fill="{colors[r["variant"]]}"/>'
        )
        out.append(
            f'<text x="{x(pct) + 4:.1f}" y="{yy + bar_h - 5}">{pct:.1f}% '
            f'({float(r["median_GBps"]):,.0f} GB/s)</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def splice(path, body):
    with open(path) as f:
        text = f.read()
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        sys.exit(f"report.py: error: {path}: no {BEGIN} ... {END} markers")
    return pattern.sub(lambda _: BEGIN + "\n" + body + END, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(HERE, "measured"))
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    paths = sorted(glob.glob(os.path.join(args.results, "run*.tsv")),
                   key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    if not paths:
        sys.exit(f"report.py: error: no run*.tsv in {args.results}")
    runs = [read_tsv(p) for p in paths]
    body = tables(runs, read_ncu(os.path.join(args.results, "transpose.metrics.csv")),
                  read_ncu(os.path.join(args.results, "transpose.sections.csv")),
                  read_bankcheck(os.path.join(args.results, "bankcheck.json")),
                  read_lines(os.path.join(args.results, "transpose.lines.tsv")))
    sets = across_sets(runs, args.results)
    if sets:
        body += "\nPercent of the copy in each set of runs (one `run.sh` each; median of its processes):\n\n" + sets
    outputs = {
        os.path.join(ROOT, "docs", "transpose.md"): None,
        os.path.join(HERE, "README.md"): None,
    }
    for p in outputs:
        outputs[p] = splice(p, body)
    outputs[os.path.join(ROOT, "docs", "transpose.svg")] = svg(runs)
    stale = []
    for p, text in outputs.items():
        old = open(p).read() if os.path.exists(p) else None
        if old != text:
            stale.append(p)
            if not args.check:
                with open(p, "w") as f:
                    f.write(text)
    if args.check:
        if stale:
            sys.exit("report.py: out of date: " + ", ".join(os.path.relpath(p, ROOT) for p in stale))
        return
    print(body, end="")


if __name__ == "__main__":
    main()
