#!/usr/bin/env python3
"""The CI recipes, run as CI would run them, offline:

- ci/action.yml: its `run:` steps executed in order with bash (as GitHub runs a composite
  action's bash steps: --noprofile --norc -eo pipefail), the expressions of their `env:` and
  `if:` evaluated from the inputs, the action's path and earlier steps' outputs, with a stubbed
  GitHub environment (GITHUB_OUTPUT, GITHUB_PATH, RUNNER_TEMP) in a temporary workspace; `uses:`
  steps (the SARIF upload) are skipped and named. No `run:` script holds an expression.
- ci/github-workflow.yml: parses, and uses the action with the upload's permission.
- .pre-commit-hooks.yaml: the hook's entry run as pre-commit runs it (its words, then the
  files) on a file with a conflict (exit 1) and one without (exit 0).
- ci/bankcheck-problem-matcher.json: its regexps, converted from JavaScript's syntax, against
  the real text output of `bankcheck check` on bundled examples (with and without colour):
  every finding line matched with its file, line, column, severity and message, nothing else.

Usage: ci_recipes_test.py BANKCHECK WORK_DIR   (from the repository root)
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

try:
    import yaml
except ImportError:
    sys.exit("ci_recipes_test: python3-yaml is missing: run scripts/install-deps.sh")

bankcheck, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
repo = os.getcwd()
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(f"{what}\n{detail}" if detail else what)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
bin_dir = os.path.join(work, "bin")
os.makedirs(bin_dir)
os.symlink(bankcheck, os.path.join(bin_dir, "bankcheck"))
path = bin_dir + os.pathsep + os.environ.get("PATH", "")

# ---- the composite action

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def evaluate(expr, inputs, outputs):
    """The few expressions the action uses: inputs.X, github.action_path,
    steps.ID.outputs.X, always(), ==, != and && of those."""
    parts = [p.strip() for p in expr.split("&&")]
    if len(parts) > 1:
        return all(truthy(evaluate(p, inputs, outputs)) for p in parts)
    for op in ("==", "!="):
        if op in expr:
            a, b = (evaluate(x.strip(), inputs, outputs) for x in expr.split(op, 1))
            return (a == b) == (op == "==")
    if expr == "always()":
        return True
    if expr.startswith("'") and expr.endswith("'"):
        return expr[1:-1]
    if expr.startswith("inputs."):
        return inputs[expr[len("inputs."):]]
    if expr == "github.action_path":
        return os.path.join(repo, "ci")
    m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
    if m:
        return outputs.get(m.group(1), {}).get(m.group(2), "")
    raise ValueError(f"an expression the test does not evaluate: {expr}")


def truthy(v):
    return v not in (False, "", None, 0)


def substitute(text, inputs, outputs):
    return EXPR.sub(lambda m: str(evaluate(m.group(1), inputs, outputs)), str(text))


action = yaml.safe_load(open("ci/action.yml"))
check(action["runs"]["using"] == "composite", "action.yml: a composite action")
steps = action["runs"]["steps"]
for s in steps:
    if "run" in s:
        check("${{" not in s["run"], f"action.yml: step '{s['name']}' pastes an expression into its script")
        check(s.get("shell") == "bash", f"action.yml: step '{s['name']}' has no shell: bash")
uploads = [s for s in steps if "uses" in s]
check([s["uses"].split("@")[0] for s in uploads] == ["github/codeql-action/upload-sarif"],
      "action.yml: one uses: step, the SARIF upload", uploads)
check(uploads and uploads[0]["with"]["sarif_file"] == "${{ steps.check.outputs.sarif-file }}",
      "action.yml: the upload takes the check step's log")


def run_action(with_inputs, name):
    """Runs the action's steps; returns (exit codes by step id or name, outputs, workspace)."""
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs.update(with_inputs)
    ws = os.path.join(work, name)
    os.makedirs(ws)
    for f in ("conflict.cu", "padded.cu"):
        shutil.copy(os.path.join(repo, "tests", "ci", f), ws)
    shutil.copy(os.path.join(repo, "tests", "ci", "padded.cu"), os.path.join(ws, "my padded.cu"))
    runner_temp = os.path.join(ws, ".runner")
    os.makedirs(runner_temp)
    outputs, codes, logs = {}, {}, {}
    failed = False
    for i, s in enumerate(steps):
        sid = s.get("id", s["name"])
        cond = s.get("if")
        ok_cond = truthy(evaluate(EXPR.fullmatch(cond.strip()).group(1) if EXPR.fullmatch(cond.strip()) else cond,
                                  inputs, outputs)) if cond else not failed
        if not ok_cond:
            continue
        if "uses" in s:
            codes[sid] = "skipped (uses)"
            continue
        out_file = os.path.join(runner_temp, f"output-{i}")
        open(out_file, "w").close()
        env = dict(os.environ, PATH=path, GITHUB_OUTPUT=out_file,
                   GITHUB_PATH=os.path.join(runner_temp, "path"),
                   GITHUB_ENV=os.path.join(runner_temp, "env"), RUNNER_TEMP=runner_temp,
                   GITHUB_WORKSPACE=ws, GITHUB_ACTION_PATH=os.path.join(repo, "ci"))
        env.pop("COLUMNS", None)
        for k, v in s.get("env", {}).items():
            env[k] = substitute(v, inputs, outputs)
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s["run"]],
                           cwd=ws, env=env, capture_output=True, text=True)
        codes[sid], logs[sid] = r.returncode, r.stdout + r.stderr
        outputs[sid] = dict(l.split("=", 1) for l in open(out_file).read().splitlines() if "=" in l)
        failed = failed or r.returncode != 0
    return codes, outputs, logs, ws


# A conflict and a padded file, the default gate: the log is written and uploaded (skipped
# here), then the gate step fails the job with bankcheck's exit 1.
codes, outputs, logs, ws = run_action({"files": "conflict.cu padded.cu", "args": "--blocks 2"}, "gate")
check(codes.get("install") == 0 and "bankcheck: using" in logs.get("install", ""),
      "action: the install step takes the bankcheck on PATH", logs.get("install"))
check(codes.get("check") == 0, "action: the check step itself succeeds (the gate comes later)",
      logs.get("check"))
check(outputs.get("check", {}).get("exit-code") == "1", "action: exit-code 1 (a crossed gate)",
      json.dumps(outputs) + logs.get("check", ""))
check("::error title=bankcheck::a --fail-on gate was crossed" in logs.get("check", ""),
      "action: an error annotation for the gate", logs.get("check"))
check(codes.get("Upload SARIF") == "skipped (uses)", "action: the upload step reached", codes)
check(codes.get("Gate") == 1, "action: the gate step fails the job with exit 1", codes)
sarif_path = os.path.join(ws, outputs.get("check", {}).get("sarif-file", "none"))
if os.path.exists(sarif_path):
    log = json.load(open(sarif_path))
    results = log["runs"][0]["results"]
    check(any(r["ruleId"] == "bank-conflict" for r in results), "action: the SARIF has the conflict")
    check(log["runs"][0].get("originalUriBaseIds", {}).get("SRCROOT"), "action: SARIF with SRCROOT")
else:
    check(False, "action: no SARIF log written", logs.get("check"))

# No conflict, a file name with a blank (quoted in the input), no gate crossed: every step passes.
codes, outputs, logs, ws = run_action({"files": "'my padded.cu'", "args": "--blocks 1"}, "pass")
check(outputs.get("check", {}).get("exit-code") == "0" and codes.get("Gate") == 0,
      "action: a padded file passes", json.dumps(codes) + logs.get("check", ""))
# Input that a shell would run is only a word.
codes, outputs, logs, ws = run_action({"files": "padded.cu", "args": "--blocks 1 $(touch injected)"}, "inject")
check(not os.path.exists(os.path.join(ws, "injected")), "action: args are not run by a shell")
check(outputs.get("check", {}).get("exit-code") == "2" and codes.get("Gate") == 2,
      "action: a bad argument is exit 2 and fails the job", json.dumps(codes) + logs.get("check", ""))
# No upload: the upload step is not reached.
codes, outputs, logs, ws = run_action({"files": "padded.cu", "upload": "false", "fail-on": ""}, "noupload")
check("Upload SARIF" not in codes and codes.get("Gate") == 0, "action: upload false skips the upload", codes)

workflow = yaml.safe_load(open("ci/github-workflow.yml"))
job = next(iter(workflow["jobs"].values()))
check(workflow["permissions"].get("security-events") == "write",
      "workflow: security-events write for the upload")
check(any(s.get("uses") == "./.bankcheck/ci" for s in job["steps"]), "workflow: uses the action")

# ---- the pre-commit hook

hooks = yaml.safe_load(open(".pre-commit-hooks.yaml"))
hook = [h for h in hooks if h["id"] == "bankcheck"]
check(len(hook) == 1, "pre-commit: one hook with id bankcheck", hooks)
if hook:
    h = hook[0]
    files_re = re.compile(h["files"])
    check(files_re.search("src/k.cu") and not files_re.search("src/k.cpp") and
          not files_re.search("k.cuh"), "pre-commit: the hook takes .cu files only")
    entry = shlex.split(h["entry"]) + h.get("args", [])
    env = dict(os.environ, PATH=path)
    r = subprocess.run(entry + ["tests/ci/conflict.cu"], capture_output=True, text=True, env=env)
    check(r.returncode == 1, f"pre-commit: a conflict stops the commit (exit {r.returncode})", r.stderr)
    check(r.stdout.startswith("tests/ci/conflict.cu:7:41: error: 32-way bank conflict") and
          "kernel column:" not in r.stdout, "pre-commit: the finding alone (quiet)", r.stdout)
    r = subprocess.run(entry + ["tests/ci/padded.cu"], capture_output=True, text=True, env=env)
    check(r.returncode == 0 and r.stdout == "", "pre-commit: a padded tile passes silently",
          r.stdout + r.stderr)

# ---- the problem matcher


def js_regexp(pattern):
    """A JavaScript regexp (as GitHub's runner compiles it) as a Python one: the syntax these
    patterns use is shared, but for \\/ and named groups; what differs is refused."""
    for js_only in ("(?<=", "(?<!", "\\k<", "\\p{", "\\cM"):
        if js_only in pattern:
            raise ValueError(f"JavaScript-only syntax {js_only} in {pattern}")
    return re.compile(re.sub(r"\(\?<(?=[A-Za-z])", "(?P<", pattern.replace("\\/", "/")))


matcher = json.load(open("ci/bankcheck-problem-matcher.json"))
patterns = [(m["owner"], p, js_regexp(p["regexp"])) for m in matcher["problemMatcher"]
            for p in m["pattern"]]
check(len(patterns) == 1 and patterns[0][0] == "bankcheck", "matcher: one pattern, owner bankcheck")
owner, spec, rx = patterns[0]
for example in ("examples/transpose.cu", "examples/stride.cu"):
    for color in ("never", "always"):
        r = subprocess.run([bankcheck, "check", example, "--blocks", "2", "--no-progress",
                            "--color", color], capture_output=True, text=True)
        js = subprocess.run([bankcheck, "check", example, "--blocks", "2", "--no-progress",
                             "--format", "json"], capture_output=True, text=True)
        check(r.returncode == 0 and js.returncode == 0, f"matcher: check {example} failed", r.stderr)
        if js.returncode:
            continue
        # Every finding of the JSON has its line in the text: at warning or error the
        # matcher's, at note (not annotated) a note line at the same place.
        expected = sorted((f["file"], f["line"], f["col"])
                          for fr in json.loads(js.stdout)["files"] for k in fr["kernels"]
                          for f in k["findings"])
        got = []
        for line in r.stdout.splitlines():
            m = rx.match(line)
            if not m:
                plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
                check(not re.match(r"^\S+:\d+:\d+: (warning|error): ", plain),
                      f"matcher: a finding line of {example} (--color {color}) not matched", line)
                n = re.match(r"^(\S+):(\d+):(\d+): note: ", plain)
                if n and (n.group(1), int(n.group(2)), int(n.group(3))) in expected:
                    got.append((n.group(1), int(n.group(2)), int(n.group(3))))
                continue
            g = lambda k: m.group(spec[k]) if k in spec else None
            check(g("severity") in ("warning", "error"), "matcher: the severity", g("severity"))
            got.append((g("file"), int(g("line")), int(g("column"))))
            check(os.path.exists(g("file")), "matcher: the file is a path", g("file"))
            check(g("message") and not g("message").startswith(("warning", "\x1b")),
                  "matcher: the message alone", g("message"))
        check(sorted(got) == expected, f"matcher: {example} (--color {color}): the JSON's findings",
              f"matched {got}\nJSON {expected}")
        check(expected, f"matcher: {example} has findings to match")

if failures:
    print("ci_recipes_test: FAILED", file=sys.stderr)
    for f in failures:
        print(" -", f, file=sys.stderr)
    sys.exit(1)
print("ci_recipes_test: the action's steps, the workflow, the pre-commit hook and the problem "
      "matcher against real output")
