#!/usr/bin/env python3
"""Check that each probe kernel's SASS holds exactly the shared-memory instructions intended.

The intent is written in the probe source, one line above each kernel:
    // sass: KERNEL MNEMONIC [MNEMONIC...]
listing, in order, the shared-memory instructions (LDS, STS, ATOMS, LDSM, STSM, LDGSTS)
the kernel must contain, apart from those matching --ignore (the atomics' initial STS).
A listed mnemonic matches an instruction that is the same or extends it by modifiers
("ATOMS.CAS" matches "ATOMS.CAS.64"), so an exact form is always recorded as well.

Reads the `cuobjdump -sass` listing; prints one line per kernel,
    sass-check KERNEL OK|UNEXPECTED found=[...] expected=[...]
    sass-form KERNEL FORM           (FORM: the instructions found, joined by '+')
and a last line with the number of unexpected kernels. Never fails on an unexpected kernel
(the measurement is still worth having; the form is what the summary reports).

Usage: sass_check.py SOURCE.cu LISTING [--ignore REGEX]
       sass_check.py SOURCE.cu --fake       (a listing as cuobjdump would print it if every
                                              kernel came out as intended; for testing)
"""
import re
import sys

SHARED = re.compile(r"\b((?:LDGSTS|LDSM|STSM|ATOMS|LDS|STS)(?:\.[A-Z0-9_]+)*)")
FUNCTION = re.compile(r"Function\s*:\s*(\S+)")


def expectations(source):
    out = {}
    for line in open(source):
        m = re.match(r"\s*//\s*sass:\s*(\w+)\s+(.+?)\s*$", line)
        if m:
            out[m.group(1)] = m.group(2).split()
    return out


def kernel_name(symbol):
    """_Z10inc_unused5Lanes -> inc_unused; an unmangled (extern "C") name as it is."""
    m = re.match(r"_Z(\d+)(\w+)", symbol)
    if not m:
        return symbol
    n = int(m.group(1))
    return m.group(2)[:n]


def parse_listing(path):
    seen, fn = {}, None
    for line in open(path, errors="replace"):
        m = FUNCTION.search(line)
        if m:
            fn = kernel_name(m.group(1))
            seen[fn] = []
            continue
        if fn is None:
            continue
        # Instruction lines look like "/*0090*/  @P0 ATOMS.POPC.INC RZ, [R3+URZ], RZ ;"
        body = line.split("*/", 1)[-1] if "*/" in line else line
        m = SHARED.search(body)
        if m:
            seen[fn].append(m.group(1))
    return seen


def matches(found, expected):
    return len(found) == len(expected) and all(
        f == e or f.startswith(e + ".") for f, e in zip(found, expected))


def fake(expect):
    for name, mnems in expect.items():
        print(f"\t\tFunction : _Z{len(name)}{name}5Lanes")
        print("\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"")
        pc = 0
        for m in ["S2R"] + mnems + ["EXIT"]:
            print(f"        /*{pc:04x}*/                   {m} R0, [R2] ;  /* 0x0 */")
            pc += 16


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[1] == "--fake":
        fake(expectations(args[0]))
        return 0
    if len(args) not in (2, 4) or (len(args) == 4 and args[2] != "--ignore"):
        print(__doc__, file=sys.stderr)
        return 2
    expect = expectations(args[0])
    ignore = re.compile(args[3]) if len(args) == 4 else None
    seen = parse_listing(args[1])
    bad = 0
    for name in sorted(set(expect) | set(seen)):
        found = [m for m in seen.get(name, []) if not (ignore and ignore.fullmatch(m))]
        want = expect.get(name)
        ok = name in seen and want is not None and matches(found, want)
        bad += not ok
        print(f"sass-check {name} {'OK' if ok else 'UNEXPECTED'} found={found} expected={want}")
        if name in seen:
            print(f"sass-form {name} {'+'.join(found) if found else 'none'}")
    print(f"sass-check: {bad} unexpected kernels" if bad else "sass-check: all OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
