#!/usr/bin/env bash
# `cmake --install` of this build into a scratch prefix: the manual page, the bash completion,
# the documentation and the JSON Schemas are where the install rules put them; the page
# renders without a warning; the completion is valid bash, completes `bankcheck ch` to
# `check`, and offers every option each subcommand's --help lists, and no other.
# Usage: install_test.sh CMAKE BUILD_DIR WORK_DIR   (from the repository root)
set -uo pipefail
cmake=$1 build=$2 work=$3
fail=0
bad() { echo "install_test: $*" >&2; fail=1; }
rm -rf "$work" && mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
p=$work/prefix
man=$p/share/man/man1/bankcheck.1
completion=$p/share/bash-completion/completions/bankcheck
for f in "$p/bin/bankcheck" "$man" "$completion" "$p/share/doc/bankcheck/check.md" \
         "$p/share/doc/bankcheck/json.md" "$p/share/doc/bankcheck/limits.md" \
         "$p/share/doc/bankcheck/schema/check.schema.json" "$p/share/doc/bankcheck/schema/fix.schema.json" \
         "$p/share/doc/bankcheck/schema/explain.schema.json" \
         "$p/share/doc/bankcheck/schema/occupancy.schema.json"; do
  [ -s "$f" ] || bad "missing after install: ${f#$p/}"
done
# Every document and schema of the source tree, none left behind.
for f in docs/*.md docs/schema/*.schema.json; do
  [ -e "$p/share/doc/bankcheck/${f#docs/}" ] || bad "not installed: $f"
done

# The manual page: groff with every warning on; else man; else the macros it uses are known.
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1) || bad "groff failed on the manual page"
  [ -z "$warnings" ] || bad "groff warns on the manual page: $warnings"
  text=$(groff -man -Tutf8 "$man" 2>/dev/null | sed 's/.\x08//g')
elif command -v man >/dev/null; then
  text=$(MANWIDTH=80 man -l "$man" 2>"$work/man.err" | col -b) || bad "man -l failed"
  [ -s "$work/man.err" ] && bad "man warns: $(cat "$work/man.err")"
else
  unknown=$(grep -oE '^\.[A-Za-z]+' "$man" | sort -u | grep -vxE '\.(TH|SH|SS|PP|TP|RS|RE|B|I|BR|BI|IR|RB|IB|br|nf|fi)' || true)
  [ -z "$unknown" ] || bad "unknown macros in the manual page: $unknown"
  text=$(cat "$man")
fi
for s in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" check fix explain occupancy "bankcheck check app.cu"; do
  grep -q "$s" <<<"$text" || bad "the manual page does not mention '$s'"
done

# The completion.
bash -n "$completion" || bad "the completion is not valid bash"
complete_words() {  # complete_words WORD... : what the completion offers for the last word
  bash -c 'source "$0"; COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
           _bankcheck; printf "%s\n" "${COMPREPLY[@]}"' "$completion" "$@"
}
[ "$(complete_words bankcheck ch)" = check ] || bad "'bankcheck ch' does not complete to 'check'"
[ "$(complete_words bankcheck check --format h)" = html ] || bad "check --format h: not html"
[ "$(complete_words bankcheck fix --format s)" = sarif ] || bad "fix --format s: not sarif"
[ "$(complete_words bankcheck occupancy --arch sm_12 | tr '\n' ' ')" = "sm_120 sm_121 " ] ||
  bad "occupancy --arch sm_12: $(complete_words bankcheck occupancy --arch sm_12 | tr '\n' ' ')"
(cd examples && [ "$(complete_words bankcheck check transp)" = transpose.cu ]) ||
  bad "check transp: not transpose.cu"
for sub in check fix explain occupancy; do
  want=$("$p/bin/bankcheck" "$sub" --help | grep -oE '^  (-[A-Za-z],)?--?[A-Za-z][A-Za-z-]*' |
         tr ',' '\n' | tr -d ' ' | grep . | sort -u)
  got=$(complete_words bankcheck "$sub" - | sort -u)
  [ "$want" = "$got" ] || bad "$sub: options of --help and of the completion differ:
$(diff <(echo "$want") <(echo "$got"))"
done
[ $fail -eq 0 ] && echo "install_test: manual page, completion, documentation and schemas installed"
exit $fail
