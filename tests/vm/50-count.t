#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Exact counts between two guests.

The peer sends the case table's frames (tests/cases.txt, those that go
over a link; tests/progs/craft.c) with a source MAC of their own; ebpfcount
on the main guest counts them with the table's expressions that have no
where clause, each restricted to that MAC by its where clause: one process
per expression, and one process with eight of them in one program (-e ...
-e), whose rows must be the same.  The table's own cases (expect lines)
come with a MAC each, which their expressions select, eight to a program;
their rows must be the table's.  The same frames,
written to a pcap file on the host, are decoded by tshark: its per-frame
field values, counted, are what ebpfcount must report, row for row, in
packets and bytes.  Where ebpfcount knows more than tshark prints (an
absent versus a truncated field), the spec table says what to expect.

Then the headers outside the linear part: on a veth pair in the main
guest, craft -l sends frames of 5000 bytes of which only the first 14 to
100 bytes are in the skb's linear part, the rest in page fragments.  One
program of several expressions counts them in each way of reading the
frame (EBPFCOUNT_FRAME: direct reads with their fallback to LD_ABS past the
linear part, on a kernel with the series; the window copied by
bpf_skb_load_bytes; LD_ABS alone); each must count what tshark decodes from
the same frames, row for row.  tests/vm/46-sk-direct.t checks that such
frames arrive with exactly that much in the linear part.
"""
import collections
import csv
import io
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
import cases  # noqa: E402
import tap  # noqa: E402
from tshark_ref import frame_specs, keys_of, normal, skb_len  # noqa: E402

KERNEL = os.environ.get("EBPFCOUNT_KERNEL", "patched")
SMAC = "52:54:00:12:34:99"
MARK = "52:54:00:12:34:98"
WHERE = " where ether src " + SMAC

# The case table (tests/cases.txt): its frames that go over a link, its
# expressions without a where clause (each gets one selecting SMAC), and
# its own cases.
CASES = cases.load()
SPECS = CASES.LINK

# Frames on the veth pair: (bytes in the linear part, craft specs); all
# but the last two 5000 bytes long, so that the kernel puts the rest of
# them in page fragments (craft -l).  The linear part ends at the first
# byte of IPv4 (14), in its middle (20), at its end (34), in the middle of
# UDP or TCP (38, 54: after the IPv6 header), and past all headers (100).
# The stack pulls the VLAN header of a tagged frame into the linear part
# before the tap (packet_parse_headers(), skb_vlan_untag()): there the
# linear part ends 10 bytes further, still before the IPv4 header.
NL_MAC = "52:54:00:12:34:97"
NL_GROUPS = [
    (14, ["udp4,n=5,dport=53,srcrange=5", "tcp4,n=4,dport=443,flags=SA", "icmp4,n=3",
          "udp6,n=3,dport=53", "tcp6,n=2,ext=hop", "udp4,n=3,vlan=42,dport=9"]),
    (20, ["tcp4,n=3,dport=22,ipopts=12,flags=PA", "udp4,n=2,frag=first,dport=4789"]),
    (34, ["udp4,n=4,sport=5353,dport=53", "tcp4,n=2,dport=80,tos=0xb8"]),
    (38, ["udp4,n=3,dport=9", "tcp4,n=2,dport=8080,flags=F"]),
    (54, ["tcp6,n=3,dport=443,flags=S", "icmp6,n=2,type=128"]),
    (100, ["udp4,n=2,dport=123", "tcp4,n=2,dport=25,flags=R,len=80", "udp6,n=1,dport=7,len=90"]),
]
NL_MODES = (["direct"] if KERNEL != "stock" else []) + ["window", "ld_abs"]


def nl_group(group):
    """The craft specs of a group of NL_GROUPS, as they are sent."""
    return [s + ("" if "len=" in s else ",len=5000") + ",smac=" + NL_MAC for s in group]


def nl_specs():
    """NL_GROUPS as SPECS rows, in the order they are sent."""
    return [(s, ()) for _, group in NL_GROUPS for s in nl_group(group)]


EXPRS = [e for e, display in CASES.EXPRS if " where " not in e]


# One program of several expressions (-e): as many as one program takes.
MULTI = EXPRS[:8]


def specs():
    return [s + ",smac=" + SMAC for s, _ in SPECS]


def case_mac(i):
    return "52:54:00:ca:00:%02x" % i


def case_expr(i, case):
    """A case's expression, selecting its own frames."""
    e = case.expr
    if " where " in e:
        head, clause = e.split(" where ", 1)
        return "%s where (%s) and ether src %s" % (head, clause, case_mac(i))
    return "%s where ether src %s" % (e, case_mac(i))


def case_specs():
    return [s + ",smac=" + case_mac(i) for i, c in enumerate(CASES.EXPECT) for s in c.specs]












def expected(pcap, expr, specs=SPECS):
    keys = keys_of(expr)
    fields = [k.split("/")[0] for k in keys]
    cmd = ["tshark", "-r", pcap, "-o", "ip.defragment:FALSE", "-T", "fields",
           "-E", "separator=/t", "-E", "occurrence=f"]
    for f in fields + ["frame.len", "vlan.etype"]:
        cmd += ["-e", f]
    lines = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    rows = collections.defaultdict(lambda: [0, 0])
    for line, si in zip(lines, frame_specs(specs)):
        vals = line.split("\t")
        spec = specs[si][0]
        nbytes = skb_len(spec, int(vals[-2]))
        key = []
        for k, v in zip(keys, vals):
            if k == "frame.len":
                v = str(nbytes)
            elif k == "eth.type" and "vlan=" in spec:
                v = vals[-1]  # the kernel moved the tag: the type after it
            key.append(normal(k, v))
        rows[tuple(key)][0] += 1
        rows[tuple(key)][1] += nbytes
    return rows


def expected_truncated(expr):
    keys = [k.split("/")[0] for k in keys_of(expr)]
    n = 0
    for si in frame_specs(SPECS):
        if any(k in SPECS[si][1] for k in keys):
            n += 1
    return n


def measured(csv_text, nkeys):
    rows = collections.defaultdict(lambda: [0, 0])
    truncated = 0
    for line in csv_text.splitlines()[1:]:
        cols = line.split(",")
        if cols[2] != "1" or cols[3] != "row":
            continue
        key = tuple(v if v != "" else "-" for v in cols[4:4 + nkeys])
        packets, nbytes = int(cols[-2]), int(cols[-1])
        rows[key][0] += packets
        rows[key][1] += nbytes
        if cols[4 + nkeys] == "truncated":
            truncated += packets
    return rows, truncated


def measured_multi(csv_text, expr):
    """The rows of expression expr in the CSV of a program of several: the
    expr column names it; its keys take the columns of their fields."""
    rows = collections.defaultdict(lambda: [0, 0])
    truncated = 0
    lines = list(csv.reader(io.StringIO(csv_text)))
    if not lines or lines[0][:5] != ["time", "interval", "final", "expr", "kind"]:
        return rows, -1
    head, cols = lines[0], []
    for k in keys_of(expr):
        cols.append(next(i for i in range(5, len(head) - 3)
                         if head[i] == k.split("/")[0] and i not in cols))
    for c in lines[1:]:
        if c[3] != expr or c[2] != "1" or c[4] != "row":
            continue
        key = tuple(c[i] if c[i] != "" else "-" for i in cols)
        rows[key][0] += int(c[-2])
        rows[key][1] += int(c[-1])
        if c[-3] == "truncated":
            truncated += int(c[-2])
    return rows, truncated


def nl_script():
    """Guest lines for the frames on the veth pair (see NL_GROUPS)."""
    progs = " ".join("-e '%s where ether src %s'" % (e, NL_MAC) for e in MULTI)
    lines = [
        "echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6",
        "veth_pair vn0 vn1 && ip link set vn0 mtu 9000 && ip link set vn1 mtu 9000 || echo 'veth failed'",
        "pids=",
    ]
    for m in NL_MODES:
        lines.append("EBPFCOUNT_FRAME=%s ebpfcount -i vn1 -F csv --max-keys 4096 %s "
                     ">/tmp/nl-%s.csv 2>/tmp/nl-%s.err &" % (m, progs, m, m))
        lines.append("pids=\"$pids $!\"")
    lines += ["retry 60 test -s /tmp/nl-%s.csv" % m for m in NL_MODES]
    for linear, group in NL_GROUPS:
        lines.append("craft -q -i vn0 -l %d %s || echo 'craft -l %d failed'"
                     % (linear, " ".join("'%s'" % s for s in nl_group(group)), linear))
    lines += ["sleep 1.5", "kill -INT $pids; wait"]
    for m in NL_MODES:
        lines += ["echo '=== nl-%s'" % m, "cat /tmp/nl-%s.csv" % m,
                  "echo '=== nl-%s-err'" % m, "cat /tmp/nl-%s.err" % m]
    lines.append("echo '=== nl-end'")
    return lines


def guest_script():
    lines = [". /tests/guest/lib.sh"] + nl_script() + ["pids="]
    for i, e in enumerate(EXPRS):
        lines.append("ebpfcount -i eth0 -F csv '%s' >/tmp/out%d.csv 2>/tmp/err%d &" % (e + WHERE, i, i))
        lines.append("pids=\"$pids $!\"")
    # no -i: the where clause is compiled for the interface chosen (eth0),
    # where the kernel has moved the tag into the skb
    lines.append("ebpfcount -F csv 'count%s and vlan 42' >/tmp/vlan.csv 2>&1 &" % WHERE)
    lines.append("pids=\"$pids $!\"")
    # --max-keys: eight default tables (2^20 buckets each) beside the nine
    # processes' would not fit in a KASAN guest's memory (make check-debug)
    lines.append("ebpfcount -i eth0 -F csv --max-keys 4096 %s >/tmp/multi.csv 2>&1 &"
                 % " ".join("-e '%s'" % (e + WHERE) for e in MULTI))
    lines.append("pids=\"$pids $!\"")
    # the case table's own cases, eight to a program
    for g in range(0, len(CASES.EXPECT), 8):
        lines.append("ebpfcount -i eth0 -n -F csv --max-keys 4096 %s >/tmp/cases%d.csv 2>&1 &"
                     % (" ".join("-e '%s'" % case_expr(i, c) for i, c in
                                 enumerate(CASES.EXPECT) if g <= i < g + 8), g))
        lines.append("pids=\"$pids $!\"")
        lines.append("retry 60 test -s /tmp/cases%d.csv" % g)
    lines += [
        "retry 60 test -s /tmp/vlan.csv",
        "retry 60 test -s /tmp/multi.csv",
        "for i in $(seq 0 %d); do retry 60 test -s /tmp/out$i.csv || cat /tmp/err$i; done" % (len(EXPRS) - 1),
        "ip addr add 198.18.0.101/24 dev eth0",
        "timeout 300 tcpdump -i eth0 -Z root -c 1 -n 'ether src %s' >/dev/null 2>&1" % MARK,
        "sleep 1.5",
        "kill -INT $pids; wait",
    ]
    for i in range(len(EXPRS)):
        lines += ["echo '=== %d'" % i, "cat /tmp/out%d.csv /tmp/err%d" % (i, i)]
    lines += ["echo '=== multi'", "cat /tmp/multi.csv"]
    lines += ["echo '=== vlan'", "cat /tmp/vlan.csv"]
    for g in range(0, len(CASES.EXPECT), 8):
        lines += ["echo '=== cases%d'" % g, "cat /tmp/cases%d.csv" % g]
    return "\n".join(lines) + "\n"


def peer_command():
    quoted = " ".join("'%s'" % s for s in specs() + case_specs())
    return ("until ping -c 1 -W 1 198.18.0.101 >/dev/null 2>&1; do :; done; "
            "craft -i eth0 %s; craft -q -i eth0 -c 3 udp4,smac=%s" % (quoted, MARK))


def main():
    t = tap.Tap()
    t.plan(2 * len(EXPRS) + 2 * len(MULTI) + 2 + len(NL_MODES) * (len(MULTI) + 1)
           + len(CASES.EXPECT))
    with tempfile.TemporaryDirectory() as d:
        pcap = os.path.join(d, "frames.pcap")
        nl_pcap = os.path.join(d, "nonlinear.pcap")
        subprocess.run([os.path.join(TOP, "build/bin/craft"), "-q", "-w", pcap] + specs(), check=True)
        subprocess.run([os.path.join(TOP, "build/bin/craft"), "-q", "-w", nl_pcap]
                       + [s for s, _ in nl_specs()], check=True)
        script = os.path.join(d, "count.sh")
        with open(script, "w") as f:
            f.write(guest_script())
        r = subprocess.run([os.path.join(TOP, "qemu-env/vm"), "--kernel", KERNEL,
                            "--add", script + ":/root/count.sh", "--peer", peer_command(),
                            "--", "sh", "/root/count.sh"], capture_output=True, text=True)
        t.ok(r.returncode == 0, "guest run exits 0 (%d)" % r.returncode)
        if r.returncode:
            t.diag(r.stdout[-2000:] + r.stderr[-2000:])
        # "=== NAME" starts the output of NAME
        outputs = dict((o.split("\n", 1) + [""])[:2] for o in r.stdout.split("=== ")[1:])
        for i, e in enumerate(EXPRS):
            text = outputs.get(str(i), "")
            got, trunc = measured(text, len(keys_of(e)))
            want = expected(pcap, e)
            t.is_deeply(dict(got), dict(want), "'%s': rows equal tshark's" % e)
            t.is_(trunc, expected_truncated(e), "'%s': truncated rows" % e)
        text = outputs.get("multi", "")
        failed = t.failed
        for e in MULTI:
            got, trunc = measured_multi(text, e + WHERE)
            t.is_deeply(dict(got), dict(expected(pcap, e)),
                        "one program of %d expressions: '%s': rows equal tshark's"
                        % (len(MULTI), e))
            t.is_(trunc, expected_truncated(e), "one program: '%s': truncated rows" % e)
        if t.failed > failed:
            t.diag(text[-3000:])
        vlan = outputs.get("vlan", "")
        total = [line.split(",")[-2] for line in vlan.splitlines() if ",1,total," in line]
        want = sum(int(o[2:]) for spec, _ in SPECS if "vlan=42" in spec
                   for o in spec.split(",") if o.startswith("n="))
        t.is_(total, [str(want)], "no -i: 'where vlan 42' is compiled for eth0 and matches live")
        for i, case in enumerate(CASES.EXPECT):
            text = outputs.get("cases%d" % (i - i % 8), "")
            cases.check(t, case, cases.csv_rows(text, case.expr, case_expr(i, case)), "live")
        for m in NL_MODES:
            text = outputs.get("nl-" + m, "")
            t.is_(outputs.get("nl-%s-err" % m), "", "headers outside the linear part, "
                  "EBPFCOUNT_FRAME=%s: nothing on stderr" % m)
            failed = t.failed
            for e in MULTI:
                got, _ = measured_multi(text, "%s where ether src %s" % (e, NL_MAC))
                t.is_deeply(dict(got), dict(expected(nl_pcap, e, nl_specs())),
                            "headers outside the linear part, EBPFCOUNT_FRAME=%s: '%s': "
                            "rows equal tshark's" % (m, e))
            if t.failed > failed:
                t.diag(text[-3000:])
    sys.exit(t.done())


main()
