#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ebpfcount -r FILE: capture times far from now, on the host.

Nothing here loads BPF or opens a socket: only `ebpfcount -r` (the user
engine) and Python run.  The files are pcapng files made here, whose
interfaces shift their records' times by an if_tsoffset (seconds), so that
a record can lie anywhere from 1677 to 2262 (a capture time is a long long
of nanoseconds):

- a record 570 years before the first one (two interfaces, offsets
  +-9.2e9 s) goes back in time: it counts in the current interval; one 570
  years after it is that many intervals later (the time arithmetic once
  overflowed, which made the first a gap of millions of intervals);
- a record whose interval would end after 2262 is the one-line error
  "time stamp out of range", exit 1, after what was counted before it;
- times before 1970 print floored in every format: the human header's
  23:59:58.000 (it once printed 23:59:59.-999), JSON's and CSV's -2.000.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
import tap  # noqa: E402

EBPFCOUNT = os.path.join(TOP, "build/bin/ebpfcount")
FAR = 9200000000                # seconds: 2261 and 1678
# a UDP frame, 42 bytes
FRAME = bytes.fromhex("020000000002020000000001" "0800" "4500001c0000000040110000"
                      "0a000001c6120001" "9c40003500080000")
LEN = len(FRAME)


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", btype, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))


def option(code, value):
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def pcapng(path, offsets, records):
    """One Ethernet interface per if_tsoffset (seconds); records
    [(interface, microseconds)], each FRAME."""
    out = block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1))
    for off in offsets:
        out += block(1, struct.pack("<HHI", 1, 0, 262144) +
                     option(14, struct.pack("<q", off)) + option(0, b""))
    for ifc, us in records:
        us &= (1 << 64) - 1
        out += block(6, struct.pack("<IIIII", ifc, us >> 32, us & 0xffffffff, LEN, LEN) +
                     FRAME)
    with open(path, "wb") as f:
        f.write(out)
    return path


def ebpfcount(args, timeout=20):
    """(exit status, stdout, stderr); status None if it ran out of time."""
    try:
        r = subprocess.run([EBPFCOUNT] + args, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if e.stdout else ""
        return None, out, "(killed after %d s, %d lines out)" % (timeout, out.count("\n"))
    return r.returncode, r.stdout, r.stderr


def intervals(out):
    """JSON Lines: [(time, packets)] of the intervals, and of the final
    (an error's object left out)."""
    per, fin = [], []
    for line in out.splitlines():
        o = json.loads(line)
        if "error" in o:
            continue
        (fin if o.get("final") else per).append((o["time"], o["total"]["packets"]))
    return per, fin


def check_overflow(t, d):
    # 570 years back: the current interval, at once
    back = pcapng(os.path.join(d, "back.pcapng"), [FAR, -FAR], [(0, 0), (1, 0)])
    rc, out, err = ebpfcount(["-r", back, "-F", "json", "count"])
    got = (rc,) + (intervals(out) if rc == 0 else (out[-200:], err))
    t.is_(got, (0, [(FAR + 1.0, 2)], [(FAR + 1.0, 2)]),
          "a record 570 years back counts in the current interval")
    # 570 years forth: a gap (-c 3: the first interval, then empty ones)
    forth = pcapng(os.path.join(d, "forth.pcapng"), [-FAR, FAR], [(0, 0), (1, 0)])
    rc, out, err = ebpfcount(["-r", forth, "-c", "3", "-F", "json", "count"])
    got = (rc,) + (intervals(out) if rc == 0 else (out[-200:], err))
    t.is_(got, (0, [(-FAR + 1.0, 1), (-FAR + 2.0, 0), (-FAR + 3.0, 0)], [(-FAR + 3.0, 1)]),
          "a record 570 years forth is that many intervals later (-c 3)")
    # an interval that would end past 2262: refused, nothing counted
    last = pcapng(os.path.join(d, "last.pcapng"), [9223372036], [(0, 500000)])
    rc, out, err = ebpfcount(["-r", last, "-F", "csv", "count"])
    t.is_((rc, out, err), (1, "time,interval,final,kind,missing,packets,bytes\n",
                           "ebpfcount: %s: record 1: time stamp out of range\n" % last),
          "record 1's interval would end past 2262: one line, exit 1")
    # the same for record 2: record 1's interval, the totals, the error
    last2 = pcapng(os.path.join(d, "last2.pcapng"), [9223372035], [(0, 0), (0, 1500000)])
    rc, out, err = ebpfcount(["-r", last2, "-F", "json", "count"])
    got = (rc,) + (intervals(out) if rc == 1 else (out[-200:],)) + (err,)
    t.is_(got, (1, [(9223372036.0, 1)], [(9223372036.0, 1)],
                "ebpfcount: %s: record 2: time stamp out of range\n" % last2),
          "record 2's interval would end past 2262: record 1 counted, then the error")


def human_headers(out):
    return [line for line in out.splitlines() if line and not line.startswith(" ")]


def check_before_1970(t, d):
    env = dict(os.environ, TZ="UTC")
    # records at -3, -2 and -0.5 s: intervals end at -2, -1 and 0 s
    pre = pcapng(os.path.join(d, "pre.pcapng"), [-3], [(0, 0), (0, 1000000), (0, 2500000)])
    r = subprocess.run([EBPFCOUNT, "-r", pre, "count"], capture_output=True, text=True, env=env)
    t.is_((r.returncode, human_headers(r.stdout)),
          (0, ["23:59:58.000  1.000 s  1 packets  42 bytes",
               "23:59:59.000  1.000 s  1 packets  42 bytes",
               "00:00:00.000  1.000 s  1 packets  42 bytes",
               "total since start: 3 packets, 126 bytes"]),
          "human: times before 1970 floored (23:59:58.000, not 23:59:59.-999)")
    # milliseconds: records at -99.75 and -98.5 s
    ms = pcapng(os.path.join(d, "ms.pcapng"), [-100], [(0, 250000), (0, 1500000)])
    r = subprocess.run([EBPFCOUNT, "-r", ms, "count"], capture_output=True, text=True, env=env)
    t.is_((r.returncode, human_headers(r.stdout)[:2]),
          (0, ["23:58:21.250  1.000 s  1 packets  42 bytes",
               "23:58:22.250  1.000 s  1 packets  42 bytes"]),
          "human: milliseconds before 1970 (23:58:21.250, not 23:58:22.-749)")
    rc, out, err = ebpfcount(["-r", pre, "-F", "json", "count"])
    got = (rc,) + (intervals(out) if rc == 0 else (out, err))
    t.is_(got, (0, [(-2.0, 1), (-1.0, 1), (0.0, 1)], [(0.0, 3)]), "JSON: the same times")
    rc, out, err = ebpfcount(["-r", ms, "-F", "csv", "count"])
    t.is_((rc, [line.split(",")[0] for line in out.splitlines()[1:]]),
          (0, ["-98.750"] * 3 + ["-97.750"] * 6), "CSV: the same times")


def main():
    t = tap.Tap()
    t.plan(8)
    with tempfile.TemporaryDirectory() as d:
        check_overflow(t, d)
        check_before_1970(t, d)
    return t.done()


sys.exit(main())
