# The programs and runs of examples/run/programs.txt, for the scripts that build and time them
# (truth.sh, speed.sh, bench/device/gpu_run.sh). Source it, then:
#   read_manifest ROOT           fills progs, runs, prog_dir, prog_srcs, run_prog, run_args
#   build_programs ROOT OUTDIR   builds every program into OUTDIR/NAME (OUTDIR/NAME.build.txt:
#                                nvcc's output) with run_flags, in parallel
# run_flags are examples/run/CMakeLists.txt's: sm_90 SASS and compute_90 PTX, line
# information, the shared CUDA runtime.
run_flags=(-std=c++17 -O3 -DNDEBUG "--generate-code=arch=compute_90,code=[sm_90]"
           "--generate-code=arch=compute_90,code=[compute_90]" -lineinfo -cudart shared)

read_manifest() {
  local manifest=$1/examples/run/programs.txt kind a b rest
  declare -gA prog_dir prog_srcs run_prog run_args
  progs=() runs=()
  while read -r kind a b rest; do
    case $kind in
      program) progs+=("$a"); prog_dir[$a]=$b; prog_srcs[$a]=$rest ;;
      run) runs+=("$a"); run_prog[$a]=$b; run_args[$a]=$rest ;;
    esac
  done < <(grep -E '^(program|run)[[:space:]]' "$manifest")
}

build_programs() {
  local root=$1 out=$2 p s dir srcs pids=()
  for p in "${progs[@]}"; do
    dir=$root/examples/run/${prog_dir[$p]}
    srcs=()
    for s in ${prog_srcs[$p]}; do srcs+=("$dir/$s"); done
    nvcc "${run_flags[@]}" -o "$out/$p" "${srcs[@]}" > "$out/$p.build.txt" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
}
