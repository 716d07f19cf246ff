#!/usr/bin/env python3
"""Writes every code change `bankcheck fix` suggests for the bundled examples as a
variant source, with a manifest of what bankcheck predicts for it over the whole grid.

usage: make_variants.py BANKCHECK OUTDIR [EXAMPLE.cu ...]

For each example kernel with a launch comment: `bankcheck fix --blocks all --format json`.
Each suggestion that comes with its whole code change (a new declaration and/or rewritten
index expressions) becomes variants/EXAMPLE__KERNEL__ARRAY__KIND.cu in OUTDIR/variants.tar.gz,
the example with those lines replaced (its host main() still checks the results on the GPU). The manifest
OUTDIR/manifest.tsv has one row per program: the original example (kind "original") and
each variant, with the kernel's predicted shared wavefronts for the whole grid.
Suggestions that need more dynamic shared memory than the example's main() launches with,
and access-width suggestions (no source text), are listed as skipped with the reason.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    bankcheck, out = sys.argv[1], sys.argv[2]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    examples = sys.argv[3:] or sorted(
        os.path.join("examples", f) for f in os.listdir(os.path.join(root, "examples"))
        if f.endswith(".cu"))
    os.makedirs(os.path.join(out, "variants"), exist_ok=True)
    rows, skipped = [], []
    for ex in examples:
        path = os.path.join(root, ex)
        src = open(path).read().split("\n")
        kernels = re.findall(r"//\s*bankcheck:\s*kernel=(\S+)", "\n".join(src))
        for kernel in kernels:
            p = subprocess.run([bankcheck, "fix", path, "--kernel", kernel, "--blocks", "all",
                                "--format", "json", "--top", "8"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"{ex} {kernel}: bankcheck fix failed:\n{p.stderr}")
            report = json.loads(p.stdout)
            base = os.path.basename(ex)[:-3]
            for k in report["kernels"]:
                total = k["shared_wavefronts"]
                rows.append([ex, kernel, "-", "original", "the example as it is", ex, total,
                             k["shared_ideal_wavefronts"]])
                for a in k["arrays"]:
                    for s in a["suggestions"]:
                        predicted = total - a["wavefronts"] + s["wavefronts_after"]
                        ideal = k["shared_ideal_wavefronts"] - a["ideal_wavefronts"] + s["ideal_wavefronts"]
                        what = f"{ex} {kernel} {a['name']} {s['kind']}"
                        if s["kind"] == "access-width":
                            skipped.append([what, "an access-width change has no source text"])
                            continue
                        if a["dynamic"] and s["bytes_after"] != s["bytes_before"]:
                            skipped.append([what, "needs more dynamic shared memory than main() launches"])
                            continue
                        lines = list(src)
                        if "declaration" in s:
                            old = lines[a["declaration"]["line"] - 1]
                            indent = old[:len(old) - len(old.lstrip())]
                            lines[a["declaration"]["line"] - 1] = indent + s["declaration"]
                        for e in s["edits"]:
                            lines[e["line"] - 1] = e["after"]
                        if lines == src:
                            skipped.append([what, "no source change"])
                            continue
                        name = f"{base}__{kernel}__{a['name']}__{s['kind']}.cu"
                        with open(os.path.join(out, "variants", name), "w") as f:
                            f.write("\n".join(lines))
                        rows.append([ex, kernel, a["name"], s["kind"], s["change"],
                                     os.path.join("variants", name), predicted, ideal])
    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        f.write("example\tkernel\tarray\tkind\tchange\tprogram\tpredicted_wavefronts\tpredicted_ideal\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    with open(os.path.join(out, "skipped.tsv"), "w") as f:
        f.write("suggestion\treason\n")
        for r in skipped:
            f.write("\t".join(r) + "\n")
    with tarfile.open(os.path.join(out, "variants.tar.gz"), "w:gz") as t:
        t.add(os.path.join(out, "variants"), arcname="variants")
    shutil.rmtree(os.path.join(out, "variants"))
    print(f"{len(rows)} programs ({sum(1 for r in rows if r[3] != 'original')} variants), "
          f"{len(skipped)} suggestions skipped -> {out}")


if __name__ == "__main__":
    main()
