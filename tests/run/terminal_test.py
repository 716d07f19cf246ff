#!/usr/bin/env python3
"""`bankcheck run` from a terminal: the program stays in the terminal's foreground process
group, so Ctrl-C reaches it as it would without bankcheck (once: bankcheck does not forward the
terminal's own signal again), it dies of SIGINT, and bankcheck writes the report and exits 130.

Usage: terminal_test.py BANKCHECK BIN"""
import json
import os
import pty
import select
import sys
import tempfile
import time

bankcheck, bin_dir = sys.argv[1:3]
report = os.path.join(tempfile.mkdtemp(), "r.json")
pid, fd = pty.fork()
if pid == 0:
    os.execv(bankcheck, [bankcheck, "run", "--no-progress", "--format", "json", "-o", report,
                         "--", os.path.join(bin_dir, "endings"), "wait"])
out = b""


def read(timeout):
    global out
    r, _, _ = select.select([fd], [], [], timeout)
    if r:
        try:
            out += os.read(fd, 4096)
        except OSError:
            pass


deadline = time.time() + 20
while b"ready" not in out and time.time() < deadline:
    read(0.2)
os.write(fd, b"\x03")  # Ctrl-C: the terminal's SIGINT to its foreground process group
status = None
deadline = time.time() + 20
while status is None and time.time() < deadline:
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = os.waitstatus_to_exitcode(st)
    else:
        read(0.2)
problems = []
if status != 130:
    problems.append(f"exit code {status}, expected 130")
try:
    r = json.load(open(report))
    p = r["files"][0]["process"]
    if p["signal"] != 2 or r["complete"]:
        problems.append(f"the report says {p['ending']}, complete {r['complete']}")
    if [k["name"] for f in r["files"] for k in f["kernels"]] != ["column", "row"]:
        problems.append("the report lacks the kernels that ran")
except (OSError, ValueError, KeyError, IndexError) as e:
    problems.append(f"no report: {e}")
for p in problems:
    print("FAIL:", p)
if problems:
    print("--- terminal")
    print(out.decode(errors="replace"))
sys.exit(1 if problems else 0)
