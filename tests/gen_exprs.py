#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Random ebpfcount expressions for the property test (tests/vm/57-property.t).

    gen_exprs.py --seed S --count N [--ebpfcount PATH]   expressions
    gen_exprs.py --frames                                 the frame mix

The first expressions are the case table's (tests/cases.txt: its count and
expect lines, each once), then random ones.

Each expression line has five tab-separated columns:

    LIVE  OPTS  FL  EXPR  TAGGED

LIVE is "root" or "noperfmon" (live, ebpfcount runs without CAP_PERFMON and
CAP_SYS_ADMIN, so it reads the frame with LD_ABS); OPTS is "--max-keys K", maybe with "-I 0.5", or "-" (the default key
table and interval; the guest counts live with -I 3600 before OPTS); FL the 1-based
position of frame.len among the keys (0: not a key); EXPR the expression
("count by KEYS where FILTER"); TAGGED the same keys with the filter that
means, on a capture file's VLAN-tagged records, what FILTER means live.

Why two filters: the kernel moves a received VLAN tag out of the frame
before packet sockets see it (FACTS.md), so live, a tagged frame is seen
untagged (4 bytes shorter, the tag in the skb's metadata), while tcpdump
-w puts the tag back inline in the capture file.  On the file, libpcap's
"vlan" moves every later offset by 4 bytes, so "vlan and (FILTER)" reads
the headers where the live program reads them, and the test compares
live counts with the user engine's on the untagged records (EXPR) plus
its counts on the tagged records (TAGGED), 4 bytes less per packet.  For
that to hold, the generator leaves out, or rewrites, what live and the
file legitimately see differently:

  - "len", "greater N", "less N": the length of a tagged record is 4 bytes
    more; TAGGED reads (len - 4);
  - "ether[K]" with K >= 12 reads the tag in the file: TAGGED reads
    ether[K + 4]; no load straddles byte 12;
  - "vlan", "vlan N", "mpls", "pppoes", "geneve" (they move offsets
    themselves: live they read metadata, in the file inline tags) are
    left out; vlan primitives have their own tests (50-count.t: live,
    56-offline.t: kernel and user engine on the same file);
  - "inbound", "outbound": the test's trigger frames are outgoing live,
    while an Ethernet capture file has no direction (every record is
    seen as received);
  - "ip broadcast" needs a netmask and "protochain" a loop: ebpfcount
    refuses both (not a difference, just not expressions).

Constants (addresses, ports, lengths, protocol numbers) come mostly from
the frame mix below, so that filters match some frames and not others.
"""
import argparse
import collections
import ipaddress
import random
import re
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

# The frame mix the peer sends (tests/progs/craft.c specs).  Destinations
# are addresses the main guest does not own, so its stack drops them
# without answering; one frame goes to another MAC (PACKET_OTHERHOST).
PEER = "smac=52:54:00:12:34:02"
FRAMES = [
    "udp4,n=7,dport=53,dst=198.18.0.99",
    "udp4,n=5,sport=5353,dport=53,srcrange=5,dst=198.18.0.99",
    "udp4,n=6,sport=30000,sportrange=6,dport=33434,ttl=3,tos=0x2e,dst=198.19.200.1",
    "udp4,n=2,dport=67,dmac=ff:ff:ff:ff:ff:ff,dst=198.18.0.99",
    "udp4,n=2,len=1514,dport=7,dst=198.18.0.99",
    "udp4,n=3,frag=first,dport=4789,dst=198.18.0.99",
    "udp4,n=2,frag=later,dst=198.18.0.99",
    "udp4,n=1,proto=47,dst=198.18.0.99",
    "tcp4,n=6,dport=443,flags=S,sportrange=3,dst=198.18.0.99",
    "tcp4,n=4,dport=443,flags=SA,src=198.18.1.7,tos=0xb8,dst=198.18.0.99",
    "tcp4,n=3,dport=22,ipopts=12,flags=PA,len=200,dst=198.18.0.99",
    "tcp4,n=2,dport=80,flags=FA,ttl=1,src=198.19.5.6,dst=198.19.200.1",
    "tcp4,n=2,dport=8080,flags=RU,ipopts=40,dst=198.18.0.99",
    "tcp4,n=1,flags=0x1ff,dmac=52:54:00:aa:bb:cc,dst=198.18.0.99",
    "icmp4,n=4,type=8,dst=198.18.0.99",
    "icmp4,n=2,type=3,code=3,ttl=5,dst=198.18.0.99",
    "icmp4,n=2,type=0,len=1000,dst=198.18.0.99",
    "udp4,n=4,vlan=42,dport=9,dst=198.18.0.99",
    "tcp4,n=2,vlan=7,prio=5,dport=80,dst=198.18.0.99",
    "tcp4,n=2,vlan=7,svlan=3,dport=80,dst=198.18.0.99",
    "icmp4,n=1,vlan=100,len=300,dst=198.18.0.99",
    "udp4,n=1,vlan=11,trunc=30,dst=198.18.0.99",
    "udp6,n=1,ext=dst,vlan=9,dst=2001:2::99",
    # transport headers across the end of the 96-byte copy on the stack
    "udp4,n=2,ipopts=40,dport=53,len=150,dst=198.18.0.99",
    "tcp4,n=1,vlan=5,svlan=6,ipopts=40,dport=443,flags=SA,len=300,dst=198.18.0.99",
    "udp6,n=1,ext=hop,vlan=8,svlan=9,dport=53,len=200,dst=2001:2::99",
    "udp6,n=5,dport=53,dst=2001:2::99",
    "udp6,n=2,sport=5353,dport=5353,dmac=33:33:00:00:00:fb,dst=ff02::fb",
    "tcp6,n=3,dport=443,flags=S,src=2001:2:0:1::5,dst=2001:2::99",
    "tcp6,n=2,ext=hop,dport=8080,dst=2001:2::99",
    "icmp6,n=4,type=128,dst=2001:2::99",
    "icmp6,n=2,type=1,code=4,hlim=255,dst=2001:2::99",
    "arp,n=3,dst=198.18.0.99",
    "arp,n=1,op=2,dst=198.18.0.99",
    "raw,n=2,len=100",
    "raw,n=1,etype=0x8863,len=64",
    "udp4,n=1,trunc=14,dst=198.18.0.99",
    "tcp4,n=2,trunc=20,dst=198.18.0.99",
    "tcp4,n=2,trunc=40,dst=198.18.0.99",
    "udp6,n=1,trunc=50,dst=2001:2::99",
    "udp6,n=1,ext=hop,trunc=60,dst=2001:2::99",
]

V4 = ["198.18.0.1", "198.18.0.2", "198.18.0.4", "198.18.0.99", "198.18.1.7",
      "198.19.5.6", "198.19.200.1", "198.18.0.255", "10.0.0.1"]
V6 = ["2001:2::1", "2001:2::2", "2001:2::99", "2001:2:0:1::5", "ff02::fb", "fe80::1"]
MACS = ["52:54:00:12:34:01", "52:54:00:12:34:02", "52:54:00:12:34:99",
        "ff:ff:ff:ff:ff:ff", "33:33:00:00:00:fb", "52:54:00:aa:bb:cc"]
PORTS = [53, 5353, 443, 22, 80, 8080, 9, 7, 67, 4789, 1000, 1001, 2000, 30000,
         30003, 33434, 9001, 0, 65535]
LENS = [14, 20, 30, 40, 42, 50, 54, 60, 62, 64, 66, 74, 78, 86, 100, 120, 200, 300,
        1000, 1514]
PROTOS = ["ip", "ip6", "arp", "tcp", "udp", "icmp", "icmp6", "igmp", "sctp",
          "ip proto 47", "ip proto 17", "ip6 proto 58", "ip6 proto 0", "proto 6",
          "ether proto 0x88b5", "ether proto 0x8863", "ether proto 0x86dd", "rarp",
          "ip and tcp", "ip6 and udp", "tcp or udp"]
DIRS = ["", "", "src ", "dst ", "src or dst ", "src and dst "]
CMP = ["=", "!=", "<", ">", "<=", ">="]
LOAD_PROTOS = ["ether", "ip", "ip6", "tcp", "udp", "icmp", "icmp6", "arp"]
NOPERFMON = 0.25
ARITH_OPS = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]


def same(s):
    return (s, s)


class Gen:
    def __init__(self, rng, fields):
        self.r = rng
        self.fields = fields

    def pick(self, seq):
        return self.r.choice(seq)

    # ---- keys ----
    def keys(self):
        r = self.r
        n = r.choice([0, 1, 1, 1, 2, 2, 2, 3, 3, 4])
        chosen = r.sample(list(self.fields), n)
        keys = []
        for name in chosen:
            maxp = self.fields[name]
            if maxp and r.random() < 0.5:
                p = r.choice([8, 16, 24, maxp // 2, r.randint(1, maxp)])
                name = "%s/%d" % (name, p)
            keys.append(name)
        return keys

    # ---- the where clause, as (live, tagged) text ----
    def number(self, choices, lo, hi):
        return self.pick(choices) if self.r.random() < 0.75 else self.r.randint(lo, hi)

    def v4(self):
        return self.pick(V4) if self.r.random() < 0.85 else str(ipaddress.IPv4Address(self.r.getrandbits(32)))

    def net(self, v6):
        addr = self.pick(V6) if v6 else self.v4()
        bits = self.r.randint(1, 128 if v6 else 32)
        return str(ipaddress.ip_network("%s/%d" % (addr, bits), strict=False))

    def atom(self):
        r = self.r
        kind = r.choice(["proto", "proto", "port", "port", "portrange", "host", "net",
                         "ether", "length", "length", "load", "load", "load", "named",
                         "arith", "arith"])
        if kind == "proto":
            return same(self.pick(PROTOS))
        if kind == "port":
            tu = self.pick(["", "tcp ", "udp "])
            return same("%s%sport %d" % (tu, self.pick(DIRS), self.number(PORTS, 0, 65535)))
        if kind == "portrange":
            a = self.number(PORTS, 0, 65535)
            b = min(65535, a + self.pick([0, 1, 10, 1000, r.randint(0, 65535)]))
            return same("%s%sportrange %d-%d" % (self.pick(["", "tcp ", "udp "]),
                                                  self.pick(DIRS), a, b))
        if kind == "host":
            v6 = r.random() < 0.3
            addr = self.pick(V6) if v6 else self.v4()
            pre = self.pick(["", "ip6 " if v6 else "ip ", "arp " if not v6 else ""])
            return same("%s%shost %s" % (pre, self.pick(DIRS), addr))
        if kind == "net":
            v6 = r.random() < 0.35
            return same("%snet %s" % (self.pick(DIRS), self.net(v6)))
        if kind == "ether":
            c = r.randint(0, 4)
            if c == 0:
                return same("ether broadcast")
            if c == 1:
                return same(self.pick(["ether multicast", "ip multicast", "ip6 multicast"]))
            return same("ether %s %s" % (self.pick(["src", "dst", "host"]), self.pick(MACS)))
        if kind == "length":
            n = self.number(LENS, 0, 1600)
            c = r.randint(0, 2)
            if c == 0:
                return ("greater %d" % n, "(len - 4) >= %d" % n)
            if c == 1:
                return ("less %d" % n, "(len - 4) <= %d" % n)
            op = self.pick(CMP)
            return ("len %s %d" % (op, n), "(len - 4) %s %d" % (op, n))
        if kind == "load":
            live, tag = self.load()
            c = r.randint(0, 2)
            v = r.choice([0, 1, 2, 5, 6, 17, 0x40, 0x800, 0x86dd, r.getrandbits(8),
                          r.getrandbits(16), r.getrandbits(32)])
            if c == 0:
                op = self.pick(CMP)
                return ("%s %s %d" % (live, op, v), "%s %s %d" % (tag, op, v))
            m = r.choice([1, 2, 0x0f, 0xf0, 0x1fff, 0x20, r.getrandbits(16) | 1])
            rel = self.pick(["!= 0", "= 0", "= %d" % (v & m)])
            return ("%s & 0x%x %s" % (live, m, rel), "%s & 0x%x %s" % (tag, m, rel))
        if kind == "named":
            return same(self.pick([
                "tcp[tcpflags] & (tcp-syn|tcp-ack) != 0",
                "tcp[tcpflags] & (tcp-syn|tcp-ack) = tcp-syn",
                "tcp[tcpflags] & (tcp-fin|tcp-rst|tcp-push|tcp-urg) != 0",
                "tcp[tcpflags] = tcp-syn",
                "icmp[icmptype] = icmp-echo",
                "icmp[icmptype] = icmp-unreach and icmp[icmpcode] = 3",
                "icmp6[icmp6type] = icmp6-echo",
                "ip[6:2] & 0x1fff != 0",
                "ip[6] & 0x20 != 0",
                "ip[0] & 0xf > 5",
                "ip[8] < 4",
                "ip6[6] = 0 or ip6[6] = 60",
                "udp[2:2] = 53",
                "arp[6:2] = 2",
            ]))
        live, tag = self.arith(3)
        op = self.pick(CMP)
        v = r.choice([0, 1, 4, 20, 64, 100, r.getrandbits(16), r.getrandbits(32)])
        return ("%s %s %d" % (live, op, v), "%s %s %d" % (tag, op, v))

    def load(self, depth=1):
        """proto[off:size]: offsets past some or all frames' ends too, and
        offsets computed at run time (classic LD_IND)."""
        r = self.r
        proto = self.pick(LOAD_PROTOS)
        size = self.pick([1, 1, 2, 2, 4])
        if depth and r.random() < 0.25:
            if proto == "ether":
                # from the end: byte len - k is the same byte live and in a
                # tagged record (4 bytes longer, 4 bytes later) as long as
                # it lies after the tag (no tagged frame is under 26 bytes)
                return same("ether[len - %d:%d]" % (r.randint(1, 14), size))
            idx = self.arith(depth, loads=False) if r.random() < 0.5 else self.load(0)
            return ("%s[%s:%d]" % (proto, idx[0], size), "%s[%s:%d]" % (proto, idx[1], size))
        off = r.choice([0, 1, 2, 6, 8, 9, 12, 13, 16, 20, r.randint(0, 64),
                        r.randint(0, 1600)])
        if proto == "ether":
            if off < 12 < off + size:		# would straddle the tag
                off = 12
            toff = off + 4 if off >= 12 else off
            return ("ether[%d:%d]" % (off, size), "ether[%d:%d]" % (toff, size))
        return same("%s[%d:%d]" % (proto, off, size))

    def arith(self, depth, loads=True):
        r = self.r
        c = r.randint(0, 9)
        if depth == 0 or c < 3:
            if c == 0:
                return ("len", "(len - 4)")
            if c == 1 or not loads:
                return same(str(r.choice([1, 2, 3, 4, 8, 14, 31, 255, r.getrandbits(16)])))
            return self.load()
        if c == 3:
            a = self.arith(depth - 1, loads)
            return ("-(%s)" % a[0], "-(%s)" % a[1])
        op = self.pick(ARITH_OPS)
        a = self.arith(depth - 1, loads)
        if op in ("/", "%") and r.random() < 0.5:
            b = same(str(r.randint(1, 300)))	# libpcap refuses a constant 0
        elif op in ("<<", ">>") and r.random() < 0.6:
            b = same(str(r.randint(0, 31)))
        else:
            b = self.arith(depth - 1, loads)
            if op in ("/", "%") and b[0].isdigit() and int(b[0]) == 0:
                b = same("1")
        return ("(%s %s %s)" % (a[0], op, b[0]), "(%s %s %s)" % (a[1], op, b[1]))

    def clause(self, depth):
        r = self.r
        c = r.random()
        if depth == 0 or c < 0.4:
            return self.atom()
        if c < 0.55:
            a = self.clause(depth - 1)
            neg = self.pick(["not ", "!"])
            return ("%s(%s)" % (neg, a[0]), "%s(%s)" % (neg, a[1]))
        op = self.pick(["and", "or", "&&", "||", "and", "or"])
        a, b = self.clause(depth - 1), self.clause(depth - 1)
        return ("(%s) %s (%s)" % (a[0], op, b[0]), "(%s) %s (%s)" % (a[1], op, b[1]))

    def expression(self):
        keys = self.keys()
        head = "count" + (" by " + ", ".join(keys) if keys else "")
        fl = next((i + 1 for i, k in enumerate(keys) if k == "frame.len"), 0)
        if self.r.random() < 0.12:
            expr, tagged = head, head + " where vlan"
        else:
            live, tag = self.clause(self.r.choice([0, 1, 1, 2, 2, 3]))
            expr = "%s where %s" % (head, live)
            tagged = "%s where vlan and (%s)" % (head, tag)
        # Mostly bounded tables, larger than the keys of the frame mix (no
        # overflow: live and file intervals differ); now and then the
        # default table (16 MB of buckets in the guest each).
        opts = "--max-keys %d" % self.r.choice([256, 300, 512, 1000]) if self.r.random() < 0.85 else "-"
        # Now and then short intervals: live, the tables are swapped and
        # drained while the frames arrive, and the totals must not change.
        if opts != "-" and self.r.random() < 0.2:
            opts += " -I 0.5"
        # Live as root, or as a process with CAP_BPF and CAP_NET_RAW only:
        # without CAP_PERFMON, ebpfcount reads the frame with LD_ABS, and
        # the verifier checks more (uninitialised stack, spilled registers,
        # speculative paths).
        live = "noperfmon" if self.r.random() < NOPERFMON else "root"
        return "%s\t%s\t%d\t%s\t%s" % (live, opts, fl, expr, tagged)


def table_lines():
    """The case table's expressions, as lines: as root, in 1000 keys; the
    tagged records read through "vlan and (FILTER)"."""
    t = cases.load()
    out = []
    for expr in [e for e, _ in t.EXPRS] + [c.expr for c in t.EXPECT]:
        head, _, clause = expr.partition(" where ")
        keys = [k.strip() for k in head.split(" by ", 1)[1].split(",")] if " by " in head else []
        fl = next((i + 1 for i, k in enumerate(keys) if k == "frame.len"), 0)
        tagged = "%s where vlan and (%s)" % (head, clause) if clause else head + " where vlan"
        line = "root\t--max-keys 1000\t%d\t%s\t%s" % (fl, expr, tagged)
        if line not in out:
            out.append(line)
    return out


def compiles(ebpfcount, expr):
    """None when ebpfcount -d compiles expr, else its error's first line."""
    r = subprocess.run([ebpfcount, "-d", expr], capture_output=True, text=True)
    return None if r.returncode == 0 else (r.stderr.splitlines() or ["exit %d" % r.returncode])[0]


def valid(ebpfcount, line, skipped):
    """line, or a line with TAGGED "-" (it matches no tagged record), or None
    when the filter does not compile: libpcap refuses it (a contradiction it
    proves, a constant division by zero or shift past 31 after folding), or
    ebpfcount does (a load at an offset folded below 0): the same live and
    offline.  Any other error is kept, for the test to report."""
    live, opts, fl, expr, tagged = line.split("\t")
    err = compiles(ebpfcount, expr)
    if err and "bad expression" in err:
        skipped.append(err)
        return None
    terr = compiles(ebpfcount, tagged)
    if terr and "rejects all packets" in terr:
        return "\t".join([live, opts, fl, expr, "-"])
    if terr and "bad expression" in terr:
        skipped.append(terr)
        return None
    return line


def fields_of(ebpfcount):
    out = subprocess.run([ebpfcount, "--list-fields"], capture_output=True, text=True,
                         check=True).stdout
    fields = {}
    for line in out.splitlines():
        name, _, help_ = line.partition(" ")
        # sll.*: the reference counts an Ethernet capture, which has none
        if not name or name.startswith("sll."):
            continue
        fields[name] = (128 if "IPv6" in help_ else 32) if "/N" in help_ else 0
    return fields


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--ebpfcount", default="build/bin/ebpfcount")
    ap.add_argument("--frames", action="store_true", help="print the frame mix")
    a = ap.parse_args()
    if a.frames:
        for f in FRAMES:
            print(f + "," + PEER)
        return 0
    g = Gen(random.Random(a.seed), fields_of(a.ebpfcount))
    skipped = []
    n = 0
    seeds = table_lines()
    while n < a.count:
        line = valid(a.ebpfcount, seeds.pop(0) if seeds else g.expression(), skipped)
        if line:
            print(line)
            n += 1
    reasons = collections.Counter(re.sub(r".*: ", "", e) for e in skipped)
    print("gen_exprs: seed %d: %d expressions, the first %d from tests/cases.txt; left out %d "
          "whose filter libpcap or ebpfcount refuses (%s)"
          % (a.seed, n, min(n, len(table_lines())), len(skipped),
             ", ".join("%s: %d" % kv for kv in sorted(reasons.items()))),
          file=sys.stderr)
    return 0


sys.exit(main())
