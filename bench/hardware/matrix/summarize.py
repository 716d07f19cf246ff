#!/usr/bin/env python3
"""One line per measured ldmatrix/stmatrix/cp.async pattern (see atomics/summarize.py):

    id kernel form wavefronts conflicts inst_executed shared_wavefronts

Nsight Compute counts LDSM, STSM and LDGSTS in their own metrics where it has them; the
candidates below go from the most specific to the generic load/store ones, and the
header of the output names the metric each column came from.

Usage: summarize.py PATTERNS NCU_CSV[.gz] SASS_TXT
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "atomics"))
from summarize import main  # noqa: E402


def specific(op, generic):
    """Candidates for one instruction class, most specific first."""
    return {
        "wavefronts": [f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum",
                       f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum",
                       f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{generic}.sum"],
        "conflicts": [f"smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum",
                      f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum",
                      f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{generic}.sum"],
        "inst_executed": [f"smsp__sass_inst_executed_op_{op}.sum",
                          f"smsp__inst_executed_op_{op}.sum",
                          f"smsp__inst_executed_op_shared_{generic}.sum"],
    }


MATRIX = [
    (r"ldsm_.*", specific("ldsm", "ld")),
    (r"stsm_.*", specific("stsm", "st")),
    # LDGSTS writes shared memory; failing its own metrics, the store counters.
    (r"cp_.*", specific("ldgsts", "st")),
]

if __name__ == "__main__":
    sys.exit(main(MATRIX))
