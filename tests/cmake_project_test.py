#!/usr/bin/env python3
"""tests/cmake_project, a CUDA project, configured with CMake as its users would (LANGUAGES
CUDA, CMAKE_CUDA_ARCHITECTURES=90, CMAKE_EXPORT_COMPILE_COMMANDS=ON), then checked as built:

- `bankcheck check -p BUILD` checks its four .cu files in one command, each with its own
  entry's flags: transpose.cu's TILE comes from a header found only through the target's
  include directory (a 32-way conflict on line 12), reduce.cu's launch and shared array from
  the target's REDUCE_BLOCK=256 definition, stencil.cu compiles only as C++14 (its target's
  CUDA_STANDARD, the project's being 17), relaxed.cu only with its target's TILE and PAD
  definitions and --expt-relaxed-constexpr;
- bankcheck_add_check(... TARGET ...) from the installed package gives the same flags to
  CTest gates (the transpose's gate crosses; a target with no flags adds none; relaxed.cu's
  gate passes with its target's compile option, given for CUDA only, in nvcc's options file).

Usage: cmake_project_test.py BANKCHECK CMAKE CTEST NVCC BUILD_DIR WORK_DIR  (from the repository root)
"""
import json
import os
import shutil
import subprocess
import sys

bankcheck, cmake, ctest, nvcc, bankcheck_build, work = sys.argv[1:7]
project = "tests/cmake_project"
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(f"{what}\n{detail}" if detail else what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def must(args, **kw):
    r = run(args, **kw)
    if r.returncode != 0:
        sys.exit(f"cmake_project_test: {' '.join(args)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
prefix, build = os.path.join(work, "prefix"), os.path.join(work, "build")
must([cmake, "--install", bankcheck_build, "--prefix", prefix])
must([cmake, "-S", project, "-B", build, "-DCMAKE_CUDA_ARCHITECTURES=90",
      "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", f"-DCMAKE_CUDA_COMPILER={nvcc}",
      "-DBANKCHECK_GATES=ON", f"-DCMAKE_PREFIX_PATH={prefix}"])

# One command, every .cu file of the build.
r = run([bankcheck, "check", "-p", build, "--format", "json", "--no-progress"])
check(r.returncode == 0, f"check -p exited {r.returncode}", r.stderr)
report = json.loads(r.stdout) if r.returncode == 0 else {"files": []}
files = {os.path.basename(f["input"]): f for f in report["files"]}
check([f["input"] for f in report["files"]] ==
      [f"{project}/src/{n}" for n in ("transpose.cu", "reduce.cu", "stencil.cu", "relaxed.cu")],
      "the four files, in the database's order, relative to the current directory",
      [f["input"] for f in report["files"]])


def kernel(name):
    f = files.get(f"{name}.cu", {})
    ks = [k for k in f.get("kernels", []) if k["name"] == name]
    check(len(ks) == 1, f"{name}.cu: one kernel {name}", json.dumps(f)[:2000])
    return ks[0] if ks else {}


t = kernel("transpose")
conflicts = [(x["line"], x["ways"]) for x in t.get("findings", []) if x["rule"] == "bank-conflict"]
check(conflicts == [(12, 32)], "transpose.cu: a 32-way conflict on line 12 (TILE from include/tiles.cuh)",
      conflicts)
check(t.get("block") == [32, 8, 1] and t.get("static_smem") == 32 * 32 * 4,
      "transpose.cu: block TILE x 8 and a TILE x TILE float tile", (t.get("block"), t.get("static_smem")))
check(files.get("transpose.cu", {}).get("arch") == "sm_90", "the entry's sm_90")

red = kernel("reduce")
check(red.get("block") == [256, 1, 1], "reduce.cu: the target's REDUCE_BLOCK=256 sets the launch",
      red.get("block"))
check(red.get("static_smem") == 256 * 4, "reduce.cu: and its shared array (nvcc got it too)",
      red.get("static_smem"))
block_from = [s for s in red.get("settings_from", []) if s["setting"] == "block"]
check(block_from and block_from[0]["from"] == "host" and block_from[0]["expr"] == "REDUCE_BLOCK",
      "reduce.cu: the block read from the host launch", block_from)

st = kernel("stencil")
check(st and not [x for x in st.get("findings", []) if x["rule"] == "bank-conflict"],
      "stencil.cu (C++14): compiled and without conflict", st.get("findings"))

rel = [k for k in files.get("relaxed.cu", {}).get("kernels", []) if k["name"] == "column_sum"]
check(rel and rel[0].get("block") == [32, 8, 1] and
      not [x for x in rel[0].get("findings", []) if x["rule"] == "bank-conflict"],
      "relaxed.cu: its entry's TILE=32, PAD=1 and --expt-relaxed-constexpr", json.dumps(rel)[:2000])

# Text: one section per file.
r = run([bankcheck, "check", "-p", build, "--no-progress", "--blocks", "2"])
check(r.returncode == 0, f"check -p (text) exited {r.returncode}", r.stderr)
for i, n in enumerate(("transpose.cu", "reduce.cu", "stencil.cu", "relaxed.cu")):
    check(f"== {project}/src/{n} ({i + 1} of 4) ==\n" in r.stdout, f"text: a section for {n}", r.stdout[:3000])
check(f"{project}/src/transpose.cu:12:" in r.stdout, "text: the transpose's diagnostic")

# One file of the build; a file it does not compile; and without -p, no header.
r = run([bankcheck, "check", "-p", build, f"{project}/src/reduce.cu", "--format", "json"])
check(r.returncode == 0 and json.loads(r.stdout)["files"][0]["kernels"][0]["block"] == [256, 1, 1],
      "check -p BUILD reduce.cu: the single-file report with the entry's flags", r.stdout[:500] + r.stderr)
r = run([bankcheck, "check", "-p", build, "examples/transpose.cu"])
check(r.returncode == 2 and "examples/transpose.cu: not in" in r.stderr, "a file not in the build", r.stderr)
r = run([bankcheck, "check", f"{project}/src/reduce.cu"])
check(r.returncode == 2 and "tiles.cuh" in r.stderr, "without -p the header is not found", r.stderr)

# The installed package's gates with TARGET.
r = run([ctest, "--test-dir", build, "--output-on-failure"])
check(r.returncode == 0, "the project's CTest gates", r.stdout + r.stderr)
log_path = os.path.join(build, "Testing", "Temporary", "LastTest.log")
log = open(log_path).read() if os.path.exists(log_path) else ""
check("--fail-on 'ways>1' crossed: 32-way bank conflict at src/transpose.cu:12" in log,
      "transpose_gate failed on its gate (not on bad input)", log[-3000:])
gate_json = os.path.join(build, "reduce.json")
if os.path.exists(gate_json):
    check(json.load(open(gate_json))["files"][0]["kernels"][0]["block"] == [256, 1, 1],
          "reduce_as_built: TARGET kernels passed REDUCE_BLOCK=256")
else:
    check(False, "reduce_as_built wrote no report")
check("relaxed_as_built" in r.stdout and "Failed" not in
      [l for l in r.stdout.splitlines() if "relaxed_as_built" in l][0],
      "relaxed_as_built passed: TILE, PAD, the include directory and --expt-relaxed-constexpr "
      "reached nvcc", r.stdout)
flags = os.path.join(build, "bankcheck", "relaxed_as_built-CUDA.flags")
check(os.path.exists(flags) and open(flags).read() == '"--expt-relaxed-constexpr"\n',
      "the CUDA compile options in nvcc's options file",
      open(flags).read() if os.path.exists(flags) else "no " + flags)
testfile = open(os.path.join(build, "CTestTestfile.cmake")).read()
bare = [l for l in testfile.splitlines() if l.startswith("add_test([=[stencil_bare]=]")]
check(bare and bare[0].endswith('"--blocks" "2" "--" "-std=c++14")'),
      "stencil_bare: a target without flags adds none (and no second --)", bare)

if failures:
    print("cmake_project_test: FAILED", file=sys.stderr)
    for f in failures:
        print(" -", f, file=sys.stderr)
    sys.exit(1)
print("cmake_project_test: four files checked with their own flags in one command; the TARGET gates as built")
