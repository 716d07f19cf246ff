#!/usr/bin/env bash
# bankcheck's libcudart.so.13 against the real one: SONAME libcudart.so.13, exactly the
# functions of src/runtime/cudart_exports.txt (and of the toolkit's own library, when given),
# every one under the version node libcudart.so.13, nothing else exported, and every function
# that does not return cudaError_t implemented rather than stubbed.
#
# Usage: exports.sh OUR_LIBRARY EXPORTS_TXT [REAL_LIBRARY]
set -u
ours=$1 list=$2 real=${3:-}
bad=0
fail() { echo "FAIL: $*"; bad=1; }

readelf -d "$ours" | grep -q 'Library soname: \[libcudart.so.13\]' || fail "SONAME is not libcudart.so.13"

defined=$(nm -D --defined-only "$ours")
names=$(awk '$2 != "A" { print $3 }' <<<"$defined" | sed 's/@.*//' | sort)
wanted=$(grep -v '^#' "$list" | cut -f1 | sort)
missing=$(comm -13 <(echo "$names") <(echo "$wanted"))
extra=$(comm -23 <(echo "$names") <(echo "$wanted"))
[ -z "$missing" ] || fail "not exported: $(echo $missing)"
[ -z "$extra" ] || fail "exported but not in the real library: $(echo $extra)"
unversioned=$(awk '$2 != "A" && $3 !~ /@@libcudart\.so\.13$/ { print $3 }' <<<"$defined")
[ -z "$unversioned" ] || fail "not in version node libcudart.so.13: $(echo $unversioned)"

if [ -n "$real" ] && [ -f "$real" ]; then
  theirs=$(nm -D --defined-only "$real" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort)
  [ "$theirs" = "$wanted" ] || fail "$list differs from $real: regenerate it with src/runtime/tools/cudart_exports.sh"
fi

# Stubs are weak; a function returning something else than cudaError_t must not be one.
for name in $(grep -v '^#' "$list" | awk -F'\t' '$2 != "cudaError_t" && $2 != "undeclared" { print $1 }'); do
  grep -qE " T $name@@" <<<"$defined" || fail "$name is not implemented"
done

implemented=$(grep -c ' T ' <<<"$defined")
stubbed=$(grep -c ' W ' <<<"$defined")
echo "$implemented functions implemented, $stubbed stubbed"
exit $bad
