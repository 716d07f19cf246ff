#!/usr/bin/env bash
# The GPU tool (libbankcheck-gpu.so) without a GPU: preloaded into driver.cpp, which makes the
# callbacks a program's CUDA work causes through a fake libsanitizer-public.so, scenario by
# scenario, each in a job as `bankcheck run` makes one; the report the job's parts give
# (report.cpp, as bankcheck writes it) and the patching the tool did are checked.
#   run.sh TOOL_DIR FAKE_LIBRARY DRIVER CUBIN WORK_DIR REPORT
set -u
tool=$1 fake=$2 driver=$3 cubin=$4 work=$5 report=$6
mkdir -p "$work"
run() {  # run SCENARIO 'OPTIONS' [VAR=VALUE...]: WORK/SCENARIO.{json,out,err,rc,trace,job/}
  local s=$1 options=$2
  shift 2
  rm -rf "$work/$s".*
  mkdir -p "$work/$s.job"
  printf '{"format": "json", "output": "%s", "progress": false%s}\n' "$work/$s.json" \
    "$options" > "$work/$s.job/options.json"
  (
    export "$@" BANKCHECK_RUN_JOB="$work/$s.job" BANKCHECK_RUN_ROOT=$BASHPID \
      BANKCHECK_SANITIZER_LIB="$fake" BANKCHECK_GPU_PATCHES="$tool/bankcheck-patches.fatbin" \
      BANKCHECK_GPU_TRACE="$work/$s.trace" LD_PRELOAD="$tool/libbankcheck-gpu.so"
    exec "$driver" "$s" "$cubin" > "$work/$s.out" 2> "$work/$s.err"
  )
  echo $? > "$work/$s.rc"
  BANKCHECK_RUN_JOB="$work/$s.job" "$report" 2>> "$work/$s.err"
}
run benchmark ''
run second_kernel ''
run all ', "launches": 0'
run all_one_kernel ', "launches": 0, "kernels": ["block_sum"]'
run incomplete ''
run refused ''
run refused_all ', "launches": 0'
run unload ''
run missing '' FAKE_PATCHES_MISSING=1
run worker ''
run reset ''
run fatal ''
run fatal_all ', "launches": 0'
run thread '' FAKE_AFTER_TEARDOWN_FILE="$work/thread.after"
run thread_all ', "launches": 0' FAKE_AFTER_TEARDOWN_FILE="$work/thread_all.after"
# "missing" is no scenario of the driver's: it exits 2 after loading the module.
exec python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
failed = []

def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed.append(what)

def counts(s):
    out = {}
    for line in open(os.path.join(work, s + ".out")):
        k, _, v = line.strip().partition("=")
        out[k] = int(v) if v.lstrip("-").isdigit() else v
    return out

def report(s):
    with open(os.path.join(work, s + ".json")) as f:
        r = json.load(f)
    ks = []
    for f in r.get("files", [r]):
        ks += (f.get("report") or f).get("kernels", [])
    return {k["mangled"]: k for k in ks}

def shared_sites(k):
    return [s for s in k["sites"] if s["space"] == "shared"]

def rc(s):
    return int(open(os.path.join(work, s + ".rc")).read())

c = counts("benchmark")
check("benchmark exits 0", rc("benchmark") == 0)
check(f"benchmark: patched at load and once again for the second configuration ({c['patches']})", c["patches"] == 2)
check(f"benchmark: unpatched before each timing loop ({c['unpatches']})", c["unpatches"] == 2)
# Each kernel's table is waited for and read back once when made (checked as written).
check(f"benchmark: one wait per unpatching, one for the table's writing ({c['waits']})",
      c["waits"] == 2 + 1)
check(f"benchmark: each analysed launch's table read as the next launch began ({c['reads']})",
      c["reads"] == 2 + 1)
check(f"benchmark: 2 of 202 launches ran the patches ({c['launches_patched']})", c["launches_patched"] == 2)
check("benchmark: the exits are patched", c["exits_marked"] == 1)
k = report("benchmark")[c["kernel_a"]]
conf = sorted((tuple(l["grid"]), l["launches"], l["analysed"]) for l in k["launches"])
check(f"benchmark: two configurations of 101 launches, one analysed each ({conf})",
      conf == [((4, 1, 1), 101, 1), ((8, 1, 1), 101, 1)])
sites = shared_sites(k)
check(f"benchmark: {c['shared_a']} shared sites", len(sites) == c["shared_a"] and sites)
check("benchmark: each site counts the two analysed launches' 96 warps, 2 wavefronts each",
      all(s["requests"] == 96 and s["wavefronts"] == 192 and s["ideal_wavefronts"] == 96 for s in sites))
check("benchmark: sites are on lines of kernels.cu",
      all(s["file"].endswith("kernels.cu") and s["line"] > 0 for s in sites))
check(f"benchmark: nothing incomplete ({k.get('incomplete')})", k.get("incomplete") == [])
for s in ("benchmark", "second_kernel"):
    stats = [l for l in open(os.path.join(work, s + ".trace")) if "stats:" in l]
    check(f"{s}: every module made right at the launch call, none as its launch began",
          len(stats) == 1 and ", 0 made right only as they began" in stats[0])

c = counts("second_kernel")
r = report("second_kernel")
check(f"second_kernel: the module patched again before b's first launch ({c['patches']})", c["patches"] == 2)
check(f"second_kernel: a's and b's first launches ran the patches ({c['launches_patched']})", c["launches_patched"] == 2)
check("second_kernel: nothing incomplete", all(k.get("incomplete") == [] for k in r.values()))
check("second_kernel: both kernels reported", c["kernel_a"] in r and c["kernel_b"] in r)
if c["kernel_b"] in r:
    check("second_kernel: b counts its one analysed launch (8 warps)",
          all(s["requests"] == 8 for s in shared_sites(r[c["kernel_b"]])))

c = counts("all")
r = report("all")
check(f"all: never unpatched, waited only for the writing of each kernel's table ({c['unpatches']}, {c['waits']})",
      c["unpatches"] == 0 and c["waits"] == 2)
check(f"all: every launch ran the patches ({c['launches_patched']})", c["launches_patched"] == 100)
check("all: a's 50 launches add up on the GPU (1600 warps a site)",
      all(s["requests"] == 1600 for s in shared_sites(r[c["kernel_a"]])))
check("all: b's 50 launches (400 warps a site)",
      all(s["requests"] == 400 for s in shared_sites(r[c["kernel_b"]])))

c = counts("all_one_kernel")
r = report("all_one_kernel")
check(f"all, --kernel block_sum: the module stays patched for the other kernel ({c['unpatches']}, {c['waits']})",
      c["unpatches"] == 0 and c["waits"] == 1 and c["launches_patched"] == 100)
check(f"all, --kernel block_sum: only it reported ({sorted(r)})", list(r) == ["_Z9block_sumPKfPf"])

c = counts("incomplete")
k = report("incomplete")[c["kernel_a"]]
inc = k.get("incomplete", [])
check(f"incomplete: its launch named incomplete in the report ({inc[:1]})",
      len(inc) == 1 and "6144 of the 8192 threads" in inc[0]["reason"])
check("incomplete: said on standard error",
      "incomplete" in open(os.path.join(work, "incomplete.err")).read())

# A launch the driver refused after it began: lost with the driver's error, not counted short;
# the kernel's other launches are still judged whole.
for s, counted in (("refused", 0), ("refused_all", 1)):
    c = counts(s)
    r = report(s)
    a, b = r.get(c["kernel_a"], {}), r.get(c["kernel_b"], {})
    inc = a.get("incomplete") or []
    check(f"{s}: the refused launch named, with the driver's error ({inc[:1]})",
          len(inc) == 1 and "returned error 701" in inc[0]["reason"]
          and "did not run" in inc[0]["reason"])
    check(f"{s}: a's launch that ran counted, {counted} of them ({[x['requests'] for x in shared_sites(a)]})",
          all(x["requests"] == 32 * counted for x in shared_sites(a)))
    check(f"{s}: said on standard error, the program having got the error",
          "the GPU refused a launch of" in open(os.path.join(work, s + ".err")).read())
    check(f"{s}: b counted whole ({b.get('incomplete')})",
          b.get("incomplete") == [] and shared_sites(b)
          and all(x["requests"] == 8 for x in shared_sites(b)))

c = counts("unload")
k = report("unload")[c["kernel_a"]]
check(f"unload: the table read as the module unloads (and once written) ({c['reads']})",
      c["reads"] == 1 + 1)
check("unload: its counts in the report", all(s["requests"] == 32 for s in shared_sites(k)) and shared_sites(k))
check("unload: counted whole", k.get("incomplete") == [])

err = open(os.path.join(work, "missing.err")).read()
check("missing patches: said once", err.count("cannot load bankcheck's device functions") == 1)

# A device reset: the module loaded again is the same kernel's (one launch per configuration).
c = counts("reset")
k = report("reset").get(c["kernel_a"], {})
conf = [(l["launches"], l["analysed"]) for l in k.get("launches", [])]
check(f"reset: one kernel, 2 launches of its configuration, 1 analysed ({conf})", conf == [(2, 1)])
check("reset: its one analysed launch counted (32 warps a site)",
      shared_sites(k) and all(x["requests"] == 32 for x in shared_sites(k)))
check(f"reset: counted whole ({k.get('incomplete')})", k.get("incomplete") == [])

# A worker that launches and exits at once: read before the runtime's exit handler tears down.
c = counts("worker")
k = report("worker").get(c["kernel_a"], {})
check(f"worker: exits 0 ({rc('worker')})", rc("worker") == 0)
check(f"worker: counted whole ({k.get('incomplete')})", k.get("incomplete") == [])
check("worker: its counts in the report",
      shared_sites(k) and all(s["requests"] == 32 for s in shared_sites(k)))

# A later kernel faults: the earlier one was read back before, only the faulting one is lost.
for s in ("fatal", "fatal_all"):
    c = counts(s)
    r = report(s)
    a, b = r.get(c["kernel_a"], {}), r.get(c["kernel_b"], {})
    check(f"{s}: exits 4 ({rc(s)})", rc(s) == 4)
    check(f"{s}: the kernel before the fault counted whole ({a.get('incomplete')})",
          a.get("incomplete") == [] and shared_sites(a)
          and all(x["requests"] == 32 for x in shared_sites(a)))
    check(f"{s}: the faulting kernel named incomplete ({b.get('incomplete')})",
          len(b.get("incomplete") or []) == 1)

# exit() from another thread while this one launches: the program's code, a report, a's counts.
for s in ("thread", "thread_all"):
    c = counts(s)
    r = report(s) if os.path.exists(os.path.join(work, s + ".json")) else {}
    a, b = r.get(c["kernel_a"], {}), r.get(c["kernel_b"], {})
    check(f"{s}: exits 5 as the program did ({rc(s)})", rc(s) == 5)
    check(f"{s}: the first kernel counted whole ({a.get('incomplete')})",
          a.get("incomplete") == [] and shared_sites(a)
          and all(x["requests"] == 32 for x in shared_sites(a)))
    check(f"{s}: the launching kernel reported, whole or named incomplete",
          b and shared_sites(b)
          and all(x["requests"] % 8 == 0 and x["requests"] > 0 for x in shared_sites(b)))
    late = b.get("incomplete") or []
    check(f"{s}: of the launching kernel, at most the launch made as the program ended is not "
          f"counted ({late[:1]})",
          len(late) <= 1 and all("as the program ended" in l["reason"] for l in late))
    after = open(os.path.join(work, s + ".after")).read().strip()
    check(f"{s}: nothing asked of the GPU after the runtime's exit handler ended its use ({after})",
          after == "0")

print(f"{len(failed)} failed")
sys.exit(1 if failed else 0)
PY
