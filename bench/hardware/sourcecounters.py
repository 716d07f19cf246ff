#!/usr/bin/env python3
"""Reads Nsight Compute's Source Counters CSV (`ncu --section SourceCounters --page source
--csv --print-source cuda,sass`): per kernel, each CUDA line's row, then the SASS rows listed
under it. A SASS row of an inlined function is listed under every line of its inline stack,
and ncu 2025.3 lists each row twice under the same line: rows() keeps one per (kernel, line,
address); by_address() one per (kernel, address), the first line it is listed under.

As a program: `sourcecounters.py CSV[.gz]...` prints every SASS row with a memory column
(space, or a non-zero count), one per (kernel, line, address), as a TSV.
"""
import csv
import gzip
import sys

COLS = {
    "executed": "Instructions Executed",
    "space": "Address Space",
    "access": "Access Operation",
    "size": "Access Size",
    "wavefronts": "L1 Wavefronts Shared",
    "ideal": "L1 Wavefronts Shared Ideal",
    "sectors": "L2 Theoretical Sectors Global",
    "ideal_sectors": "L2 Theoretical Sectors Global Ideal",
    "tag_requests": "L1 Tag Requests Global",
}
NUMERIC = ("executed", "wavefronts", "ideal", "sectors", "ideal_sectors", "tag_requests")


def _open(path):
    return gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")


def _num(s):
    s = (s or "").replace(",", "").strip()
    try:
        return int(float(s))
    except ValueError:
        return 0


def opcode(sass):
    """`@!P0 HGMMA.64x64x16.F32 ...` -> `HGMMA.64x64x16.F32`."""
    t = sass.split()
    if t and t[0].startswith("@"):
        t = t[1:]
    return t[0].rstrip(",") if t else ""


def rows(paths):
    """Yields dicts: kernel (name before its parameters), function (the whole name), line,
    address, sass, opcode and the COLS values; one per (kernel, line, address)."""
    seen = set()
    for path in paths:
        kernel = function = None
        header = None
        line = None
        for r in csv.reader(_open(path)):
            if not r:
                continue
            if r[0] == "Function Name" and len(r) > 1:
                function = r[1]
                kernel = function.split("(")[0].split()[-1]
                line = None
                continue
            if r[0] == "File Path":
                continue
            if r[0] == "Line No":
                header = r
                continue
            if header is None or len(r) < 4 or kernel is None:
                continue
            if r[0]:
                try:
                    line = int(r[0])
                except ValueError:
                    line = None
                continue
            addr, sass = r[2], r[3].strip()
            if addr in ("", "...", "-"):
                continue
            key = (function, line, addr)
            if key in seen:
                continue
            seen.add(key)
            d = dict(zip(header[4:], r[4:]))
            out = {"kernel": kernel, "function": function, "line": line, "address": addr,
                   "sass": sass, "opcode": opcode(sass)}
            for k, col in COLS.items():
                v = d.get(col, "")
                out[k] = _num(v) if k in NUMERIC else v
            yield out


def by_address(paths):
    """One row per (kernel, address): the first line it is listed under."""
    seen = set()
    for r in rows(paths):
        key = (r["function"], r["address"])
        if key in seen:
            continue
        seen.add(key)
        yield r


def is_memory(r):
    return (r["space"] not in ("", "-") or any(r[k] for k in ("wavefronts", "ideal", "sectors",
                                                             "ideal_sectors")))


def main():
    keys = ["kernel", "line", "address", "opcode", "space", "access", "size", "executed",
            "wavefronts", "ideal", "sectors", "ideal_sectors"]
    print("\t".join(keys))
    for r in rows(sys.argv[1:]):
        if is_memory(r):
            print("\t".join(str(r[k]) for k in keys))


if __name__ == "__main__":
    main()
