#!/usr/bin/env bash
# The hostile-input suite: each case is a command line, the exit code it must end with and
# a substring its standard error (or output) must contain. Every case runs in its own
# scratch directory under a 4 GiB address-space limit, so that a crash, an abort, a hang
# or an allocation past the documented budget shows as a wrong exit code.
# Usage: run.sh BANKCHECK [REGEX]  (REGEX: run only the cases whose name matches)
set -u
B=$(readlink -f "$1")
ONLY=${2:-}
D=$(cd "$(dirname "$0")" && pwd)
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-hostile-XXXXXX")
trap 'chmod -R u+w "$ROOT" 2>/dev/null; rm -rf "$ROOT"' EXIT
export B D
pass=0 fail=0

# t NAME RC SUBSTRING COMMAND: COMMAND runs with bash in a fresh directory ($B, $D set).
t() {
  local name=$1 rc=$2 want=$3 cmd=$4
  [[ -n $ONLY && ! $name =~ $ONLY ]] && return
  local w="$ROOT/$name"
  mkdir -p "$w"
  local got
  (cd "$w" && { [[ -n ${BANKCHECK_HOSTILE_NO_ULIMIT:-} ]] || ulimit -v 4194304; } && timeout -k 5 300 bash -c "$cmd" >"$w/.out" 2>"$w/.err")
  got=$?
  if [[ $got -ne $rc ]] || ! grep -qaF -- "$want" "$w/.out" "$w/.err"; then
    echo "FAIL $name: exit $got (want $rc), want text '$want'"
    echo "  command: $cmd"
    cut -c1-300 "$w/.err" | sed "s/^/  stderr: /" | head -8
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}

# --- data loss ---------------------------------------------------------------------
t devfull_stdout 2 'cannot write to standard output: No space left on device' \
  '$B check $D/k.cu >/dev/full'
t devfull_o 2 "-o: cannot write '/dev/full': No space left on device" '$B check $D/k.cu -o /dev/full'
t closed_pipe 2 'cannot write to standard output: Broken pipe' \
  'trap "" PIPE; $B check $D/k.cu --format json | true; exit ${PIPESTATUS[0]}'
t o_is_input 2 "is the input file" \
  'cp $D/k.cu .; $B check k.cu -o ./k.cu; r=$?; cmp -s k.cu $D/k.cu || exit 99; exit $r'
t apply_existing 2 "exists; give --force" \
  'cp $D/apply.cu .; echo hand >apply.fixed.cu; $B fix apply.cu --apply; r=$?; grep -q hand apply.fixed.cu || exit 99; exit $r'
t apply_symlink 2 "is a symbolic link" \
  'cp $D/apply.cu .; echo keep >target; ln -s target apply.fixed.cu; $B fix apply.cu --apply; r=$?; grep -q keep target || exit 99; exit $r'
t apply_force 0 "applied" \
  'cp $D/apply.cu .; echo keep >target; ln -s target apply.fixed.cu; $B fix apply.cu --apply --force >out && grep -q keep target && test ! -L apply.fixed.cu && grep -q "32 + 1" apply.fixed.cu && ! ls apply.fixed.tmp-* 2>/dev/null && echo applied'
t apply_fresh 0 'tile[32][32 + 1]' \
  'cp $D/apply.cu .; $B fix apply.cu --apply >/dev/null && ! ls apply.fixed.tmp-* 2>/dev/null && cat apply.fixed.cu'

# --- crashes -------------------------------------------------------------------------
t nonutf8_line_json 0 'valid' \
  'sed "s|s\[threadIdx.x \* 2 % 128\] = n;|s[threadIdx.x * 2 % 128] = n; /* \xff\xfe */|" $D/k.cu >k.cu && $B check k.cu --format json >o.json && python3 -m json.tool o.json >/dev/null && echo valid'
t nonutf8_name_sarif 0 '%FF' \
  'cp $D/k.cu $(printf "n\xff.cu") && $B check $(printf "n\xff.cu") --format sarif >o.sarif && python3 -m json.tool o.sarif >/dev/null && cat o.sarif'
t nonascii_name_text 0 'é.cu:5' 'cp $D/k.cu é.cu && $B check é.cu'
t expr_deep 2 "nested more than 256 levels" '$B explain --type int --expr "$(printf "(%.0s" $(seq 30000))1$(printf ")%.0s" $(seq 30000))"'
t decl_deep 0 "shared array 's'" \
  'd=$(printf "(%.0s" $(seq 3000))32$(printf ")%.0s" $(seq 3000)); printf "// bankcheck: kernel=k grid=1 block=32 arg=out=zeros:256\n__global__ void k(int* out) {\n  __shared__ int s[$d][2];\n  s[threadIdx.x][0] = 1; __syncthreads(); out[threadIdx.x] = s[threadIdx.x*2%%32][0];\n}\n" >d.cu; $B fix d.cu'
# A declaration's dimension nested past the evaluator's depth (256): --decl is a located
# error; fix on a .cu goes on without that value (100,000 parentheses; 300,000 chained
# additions, which the evaluator and the tree's destructor once recursed through).
t decl_arg_deep 2 "--decl:1:265: expression nested more than 256 levels" \
  '$B explain --decl "float t[$(printf "(%.0s" $(seq 60000))1$(printf ")%.0s" $(seq 60000))][32]" --expr "t[0][lane]"'
t decl_deep_100k 0 "shared array 's'" \
  'd=$(printf "(%.0s" $(seq 100000))32$(printf ")%.0s" $(seq 100000)); printf "// bankcheck: kernel=k grid=1 block=32 arg=out=zeros:256\n__global__ void k(int* out) {\n  __shared__ int s[$d][2];\n  s[threadIdx.x][0] = 1; __syncthreads(); out[threadIdx.x] = s[threadIdx.x*2%%32][0];\n}\n" >d.cu; $B fix d.cu'
t decl_chain_300k 0 "shared array 's'" \
  'd=32$(printf "+0%.0s" $(seq 300000)); printf "// bankcheck: kernel=k grid=1 block=32 arg=out=zeros:256\n__global__ void k(int* out) {\n  __shared__ int s[$d][2];\n  s[threadIdx.x][0] = 1; __syncthreads(); out[threadIdx.x] = s[threadIdx.x*2%%32][0];\n}\n" >d.cu; $B fix d.cu'
t grid_all_huge 2 'give --blocks COUNT' '$B check $D/k.cu --grid 2147483647,65535,65535 --blocks all'
t random_huge 2 'memory budget' '$B check $D/k.cu --arg out=random:1000G'
t threads_5000 2 '--threads: 5000 is more than 256' '$B check $D/k.cu --threads 5000'
t local_4m 2 'give --threads 5' '$B check $D/local4m.cu --arg i=0 --threads 64 --grid 64 --block 128'
t local_4m_block 2 'raise --max-memory' '$B check $D/local4m.cu --arg i=0 --block 1024'
t local_4m_fits 0 'loc' '$B check $D/local4m.cu --arg i=0 --threads 2'
t six_pointers 0 'lazily allocated' '$B check $D/six.cu --format json'
t million_ctas 0 '1048576 of 1048576 CTAs analysed' \
  '$B check $D/k.cu --grid 1048576 --block 32 --blocks all --arg out=zeros:128M'
t billion_ctas 2 'give --blocks COUNT (a sample), smaller buffers or raise --max-memory' \
  '$B check $D/k.cu --grid 1048576,1024 --block 32 --blocks all --arg out=zeros:128M'
t max_memory_small 2 'raise --max-memory' '$B check $D/k.cu --max-memory 64M --arg out=zeros:128M'
t plan_names_buffers 2 '(the buffer out takes 1.0 MiB of it, leaving 39.0 MiB); give --blocks COUNT (a sample), smaller buffers or raise --max-memory' \
  '$B check $D/k.cu --grid 1048576,4 --block 32 --blocks all --arg out=zeros:1M --max-memory 40M'

# --- silently wrong ------------------------------------------------------------------
t atfile_dir 2 "is not a regular file" '$B check $D/k.cu --arg out=@.'
t atfile_empty 2 "is empty" ': >e.bin; $B check $D/k.cu --arg out=@e.bin'
t atfile_devzero 2 "is not a regular file" '$B check $D/k.cu --arg out=@/dev/zero'
t scalar_u32 2 'does not fit n (unsigned int, 0 to 4294967295)' '$B check $D/scalars.cu --arg n=4294967297 --arg c=1 --arg w=1'
t scalar_s8 2 'does not fit c (signed char, -128 to 127)' '$B check $D/scalars.cu --arg n=1 --arg c=300 --arg w=1'
t scalar_s64 0 '"w"' '$B check $D/scalars.cu --arg n=1 --arg c=-128 --arg w=-9223372036854775808 --format json'
t repeated_arg_last_wins 0 '"value": "7"' '$B check $D/k.cu --arg n=3 --arg n=7 --format json'
t arch_shared_limit 2 'on sm_75' '$B check $D/k.cu --arch sm_75 --smem 70K'

# --- unclear -------------------------------------------------------------------------
t unknown_subcommand 2 "unknown subcommand 'frobnicate'" '$B frobnicate k.cu'
t smem_max 2 '--smem 18446744073709551615 is more dynamic shared memory' '$B check $D/k.cu --smem 18446744073709551615'
t blocks_huge 0 'k' '$B check $D/k.cu --blocks 99999999999'
t upper_ptx 0 'k.cu' '${NVCC:-/usr/local/cuda/bin/nvcc} -ptx -lineinfo -arch=sm_90 $D/k.cu -o UPPER.PTX && $B check UPPER.PTX --kernel k --grid 1 --block 32 --arg p0=zeros:1024 --arg p1=1'
t externc_u64 0 '"value": "5"' '$B check $D/externc.ptx --grid 1 --block 32 --arg p0=zeros:1024 --arg p1=5 --format json'
# Binaries: a truncated ELF file, a fat binary claiming more bytes than it has, an ELF file
# without CUDA code.
t elf_truncated 2 'an ELF file bankcheck cannot read' 'head -c 100 /bin/true >t.o && $B check t.o'
t fatbin_huge 2 'its fat binary cannot be read' \
  'printf "\x50\xed\x55\xba\x01\x00\x10\x00\xff\xff\xff\xff\xff\xff\xff\x7f" >k.fatbin && $B check k.fatbin'
t elf_no_cuda 2 'no CUDA code in' 'cp /bin/true app && $B check app --kernel k'
t quote_name 0 "it's.cu:5" "cp \$D/k.cu \"it's.cu\" && \$B check \"it's.cu\""

# --- hang, signals, injection --------------------------------------------------------
t nvcc_timeout 2 'did not finish within 2 seconds' \
  'mkdir tmp; printf "#!/bin/sh\nsleep 100\n" >fake; chmod +x fake; TMPDIR=$PWD/tmp $B check $D/k.cu --nvcc ./fake --nvcc-timeout 2; r=$?; [ -z "$(ls -A tmp)" ] || exit 99; exit $r'
t sigterm_cleans 0 'clean' \
  'mkdir tmp; printf "#!/bin/sh\nsleep 100\n" >fake; chmod +x fake; TMPDIR=$PWD/tmp $B check $D/k.cu --nvcc ./fake & p=$!; sleep 1; kill -TERM $p; wait $p; [ -z "$(ls -A tmp)" ] && echo clean'
t injection 0 'k' 'cp $D/k.cu "inj\$(touch X).cu" && $B check "inj\$(touch X).cu" && test ! -e X'

echo "hostile: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
