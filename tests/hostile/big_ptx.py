#!/usr/bin/env python3
# Writes a PTX module of about 100 MB and 1.6 million lines: a small kernel, then one of
# 400,000 branches (a long comment on every fourth line), for `check --kernel small`.
# Usage: big_ptx.py OUT.ptx
import sys

pad = "// " + "x" * 150
with open(sys.argv[1], "w") as out:
    out.write(".version 9.0\n.target sm_90\n.address_size 64\n")
    out.write(".visible .entry small(.param .u64 p)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
              "\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
              "\tmov.u32 %r1, %tid.x;\n\tst.global.u32 [%rd2], %r1;\n\tret;\n}\n")
    out.write(".visible .entry huge()\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n"
              "\tmov.u32 %r1, %tid.x;\n")
    for i in range(400000):
        out.write("\tsetp.lt.s32 %%p1, %%r1, %d;\n\t@%%p1 bra L%d;\n\tadd.s32 %%r1, %%r1, 1; %s\nL%d:\n"
                  % (i % 977, i, pad, i))
    out.write("\tret;\n}\n")
