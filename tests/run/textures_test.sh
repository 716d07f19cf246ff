#!/usr/bin/env bash
# Texture fetches and surface loads and stores under `bankcheck run`, against the H200
# (bench/device/results/textures, bench/device/textures.sh): every fetched value of
# programs/textures.cu, every weight and step of programs/texture_weights.cu and every value
# of programs/surfaces.cu and programs/layered.cu, bit for bit, but the lines known.tsv names
# (3D linear filtering, whose weights are within a 256th of the H200's); the exit code; the
# reports' notes that texture and surface accesses run and are not counted.
#
# Usage: textures_test.sh BANKCHECK TEXTURES TEXTURE_WEIGHTS SURFACES LAYERED RESULTS
set -u
bankcheck=$1 textures=$2 weights=$3 surfaces=$4 layered=$5 results=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0
"$bankcheck" run --no-progress -o "$work/r1.txt" -- "$textures" > "$work/stdout.txt" 2> "$work/err1"
rc=$?
[ "rc=$rc" = "$(cat "$results/rc.txt")" ] || { echo "FAIL: exit code $rc, on the GPU $(cat "$results/rc.txt")"; bad=1; }
"$bankcheck" run --no-progress -o "$work/r2.txt" -- "$weights" > "$work/weights.txt" 2> "$work/err2" ||
  { echo "FAIL: texture_weights exited with $?"; bad=1; }
"$bankcheck" run --no-progress -o "$work/r3.txt" -- "$surfaces" > "$work/surfaces.txt" 2> "$work/err3" ||
  { echo "FAIL: surfaces exited with $?"; bad=1; }
"$bankcheck" run --no-progress -o "$work/r4.txt" -- "$layered" > "$work/layered.txt" 2> "$work/err4" ||
  { echo "FAIL: layered exited with $?"; bad=1; }
known=$(cut -f1 "$results/known.tsv" | grep -v '^#')
compared=0
for f in stdout.txt weights.txt surfaces.txt layered.txt; do
  while IFS= read -r want; do
    name=${want%%:*}
    got=$(grep -F -- "$name:" "$work/$f" | head -1)
    if grep -qxF -- "$name" <<< "$known"; then
      [ -n "$got" ] || { echo "FAIL: $f lacks the line '$name'"; bad=1; }
      continue
    fi
    compared=$((compared + 1))
    [ "$got" = "$want" ] || { echo "FAIL: $f: '$name' differs from the H200's"; echo "  GPU:      ${want:0:200}"; echo "  bankcheck: ${got:0:200}"; bad=1; }
  done < "$results/$f"
done
grep -q "note: texture fetch: run, not counted" "$work/r1.txt" ||
  { echo "FAIL: the report of textures lacks the note on its texture fetches"; bad=1; }
grep -q "note: surface access: run, not counted" "$work/r3.txt" ||
  { echo "FAIL: the report of surfaces lacks the note on its surface accesses"; bad=1; }
echo "$compared lines equal the H200's; $(grep -vc '^#' "$results/known.tsv") known apart"
[ $bad = 0 ] || { echo "--- standard error"; cat "$work/err1" "$work/err2" "$work/err3" "$work/err4"; }
exit $bad
