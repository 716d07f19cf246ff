#!/usr/bin/env bash
# Measure every pattern of patterns.txt on the GPU: one launch per pattern, one shared
# instruction per launch, wavefront counters read by Nsight Compute.
#
# Run on a machine with an sm_90 GPU, from the repository root:
#   bash bench/hardware/run.sh [PATTERNS] [OUTDIR]
# Writes OUTDIR/sass.txt (the probe's disassembly and the one-instruction check),
# OUTDIR/ncu_raw.csv (ncu's raw CSV, one block of rows per launch, in launch order)
# and OUTDIR/env.txt (GPU, driver, ncu version).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
patterns=${1:-$here/patterns.txt}
out=${2:-${OUT:-/tmp/bankcheck-hw}}
mkdir -p "$out"
work=$(mktemp -d)

nvcc -arch=sm_90 -O3 -lineinfo -o "$work/probe" "$here/probe.cu"

# Exactly one shared-memory instruction of the intended width in each kernel.
cuobjdump -sass "$work/probe" > "$out/sass.txt"
python3 - "$out/sass.txt" <<'PY'
import re, sys
expect = {"ld_u8": "LDS.U8", "ld_u16": "LDS.U16", "ld_u32": "LDS", "ld_u64": "LDS.64",
          "ld_u128": "LDS.128", "st_u8": "STS.U8", "st_u16": "STS.U16", "st_u32": "STS",
          "st_u64": "STS.64", "st_u128": "STS.128", "atom_add_u32": "ATOMS.ADD",
          "atom_exch_u32": "ATOMS.EXCH", "atom_cas_u32": "ATOMS.CAS", "red_add_u32": "ATOMS",
          "atom_add_u64": "ATOMS.ADD.64"}
fn, seen = None, {}
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        fn = m.group(1); seen[fn] = []; continue
    m = re.search(r"\b((?:LDS|STS|ATOMS)[.A-Z0-9]*)\b", line)
    if m and fn:
        seen[fn].append(m.group(1))
bad = 0
for fn, ops in seen.items():
    name = next((k for k in sorted(expect, key=len, reverse=True) if k in fn), None)
    ok = name is not None and len(ops) == 1 and ops[0].startswith(expect[name])
    print(f"sass-check {fn}: {ops} {'OK' if ok else 'UNEXPECTED'}")
    bad += not ok
print(f"sass-check: {bad} unexpected kernels" if bad else "sass-check: all OK")
PY

metrics=""
for m in l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum \
         smsp__inst_executed_op_shared_ld.sum \
         smsp__inst_executed_op_shared_st.sum \
         smsp__inst_executed_op_shared_atom.sum; do
  metrics="${metrics:+$metrics,}$m"
done
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1;
  nvcc --version | tail -1; echo "metrics: $metrics"; } > "$out/env.txt"
cat "$out/env.txt"

# Chunks, so that a run cut short by BUDGET_S (seconds) still returns whole launches.
budget=${BUDGET_S:-480}
grep -v '^#' "$patterns" | split -l 250 - "$work/chunk."
: > "$out/ncu_raw.csv"
start=$(date +%s); done_n=0
for chunk in "$work"/chunk.*; do
  t0=$(date +%s)
  ncu --csv --print-units base --cache-control none --clock-control none \
      --metrics "$metrics" --log-file "$work/ncu.csv" "$work/probe" "$chunk" > "$work/probe.log"
  cat "$work/ncu.csv" >> "$out/ncu_raw.csv"
  done_n=$(( done_n + $(wc -l < "$chunk") ))
  now=$(date +%s)
  echo "ncu: $done_n patterns in $(( now - start )) s"
  if (( now - start + 2 * (now - t0) > budget )); then echo "ncu: stopping at the time budget"; break; fi
done
