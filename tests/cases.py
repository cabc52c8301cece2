# SPDX-License-Identifier: GPL-2.0
"""The one case table, tests/cases.txt, for the tests written in Python.

    import cases
    c = cases.load()
    c.SPECS     [(craft spec, truncated keys)], the shared capture's frames
    c.LINK      the same, without those only for files
    c.EXPRS     [(expression, display filter or None)]
    c.BOUNDED   [(expression, max keys)]
    c.EXPECT    [Case(expr, specs, rows)]: rows {"KEYS": packets}, as
                csv_rows() reads them from ebpfcount -F csv -n
"""
import collections
import csv
import io
import os

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = os.path.join(TOP, "tests", "cases.txt")

Case = collections.namedtuple("Case", "expr specs rows")


class Table:
    def __init__(self):
        self.SPECS, self.LINK, self.EXPRS, self.BOUNDED, self.EXPECT = [], [], [], [], []


def load(path=PATH):
    t = Table()
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split("\t")
        kind, args = f[0], f[1:]
        if kind == "frame" and 1 <= len(args) <= 3:
            row = (args[0], tuple(args[1].split()) if len(args) > 1 else ())
            t.SPECS.append(row)
            if len(args) < 3 or args[2] != "file":
                t.LINK.append(row)
        elif kind == "count" and 1 <= len(args) <= 2:
            t.EXPRS.append((args[0], args[1] if len(args) > 1 and args[1] else None))
        elif kind == "bounded" and len(args) == 2:
            t.BOUNDED.append((args[0], int(args[1])))
        elif kind == "expect" and len(args) == 3:
            rows = {}
            for tok in args[2].split():
                k, _, v = tok.rpartition("=")
                rows[k] = int(v)
            t.EXPECT.append(Case(args[0], args[1].split(), rows))
        else:
            raise ValueError("%s:%d: not a case: %r" % (path, n, line))
    return t


def nkeys(expr):
    head = expr.split(" where ", 1)[0]
    return len(head.split(" by ", 1)[1].split(",")) if " by " in head else 0


def csv_rows(text, expr, name=None):
    """The final figures of expr in ebpfcount -F csv -n's output, as an
    expect line writes them: {"KEYS": packets}.  name: the expression as
    the expr column of a program of several names it (None: one)."""
    out = collections.Counter()
    lines = list(csv.reader(io.StringIO(text)))
    if not lines:
        return out
    head = lines[0]
    multi = len(head) > 3 and head[3] == "expr"
    k = nkeys(expr)
    if multi:
        # a program of several: each key in the column of its field
        fields = [f.strip().split("/")[0] for f in
                  expr.split(" where ", 1)[0].split(" by ", 1)[1].split(",")] if k else []
        cols = [head.index(f) for f in fields]
    else:
        cols = list(range(4, 4 + k))
    for c in lines[1:]:
        if len(c) < 6 or c[2] != "1" or (multi and c[3] != name):
            continue
        kind = c[4] if multi else c[3]
        packets = int(c[-2])
        if kind == "row":
            key = ",".join(c[i] or "-" for i in cols)
            if c[-3]:
                key = (key + "," if key else "") + c[-3]
            out[key or "row"] += packets
        elif kind == "total" or (kind == "overflow" and packets):
            out[kind] += packets
    return out


def check(t, case, got, what):
    """One TAP result: case's rows against got (csv_rows())."""
    t.is_deeply(dict(got), case.rows, "%s: '%s' on %s: the case table's rows"
                % (what, case.expr, " ".join(case.specs)))
