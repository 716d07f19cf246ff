#!/usr/bin/env bash
# How far the tiers are from the host running the same work directly: each launch's execution
# time (BANKCHECK_LAUNCH_TIMES) under `--tier today` and the fast tier (every launch executed,
# none analysed, the native code compiled first), beside native_floor.cpp's C++ form of the
# kernel on as many threads (outputs touched, the least of 5 runs). Per program, over the
# kernels with a floor: today / native is the most any tier could gain over today on this
# machine, fast / native how far the fast tier is from it. gelu, the attention softmax and
# crossentropy's softmax call the host's libm (tanhf, expf), not the PTX's own arithmetic:
# their C++ times are shown and are not floors.
#
#   bash bench/run/native_floor.sh [BUILD]    BUILD: as bench/run/throughput.sh's
set -uo pipefail
build=$(readlink -f "${1:-build}")
b=$build/tools/bankcheck/bankcheck
lh=$build/examples/launch_heavy/bin
scan=$build/examples/run/bin/scan
threads=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BANKCHECK_CACHE_DIR=$work/cache
"${CXX:-c++}" -O2 -pthread -o "$work/native_floor" "$(dirname "$0")/native_floor.cpp" || exit 1
"$work/native_floor" "$threads" 5 > "$work/native.txt" || exit 1
run() {  # TIER OUT PROGRAM ARGS...: the launch times of one run
  local tier=$1 out=$2; shift 2
  rm -f "$out"
  BANKCHECK_LAUNCH_TIMES="$out" "$b" run --no-progress --kernel no_such_kernel --repeats execute \
    --tier "$tier" --threads "$threads" -o "$work/x.txt" -- "$@" > /dev/null 2>&1
}
for p in encoder_forward layernorm_forward gelu_residual_forward attention_forward \
         crossentropy_forward scan; do
  if [[ $p == scan ]]; then args=("$scan" 1048576 30); else args=("$lh/$p" 0 256 0); fi
  BANKCHECK_NATIVE_AFTER=0 run fast "$work/first" "${args[@]}"
  run today "$work/$p.today" "${args[@]}"
  run fast "$work/$p.fast" "${args[@]}"
done
python3 - "$work" <<'PY'
import math, os, re, sys
work = sys.argv[1]
native = dict(l.split() for l in open(os.path.join(work, "native.txt")))
native = {k: float(v) for k, v in native.items()}
not_floor = {"gelu", "softmax", "crossentropy"}
# The C++ form of a kernel, by its name; scan's three kernels make one iteration of "scan",
# layernorm's mean, rstd and normalization kernels one "layernorm".
forms = [(r"encoder_forward_kernel", "encoder"), (r"layernorm_forward_kernel", "layernorm"),
         (r"mean_kernel|rstd_kernel|normalization_kernel", "layernorm/3"),
         (r"gelu_forward_kernel", "gelu"), (r"residual_forward_kernel", "residual"),
         (r"unpermute_kernel", "unpermute"), (r"permute_kernel", "permute"),
         (r"crossentropy_softmax_kernel", "crossentropy"), (r"softmax_kernel", "softmax"),
         (r"block_scan|scan_block_totals|add_block_offsets", "scan/3")]
def form(kernel):
    for pat, f in forms:
        if re.search(pat, kernel):
            return f
    return None
print(f"{'kernel':<44} {'today_s':>9} {'fast_s':>9} {'native_s':>9} {'today/native':>12} {'fast/native':>11}")
ceilings = []
for p in ["encoder_forward", "layernorm_forward", "gelu_residual_forward", "attention_forward",
          "crossentropy_forward", "scan"]:
    today = [l.split() for l in open(os.path.join(work, p + ".today"))]
    fast = [l.split() for l in open(os.path.join(work, p + ".fast"))]
    st = sf = sn = 0.0
    per = {}  # per kernel, its launches summed, in the order of their first launch
    for (k, _, t), (_, _, f) in zip(today, fast):
        a = per.setdefault(k, [0.0, 0.0, 0])
        a[0] += float(t); a[1] += float(f); a[2] += 1
    for k, (t, f, count) in per.items():
        fm = form(k)
        base = fm.split("/")[0] if fm else None
        nat = count * native[base] / (3 if fm.endswith("/3") else 1) if base in native else None
        short = re.sub(r"^_Z\d+", "", k)[:44]
        if nat is None:
            print(f"{short:<44} {float(t):9.4f} {float(f):9.4f} {'':>9}")
            continue
        mark = " (libm: not a floor)" if base in not_floor else ""
        print(f"{short:<44} {float(t):9.4f} {float(f):9.4f} {nat:9.4f} {float(t) / nat:11.1f}x {float(f) / nat:10.1f}x{mark}")
        if base not in not_floor:
            st += float(t); sf += float(f); sn += nat
    if sn:
        ceilings.append(st / sn)
        print(f"  {p}: kernels with a floor: today {st:.4f} s, fast {sf:.4f} s, native {sn:.4f} s: "
              f"today / native {st / sn:.1f}x (the most any tier could gain), fast / native {sf / sn:.1f}x, "
              f"today / fast {st / sf:.2f}x\n")
if ceilings:
    g = math.exp(sum(map(math.log, ceilings)) / len(ceilings))
    print(f"today / native over the programs' floored kernels: geometric mean {g:.1f}x (a 5x tier needs "
          f"the fast tier within {g / 5:.1f}x of native)")
PY
