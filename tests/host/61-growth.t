#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ebpfcount -r FILE: the key tables without --max-keys start at 1024 keys and grow.

Nothing here loads BPF or opens a socket: only `ebpfcount -r` (the user
engine), `craft -w`, tshark and Python run.

A capture of one-second bursts, each from many distinct IPv4 sources (two
frames per source), written by craft -w and given timestamps here, is
counted by `ebpfcount -r -I 1 -F json -v 'count by ip.src'`.  tshark decodes
the same file on its own (frame.time_epoch, ip.src), which gives each
interval's count per source.  Checked:

- every interval: rows plus overflow equal tshark's total, and no row
  exceeds tshark's count for its source (a key that found the table full
  before it grew has those packets in the overflow);
- the first burst (3000 sources) would fill the 1024-key table, which is
  read whenever the records since the last read could fill it, and grows
  within the interval: every source its exact row, no overflow, and -v
  says so before the interval's readout;
- the next burst (5000 sources) fits: every source has its exact row, no
  overflow; a burst of 20000 grows it again within its interval, and the
  next one of 20000 is exact;
- the final rows are the sum of the intervals' rows, and with the final
  overflow they add up to every frame;
- --max-keys 1024 never grows (at most 1024 rows an interval, no growth
  said), and a one-byte key (ip.proto, an array) is unchanged.
"""
import collections
import json
import os
import struct
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests"))
import tap  # noqa: E402

EBPFCOUNT = os.path.join(TOP, "build", "bin", "ebpfcount")
CRAFT = os.path.join(TOP, "build", "bin", "craft")
T0 = 1700000000

# One burst a second: (first source, distinct sources); two frames each.
BURSTS = [("198.18.0.1", 3000), ("198.18.64.1", 5000), ("198.19.0.1", 20000),
          ("198.19.128.1", 20000)]


def records(path):
    """The records of a little-endian microsecond pcap: (header, data)."""
    with open(path, "rb") as f:
        head = f.read(24)
        out = []
        while True:
            h = f.read(16)
            if len(h) < 16:
                return head, out
            _, _, incl, _ = struct.unpack("<IIII", h)
            out.append((h, f.read(incl)))


def write_capture(path, work):
    """The bursts, burst s in [T0 + s, T0 + s + 0.5)."""
    head, out = None, []
    for s, (src, n) in enumerate(BURSTS):
        part = os.path.join(work, "part%d.pcap" % s)
        spec = "udp4,n=%d,src=%s,srcrange=%d" % (n, src, n)
        subprocess.run([CRAFT, "-q", "-w", part, spec, spec], check=True)
        head, recs = records(part)
        for j, (h, data) in enumerate(recs):
            usec = 500000 * j // len(recs)
            _, _, incl, orig = struct.unpack("<IIII", h)
            out.append(struct.pack("<IIII", T0 + s, usec, incl, orig) + data)
    with open(path, "wb") as f:
        f.write(head)
        f.write(b"".join(out))


def tshark_intervals(pcap):
    """Per one-second interval from the first record: Counter of ip.src."""
    out = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-e", "frame.time_epoch",
                          "-e", "ip.src"], capture_output=True, text=True, check=True).stdout
    iv = collections.defaultdict(collections.Counter)
    first = None
    for line in out.splitlines():
        t, src = line.split("\t")
        t = float(t)
        first = t if first is None else first
        iv[int(t - first)][src] += 1
    return [iv[i] for i in range(max(iv) + 1)]


def run(pcap, *args):
    r = subprocess.run([EBPFCOUNT, "-r", pcap, "-I", "1", "-F", "json", "-v"] + list(args),
                       capture_output=True, text=True)
    objs = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    return r.returncode, objs, r.stderr


def rows_of(obj, key="ip.src"):
    return {row[key]: row["packets"] for row in obj["rows"]}


def overflow(obj):
    return obj.get("overflow", {}).get("packets", 0)


def main():
    t = tap.Tap()
    t.plan(17)
    work = tempfile.mkdtemp(prefix="ebpfcount-growth-")
    pcap = os.path.join(work, "bursts.pcap")
    write_capture(pcap, work)
    ref = tshark_intervals(pcap)
    t.is_([len(c) for c in ref], [n for _, n in BURSTS], "tshark: the sources of each burst")

    rc, objs, err = run(pcap, "count by ip.src")
    t.is_(rc, 0, "ebpfcount -r exits 0")
    ivs = [o for o in objs if not o.get("final")]
    final = [o for o in objs if o.get("final")]
    t.is_(len(ivs), len(BURSTS), "an interval per burst")
    ivs += [{"rows": [], "total": {"packets": -1}}] * (len(BURSTS) - len(ivs))
    exact = [sum(rows_of(o).values()) + overflow(o) == sum(c.values()) ==
             o["total"]["packets"] for o, c in zip(ivs, ref)]
    t.is_(exact, [True] * len(BURSTS), "every interval: rows + overflow = total = tshark's")
    # A key that found the table full before it grew within the interval
    # has those packets in the overflow, its others in its row.
    wrong = [sum(1 for k, v in rows_of(o).items() if not 0 < v <= c.get(k, 0))
             for o, c in zip(ivs, ref)]
    t.is_(wrong, [0] * len(BURSTS), "every interval: no row above tshark's count of its source")
    # a file's tables are drained before they can fill (issue 26): none
    # overflows, every key is exact
    t.ok(len(ivs[0]["rows"]) == 3000 and overflow(ivs[0]) == 0 and rows_of(ivs[0]) == ref[0],
         "3000 sources from 1024 keys: the table grew within the interval, every source "
         "its exact row, nothing in the overflow (%d rows, %d)" % (len(ivs[0]["rows"]),
                                                                  overflow(ivs[0])))
    grown = [line for line in err.splitlines() if "key table grown" in line]
    sizes = [tuple(int(w) for w in line.split()[-4::2]) for line in grown]
    t.ok(sizes and sizes[0][0] == 1024 and all(a < b for a, b in sizes) and
         all(x[1] == y[0] for x, y in zip(sizes, sizes[1:])) and sizes[-1][1] >= 32768,
         "-v: grown from 1024 in steps, to room for the 20000 sources: %s" % sizes)
    lines = err.splitlines()
    t.ok(grown and lines.index(grown[0]) <
         [i for i, s in enumerate(lines) if "interval 1:" in s][0],
         "-v: grown within the interval that filled it, before its readout")
    t.is_((rows_of(ivs[1]), overflow(ivs[1])), (dict(ref[1]), 0),
          "5000 sources once grown: exact rows, no overflow")
    t.ok(len(ivs[2]["rows"]) > 16384 and overflow(ivs[2]) < 2 * (20000 - 16384),
         "20000 sources from 16384 keys: grown within the interval (%d rows, %d in the "
         "overflow)" % (len(ivs[2]["rows"]), overflow(ivs[2])))
    t.is_((rows_of(ivs[3]), overflow(ivs[3])), (dict(ref[3]), 0),
          "20000 sources once grown again: exact rows, no overflow")
    summed = collections.Counter()
    for o in ivs:
        summed.update(rows_of(o))
    t.ok(len(final) == 1 and rows_of(final[0]) == dict(summed),
         "final: the rows are the intervals' rows added up")
    total = sum(sum(c.values()) for c in ref)
    t.ok(len(final) == 1 and sum(rows_of(final[0]).values()) + overflow(final[0]) ==
         final[0]["total"]["packets"] == total,
         "final: rows + overflow = total = every frame (%d)" % total)

    rc, objs, err = run(pcap, "--max-keys", "1024", "count by ip.src")
    ivs = [o for o in objs if not o.get("final")]
    t.ok(rc == 0 and max(len(o["rows"]) for o in ivs) == 1024 and
         "grown" not in err, "--max-keys 1024: never more than 1024 rows, never grows")
    t.ok(all(sum(rows_of(o).values()) + overflow(o) == sum(c.values())
             for o, c in zip(ivs, ref)), "--max-keys 1024: rows + overflow = tshark's total")

    rc, objs, err = run(pcap, "count by ip.proto")
    ivs = [o for o in objs if not o.get("final")]
    t.ok(rc == 0 and "grown" not in err and all(overflow(o) == 0 for o in objs),
         "ip.proto (an array): no growth, no overflow")
    t.is_([rows_of(o, "ip.proto") for o in ivs],
          [{17: sum(c.values())} for c in ref], "ip.proto: every frame, as tshark")
    subprocess.run(["rm", "-rf", work])
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
