#!/usr/bin/env python3
"""SARIF paths: a two-file project (one file in src/, one in lib/, a .git at its root) checked
from its build directory, as two files and through -p compile_commands.json. Each log is
valid against the SARIF 2.1.0 schema (tests/reports/schema, with python3-jsonschema), names
the repository root in run.originalUriBaseIds.SRCROOT, and gives every artifact location
below it a relative uri with uriBaseId SRCROOT. --source-root moves the root (a file outside
it keeps an absolute file:// URI); a bad --source-root is exit 2; with no repository the
working directory is the root.

Usage: sarif_paths_test.py BANKCHECK WORK_DIR   (from the repository root)
"""
import json
import os
import shutil
import subprocess
import sys
import urllib.parse

try:
    import jsonschema
except ImportError:
    sys.exit("sarif_paths_test: python3-jsonschema is missing: run scripts/install-deps.sh")

bankcheck, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
schema = json.load(open("tests/reports/schema/sarif-schema-2.1.0.json"))
validator_class = jsonschema.validators.validator_for(schema)
validator_class.check_schema(schema)
validator = validator_class(schema)
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(f"{what}\n{detail}" if detail else what)


def run(args, cwd):
    return subprocess.run([bankcheck] + args, capture_output=True, text=True, cwd=cwd)


def locations(node):
    """Every artifactLocation (and artifacts[].location) of a log."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "artifactLocation" or (key == "location" and isinstance(value, dict)
                                             and "uri" in value):
                yield value
            yield from locations(value)
    elif isinstance(node, list):
        for value in node:
            yield from locations(value)


def sarif(args, cwd, what):
    r = run(args + ["--format", "sarif", "--blocks", "2", "--no-progress"], cwd)
    check(r.returncode == 0, f"{what}: exited {r.returncode}", r.stderr)
    try:
        log = json.loads(r.stdout)
    except json.JSONDecodeError as e:
        check(False, f"{what}: not JSON: {e}", r.stdout[:500])
        return None
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    check(not errors, f"{what}: not valid SARIF 2.1.0",
          "\n".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:10]))
    return log


def root_of(log):
    return log["runs"][0].get("originalUriBaseIds", {}).get("SRCROOT", {}).get("uri")


def file_uri(path):
    return "file://" + urllib.parse.quote(path if path.endswith("/") else path + "/")


shutil.rmtree(work, ignore_errors=True)
project = os.path.join(work, "project")
for d in ("src", "lib", "build", ".git"):
    os.makedirs(os.path.join(project, d))
shutil.copy("tests/ci/conflict.cu", os.path.join(project, "src", "conflict.cu"))
shutil.copy("examples/cmake/tiles.cu", os.path.join(project, "lib", "tiles.cu"))
build = os.path.join(project, "build")
inputs = ["../src/conflict.cu", "../lib/tiles.cu"]

# Two files, from the build directory: the repository root is the base.
log = sarif(["check"] + inputs, build, "two files")
if log:
    check(root_of(log) == file_uri(project), "two files: SRCROOT is the repository root",
          json.dumps(log["runs"][0].get("originalUriBaseIds")))
    ours = [l for l in locations(log) if "uriBaseId" in l]
    uris = {l["uri"] for l in ours}
    check({"src/conflict.cu", "lib/tiles.cu"} <= uris,
          "two files: both files relative to SRCROOT", sorted(uris))
    check(all(l["uriBaseId"] == "SRCROOT" and not l["uri"].startswith(("/", "file:", "../"))
              for l in ours), "two files: relative URIs with uriBaseId SRCROOT", ours[:5])
    others = [l["uri"] for l in locations(log) if "uriBaseId" not in l]
    check(all(u.startswith("file:///") for u in others),
          "two files: what lies outside the root (toolkit headers) is absolute", others[:5])
    arts = [a["location"] for a in log["runs"][0]["artifacts"]]
    check(len(arts) == len({json.dumps(a, sort_keys=True) for a in arts}),
          "two files: each artifact once", arts)
    results = log["runs"][0]["results"]
    check(any(r["locations"][0]["physicalLocation"]["artifactLocation"].get("uri") ==
              "src/conflict.cu" for r in results), "two files: a result in src/conflict.cu")

# Through -p: the build's compile_commands.json names both files.
db = [{"directory": build, "file": os.path.join(project, f[3:]),
       "arguments": ["nvcc", "-arch=sm_90", "-c", f, "-o", os.path.basename(f) + ".o"]}
      for f in inputs]
json.dump(db, open(os.path.join(build, "compile_commands.json"), "w"))
log = sarif(["check", "-p", "."], build, "-p")
if log:
    check(root_of(log) == file_uri(project), "-p: SRCROOT is the repository root")
    uris = {l["uri"] for l in locations(log) if l.get("uriBaseId") == "SRCROOT"}
    check({"src/conflict.cu", "lib/tiles.cu"} <= uris, "-p: both files relative", sorted(uris))

# --source-root: src/ is the root; lib/tiles.cu lies outside it.
log = sarif(["check", "--source-root", "../src"] + inputs, build, "--source-root")
if log:
    check(root_of(log) == file_uri(os.path.join(project, "src")), "--source-root: SRCROOT is src/",
          root_of(log))
    uris = {l["uri"]: l.get("uriBaseId") for l in locations(log)}
    check(uris.get("conflict.cu") == "SRCROOT", "--source-root: conflict.cu below it", uris)
    check(uris.get(file_uri(os.path.join(project, "lib", "tiles.cu"))[:-1]) is None and
          any(u.endswith("/lib/tiles.cu") and u.startswith("file:///") for u in uris),
          "--source-root: lib/tiles.cu outside it, absolute", uris)
r = run(["check", "--source-root", "no-such-dir", "--format", "sarif"] + inputs, build)
check(r.returncode == 2 and "--source-root: 'no-such-dir' is not a directory" in r.stderr,
      "a bad --source-root is exit 2 with its message", r.stderr)

# No repository above: the working directory is the root.
plain = os.path.join(work, "plain")
os.makedirs(plain)
shutil.copy("examples/cmake/tiles.cu", os.path.join(plain, "tiles.cu"))
if not any(os.path.exists(os.path.join(d, ".git")) for d in
           [os.path.dirname(plain)] + [os.path.dirname(plain)[:i] for i in
                                        range(1, len(os.path.dirname(plain)))
                                        if os.path.dirname(plain)[i] == "/"]):
    log = sarif(["check", "tiles.cu"], plain, "no repository")
    if log:
        check(root_of(log) == file_uri(plain), "no repository: the working directory",
              root_of(log))

if failures:
    print("sarif_paths_test: FAILED", file=sys.stderr)
    for f in failures:
        print(" -", f, file=sys.stderr)
    sys.exit(1)
print("sarif_paths_test: the two-file logs are valid SARIF 2.1.0 with relative URIs under SRCROOT")
