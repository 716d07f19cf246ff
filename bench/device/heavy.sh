#!/usr/bin/env bash
# `bankcheck run --backend gpu` on programs that launch the same kernels many times, timed in
# one call against the plain run and Nsight Compute on the same launches, with per-line
# agreement. On the H200 (sm_90), from the repository root:
#
#   bash bench/device/heavy.sh OUT [SET...]
#
# SET: stencil, completeness, launch_heavy, python, examples (default: these five, in that
# order; examples is eight of the bundled examples), examples_all (all of them), external
# (programs from outside the tree, below), or one program's name (stencil2d, stencil2d_two,
# completeness_graph, train_loop, an examples/launch_heavy program such as layernorm_forward
# or matmul_forward_2, an example such as tuned/async).
# EXTERNAL_DIR: the set `external`, public programs bankcheck never saw whose sources are not
# the project's to keep: one directory per program, named as the program, with a build.sh
# that builds it there with nvcc (static runtime, sm_90 with its PTX, -lineinfo) and, if it
# takes any, its arguments in a file `args`; each runs from the repository root.
#
# 1. Builds bankcheck with the GPU backend (Ninja, Release, only what run needs: the command, its
#    run agent, the GPU tool, the emulator's CUDA driver, the NVTX injection) in BUILD_DIR
#    (default build-heavy; BANKCHECK=PATH uses a bankcheck already built), and the programs
#    with nvcc (-O3 -lineinfo for sm_90), while the Python program's first run builds its
#    extension and compiles its Triton kernels (not timed).
# 2. Per program, from the repository root: the plain run; `bankcheck run --backend gpu`
#    (its default, the first launch of each kernel and configuration); `--launches all`;
#    `ncu --section SourceCounters --filter-mode per-launch-config --launch-count 1` (the
#    launches bankcheck's default analyses), each timed; then compare_heavy.py: bankcheck's
#    default report against ncu's, kernel by kernel and line by line. The stencils are also
#    run on the emulator backend (the same binary: bankcheck's CUDA driver runs it), both
#    modes, and compared with the
#    GPU's reports line by line.
# 3. Prints the table (OUT/heavy_table.txt, OUT/heavy.tsv): program, plain s, gpu s, ratio
#    (target <= 1.1x + 0.3 s), all s, ratio (target <= 2x), ncu s, lines equal / lines,
#    the emulator's agreement, notes (exit codes that differ from the plain run's, kernels
#    missed, time-outs).
#
# Everything goes to OUT/heavy.log; the raw results to OUT/heavy_results.tar.gz (heavy/NAME/:
# each command's output, the reports, ncu's CSV, the comparisons), which unpacks into
# bench/device/results/.
# Time: no command runs past DEADLINE_S seconds after the start (default 510); each run is cut
# off at STEP_S seconds (default 90; --launches all at ALL_S, default STEP_S), ncu at NCU_S
# (default 150); a step with less than 5 s left is skipped and said so.
# BANKCHECK=PATH: a bankcheck built with the GPU backend (its build or install tree also holds
# the run agent, the GPU tool, bankcheck's libcuda.so.1 and the NVTX injection; what is missing
# is said); nothing of bankcheck is built then.
# HEAVY_BACKEND=emulator: bankcheck's columns from the emulator backend instead of the GPU (the
# script itself checked on a machine without a GPU; the times mean nothing then); without ncu
# on PATH its column stays empty.
set -uo pipefail
[ -f bench/device/heavy.sh ] || { echo "heavy.sh: run it from the repository root" >&2; exit 2; }
out=$(mkdir -p "${1:-${OUT:-/tmp/bankcheck-heavy}}" && readlink -f "${1:-${OUT:-/tmp/bankcheck-heavy}}")
shift || true
root=$(pwd)
exec > >(tee -a "$out/heavy.log") 2>&1
start=$(date +%s.%N)
deadline_s=${DEADLINE_S:-510}
step_limit=${STEP_S:-90}
ncu_limit=${NCU_S:-150}
sets=("$@")
[ ${#sets[@]} -eq 0 ] && sets=(stencil completeness launch_heavy python examples)
work=$(mktemp -d /tmp/bankcheck-heavy.XXXXXX)
res=$work/heavy
bins=$work/bin
mkdir -p "$res" "$bins"
export EXT_DIR=$work/ext TRITON_CACHE_DIR=$work/triton PYTHONUNBUFFERED=1
mkdir -p "$EXT_DIR"
export PATH=/usr/local/cuda/bin:$PATH

now() { date +%s.%N; }
elapsed() { awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }
left() { awk -v a="$start" -v b="$(now)" -v d="$deadline_s" 'BEGIN { printf "%d", d - (b - a) }'; }
say() { echo "[$(elapsed) s] $*"; }

# timed VAR LIMIT OUTPUT CMD...: runs CMD (stdout and stderr to OUTPUT) in its own process
# group, cut off at LIMIT seconds or at the deadline; sets VAR_s (seconds, or - when skipped)
# and VAR_rc (the exit status; 124 when cut off, - when skipped).
timed() {
  local var=$1 limit=$2 output=$3
  shift 3
  local l
  l=$(left)
  [ "$l" -lt "$limit" ] && limit=$l
  if [ "$limit" -lt 5 ]; then
    printf -v "${var}_s" '%s' -
    printf -v "${var}_rc" '%s' skipped
    echo "skipped: the deadline" > "$output"
    return
  fi
  local t0 t1 rc
  t0=$(now)
  timeout -k 5 "$limit" "$@" > "$output" 2>&1
  rc=$?
  t1=$(now)
  printf -v "${var}_s" '%s' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
  printf -v "${var}_rc" '%s' "$rc"
}

wanted() {  # wanted SET NAME: whether the command line asked for this program
  local s
  for s in "${sets[@]}"; do
    [ "$s" = "$1" ] || [ "$s" = "$2" ] && return 0
  done
  return 1
}

say "bench/device/heavy.sh: sets ${sets[*]}; results in $out; work in $work"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -2
  ncu --version | tail -1
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  git -C "$root" log -1 --format='commit %H %s' 2>/dev/null
} > "$res/env.txt" 2>&1
cat "$res/env.txt"

# --- the programs: NAME SET DIR... (the command runs from the repository root) -------------
names=() ; declare -A set_of cmd_of emu_of trace_launches no_ncu
add() {  # add SET NAME EMU(-|the emulator's command) CMD...
  local s=$1 n=$2 e=$3
  shift 3
  wanted "$s" "$n" || return 0
  names+=("$n"); set_of[$n]=$s; emu_of[$n]=$e; cmd_of[$n]="$*"
}
nvflags=(-O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90])
builds=()
build() {  # build OUTPUT SOURCE [FLAGS...]: one nvcc, in the background
  local o=$1 s=$2
  shift 2
  mkdir -p "$(dirname "$bins/$o")" "$res/build"
  nvcc "${nvflags[@]}" "$@" -o "$bins/$o" "$s" > "$res/build/${o//\//_}.txt" 2>&1 &
  builds+=($!)
}

add stencil stencil2d "$bins/stencil2d 100 stream" "$bins/stencil2d" 100 stream
add stencil stencil2d_two "$bins/stencil2d 100 two" "$bins/stencil2d" 100 two
trace_launches[stencil2d]=1 trace_launches[stencil2d_two]=1  # every launch in the trace
if wanted stencil stencil2d || wanted stencil stencil2d_two; then
  build stencil2d bench/device/programs/stencil2d.cu
fi
# The launch-heavy programs (examples/launch_heavy/programs.txt), each run whole (every variant
# and block size, validated, then 1000 timed launches each), except matmul_forward, whose naive
# variant alone takes most of a minute: its tiled variant and its cuBLAS variant, run apart.
# The ways launches reach the GPU (several streams, no synchronization, exit() from another
# thread, cudaDeviceReset, a CUDA graph, a cooperative launch): every analysed launch must be
# counted whole; compared with the emulator (where it runs the mode), not timed against ncu.
need=""
for m in streams nosync exit reset graph coop; do
  add completeness "completeness_$m" "$bins/completeness $m" "$bins/completeness" "$m"
  no_ncu[completeness_$m]=1
  trace_launches[completeness_$m]=1
  [ -n "${set_of[completeness_$m]:-}" ] && need=1
done
if [ -n "$need" ]; then
  build completeness bench/device/programs/completeness.cu
fi
if [ -f examples/launch_heavy/programs.txt ]; then
  while read -r n _; do
    case $n in ''|'#'*) continue ;; esac
    libs=()
    grep -q cublas "examples/launch_heavy/$n.cu" && libs=(-lcublas)
    if [ "$n" = matmul_forward ]; then
      wanted launch_heavy matmul_forward_2 && add launch_heavy matmul_forward_2 - "$bins/lh/$n" 2
      wanted launch_heavy matmul_forward_3 && add launch_heavy matmul_forward_3 - "$bins/lh/$n" 3
      wanted launch_heavy matmul_forward_2 || wanted launch_heavy matmul_forward_3 || continue
    else
      wanted launch_heavy "$n" || continue
      add launch_heavy "$n" - "$bins/lh/$n"
    fi
    build "lh/$n" "examples/launch_heavy/$n.cu" -Iexamples/launch_heavy "${libs[@]}"
  done < examples/launch_heavy/programs.txt
elif wanted launch_heavy launch_heavy; then
  say "examples/launch_heavy is not in this tree: that set is skipped"
fi
add python train_loop - python3 "$root/bench/device/python/train_loop.py" 200
# The bundled examples measured on the H100 (bench/check/measured/h100*): the set `examples` is eight
# of them that cover the kinds of access (atomics, cp.async, ldmatrix, wgmma and bulk copies,
# a CUB block, a histogram, a transpose, a reduction); `examples_all` all of them. Each is also
# run on the emulator backend and compared with the GPU's reports.
few=" histogram transpose reduction tensor/hgemm tensor/attention tuned/async tuned/classic tuned/cub "
for f in examples/*.cu examples/tensor/*.cu examples/tuned/*.cu; do
  ex=${f#examples/}
  ex=${ex%.cu}
  [ -f "bench/check/measured/h100/$ex.lines.tsv" ] || [ -f "bench/check/measured/h100_run_new/$ex.lines.tsv" ] || continue
  if wanted examples_all "$ex"; then
    add examples_all "$ex" "$bins/ex/$ex" "$bins/ex/$ex"
  elif [[ $few == *" $ex "* ]] && wanted examples "$ex"; then
    add examples "$ex" "$bins/ex/$ex" "$bins/ex/$ex"
  else
    continue
  fi
  build "ex/$ex" "$f"
done
if [ -n "${EXTERNAL_DIR:-}" ]; then
  for dir in "$(readlink -f "$EXTERNAL_DIR")"/*/; do
    n=$(basename "$dir")
    [ -f "$dir/build.sh" ] && wanted external "$n" || continue
    args=$(cat "$dir/args" 2> /dev/null)
    add external "$n" "$dir$n $args" "$dir$n" $args
    mkdir -p "$res/build"
    bash "$dir/build.sh" > "$res/build/external_$n.txt" 2>&1 &
    builds+=($!)
  done
fi
say "${#names[@]} programs: ${names[*]}"

# --- build: bankcheck, the programs, the Python program's first run, side by side ----------
warm=""
if [ -n "${set_of[train_loop]:-}" ]; then
  mkdir -p "$res/train_loop"
  (t0=$(now); python3 bench/device/python/train_loop.py 3 > "$res/train_loop/first_run.out" 2>&1
   echo "first run (builds the extension, compiles Triton): rc=$? $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }')" >> "$res/train_loop/first_run.out") &
  warm=$!
fi
bankcheck=${BANKCHECK:-}
backend=${HEAVY_BACKEND:-gpu}
if [ -n "$bankcheck" ]; then
  bankcheck=$(readlink -f "$bankcheck")
  say "bankcheck: $bankcheck (BANKCHECK; not built here)"
  [ -x "$bankcheck" ] || say "BANKCHECK=$bankcheck is not an executable: bankcheck's columns stay empty"
  bindir=$(dirname "$bankcheck")
  for lib in bankcheck-run/libbankcheck-run.so bankcheck-gpu/libbankcheck-gpu.so \
             bankcheck-gpu/bankcheck-patches.fatbin bankcheck-cuda/libcuda.so.1 \
             bankcheck-nvtx/libbankcheck-nvtx.so; do
    found=""
    for d in "$bindir/../../lib" "$bindir/../lib"; do [ -e "$d/$lib" ] && found=1; done
    [ -n "$found" ] || say "beside $bankcheck there is no lib/$lib: the runs that need it fail"
  done
else
  build_dir=${BUILD_DIR:-$root/build-heavy}
  say "building bankcheck in $build_dir"
  { cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBANKCHECK_BUILD_TESTS=OFF \
      -DBANKCHECK_BUILD_BENCH=OFF &&
    cmake --build "$build_dir" --target bankcheck bankcheck_run_agent bankcheck_cuda bankcheck_nvtx &&
    cmake --build "$build_dir" --target bankcheck_gpu; } \
    > "$res/build/bankcheck.txt" 2>&1
  rc=$?
  tail -3 "$res/build/bankcheck.txt"
  bankcheck=$build_dir/tools/bankcheck/bankcheck
  [ "$rc" = 0 ] || say "the build of bankcheck failed (rc=$rc): bankcheck's columns stay empty"
fi
for p in "${builds[@]}"; do wait "$p"; done
for f in "$res"/build/*.txt; do
  grep -q -i 'error' "$f" && [ "$(basename "$f")" != bankcheck.txt ] && { echo "== $f"; tail -5 "$f"; }
done
[ -n "$warm" ] && wait "$warm" && tail -3 "$res/train_loop/first_run.out"
"$bankcheck" --version 2>&1 | head -1
say "built"

# --- per program ---------------------------------------------------------------------------
# Kernels a report names incomplete (launches not counted whole: the kernel's `incomplete`,
# `complete` false), of the kernels it lists, and "+N run" for the run's other sentences of
# incompleteness (the process's end, kernels that did not run).
incomplete() {
  python3 - "$1" <<'PY' 2>/dev/null || echo -
import json, sys
r = json.load(open(sys.argv[1]))
fs = [(f.get("report") or f) for f in r.get("files", [r])]
ks = [k for f in fs for k in f.get("kernels", [])]
n = sum(bool(k.get("incomplete")) or k.get("complete") is False for k in ks)
other = sum(not str(x).startswith("kernel ") for f in fs for x in f.get("incomplete", []))
print(f"{n}/{len(ks)}" + (f" +{other} run" if other else ""))
PY
}
# The default run's instrumentation, from its trace's last line: patches, unpatches and waits
# with their seconds, and modules made right only as a launch began.
instrumentation() {
  sed -n 's/.*stats: \([0-9]*\) patches (\([0-9.]*\) s), \([0-9]*\) unpatches (\([0-9.]*\) s), \([0-9]*\) waits (\([0-9.]*\) s).*, \([0-9]*\) made right only.*/\1 p \2s, \3 u \4s, \5 w \6s, \7 late/p' "$1" 2>/dev/null | tail -1
}
printf 'program\tset\tplain_s\tplain_rc\tgpu_s\tgpu_rc\tall_s\tall_rc\tncu_s\tncu_rc\tlines_equal\tlines\tkernels_both\tkernels_missed\tkernels_only_bankcheck\temu\tincomplete\tinstrumentation\n' \
  > "$out/heavy.tsv"
bc=(run --backend "$backend" --no-progress --format json)
have_ncu=""
command -v ncu > /dev/null && have_ncu=1
[ -n "$have_ncu" ] || say "no ncu on PATH: its column stays empty"
[ "$backend" = gpu ] || say "HEAVY_BACKEND=$backend: bankcheck's columns come from the $backend backend"
for n in "${names[@]}"; do
  d=$res/${n//\//_}
  mkdir -p "$d"
  read -r -a cmd <<< "${cmd_of[$n]}"
  echo "${cmd[*]}" > "$d/command.txt"
  say "$n: ${cmd[*]}"
  timed plain "$step_limit" "$d/plain.out" "${cmd[@]}"
  BANKCHECK_GPU_TRACE=$d/gpu.trace BANKCHECK_GPU_TRACE_LAUNCHES=${trace_launches[$n]:-0} timed gpu "$step_limit" "$d/gpu.out" "$bankcheck" "${bc[@]}" -o "$d/gpu.json" -- "${cmd[@]}"
  BANKCHECK_GPU_TRACE=$d/all.trace timed all "${ALL_S:-$step_limit}" "$d/all.out" "$bankcheck" "${bc[@]}" --launches all -o "$d/all.json" -- "${cmd[@]}"
  if [ -n "${no_ncu[$n]:-}" ] || [ -z "$have_ncu" ]; then
    ncu_s=- ncu_rc=-
  else
    timed ncu "$ncu_limit" "$d/ncu.out" ncu --section SourceCounters --filter-mode per-launch-config \
      --launch-count 1 --page source --csv --print-source cuda,sass --clock-control none \
      --log-file "$d/ncu.source.csv" "${cmd[@]}"
  fi
  eq=- total=- kb=- km=- ko=-
  if [ -s "$d/gpu.json" ] && [ -s "$d/ncu.source.csv" ]; then
    python3 bench/device/compare_heavy.py "$d/gpu.json" "$d/ncu.source.csv" --run "$n" \
      --markdown "$d/compare_ncu.md" --summary "$d/compare_ncu.sum" > "$d/compare_ncu.log" 2>&1
    [ -s "$d/compare_ncu.sum" ] && read -r eq total kb km ko < "$d/compare_ncu.sum"
    tail -2 "$d/compare_ncu.log"
  fi
  emu=-
  if [ "${emu_of[$n]}" != - ] && [ -s "$d/gpu.json" ]; then
    read -r -a ecmd <<< "${emu_of[$n]}"
    timed emu "$step_limit" "$d/emu.out" "$bankcheck" run --backend emulator --no-progress --format json -o "$d/emu.json" -- "${ecmd[@]}"
    # --launches all on the emulator, compared with the GPU's: only where that one ran.
    if [ -s "$d/all.json" ]; then
      timed emuall "$step_limit" "$d/emu_all.out" "$bankcheck" run --backend emulator --no-progress --format json --launches all -o "$d/emu_all.json" -- "${ecmd[@]}"
    else
      emuall_s=- emuall_rc=skipped
    fi
    e1=- e2=-
    if [ -s "$d/emu.json" ]; then
      python3 bench/device/compare_heavy.py "$d/gpu.json" "$d/emu.json" --run "$n" \
        --markdown "$d/compare_emu.md" --summary "$d/compare_emu.sum" > "$d/compare_emu.log" 2>&1
      read -r a b _ < "$d/compare_emu.sum" && e1="$a/$b"
    fi
    if [ -s "$d/emu_all.json" ] && [ -s "$d/all.json" ]; then
      python3 bench/device/compare_heavy.py "$d/all.json" "$d/emu_all.json" --run "$n (all)" \
        --markdown "$d/compare_emu_all.md" --summary "$d/compare_emu_all.sum" > "$d/compare_emu_all.log" 2>&1
      read -r a b _ < "$d/compare_emu_all.sum" && e2="$a/$b"
    fi
    emu="$e1 default, $e2 all (${emu_s}s, ${emuall_s}s)"
  fi
  inc="$( [ -s "$d/gpu.json" ] && incomplete "$d/gpu.json" || echo -) default, $( [ -s "$d/all.json" ] && incomplete "$d/all.json" || echo -) all"
  ins=$(instrumentation "$d/gpu.trace")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "${set_of[$n]}" \
    "$plain_s" "$plain_rc" "$gpu_s" "$gpu_rc" "$all_s" "$all_rc" "$ncu_s" "$ncu_rc" \
    "$eq" "$total" "$kb" "$km" "$ko" "$emu" "$inc" "${ins:--}" >> "$out/heavy.tsv"
  say "$n: plain ${plain_s}s rc=$plain_rc, gpu ${gpu_s}s rc=$gpu_rc, all ${all_s}s rc=$all_rc, ncu ${ncu_s}s rc=$ncu_rc, lines $eq/$total, emu $emu, incomplete $inc"
  for f in "$d"/*.err "$d"/gpu.out "$d"/all.out; do
    [ -f "$f" ] && grep -m3 'bankcheck: error' "$f"
  done
done

# --- the table and the results -------------------------------------------------------------
python3 bench/device/heavy_table.py "$out/heavy.tsv" > "$out/heavy_table.txt"
cat "$out/heavy_table.txt"
for f in "$res"/*/ncu.source.csv "$res"/*/*.trace; do [ -f "$f" ] && gzip -9 "$f"; done
cp "$out/heavy.tsv" "$out/heavy_table.txt" "$res/"
tar -C "$work" -czf "$out/heavy_results.tar.gz" heavy
if [ "$(stat -c %s "$out/heavy_results.tar.gz")" -gt 15000000 ]; then
  find "$res" -type f -size +2M -print -delete > "$work/dropped.txt"
  cp "$work/dropped.txt" "$res/dropped_over_2MB.txt"
  tar -C "$work" -czf "$out/heavy_results.tar.gz" heavy
  say "results over 15 MB: files over 2 MB left out ($(wc -l < "$work/dropped.txt"))"
fi
say "done: $out/heavy_table.txt, heavy.tsv, heavy.log, heavy_results.tar.gz ($(stat -c %s "$out/heavy_results.tar.gz") bytes)"
sleep 1  # the log's last lines through tee
