#!/usr/bin/env bash
# bankcheck's libcuda.so.1 against the real driver: SONAME libcuda.so.1, exactly the functions
# of src/runtime/cuda_exports.txt (and of the toolkit's stub driver, which exports what the
# driver does, when given), unversioned as the driver's are, nothing else exported.
#
# Usage: exports.sh OUR_LIBRARY EXPORTS_TXT [STUB_LIBRARY]
set -u
ours=$1 list=$2 stub=${3:-}
bad=0
fail() { echo "FAIL: $*"; bad=1; }

readelf -d "$ours" | grep -q 'Library soname: \[libcuda.so.1\]' || fail "SONAME is not libcuda.so.1"

defined=$(nm -D --defined-only "$ours")
names=$(awk '$2 != "A" { print $3 }' <<<"$defined" | sed 's/@.*//' | sort)
wanted=$(grep -v '^#' "$list" | cut -f1 | sort)
missing=$(comm -13 <(echo "$names") <(echo "$wanted"))
extra=$(comm -23 <(echo "$names") <(echo "$wanted"))
[ -z "$missing" ] || fail "not exported: $(echo $missing)"
[ -z "$extra" ] || fail "exported but not in the real driver: $(echo $extra)"
versioned=$(awk '$2 != "A" && $3 ~ /@/ { print $3 }' <<<"$defined")
[ -z "$versioned" ] || fail "versioned, unlike the driver's: $(echo $versioned)"
not_functions=$(awk '$2 != "T" && $2 != "W" && $2 != "A" { print $3 }' <<<"$defined")
[ -z "$not_functions" ] || fail "exported but not functions: $(echo $not_functions)"

if [ -n "$stub" ] && [ -f "$stub" ]; then
  theirs=$(nm -D --defined-only "$stub" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort)
  [ "$theirs" = "$wanted" ] || fail "$list differs from $stub: regenerate it with src/runtime/tools/cuda_exports.sh"
fi

implemented=$(grep -c ' T ' <<<"$defined")
stubbed=$(grep -c ' W ' <<<"$defined")
echo "$implemented functions implemented, $stubbed stubbed"
exit $bad
