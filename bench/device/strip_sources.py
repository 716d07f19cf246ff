#!/usr/bin/env python3
"""Blanks a program's own source text out of recorded reports (a finding's quoted line, a fix's
rewritten lines: `source`, `before`, `after`, `change`) and Nsight Compute source CSVs (each
source line's text), in place, gzipped or not: for results of programs whose code is not the
project's to keep (heavy.sh's set `external`). Counts, lines and SASS stay, and
compare_heavy.py --replay reads them as before.

Usage: strip_sources.py FILE...   (*.json, *.json.gz, *.csv, *.csv.gz)
"""
import csv, gzip, io, json, sys
DROP = {"source", "before", "after", "change"}
def clean(o):
    if isinstance(o, dict):
        return {k: ("" if k in DROP and isinstance(v, str) else clean(v)) for k, v in o.items()}
    if isinstance(o, list):
        return [clean(v) for v in o]
    return o
for f in sys.argv[1:]:
    gz = f.endswith(".gz")
    op = gzip.open if gz else open
    if ".json" in f:
        data = clean(json.load(op(f, "rt")))
        with op(f, "wt") as out:
            json.dump(data, out, indent=1)
    elif ".csv" in f:
        text = op(f, "rt").read()
        out_rows = []
        for row in csv.reader(io.StringIO(text)):
            if row and row[0] and row[0] not in ("File Path", "Function Name", "Line No") and not row[0].startswith("==") and len(row) > 1:
                row[1] = ""
            out_rows.append(row)
        buf = io.StringIO()
        csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(out_rows)
        with op(f, "wt") as out:
            out.write(buf.getvalue())
