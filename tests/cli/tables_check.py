#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The CSV files of --tables against the same tables in the command's --json:
    tables_check.py run|validate|sweep DIR JSON [NAME...]
or any CSV of syncemu's read as a notebook would:
    tables_check.py types FILE...
Each DIR/NAME.csv must hold the rows of its JSON table, with the same keys in the same order,
each value equal within the CSV's printing precision (10 digits; NaN, JSON null, empty). Without
NAMEs the files expected are every table of the JSON; NAMEs given are those of the tables that
are in text only (no JSON to compare with: read, and each must have rows). Tables of one id
(NAME.csv, NAME-2.csv, ...) are held against the JSON's NAME, which is the last of them. DIR
must hold these files and no other. Every file is also held to types(): a row per record (each
as wide as the header, the header's names unique) and a type per column, so that pandas'
read_csv gives each column one dtype, integers where the values are integers: a column of
numbers holds no word (a "-" or "n/a"), and a column of integers no empty cell (which pandas
reads as NaN, making the column floats). Prints what it compared; exits 1 on the first
difference."""
import csv, json, math, os, sys


def kind(c):
    if c == "":
        return "empty"
    for k, f in (("int", int), ("float", float)):
        try:
            f(c)
            return k
        except ValueError:
            pass
    return "str"


def types(path):
    """A row per record and a type per column; returns the columns' types."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        sys.exit("%s: empty" % path)
    head, body = rows[0], rows[1:]
    if len(set(head)) != len(head) or "" in head:
        sys.exit("%s: the header's names are not unique: %s" % (path, head))
    for i, r in enumerate(body):
        if len(r) != len(head):
            sys.exit("%s row %d: %d cells, the header %d" % (path, i + 1, len(r), len(head)))
    out = {}
    for j, h in enumerate(head):
        ks = {kind(r[j]) for r in body}
        if "str" in ks and ks & {"int", "float"}:
            sys.exit("%s, %s: numbers and words in one column: %s" % (
                path, h, sorted({r[j] for r in body if kind(r[j]) == "str"})[:5]))
        if ks == {"int", "empty"}:
            sys.exit("%s, %s: integers with empty cells (pandas reads floats)" % (path, h))
        out[h] = "str" if "str" in ks else "float" if "float" in ks else \
            "int" if "int" in ks else "empty"
    return out


if sys.argv[1] == "types":
    for p in sys.argv[2:]:
        t = types(p)
        print("%s: %d columns typed (%s)" % (os.path.basename(p), len(t), ", ".join(
            "%d %s" % (list(t.values()).count(k), k) for k in ("int", "float", "str", "empty")
            if k in t.values())))
    sys.exit(0)

mode, d, path, text_only = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
doc = json.load(open(path))


def tables(doc):
    """name -> the JSON rows of each table --tables writes (keys, rows)"""
    out = {}
    if mode == "run":
        if "summary" in doc:
            out["summary"] = doc["summary"]["rows"]
        for r in doc["runs"]:
            if r["ok"]:
                out["steps-%d" % r["run_id"]] = r["steps"]["rows"]
    elif mode == "validate":
        for k, t in doc["tables"].items():
            rows = t["rows"]
            if k == "steps" and rows and "directions" in rows[0]:
                # each step's directions are inside its row: the table step_directions
                out["step_directions"] = [x for r in rows for x in r["directions"]]
                rows = [{a: b for a, b in r.items() if a != "directions"} for r in rows]
            out[k] = rows
    elif mode == "sweep":
        out["points"] = doc["points"]
    return out


def same(c, v):
    if v is None:
        return c == "" or c in ("inf", "-inf")
    if isinstance(v, bool):
        return int(c) == int(v)
    if isinstance(v, int):
        return float(c) == v if "." in c or "e" in c else int(c) == v
    if isinstance(v, float):
        x = float(c)
        return math.isclose(x, v, rel_tol=1e-9, abs_tol=1e-300)
    return c == v


want = tables(doc)
files = sorted(f[:-4] for f in os.listdir(d) if f.endswith(".csv"))
# tables of the same id (validate: each run's steps) are NAME.csv, NAME-2.csv, ... while the JSON
# keeps the last under NAME: that one is compared, the others read
for name in list(want):
    n = 2
    while name + "-%d" % n in files:
        n += 1
    if n > 2:
        want[name + "-%d" % (n - 1)] = want.pop(name)
        text_only += [name] + [name + "-%d" % k for k in range(2, n - 1)]
expect = sorted(list(want) + text_only)
if files != expect:
    sys.exit("%s holds %s, expected %s" % (d, files, expect))
for name in files:
    types(os.path.join(d, name + ".csv"))
    with open(os.path.join(d, name + ".csv"), newline="") as f:
        rd = csv.reader(f)
        head = next(rd)
        rows = list(rd)
    if name in text_only:
        if not rows or any(len(r) != len(head) for r in rows):
            sys.exit("%s.csv: no rows, or rows of another width than its header" % name)
        print("%s.csv: %d rows of %d columns (text only)" % (name, len(rows), len(head)))
        continue
    jrows = want[name]
    if len(rows) != len(jrows):
        sys.exit("%s.csv: %d rows, the JSON %d" % (name, len(rows), len(jrows)))
    for i, (r, j) in enumerate(zip(rows, jrows)):
        if head != list(j):
            sys.exit("%s.csv: the keys %s, the JSON's %s" % (name, head, list(j)))
        for k, c in zip(head, r):
            if not same(c, j[k]):
                sys.exit("%s.csv row %d, %s: %r, the JSON %r" % (name, i + 1, k, c, j[k]))
    print("%s.csv: %d rows equal to the JSON's" % (name, len(rows)))
