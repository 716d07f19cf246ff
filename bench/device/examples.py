#!/usr/bin/env python3
"""Per-line agreement of `bankcheck run --backend gpu` with Nsight Compute on the bundled
examples (examples/*.cu, examples/tensor, examples/tuned): each example's program, built as
bench/check measured it (nvcc -arch=sm_90 -lineinfo -O3), runs under the GPU backend with
every launch analysed, and each kernel's shared wavefronts and global sectors per line are
compared with the H100's in bench/check/measured/h100 and bench/check/measured/h100_run_new (EX.lines.tsv,
EX.global.tsv), by bench/check/compare.py's rules.

Usage: examples.py BANKCHECK BINDIR [--examples EX,...] [--markdown FILE] [--known FILE]
BINDIR holds the built examples under their names (BINDIR/tuned/classic for
examples/tuned/classic.cu). Prints the tables and "N passed, M failed"; exits 1 on a
difference.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "check"))
import compare  # noqa: E402

ROOT = compare.ROOT
SETS = [os.path.join(ROOT, "bench", "check", "measured", "h100"),
        os.path.join(ROOT, "bench", "check", "measured", "h100_run_new")]


def examples():
    for results in SETS:
        for d, _, files in os.walk(results):
            for f in sorted(files):
                if f.endswith(".lines.tsv"):
                    ex = os.path.relpath(os.path.join(d, f), results)[: -len(".lines.tsv")]
                    if os.path.exists(os.path.join(ROOT, "examples", ex + ".cu")):
                        yield results, ex


def run_gpu(binary, program):
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    p = subprocess.run([binary, "run", "--backend", "gpu", "--no-progress", "--launches", "all",
                        "--format", "json", "-o", out, "--", program],
                       cwd=ROOT, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{program}: exit {p.returncode}\n{p.stderr[-2000:]}")
    with open(out) as f:
        report = json.load(f)
    os.unlink(out)
    kernels = []
    for part in report.get("files", [report]):
        kernels += (part.get("report") or part).get("kernels", [])
    # The GPU's sites carry no PTX line: each its own (compare.py groups cp.async's sides by it).
    n = 0
    for k in kernels:
        for s in k["sites"]:
            n += 1
            s["ptx_line"] = 10**9 + n
    return {"kernels": kernels}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bankcheck")
    ap.add_argument("bins")
    ap.add_argument("--examples")
    ap.add_argument("--markdown")
    ap.add_argument("--known", help="differences understood (compare.py's TSV): they pass "
                                    "while they differ and fail once they agree")
    a = ap.parse_args()
    if a.known:
        compare.load_known(a.known)
    wanted = set(a.examples.split(",")) if a.examples else None
    tables = {"shared": [], "global": []}
    failed = 0
    for results, ex in examples():
        if wanted and ex not in wanted:
            continue
        compare.RESULTS = results
        try:
            report = run_gpu(a.bankcheck, os.path.join(os.path.abspath(a.bins), ex))
        except RuntimeError as e:
            print(e, file=sys.stderr)
            failed += 1
            continue
        for space, table in tables.items():
            rows, bad = compare.compare(ex, report, space)
            table.extend(rows)
            failed += bad
    passed = sum(len(t) for t in tables.values()) - failed
    text = ("### Shared memory: wavefronts\n\n" + compare.markdown(tables["shared"], "wavefronts") +
            "\n### Global memory: 32-byte sectors\n\n" + compare.markdown(tables["global"], "sectors"))
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    print(f"agreement: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
