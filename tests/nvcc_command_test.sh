#!/usr/bin/env bash
# The nvcc that check runs: --nvcc as a command (a wrapper, then nvcc; split as a shell splits
# words, run without a shell), and with -p the compiler of the file's entry in
# compile_commands.json (nvcc, or a launcher then nvcc; a clang entry falls back to nvcc on
# PATH), --nvcc first. Fake wrappers record their calls. Also: a -p run over a build where a
# .cu file has no kernel is a note, exit 0.
# Usage: nvcc_command_test.sh BANKCHECK NVCC   (run from the repository root)
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") nvcc=$2
root=$(pwd)
fail=0
say() { echo "nvcc_command_test: $*" >&2; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/my dir" "$tmp/proj"
export PATH="$tmp/bin:$(dirname "$nvcc"):$PATH"
# A wrapper in the style of ccache: records its arguments, one call a line, then runs them.
wrapper() {
  printf '#!/bin/sh\necho "$*" >> "%s"\nexec "$@"\n' "$2" >"$1"
  chmod +x "$1"
}
wrapper "$tmp/bin/fakecache" "$tmp/calls"
wrapper "$tmp/my dir/wrap" "$tmp/calls-spaced"
# An nvcc of its own name: records, then runs the real one.
printf '#!/bin/sh\necho "$*" >> "%s"\nexec "%s" "$@"\n' "$tmp/calls-nvcc" "$nvcc" >"$tmp/bin/nvcc-recorded"
chmod +x "$tmp/bin/nvcc-recorded"
src=$root/tests/ci/conflict.cu

# --nvcc "WRAPPER nvcc": the wrapper by path, by name on PATH, and in a quoted path.
"$bin" check "$src" --blocks 1 --quiet --nvcc "$tmp/bin/fakecache nvcc" >/dev/null 2>"$tmp/err" ||
  say "--nvcc 'fakecache nvcc' failed: $(cat "$tmp/err")"
grep -q '^nvcc -ptx -lineinfo -arch=sm_90 ' "$tmp/calls" 2>/dev/null ||
  say "--nvcc by path: the wrapper was not called with nvcc -ptx ...: $(cat "$tmp/calls" 2>&1)"
rm -f "$tmp/calls"
"$bin" check "$src" --blocks 1 --quiet --nvcc "fakecache nvcc -DEXTRA=1" >/dev/null 2>"$tmp/err" ||
  say "--nvcc by name failed: $(cat "$tmp/err")"
grep -q '^nvcc -DEXTRA=1 -ptx ' "$tmp/calls" 2>/dev/null ||
  say "--nvcc by name: the wrapper's own arguments were not kept first: $(cat "$tmp/calls" 2>&1)"
"$bin" check "$src" --blocks 1 --quiet --nvcc "'$tmp/my dir/wrap' nvcc" >/dev/null 2>"$tmp/err" ||
  say "--nvcc with a quoted path failed: $(cat "$tmp/err")"
[ -s "$tmp/calls-spaced" ] || say "--nvcc with a quoted path: the wrapper was not called"
# Bad commands: exit 2, the flag named.
expect_error() {  # MESSAGE ARGS...
  local msg=$1; shift
  "$bin" check "$src" --blocks 1 "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ $rc = 2 ] && grep -qF -- "$msg" "$tmp/err" || say "$*: exit $rc, not 2 with '$msg': $(cat "$tmp/err")"
}
expect_error "--nvcc: 'no-such-wrapper' is not on PATH" --nvcc "no-such-wrapper nvcc"
expect_error "--nvcc: ''unterminated nvcc'" --nvcc "'unterminated nvcc"
expect_error "--nvcc: '  ' names no command" --nvcc "  "

# -p: the entry's compiler. A launcher then nvcc (CMAKE_CUDA_COMPILER_LAUNCHER's shape).
cp "$src" "$tmp/proj/k.cu"
printf '#include <cstdio>\nint main() { std::puts("host only"); }\n' >"$tmp/proj/host.cu"
db() {  # COMMAND-PREFIX: an entry for k.cu and one for host.cu
  cat >"$tmp/proj/compile_commands.json" <<JSON
[{"directory": "$tmp/proj", "file": "$tmp/proj/k.cu", "command": "$1 -arch=sm_90 -c k.cu -o k.o"},
 {"directory": "$tmp/proj", "file": "$tmp/proj/host.cu", "command": "$1 -arch=sm_90 -c host.cu -o host.o"}]
JSON
}
rm -f "$tmp/calls"
db "$tmp/bin/fakecache $nvcc"
out=$(cd "$tmp/proj" && "$bin" check -p . --blocks 1 2>"$tmp/err"); rc=$?
[ $rc = 0 ] || say "-p with a launcher (and a file without kernels): exit $rc: $(cat "$tmp/err")"
[ "$(grep -c -- ' -ptx ' "$tmp/calls" 2>/dev/null)" = 2 ] ||
  say "-p: the entry's launcher was not called for both files: $(cat "$tmp/calls" 2>&1)"
printf '%s\n' "$out" | grep -q '^host.cu: note: no kernels' || say "-p: no 'no kernels' note for host.cu:
$out"
printf '%s\n' "$out" | grep -q '^k.cu:7:41: error: 32-way bank conflict' || say "-p: k.cu not checked:
$out"
# The same file named alone keeps the error: a file given without kernels is a mistake.
(cd "$tmp/proj" && "$bin" check host.cu 2>"$tmp/err" >/dev/null); rc=$?
[ $rc = 2 ] && grep -q 'no kernel' "$tmp/err" || say "host.cu alone: exit $rc: $(cat "$tmp/err")"
# --nvcc comes before the entry's compiler.
rm -f "$tmp/calls"
(cd "$tmp/proj" && "$bin" check -p . --blocks 1 --nvcc "$nvcc" >/dev/null 2>&1) || say "-p --nvcc failed"
[ ! -e "$tmp/calls" ] || say "-p --nvcc: the entry's launcher was still called"
# An nvcc of another name, as the entry's compiler (a relative path, from the entry's directory).
cp "$tmp/bin/nvcc-recorded" "$tmp/proj/nvcc-local"
sed -i "s|calls-nvcc|calls-local|" "$tmp/proj/nvcc-local"
db "./nvcc-local"
(cd "$tmp/proj" && "$bin" check -p . k.cu --blocks 1 >/dev/null 2>"$tmp/err") || say "-p ./nvcc-local failed: $(cat "$tmp/err")"
grep -q -- '-ptx' "$tmp/calls-local" 2>/dev/null || say "-p: the entry's ./nvcc-local was not called"
# A clang CUDA entry: its flags are mapped, and nvcc from PATH compiles.
cat >"$tmp/proj/compile_commands.json" <<JSON
[{"directory": "$tmp/proj", "file": "$tmp/proj/k.cu", "command": "clang++ --cuda-gpu-arch=sm_90 -c k.cu -o k.o"}]
JSON
(cd "$tmp/proj" && "$bin" check -p . --blocks 1 --quiet >"$tmp/out" 2>"$tmp/err") ||
  say "-p with a clang entry failed: $(cat "$tmp/err")"
grep -q 'error: 32-way' "$tmp/out" || say "-p with a clang entry: no finding"
[ $fail = 0 ] && echo "nvcc_command_test: --nvcc commands, the entries' compilers, a file without kernels in -p"
exit $fail
