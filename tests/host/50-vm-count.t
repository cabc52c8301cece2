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
end of the frame is 'truncated' (the SPECS table says which).  Last, a bounded key table: the
first keys seen get rows, the others count as overflow.
"""
import collections
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
import tap  # noqa: E402
from tshark_ref import frame_specs, keys_of, normal  # noqa: E402

CRAFT = os.path.join(TOP, "build/bin/craft")
HELPERS = [os.path.join(TOP, "build/unit-san/test_fields"),
           os.path.join(TOP, "build/unit/test_fields")]
SMAC = "52:54:00:12:34:99"
# keys that a 20-byte IPv4 frame (6 bytes of IP) has cut off
CUT_IP = ("ip.proto", "ip.src", "ip.dst", "ip.ttl", "tcp.srcport", "tcp.dstport",
          "tcp.flags", "udp.srcport", "udp.dstport", "icmp.type", "icmp.code")

# (craft spec, keys whose status is "truncated" for it)
SPECS = [
    ("udp4,n=7,dport=53", ()),
    ("udp4,n=5,sport=5353,dport=53,srcrange=5", ()),
    ("udp4,n=3,dport=7,smac=" + SMAC, ()),
    ("tcp4,n=6,dport=443,flags=S", ()),
    ("tcp4,n=4,dport=443,flags=SA,src=198.18.1.7,tos=0xb8", ()),
    ("tcp4,n=3,dport=22,ipopts=12,flags=PA,len=200", ()),
    ("tcp4,n=2,sport=443,dport=50000,flags=FA,dst=10.1.2.3,smac=" + SMAC, ()),
    ("icmp4,n=4,type=8", ()),
    ("icmp4,n=2,type=3,code=3,ttl=5", ()),
    ("udp4,n=3,frag=first,dport=4789", ()),
    ("udp4,n=2,frag=later", ()),
    ("udp4,n=4,vlan=42,dport=9", ()),
    ("tcp4,n=2,vlan=7,dport=80", ()),
    ("udp6,n=5,dport=53", ()),
    ("udp6,n=2,dport=123,dst=2001:db8:1:2::7,src=fe80::1", ()),
    ("tcp6,n=3,dport=443,flags=S", ()),
    ("icmp6,n=4,type=128", ()),
    ("tcp6,n=2,ext=hop", ()),
    ("udp6,n=1,ext=dst,vlan=9", ()),
    ("arp,n=3", ()),
    ("raw,n=2,etype=0x1234,len=100", ()),
    ("tcp4,n=2,trunc=20", CUT_IP),
    # 6 bytes of TCP: the ports are there, the flags are not
    ("tcp4,n=2,trunc=40", ("tcp.flags",)),
    # the IPv6 header but 4 bytes: the destination and the UDP header are cut
    ("udp6,n=1,trunc=50", ("ipv6.dst", "udp.srcport", "udp.dstport")),
]

# (expression, a display filter selecting the frames its where clause passes)
EXPRS = [
    ("count by ip.proto", None),
    ("count by ip.src/24, tcp.dstport", None),
    ("count by ip.src, udp.srcport, udp.dstport", None),
    ("count by vlan.id, ip.proto", None),
    ("count by ipv6.src/64, ipv6.nxt, icmpv6.type, udp.dstport", None),
    ("count by tcp.flags, ip.ttl, ip.dsfield.dscp", None),
    ("count by icmp.type, icmp.code", None),
    ("count by frame.len, eth.dst", None),
    ("count by eth.src, eth.type, ip.dst/16, ipv6.dst, tcp.srcport", None),
    ("count by eth.type, vlan.id, ip.src, ip.dst, ip.proto, ipv6.nxt, tcp.srcport, udp.dstport",
     None),
    ("count", None),
    ("count by ip.proto where tcp port 443", "tcp.port == 443"),
    ("count by ip.src/24, udp.dstport where udp", "ip.proto == 17 or ipv6.nxt == 17"),
    ("count by eth.type, vlan.id where not arp", "not arp"),
    ("count by udp.dstport, tcp.srcport where ether src " + SMAC, "eth.src == " + SMAC),
    ("count by icmp.type, icmp.code where icmp", "ip.proto == 1"),
    ("count by ipv6.src/64, ipv6.nxt where ip6", "eth.type == 0x86dd or vlan.etype == 0x86dd"),
    ("count by tcp.flags where tcp[tcpflags] & tcp-syn != 0",
     "ip.proto == 6 and tcp.flags.syn == 1"),
]

# (expression, key table bound)
BOUNDED = [("count by ip.src, udp.srcport", 3), ("count by ipv6.src, tcp.dstport", 2)]










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


def main():
    t = tap.Tap()
    if subprocess.run(["sh", "-c", "command -v tshark"], capture_output=True).returncode:
        print("1..0 # SKIP tshark not installed")
        return 0
    if not os.access(CRAFT, os.X_OK) or not helper():
        print("Bail out! build/bin/craft or build/unit*/test_fields missing: make all unit")
        return 1
    t.plan(2 * 4 * len(EXPRS) + 3 * len(BOUNDED))
    with tempfile.TemporaryDirectory() as d:
        pcap = os.path.join(d, "frames.pcap")
        subprocess.run([CRAFT, "-q", "-w", pcap] + [s for s, _ in SPECS], check=True)
        for ld_abs in (False, True):
            for expr, display in EXPRS:
                check(t, pcap, expr, display, ld_abs)
        for expr, bound in BOUNDED:
            check_bounded(t, pcap, expr, bound)
    return t.done()


sys.exit(main())
