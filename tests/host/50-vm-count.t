#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Exact counts of generated programs, on the host, against tshark.

The host twin of tests/vm/50-count.t, without QEMU: craft -w writes the
frames, build/unit-san/test_fields (tests/unit/test_fields.c) runs each
expression's program in the user engine, through the session (as
ebpfcount -r runs it), over them, seen as a packet socket sees
them (an outer VLAN tag moved into the skb), and prints the counts as
ebpfcount's CSV.  tshark decodes the same file; its per-frame field values,
counted, are what the program must count, row for row, in packets and
bytes.  Where clauses are checked with a display filter that selects the
same frames.  The known differences, as in the guest test: VLAN frames are
4 bytes shorter and their eth.type is the inner one; a key cut off by the
end of the frame is 'truncated' (tests/cases.txt says which).  Then a bounded key table: the
first keys seen get rows, the others count as overflow; last, the table's own
cases (expect lines), with their counts written out.
"""
import collections
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
import cases  # noqa: E402
import tap  # noqa: E402
from tshark_ref import frame_specs, keys_of, normal  # noqa: E402

CRAFT = os.path.join(TOP, "build/bin/craft")
HELPERS = [os.path.join(TOP, "build/unit-san/test_fields"),
           os.path.join(TOP, "build/unit/test_fields")]
CASES = cases.load()
SPECS, EXPRS, BOUNDED = CASES.SPECS, CASES.EXPRS, CASES.BOUNDED


def tshark(pcap, fields, display=None):
    """(frame number, [values]) per frame, of the frames display selects."""
    cmd = ["tshark", "-r", pcap, "-o", "ip.defragment:FALSE", "-o", "ipv6.defragment:FALSE",
           "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f", "-e", "frame.number"]
    for f in fields:
        cmd += ["-e", f]
    if display:
        cmd += ["-Y", display]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [(int(v[0]), v[1:]) for v in (line.split("\t") for line in out.splitlines())]


def decoded(pcap, expr, display):
    """Per frame passing the where clause: (SPECS index, key, bytes, map key).

    key is as the CSV shows it ("-" when absent or truncated); map key
    tells truncated ("!") from absent, as the counts map does."""
    keys = keys_of(expr)
    fields = [k.split("/")[0] for k in keys] + ["frame.len", "vlan.etype"]
    specs = frame_specs(SPECS)
    out = []
    for number, vals in tshark(pcap, fields, display):
        si = specs[number - 1]
        spec = SPECS[si][0]
        vlan = "vlan=" in spec
        nbytes = int(vals[-2]) - 4 if vlan else int(vals[-2])
        key = []
        cut = SPECS[si][1]
        for k, v in zip(keys, vals):
            if k == "frame.len":
                v = str(nbytes)
            elif k == "eth.type" and vlan:
                v = vals[-1]
            key.append(normal(k, v))
        mkey = tuple("!" if k.split("/")[0] in cut else v for k, v in zip(keys, key))
        out.append((si, tuple(key), nbytes, mkey))
    return out


def expected(frames):
    rows = collections.defaultdict(lambda: [0, 0])
    for _, key, nbytes, _ in frames:
        rows[key][0] += 1
        rows[key][1] += nbytes
    return rows


def expected_truncated(frames, expr):
    fields = [k.split("/")[0] for k in keys_of(expr)]
    return sum(1 for si, _, _, _ in frames if any(f in SPECS[si][1] for f in fields))


def helper():
    for h in HELPERS:
        if os.access(h, os.X_OK):
            return h
    return None


def measured(pcap, expr, nkeys, bound=None, ld_abs=False):
    """Rows, truncated packets, overflow and total from test_fields' CSV."""
    cmd = [helper()] + (["-m", str(bound)] if bound else []) + (["-l"] if ld_abs else [])
    cmd += [pcap, expr]
    r = subprocess.run(cmd, capture_output=True, text=True)
    rows = collections.defaultdict(lambda: [0, 0])
    truncated, overflow, total = 0, None, None
    for line in r.stdout.splitlines()[1:]:
        cols = line.split(",")
        counts = [int(cols[-2]), int(cols[-1])]
        if cols[0] == "overflow":
            overflow = counts
        elif cols[0] == "total":
            total = counts
        else:
            key = tuple(v if v != "" else "-" for v in cols[1:1 + nkeys])
            rows[key][0] += counts[0]
            rows[key][1] += counts[1]
            if cols[1 + nkeys] == "truncated":
                truncated += counts[0]
    return r, rows, truncated, overflow, total


def check(t, pcap, expr, display, ld_abs):
    """The program reading the window (or with LD_ABS) counts as tshark decodes."""
    frames = decoded(pcap, expr, display)
    r, got, trunc, overflow, total = measured(pcap, expr, len(keys_of(expr)), ld_abs=ld_abs)
    name = "'%s'%s" % (expr, " (LD_ABS)" if ld_abs else "")
    if not t.ok(r.returncode == 0, "%s: runs in the engine" % name):
        t.diag(r.stderr)
    want = expected(frames)
    t.is_deeply(dict(got), dict(want), "%s: rows equal tshark's (%d frames)" % (name, len(frames)))
    t.is_(trunc, expected_truncated(frames, expr), "%s: truncated rows" % name)
    t.is_((overflow, total), ([0, 0], [len(frames), sum(f[2] for f in frames)]),
          "%s: no overflow; total" % name)


def check_bounded(t, pcap, expr, bound):
    """The first `bound` keys in frame order have rows; the rest overflow."""
    frames = decoded(pcap, expr, None)
    first = []
    for f in frames:
        if f[3] not in first:
            first.append(f[3])
    rows = expected(f for f in frames if f[3] in first[:bound])
    spill = [f for f in frames if f[3] not in first[:bound]]
    r, got, _, overflow, total = measured(pcap, expr, len(keys_of(expr)), bound)
    t.ok(r.returncode == 0, "'%s' in %d keys: runs in the engine" % (expr, bound))
    t.is_deeply(dict(got), dict(rows), "'%s' in %d keys: the first keys' rows" % (expr, bound))
    t.is_((overflow, total), ([len(spill), sum(f[2] for f in spill)],
                              [len(frames), sum(f[2] for f in frames)]),
          "'%s' in %d keys: overflow and total" % (expr, bound))


def check_expect(t, d, case):
    """A case of the table's own, with its frames, in the engine."""
    pcap = os.path.join(d, "case.pcap")
    subprocess.run([CRAFT, "-q", "-w", pcap] + case.specs, check=True)
    r = subprocess.run([helper(), pcap, case.expr], capture_output=True, text=True)
    # the helper's CSV has no time columns: put them back
    text = "\n".join("0,0,1," + ln for ln in r.stdout.splitlines())
    if r.returncode:
        t.diag(r.stderr)
    cases.check(t, case, cases.csv_rows(text, case.expr), "the unit engine")


def main():
    t = tap.Tap()
    if subprocess.run(["sh", "-c", "command -v tshark"], capture_output=True).returncode:
        print("1..0 # SKIP tshark not installed")
        return 0
    if not os.access(CRAFT, os.X_OK) or not helper():
        print("Bail out! build/bin/craft or build/unit*/test_fields missing: make all unit")
        return 1
    t.plan(2 * 4 * len(EXPRS) + 3 * len(BOUNDED) + len(CASES.EXPECT))
    with tempfile.TemporaryDirectory() as d:
        pcap = os.path.join(d, "frames.pcap")
        subprocess.run([CRAFT, "-q", "-w", pcap] + [s for s, _ in SPECS], check=True)
        for ld_abs in (False, True):
            for expr, display in EXPRS:
                check(t, pcap, expr, display, ld_abs)
        for expr, bound in BOUNDED:
            check_bounded(t, pcap, expr, bound)
        for case in CASES.EXPECT:
            check_expect(t, d, case)
    return t.done()


sys.exit(main())
