#!/usr/bin/env bash
# Which lane loops of native code the compiler leaves scalar: each launch-heavy program and
# scan run once with their kernels' native code compiled at once, through a compiler wrapper
# that keeps each generated source and GCC's vectorizer report (-fopt-info-vec-all) with the
# very flags bankcheck compiles it with. Prints, per program and over all, the lane loops
# (`for (int l = 0; l < 32; ++l)` inside a run's function) that no instantiation vectorized,
# and what each computes when it is one of exp2f's fallbacks, a shfl or a compare. A scalar
# lane loop is 32 times the work of a vector one; the fast tier's throughput depends on this.
#
#   bash bench/run/native_vec.sh [BUILD]    BUILD: as bench/run/throughput.sh's (GCC's report)
set -uo pipefail
build=$(readlink -f "${1:-build}")
b=$build/tools/bankcheck/bankcheck
lh=$build/examples/launch_heavy/bin
scan=$build/examples/run/bin/scan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
cat > "$work/cxx" <<WRAP
#!/bin/sh
for a in "\$@"; do case "\$a" in *.cpp) s=$work/src/\$(basename "\$a"); cp "\$a" "\$s";;
esac; done
exec "${CXX:-c++}" "\$@" -fopt-info-vec-all="\$s.opt"
WRAP
chmod +x "$work/cxx"
total=0
for p in encoder_forward layernorm_forward gelu_residual_forward attention_forward \
         crossentropy_forward scan; do
  rm -f "$work"/src/*
  args=("$lh/$p" 0 256 0)
  [[ $p == scan ]] && args=("$scan" 1048576 1)
  BANKCHECK_CACHE_DIR=$work/cache-$p BANKCHECK_NATIVE_AFTER=0 BANKCHECK_CXX=$work/cxx \
    "$b" run --no-progress --kernel no_such_kernel --repeats execute -o "$work/x.txt" -- \
    "${args[@]}" > /dev/null 2>&1
  scalar=0 loops=0
  for f in "$work"/src/*.cpp; do
    [[ -f $f.opt ]] || continue
    first=$(grep -n '^inline std::int32_t run_0' "$f" | cut -d: -f1)
    [[ -n $first ]] || continue
    while read -r ln; do
      loops=$((loops + 1))
      grep -q ":$ln:[0-9]*: optimized: loop vectorized" "$f.opt" && continue
      scalar=$((scalar + 1))
      what=$(awk -v s="$ln" 'NR > s && NR < s + 40 { if ($0 ~ /^    }$/) exit;
        if ($0 ~ /const U t[0-9]+ =|const bool s[0-9]+ =|shfl_source|exp2/) { sub(/^ +/, ""); print; exit } }' "$f")
      echo "  $p: $(basename "$f"):$ln: ${what:-(no arithmetic)}"
    done < <(awk -v s="$first" 'NR > s && /^    for \(int l = 0; l < 32; \+\+l\) \{/ { print NR }' "$f")
  done
  echo "$p: $loops lane loops, $scalar left scalar"
  total=$((total + scalar))
done
echo "all: $total lane loops left scalar"
