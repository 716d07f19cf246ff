#!/usr/bin/env bash
# `cmake --install` of this build into a scratch prefix, as `make install PREFIX=...` does:
# bankcheck runs from the prefix (--version; `run` of a bundled program with the installed
# run agent and libcuda.so.1 when the build has both, nothing of an older bankcheck CUDA
# runtime installed); the manual page, the bash completion, the
# documentation and the JSON Schemas are where the install rules put them; the page is the
# one bankcheck generates, renders without a warning and documents every option of every
# subcommand --help lists; the completion is valid bash, completes subcommands, values and
# files, and offers every option each subcommand's --help lists, and no other. With cpack
# and dpkg-deb: the Debian package holds the same files and declares the libraries it links.
# Usage: install_test.sh CMAKE BUILD_DIR WORK_DIR   (from the repository root)
set -uo pipefail
cmake=$1 build=$(cd "$2" && pwd) work=$3
fail=0
bad() { echo "install_test: $*" >&2; fail=1; }
rm -rf "$work" && mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
p=$work/prefix
bankcheck=$p/bin/bankcheck
man=$p/share/man/man1/bankcheck.1
completion=$p/share/bash-completion/completions/bankcheck
for f in "$bankcheck" "$man" "$completion" "$p/share/doc/bankcheck/check.md" \
         "$p/share/doc/bankcheck/json.md" "$p/share/doc/bankcheck/limits.md" \
         "$p/share/doc/bankcheck/README.md" \
         "$p/share/doc/bankcheck/schema/check.schema.json" "$p/share/doc/bankcheck/schema/fix.schema.json" \
         "$p/share/doc/bankcheck/schema/explain.schema.json" \
         "$p/share/doc/bankcheck/schema/occupancy.schema.json" \
         "$p/lib/bankcheck-run/libbankcheck-run.so"; do
  [ -s "$f" ] || bad "missing after install: ${f#$p/}"
done
# bankcheck's CUDA driver replaced its CUDA runtime: no libcudart of bankcheck's is installed.
leftover=$(find "$p" -name '*bankcheck-cudart*' -o -name 'libcudart*' | head -3)
[ -z "$leftover" ] || bad "installed, though bankcheck no longer has a CUDA runtime: $leftover"
# Every document and schema of the source tree, none left behind.
for f in docs/*.md docs/schema/*.schema.json; do
  [ -e "$p/share/doc/bankcheck/${f#docs/}" ] || bad "not installed: $f"
done

# The installed executable, run from outside the source and build trees.
version=$(cd / && "$bankcheck" --version) || bad "bankcheck --version failed"
[[ $version =~ ^bankcheck\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || bad "bankcheck --version: '$version'"
[ "$(cd / && "$bankcheck" explain --addrs "$(seq -s, 0 128 3968)" --format json |
     grep -o '"ways": *[0-9]*' | head -1 | tr -d ' ')" = '"ways":32' ] ||
  bad "the installed bankcheck does not explain a 32-way column read"
# `run` finds the installed libcuda.so.1 beside the installed executable (not the build's).
program=$build/examples/run/bin/transpose
if [ -x "$program" ] && [ -e "$p/lib/bankcheck-cuda/libcuda.so.1" ]; then
  out=$(cd examples/run/transpose && "$bankcheck" run --no-progress -o "$work/run.json" \
        --format json -- "$program" 500 300 1 2>&1) || bad "bankcheck run from the install failed: $out"
  grep -q '"kernels"' "$work/run.json" 2>/dev/null || bad "bankcheck run from the install: no report"
  mv "$p/lib/bankcheck-cuda" "$work/cuda.away"
  out=$("$bankcheck" run --no-progress -- "$program" 500 300 1 2>&1) &&
    bad "bankcheck run without its libcuda.so.1 succeeded"
  grep -q "libcuda.so.1) was not found" <<<"$out" || bad "run without libcuda.so.1: $out"
  mv "$work/cuda.away" "$p/lib/bankcheck-cuda"
else
  echo "install_test: no bundled program or libcuda.so.1 in this build: 'run' not tested"
fi

# The manual page: the one bankcheck generates now (not a stale copy).
cmp -s "$man" <("$bankcheck" --generate-man) || bad "the installed manual page is not bankcheck --generate-man's"
cmp -s "$completion" <("$bankcheck" --generate-completion bash) ||
  bad "the installed completion is not bankcheck --generate-completion bash's"
"$bankcheck" --generate-completion zsh >/dev/null 2>"$work/gen.err"
[ $? -eq 2 ] && grep -q "expected 'bash'" "$work/gen.err" || bad "--generate-completion zsh: not refused"
# groff with every warning on; else man; else the macros it uses are known.
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1) || bad "groff failed on the manual page"
  [ -z "$warnings" ] || bad "groff warns on the manual page: $warnings"
  text=$(groff -man -Tascii -rLL=200n "$man" 2>/dev/null | sed 's/.\x08//g')
elif command -v man >/dev/null; then
  text=$(MANWIDTH=200 man -l "$man" 2>"$work/man.err" | col -b) || bad "man -l failed"
  [ -s "$work/man.err" ] && bad "man warns: $(cat "$work/man.err")"
else
  unknown=$(grep -oE '^\.[A-Za-z]+' "$man" | sort -u | grep -vxE '\.(TH|SH|SS|PP|TP|RS|RE|B|I|BR|BI|IR|RB|IB|br|nf|fi)' || true)
  [ -z "$unknown" ] || bad "unknown macros in the manual page: $unknown"
  text=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man")
fi
# It names the installed files under the prefix the build was configured with (make install
# PREFIX=... configures it), not this scratch one.
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
for s in NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO" \
         "bankcheck check app.cu" "$prefix/share/doc/bankcheck" "$prefix/lib/bankcheck-cuda"; do
  grep -qF -- "$s" <<<"$text" || bad "the manual page does not mention '$s'"
done
grep -q "docs/" <<<"$text" && bad "the manual page names the source tree's docs/: $(grep docs/ <<<"$text")"

# Every subcommand --help lists, and every option each one's --help lists: in the page's
# section of that subcommand, and offered by the completion.
subs=$("$bankcheck" --help | sed -n '/^Subcommands:/,$p' | grep -oE '^  [a-z][a-z-]*' | tr -d ' ')
[ -n "$subs" ] || bad "bankcheck --help lists no subcommand"
section() {  # the page's text from "   SUB" (a .SS heading) to the next heading
  awk -v s="$1" '$0 == "   " s {on = 1; next} on && (/^[A-Z]/ || /^   [a-z]/) {exit} on' <<<"$text"
}
options_of() {  # the options `bankcheck SUB --help` lists
  "$bankcheck" "$1" --help | grep -oE '^  (-[A-Za-z],)?--?[A-Za-z][A-Za-z-]*' |
    tr ',' '\n' | tr -d ' ' | grep . | sort -u
}

# The completion.
bash -n "$completion" || bad "the completion is not valid bash"
complete_words() {  # complete_words WORD... : what the completion offers for the last word
  bash -c 'source "$0"; COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
           _bankcheck; printf "%s\n" "${COMPREPLY[@]}"' "$completion" "$@"
}
[ "$(complete_words bankcheck ch)" = check ] || bad "'bankcheck ch' does not complete to 'check'"
[ "$(complete_words bankcheck "" | sort | tr '\n' ' ')" = "$(sort <<<"$subs" | tr '\n' ' ')" ] ||
  bad "'bankcheck ' does not offer the subcommands: $(complete_words bankcheck "" | tr '\n' ' ')"
[ "$(complete_words bankcheck --v)" = --version ] || bad "'bankcheck --v': not --version"
[ "$(complete_words bankcheck check --format h)" = html ] || bad "check --format h: not html"
[ "$(complete_words bankcheck fix --format s)" = sarif ] || bad "fix --format s: not sarif"
[ "$(complete_words bankcheck check --color a | tr '\n' ' ')" = "auto always " ] || bad "check --color a"
[ "$(complete_words bankcheck run --backend e)" = emulator ] || bad "run --backend e: not emulator"
[ "$(complete_words bankcheck occupancy --arch sm_12 | tr '\n' ' ')" = "sm_120 sm_121 " ] ||
  bad "occupancy --arch sm_12: $(complete_words bankcheck occupancy --arch sm_12 | tr '\n' ' ')"
[ "$(complete_words bankcheck check --arch sm_3 | wc -l)" -ge 8 ] || bad "check --arch sm_3: not Kepler's"
[ -z "$(complete_words bankcheck check --kernel tr)" ] || bad "check --kernel: offers files"
(cd examples && [ "$(complete_words bankcheck check transp)" = transpose.cu ]) ||
  bad "check transp: not transpose.cu"
(cd examples && [ "$(complete_words bankcheck check --kernel k transp)" = transpose.cu ]) ||
  bad "check --kernel k transp: not transpose.cu (an option's value taken for the file)"
(cd examples && [ "$(complete_words bankcheck check -o transp)" = transpose.cu ]) ||
  bad "check -o transp: not transpose.cu"
(cd examples && complete_words bankcheck check -p "" | grep -qx run) || bad "check -p: not a directory"
(cd examples && [ -z "$(complete_words bankcheck check -p transp)" ]) || bad "check -p transp: a file"
(cd examples && [ -n "$(complete_words bankcheck run -- ./prog transp)" ]) ||
  bad "run -- PROGRAM: the program's arguments are not completed as files"
[ "$(complete_words bankcheck run --kernel k --no-p)" = --no-progress ] || bad "run --kernel k --no-p"

for sub in $subs; do
  want=$(options_of "$sub")
  got=$(complete_words bankcheck "$sub" - | sort -u)
  [ "$want" = "$got" ] || bad "$sub: options of --help and of the completion differ:
$(diff <(echo "$want") <(echo "$got"))"
  sect=$(section "$sub")
  [ -n "$sect" ] || { bad "the manual page has no section for '$sub'"; continue; }
  for opt in $want; do
    grep -qE -- "(^|[ ,])$opt( |,|$)" <<<"$sect" || bad "the manual page's '$sub' does not document $opt"
  done
done

# The Debian package of this build: the same files, and the libraries it links declared.
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null &&
   [ -e "$build/CPackConfig.cmake" ]; then
  cpack=$(dirname "$cmake")/cpack
  [ -x "$cpack" ] || cpack=cpack
  if (cd "$work" && "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" \
        >"$work/cpack.log" 2>&1); then
    deb=$(ls "$work"/deb/bankcheck_*.deb 2>/dev/null | head -1)
    contents=$(dpkg-deb -c "$deb" | awk '{print $NF}')
    for f in bin/bankcheck share/man/man1/bankcheck.1 share/bash-completion/completions/bankcheck \
             share/doc/bankcheck/check.md share/doc/bankcheck/schema/check.schema.json; do
      grep -qx ".$prefix/$f" <<<"$contents" || bad "the .deb lacks $prefix/$f"
    done
    if [ -e "$p/lib/bankcheck-cuda/libcuda.so.1" ]; then
      grep -q "/bankcheck-cuda/libcuda.so.1$" <<<"$contents" || bad "the .deb lacks libcuda.so.1"
    fi
    grep -q "/bankcheck-run/libbankcheck-run.so$" <<<"$contents" || bad "the .deb lacks the run agent"
    depends=$(dpkg-deb -f "$deb" Depends)
    for lib in libfmt libc6 libstdc++6; do
      grep -q "$lib" <<<"$depends" || bad "the .deb does not depend on $lib: $depends"
    done
    [ "$(dpkg-deb -f "$deb" Package)" = bankcheck ] || bad "the .deb's package is not bankcheck"
  else
    bad "cpack -G DEB failed: $(tail -20 "$work/cpack.log")"
  fi
else
  echo "install_test: no cpack, dpkg-deb or dpkg-shlibdeps: the Debian package not tested"
fi
[ $fail -eq 0 ] && echo "install_test: bankcheck, its manual page, completion, documentation, schemas and package installed"
exit $fail
