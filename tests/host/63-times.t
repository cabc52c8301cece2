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
  23:59:58.000 (it once printed 23:59:59.-999), JSON's and CSV's -2.000;
- a run of 3 or more intervals with no record is one line in each format
  (human, JSON, CSV; 2 print as usual), and at most one write of --textfile: two
  records 10 years apart (once 315 M lines) take well under a second, the
  totals exact, -c counts the run's intervals, several expressions share
  the line.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
sys.path.insert(0, os.path.join(TOP, "tests", "fuzz"))
import seeds  # noqa: E402  (the capture fuzzer's pcapng writer)
import tap  # noqa: E402

EBPFCOUNT = os.path.join(TOP, "build/bin/ebpfcount")
FAR = 9200000000                # seconds: 2261 and 1678
# a UDP frame, 42 bytes
FRAME = bytes.fromhex("020000000002020000000001" "0800" "4500001c0000000040110000"
                      "0a000001c6120001" "9c40003500080000")


def pcapng(path, offsets, records):
    """One Ethernet interface per if_tsoffset (seconds); records
    [(interface, microseconds)], each FRAME."""
    with open(path, "wb") as f:
        f.write(seeds.pcapng_offsets(offsets, records, FRAME))
    return path


def ebpfcount(args, timeout=10, env=None):
    """(exit status, stdout, stderr); status None if it ran out of time
    (then stdout's last 64 KiB)."""
    with tempfile.TemporaryFile() as f:
        try:
            r = subprocess.run([EBPFCOUNT] + args, stdout=f, stderr=subprocess.PIPE,
                               text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - 65536))
            return None, f.read().decode(errors="replace"), \
                "(killed after %d s, %d bytes out)" % (timeout, size)
        f.seek(0)
        return r.returncode, f.read().decode(), r.stderr


def intervals(out):
    """JSON Lines: [(time, packets)] of the intervals, and of the final
    (an error's object is on stderr)."""
    per, fin = [], []
    for line in out.splitlines():
        o = json.loads(line)
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
                json.dumps({"error": "%s: record 2: time stamp out of range" % last2}) + "\n"),
          "record 2's interval would end past 2262: record 1 counted, then the error "
          "(JSON, on stderr)")


def human_headers(out):
    return [line for line in out.splitlines() if line and not line.startswith(" ")]


def check_before_1970(t, d):
    env = dict(os.environ, TZ="UTC")
    # records at -3, -2 and -0.5 s: intervals end at -2, -1 and 0 s
    pre = pcapng(os.path.join(d, "pre.pcapng"), [-3], [(0, 0), (0, 1000000), (0, 2500000)])
    rc, out, err = ebpfcount(["-r", pre, "count"], env=env)
    t.is_((rc, human_headers(out)),
          (0, ["23:59:58.000  1.000 s  1 packets  42 bytes",
               "23:59:59.000  1.000 s  1 packets  42 bytes",
               "00:00:00.000  1.000 s  1 packets  42 bytes",
               "total since start: 3 packets, 126 bytes"]),
          "human: times before 1970 floored (23:59:58.000, not 23:59:59.-999)")
    # milliseconds: records at -99.75 and -98.5 s
    ms = pcapng(os.path.join(d, "ms.pcapng"), [-100], [(0, 250000), (0, 1500000)])
    rc, out, err = ebpfcount(["-r", ms, "count"], env=env)
    t.is_((rc, human_headers(out)[:2]),
          (0, ["23:58:21.250  1.000 s  1 packets  42 bytes",
               "23:58:22.250  1.000 s  1 packets  42 bytes"]),
          "human: milliseconds before 1970 (23:58:21.250, not 23:58:22.-749)")
    rc, out, err = ebpfcount(["-r", pre, "-F", "json", "count"])
    got = (rc,) + (intervals(out) if rc == 0 else (out, err))
    t.is_(got, (0, [(-2.0, 1), (-1.0, 1), (0.0, 1)], [(0.0, 3)]), "JSON: the same times")
    rc, out, err = ebpfcount(["-r", ms, "-F", "csv", "count"])
    t.is_((rc, [line.split(",")[0] for line in out.splitlines()[1:]]),
          (0, ["-98.750"] * 3 + ["-97.750"] * 6), "CSV: the same times")


T0 = 1700000000                 # 2023-11-14 22:13:20 UTC
DECADE = 3650 * 86400


def check_gaps(t, d):
    env = dict(os.environ, TZ="UTC")
    ten = pcapng(os.path.join(d, "ten.pcapng"), [T0], [(0, 0), (0, DECADE * 1000000)])
    n = DECADE - 1              # intervals 2 to DECADE
    rc, out, err = ebpfcount(["-r", ten, "-F", "json", "count"])
    objs = [json.loads(line) for line in out.splitlines()] if rc == 0 else [out[-300:], err]
    t.is_(objs[1:2], [{"time": T0 + DECADE, "interval": n, "empty_intervals": n,
                       "from": T0 + 1, "to": T0 + DECADE}],
          "JSON: 10 years without a record are one object")
    t.is_([(o["time"], o["total"]["packets"], o.get("final", False)) for o in objs
           if isinstance(o, dict) and "total" in o],
          [(T0 + 1, 1, False), (T0 + DECADE + 1, 1, False), (T0 + DECADE + 1, 2, True)],
          "JSON: the intervals of the two records around it, the totals exact")
    rc, out, err = ebpfcount(["-r", ten, "-F", "csv", "count"])
    lines = out.splitlines() if rc == 0 else [out[-300:], err]
    t.is_(lines[4:5], ["%d.000,%d.000,0,empty,%d,0,0" % (T0 + DECADE, n, n)],
          "CSV: one row of kind empty, its count in the missing column")
    t.is_([x for x in lines if ",total," in x][-1:],
          ["%d.000,%d.000,1,total,,2,84" % (T0 + DECADE + 1, DECADE + 1)], "CSV: the totals exact")
    rc, out, err = ebpfcount(["-r", ten, "count"], env=env)
    t.is_((rc, human_headers(out) if rc == 0 else [err]),
          (0, ["22:13:21.000  1.000 s  1 packets  42 bytes",
               "22:13:20.000  %d.000 s  no packets in %d intervals" % (n, n),
               "22:13:21.000  1.000 s  1 packets  42 bytes",
               "total since start: 2 packets, 84 bytes"]), "human: one line")
    # the bound: 2 empty intervals print, 3 are one line
    for gap, want in ((3, [1, 0, 0, 1]), (4, [1, None, 1])):
        f = pcapng(os.path.join(d, "gap%d.pcapng" % gap), [T0], [(0, 0), (0, gap * 1000000)])
        rc, out, err = ebpfcount(["-r", f, "-F", "json", "count"])
        got = [json.loads(x) for x in out.splitlines()] if rc == 0 else [err]
        got = [o["total"]["packets"] if "total" in o else None for o in got[:-1]]
        t.is_(got, want, "records %d s apart: %s" % (
            gap, "2 empty intervals print" if gap == 3 else "3 empty intervals are one line"))
    # -c: the run counts as its intervals
    rc, out, err = ebpfcount(["-r", ten, "-c", "5", "-F", "json", "count"])
    got = [json.loads(x) for x in out.splitlines()] if rc == 0 else [err]
    t.is_([(o.get("empty_intervals"), o.get("final", False), o["time"]) for o in got],
          [(None, False, T0 + 1), (4, False, T0 + 5), (None, True, T0 + 5)],
          "-c 5: the first interval, a run of 4, the final")
    # several expressions: one line for all, no expr
    rc, out, err = ebpfcount(["-r", ten, "-F", "csv", "-e", "count", "-e", "count by ip.proto"])
    lines = out.splitlines() if rc == 0 else [err]
    t.is_([x for x in lines if ",empty," in x],
          ["%d.000,%d.000,0,,empty,,%d,0,0" % (T0 + DECADE, n, n)],
          "-e twice: one empty row, its expr column empty")
    # --textfile: written a few times for the run (a day: once 86,400 times)
    day = pcapng(os.path.join(d, "day.pcapng"), [T0], [(0, 0), (0, 86400 * 1000000)])
    prom, log = os.path.join(d, "m.prom"), os.path.join(d, "strace.log")
    p = subprocess.Popen(["strace", "-f", "-qq", "-e", "trace=rename,renameat,renameat2",
                          "-o", log, EBPFCOUNT, "-r", day, "-F", "none", "--textfile", prom,
                          "count"], stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        got = (p.wait(timeout=20), open(log).read().count("rename"))
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)    # strace and ebpfcount
        p.wait()
        got = (None, "killed after 20 s, %d writes" % open(log).read().count("rename"))
    # at the first update and the last, and in between no more often
    # than METRICS_TEXTFILE_GAP (1 s) apart: at most the 5 updates
    t.ok(got[0] == 0 and isinstance(got[1], int) and 2 <= got[1] <= 5,
         "--textfile over a day's gap: written 2 to 5 times, not 86,400 (%s)" % (got,))


def main():
    t = tap.Tap()
    t.plan(18)
    with tempfile.TemporaryDirectory() as d:
        check_overflow(t, d)
        check_before_1970(t, d)
        check_gaps(t, d)
    return t.done()


sys.exit(main())
