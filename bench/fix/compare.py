#!/usr/bin/env python3
"""Joins bankcheck's predictions for every suggestion (manifest.tsv) with what the GPU
measured (gpu/source.tar.gz, gpu/ncu.tsv, gpu/app.tsv) and prints the table of
docs/fix.md's measurements.

usage: compare.py [RESULTS_DIR] [--check]
  --check: exit 1 unless every kernel's shared wavefronts, summed over its instructions
           from Nsight Compute's Source Counters, equal bankcheck's prediction (except the
           kernels listed in WIDTH_CHANGES, where ptxas changes an access's width and the
           prediction is the PTX's), and every program's own check of its results passed.

The kernel-level counter l1tex__data_pipe_lsu_wavefronts_mem_shared also counts other L1
traffic on large kernels (a few percent), so the per-instruction Source Counters are the
measure; the kernel-level numbers and the duration are shown beside them.
"""
import csv
import os
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "check"))
import lines  # noqa: E402  (bench/check/lines.py: ncu source-counter CSV parsing)

# Kernels whose shared accesses ptxas emits at another width than the PTX's: the same
# lines docs/check_agreement.md explains (matmul's As[ty][k] loads become 128-bit; the
# 2-float struct's two 4-byte loads become one 8-byte load).
WIDTH_CHANGES = {("examples/matmul.cu", "matmul_tiled"),
                 ("examples/matmul.cu", "matmul_tiled_transposed"),
                 ("examples/structs.cu", "read_struct2")}


def source_wavefronts(tar_path):
    """(program file name stem, kernel) -> shared wavefronts summed over instructions."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(tar_path) as t:
            t.extractall(tmp)
        for name in os.listdir(os.path.join(tmp, "source")):
            total = 0.0
            for _file, _kernel, _line, _totals, sass in lines.parse(os.path.join(tmp, "source", name)):
                for s in sass.values():
                    if lines.SHARED_OP.match(lines.opcode(s["sass"])):
                        total += lines.num(s["wavefronts"])
            out[name.replace(".source.csv.gz", "")] = int(round(total))
    return out

WF = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
CONF = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
TIME = "gpu__time_duration.sum"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    check = "--check" in sys.argv
    d = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "measured")
    manifest = list(csv.DictReader(open(os.path.join(d, "manifest.tsv")), delimiter="\t"))
    ncu = {}
    for r in csv.DictReader(open(os.path.join(d, "gpu", "ncu.tsv")), delimiter="\t"):
        ncu.setdefault((r["program"], r["kernel"]), {})[r["metric"]] = float(r["value"])
    source = source_wavefronts(os.path.join(d, "gpu", "source.tar.gz"))
    app = {r["program"]: r["result"] for r in
           csv.DictReader(open(os.path.join(d, "gpu", "app.tsv")), delimiter="\t")}
    original = {}
    for m in manifest:
        if m["kind"] == "original":
            original[(m["example"], m["kernel"])] = ncu.get((m["program"], m["kernel"]), {})
    print("| example | kernel | array | fix | bankcheck | ncu, per instruction | ncu, kernel counter "
          "| time (us) | vs original | results |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---|")
    bad, compared, width = 0, 0, 0
    for m in manifest:
        got = ncu.get((m["program"], m["kernel"]))
        if m["kind"] == "original" and m["predicted_wavefronts"] == "0":
            continue
        kernel_ok = f"{m['kernel']}: OK" in app.get(m["program"], "")
        if got is None or WF not in got:
            print(f"| {m['example']} | {m['kernel']} | {m['array']} | {m['kind']} | "
                  f"{int(m['predicted_wavefronts']):,} | (not measured) | | | | |")
            bad += 1
            continue
        key = m["program"].replace("/", "_")[:-3] + "__" + m["kernel"]
        pred, meas = int(m["predicted_wavefronts"]), source.get(key)
        compared += 1
        same = pred == meas
        known = (m["example"], m["kernel"]) in WIDTH_CHANGES
        if not same and known:
            width += 1
        bad += (not same and not known) + (not kernel_ok)
        t = got.get(TIME, 0) / 1000.0
        base = original.get((m["example"], m["kernel"]), {}).get(TIME)
        ratio = f"{base / got[TIME]:.2f}x" if base and m["kind"] != "original" else ""
        note = "" if same else (" (ptxas width)" if known else " (differs)")
        print(f"| {m['example'].replace('examples/', '')} | {m['kernel']} | {m['array']} | {m['kind']} | "
              f"{pred:,} | {'-' if meas is None else f'{meas:,}'}{note} | {int(got[WF]):,} | "
              f"{t:,.1f} | {ratio} | {'OK' if kernel_ok else 'WRONG'} |")
    print(f"\n{compared} kernel runs measured: {compared - bad - width} agree exactly, {width} differ "
          f"where ptxas changes an access's width, {bad} otherwise wrong")
    if check and (bad or compared == 0):
        sys.exit(1)


if __name__ == "__main__":
    main()
