#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ebpfcount -r FILE: capture files counted by the userspace engine, on the host.

Nothing here loads BPF or opens a socket: only `ebpfcount -r` (the user
engine), `craft -w`, tshark, tcpdump -r, editcap and Python run.

The frames are the frame lines of the case table (tests/cases.txt, with its
count lines), written by craft -w, one millisecond apart so that every
record has its own timestamp.  For each expression, the final rows of
`ebpfcount -r -F csv` and `-F json` must equal tshark's per-frame field
values counted, as tshark decodes the file itself: a file keeps VLAN tags
inline, so bytes are the record's original length (frame.len) and eth.type
is the EtherType after the tags.  A where clause selects the records that
`tcpdump -r FILE -w OUT FILTER` writes (counted from OUT, never from text).
Then the same frames as nanosecond pcap and pcapng (identical output), as
Linux cooked v1/v2 and raw IP (the same rows for IP-level keys, bytes of
their own records, inbound/outbound from the cooked packet type, eth.src
and eth.dst refused), cut by a snapshot length (original bytes, truncated
keys), intervals against `tshark -q -z io,stat,I`, -c, standard input,
every bad input (one line on stderr, exit 1), usage errors, and a peak RSS
that does not grow with the file.

Several expressions in one program (-e ... -e): each expression's final
rows, overflow and total in JSON and CSV are those it gets alone (which
equal tshark's), the human table names each; usage errors of -e.

Then TAGGED: QinQ (keys read through both tags, eth.type after them,
vlan.id the outer tag's, which tshark calls ieee8021ad.id), a single tag,
and transport keys behind IPv6 extension headers.  Last, the case table's
own cases (expect lines), each on a file of its frames.
"""
import collections
import csv
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
import cases  # noqa: E402
import tap  # noqa: E402
from tshark_ref import frame_specs, keys_of, normal  # noqa: E402

CRAFT = os.path.join(TOP, "build/bin/craft")
EBPFCOUNT = os.path.join(TOP, "build/bin/ebpfcount")
T0_NS = 1700000100250000000     # the first record's time (whole microseconds)
STEP_NS = 1000000               # records 1 ms apart: all in the first interval
SNAP = 40                       # editcap -s


CASES = cases.load()
SPECS, EXPRS = CASES.SPECS, CASES.EXPRS
WHERE_EXPRS = [e for e, _ in EXPRS]

# keys that mean the same in a cooked or raw-IP capture (no Ethernet header)
IP_KEYS = ("ip.", "ipv6.", "tcp.", "udp.", "icmp.", "icmpv6.")


def ip_level(expr):
    where = expr.split(" where ", 1)[1] if " where " in expr else ""
    return (all(k.startswith(IP_KEYS) for k in keys_of(expr))
            and not re.search(r"\b(ether|vlan|arp)\b", where))


# (name, frames, expression), the frames as in SPECS, (craft spec, keys cut
# off by trunc=); expected as for SPECS.
QINQ = [("udp4,n=3,svlan=100,vlan=42,dport=9,src=198.18.7.1", ()),
        ("tcp4,n=2,svlan=200,vlan=7,dport=443,flags=SA", ()),
        ("udp6,n=2,svlan=300,vlan=8,dport=53", ())]
VLAN1 = [("udp4,n=3,vlan=3,dport=7", ()), ("tcp6,n=2,vlan=4,dport=22", ()),
         ("arp,n=1,vlan=5", ()), ("udp4,n=1", ())]
# 8 bytes of TCP behind the hop-by-hop header: the ports but not the flags
EXTS = [("udp6,n=3,ext=hop,dport=53", ()), ("tcp6,n=2,ext=dst,dport=22,flags=SA", ()),
        ("icmp6,n=2,ext=hop,type=129", ()), ("udp6,n=1,ext=dst,vlan=9,dport=123", ()),
        ("tcp6,n=1,ext=hop,trunc=70", ("tcp.flags",)), ("udp6,n=1,dport=5", ())]
# 802.3 frames: the type field is a length up to 1500, undefined below
# 0x600; tshark gives no eth.type for either, and ebpfcount an absent key
LLC = [("raw,n=3,etype=46", ()), ("raw,n=2,etype=1500", ()), ("raw,n=1,etype=1501", ()),
       ("raw,n=1,etype=1536", ()), ("raw,n=2", ()), ("udp4,n=1", ())]
TAGGED = [
    ("802.3: no eth.type where the type field is a length", LLC, "count by eth.type"),
    ("QinQ: keys read through an 802.1ad and an 802.1Q tag", QINQ,
     "count by ip.src, ipv6.nxt, ip.proto, tcp.dstport, udp.dstport"),
    ("QinQ: eth.type is the EtherType after both tags", QINQ, "count by eth.type"),
    ("QinQ: vlan.id is the outer (802.1ad) tag's ID", QINQ, "count by vlan.id"),
    ("802.1Q: eth.type is the EtherType after the tag", VLAN1, "count by eth.type, vlan.id"),
    ("IPv6 extension headers: transport keys behind them as tshark decodes",
     EXTS, "count by ipv6.nxt, tcp.dstport, tcp.flags, udp.dstport, icmpv6.type"),
]


# ---------------------------------------------------------------- pcap files

def read_pcap(path):
    """(linktype, snaplen, [(ts_ns, data, orig_len)]) of a little-endian pcap."""
    raw = open(path, "rb").read()
    magic, _, _, _, _, snaplen, linktype = struct.unpack_from("<IHHiIII", raw, 0)
    scale = {0xa1b2c3d4: 1000, 0xa1b23c4d: 1}[magic]
    recs, off = [], 24
    while off + 16 <= len(raw):
        sec, frac, caplen, orig = struct.unpack_from("<IIII", raw, off)
        recs.append((sec * 1000000000 + frac * scale, raw[off + 16:off + 16 + caplen], orig))
        off += 16 + caplen
    return linktype, snaplen, recs


def write_pcap(path, recs, linktype=1, snaplen=262144, nsec=False):
    """recs: (ts_ns, data, orig_len), caplen the data's length."""
    out = bytearray(struct.pack("<IHHiIII", 0xa1b23c4d if nsec else 0xa1b2c3d4, 2, 4, 0, 0,
                                snaplen, linktype))
    for ts, data, orig in recs:
        frac = ts % 1000000000 if nsec else ts % 1000000000 // 1000
        out += struct.pack("<IIII", ts // 1000000000, frac, len(data), orig) + data
    with open(path, "wb") as f:
        f.write(out)


def craft(path, specs, step_ns=STEP_NS):
    """craft -w, then one timestamp per record, step_ns apart from T0_NS."""
    subprocess.run([CRAFT, "-q", "-w", path] + list(specs), check=True)
    _, _, recs = read_pcap(path)
    write_pcap(path, [(T0_NS + i * step_ns, d, o) for i, (_, d, o) in enumerate(recs)])


def ether_type_after_tags(data):
    off = 12
    while len(data) >= off + 2 and data[off:off + 2] in (b"\x81\x00", b"\x88\xa8"):
        off += 4
    return (int.from_bytes(data[off:off + 2], "big") if len(data) >= off + 2 else None), off + 2


SLL_TYPES = (0, 4, 1, 2, 3)     # host, outgoing, broadcast, multicast, other host


def cooked(recs, v2):
    """Linux cooked v1/v2 records of Ethernet ones: the tags stay inline."""
    out = []
    for i, (ts, d, orig) in enumerate(recs):
        ptype, addr = SLL_TYPES[i % len(SLL_TYPES)], d[6:12] + b"\0\0"
        if v2:
            hdr = d[12:14] + b"\0\0" + struct.pack(">IHBB", 2, 1, ptype, 6) + addr
        else:
            hdr = struct.pack(">HHH", ptype, 1, 6) + addr + d[12:14]
        out.append((ts, hdr + d[14:], orig - 14 + len(hdr)))
    return out


def raw_ip(recs, types):
    """(index, record) of the IP records, tags and Ethernet header taken off."""
    out = []
    for i, (ts, d, orig) in enumerate(recs):
        etype, start = ether_type_after_tags(d)
        if etype in types:
            out.append((i, (ts, d[start:], orig - start)))
    return out


# ---------------------------------------------------------------- references

def tshark_decode(pcap, fields):
    """Per record: {field: [values]} as tshark decodes the file itself."""
    cmd = ["tshark", "-r", pcap, "-o", "ip.defragment:FALSE", "-o", "ipv6.defragment:FALSE",
           "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=;"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [{f: (v.split(";") if v else []) for f, v in zip(fields, line.split("\t"))}
            for line in out.splitlines()]


def fields_of(exprs):
    out = ["frame.len", "frame.cap_len", "eth.type", "vlan.etype", "vlan.id", "ipv6.nxt",
           "ieee8021ad.id"]
    for e in exprs:
        out += [k.split("/")[0] for k in keys_of(e) if k.split("/")[0] not in out]
    return out


class Frame:
    """One record: raw tshark values, its bytes, the fields it has cut off."""

    def __init__(self, vals, nbytes, cut=()):
        self.vals, self.nbytes, self.cut = vals, nbytes, set(cut)

    def value(self, field):
        v = self.vals.get(field, [])
        if field == "eth.type" and self.vals["vlan.etype"]:
            return self.vals["vlan.etype"][-1]      # the EtherType after the tags
        if field == "vlan.id" and self.vals["ieee8021ad.id"]:
            return self.vals["ieee8021ad.id"][0]    # the outer (802.1ad) tag's ID
        return v[0] if v else ""

    def key(self, expr):
        """(values..., missing) as ebpfcount's CSV shows them."""
        vals, missing = [], ""
        for k in keys_of(expr):
            f = k.split("/")[0]
            if f in self.cut:
                vals.append("-")
                missing = "truncated"
                continue
            v = normal(k, self.value(f))
            if v == "-" and not missing:
                missing = "absent"
            vals.append(v)
        return tuple(vals) + (missing,)


def expected(frames, expr, selected=None):
    rows = collections.defaultdict(lambda: [0, 0])
    for i, f in enumerate(frames):
        if selected is None or i in selected:
            r = rows[f.key(expr)]
            r[0] += 1
            r[1] += f.nbytes
    return dict(rows)


def tcpdump_select(pcap, filt, d, ts_index):
    """Indexes, records and bytes of what tcpdump -r -w writes for filt."""
    out = os.path.join(d, "tcpdump-out.pcap")
    r = subprocess.run(["tcpdump", "-r", pcap, "-w", out, filt], capture_output=True, text=True)
    if r.returncode and "expression rejects all packets" in r.stderr:
        return set(), 0, 0      # libpcap knows for this link type: no packet matches
    if r.returncode:
        raise RuntimeError("tcpdump -r %s '%s': %s" % (pcap, filt, r.stderr.strip()))
    _, _, recs = read_pcap(out)
    os.unlink(out)
    return {ts_index[ts] for ts, _, _ in recs}, len(recs), sum(o for _, _, o in recs)


def io_stat(pcap, interval):
    """[(frames, bytes)] per interval of tshark -q -z io,stat,interval."""
    out = subprocess.run(["tshark", "-q", "-r", pcap, "-z", "io,stat,%s" % interval],
                         capture_output=True, text=True, check=True).stdout
    return [(int(m.group(1)), int(m.group(2))) for m in
            re.finditer(r"^\|\s*[\d.]+\s*<>\s*[\w.]+\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|$", out, re.M)]


# ---------------------------------------------------------------- ebpfcount

def ebpfcount(args, stdin=None, env=None):
    return subprocess.run([EBPFCOUNT] + args, capture_output=True, text=True, stdin=stdin,
                          env=dict(os.environ, **env) if env else None)


def add_row(rows, key, counts):
    """Rows whose keys print the same (a key absent in one, truncated in the
    other, both null) are summed, as tests/host/50-vm-count.t does."""
    old = rows.setdefault(key, [0, 0])
    old[0] += counts[0]
    old[1] += counts[1]


def parse_csv(text, expr):
    """Intervals: [{'final': bool, 'rows': {key: [p, b]}, 'total': [p, b], ...}]."""
    lines = text.splitlines()
    if not lines:
        return []
    head = lines[0].split(",")
    nkeys = len(keys_of(expr))
    if head[:4] != ["time", "interval", "final", "kind"] or len(head) != 7 + nkeys:
        raise ValueError("CSV header %r" % lines[0])
    ivs, cur = [], None
    for line in lines[1:]:
        c = line.split(",")
        if cur is None:
            cur = {"time": c[0], "final": c[2] == "1", "rows": {}}
        counts = [int(c[-2]), int(c[-1])]
        if c[3] == "empty":     # a run of empty intervals: their number in missing
            ivs += [{"time": None, "final": False, "rows": {}, "overflow": [0, 0],
                     "total": [0, 0]} for _ in range(int(c[-3]))]
            cur = None
        elif c[3] == "row":
            key = tuple(v if v != "" else "-" for v in c[4:4 + nkeys]) + (c[4 + nkeys],)
            add_row(cur["rows"], key, counts)
        elif c[3] == "overflow":
            cur["overflow"] = counts
        elif c[3] == "others":
            cur["others"] = counts
        elif c[3] == "total":
            cur["total"] = counts
            ivs.append(cur)
            cur = None
    return ivs


def parse_json(text, expr):
    ivs = []
    keys = keys_of(expr)
    for line in text.splitlines():
        o = json.loads(line)
        rows = {}
        for r in o["rows"]:
            key = tuple("-" if r[k.split("/")[0]] is None else str(r[k.split("/")[0]])
                        for k in keys) + (r.get("missing", ""),)
            add_row(rows, key, [r["packets"], r["bytes"]])
        ivs.append({"time": o["time"], "final": o.get("final", False), "rows": rows,
                    "overflow": [o["overflow"]["packets"], o["overflow"]["bytes"]],
                    "total": [o["total"]["packets"], o["total"]["bytes"]]})
    return ivs


def final_of(ivs):
    f = [iv for iv in ivs if iv["final"]]
    return f[-1] if len(f) == 1 and ivs[-1]["final"] else None


def totals(rows):
    return [sum(v[0] for v in rows.values()), sum(v[1] for v in rows.values())]


def count_check(t, pcap, expr, frames, d, ts_index, fmt="csv", name=None):
    """ebpfcount -r's final rows and total against tshark and tcpdump."""
    name = name or "'%s' -F %s" % (expr, fmt)
    selected, want_total = None, [len(frames), sum(f.nbytes for f in frames)]
    if " where " in expr:
        selected, n, b = tcpdump_select(pcap, expr.split(" where ", 1)[1], d, ts_index)
        want_total = [n, b]
    want = expected(frames, expr, selected)
    r = ebpfcount(["-r", pcap, "-F", fmt, expr])
    msgs = []
    try:
        ivs = (parse_csv if fmt == "csv" else parse_json)(r.stdout, expr)
        fin = final_of(ivs)
    except (ValueError, KeyError, IndexError) as e:
        fin, msgs = None, ["unparsable output: %s" % e]
    if r.returncode or r.stderr:
        msgs.append("exit %d, stderr: %s" % (r.returncode, r.stderr.strip()))
    if fin is None:
        msgs.append("no single final object last:\n" + r.stdout[-2000:])
    else:
        if fin["rows"] != want:
            msgs.append("rows (key..., missing): got vs want")
            msgs += ["  %s: got %s, want %s" % (k, fin["rows"].get(k), want.get(k))
                     for k in sorted(set(fin["rows"]) | set(want))
                     if fin["rows"].get(k) != want.get(k)]
        if fin["total"] != want_total or fin["overflow"] != [0, 0]:
            msgs.append("total %s overflow %s, want total %s (tcpdump/tshark) overflow [0, 0]"
                        % (fin["total"], fin["overflow"], want_total))
        if totals(want) != want_total:
            msgs.append("tshark's rows %s disagree with tcpdump's %s" % (totals(want), want_total))
    t.ok(not msgs, name)
    if msgs:
        t.diag("\n".join(msgs))
    return fin


def one_line_error(t, args, name, rc=1, stdout_ok=lambda s: s == "", stdin=None, why=""):
    r = ebpfcount(args, stdin=stdin)
    err = r.stderr.splitlines()
    good = r.returncode == rc and (len(err) == 1 if rc == 1 else len(err) >= 1)
    good = good and err[0].startswith("ebpfcount: ") and stdout_ok(r.stdout)
    if not t.ok(good, name):
        t.diag("command: ebpfcount %s" % " ".join(args))
        t.diag("want: exit %d, one line on stderr, %s" % (rc, why or "nothing on stdout"))
        t.diag("got:  exit %d, stderr %r\nstdout %r" % (r.returncode, r.stderr, r.stdout[-1500:]))
    return r


# ---------------------------------------------------------------- the checks

def base_frames(pcap, exprs):
    specs = frame_specs(SPECS)
    vals = tshark_decode(pcap, fields_of(exprs))
    return [Frame(v, int(v["frame.len"][0]), SPECS[specs[i]][1]) for i, v in enumerate(vals)]


def tshark_positions(pcap, fields):
    """Per record: {field: end offset} of the bytes tshark decodes it from
    (the first occurrence; eth.type after tags: the last vlan.etype)."""
    import xml.etree.ElementTree as ET
    out = subprocess.run(["tshark", "-r", pcap, "-o", "ip.defragment:FALSE", "-o",
                          "ipv6.defragment:FALSE", "-T", "pdml"],
                         capture_output=True, text=True, check=True).stdout
    frames = []
    for pkt in ET.fromstring(out).iter("packet"):
        ends = {}
        for fld in pkt.iter("field"):
            name = fld.get("name")
            end = int(fld.get("pos", 0)) + int(fld.get("size", 0))
            if name == "vlan.etype":
                ends["eth.type"] = end
            elif name in fields and name not in ends:
                ends[name] = end
        frames.append(ends)
    return frames


def snap_frames(full, ends, caplens):
    """A record cut to caplen bytes: a key is truncated when its bytes (as
    tshark decodes the whole record) end beyond the cut, when the whole
    record already lacked it (SPECS), or when it is a transport key of an
    IPv6 packet whose extension header's next header lies beyond the cut;
    the other keys keep the whole record's values.  Bytes: the original."""
    out = []
    for f, end, caplen in zip(full, ends, caplens):
        gone = set(f.cut)
        gone |= {k for k in f.vals if f.value(k) and k != "frame.len"
                 and end.get(k, 0) > caplen}
        nxt = f.value("ipv6.nxt")
        if nxt in ("0", "43", "60") and caplen < 14 + 4 * len(f.vals["vlan.id"]) + 48:
            gone |= {k for k in f.vals if k.startswith(("tcp.", "udp.", "icmpv6."))}
        out.append(Frame(f.vals, f.nbytes, gone))
    return out


def interval_file(path):
    """Records spread in time: a gap of empty intervals, a record going back
    in time within its interval, records on interval boundaries."""
    rel_ms = [0, 100, 450, 550, 900, 1000, 1200, 4300, 4700, 4600, 5050, 6990, 7000, 7400]
    _, _, recs = read_pcap(path + ".src")
    write_pcap(path, [(T0_NS + ms * 1000000, recs[i % len(recs)][1], recs[i % len(recs)][2])
                      for i, ms in enumerate(rel_ms)])


def model_intervals(recs, step_ns, count=None):
    """The documented intervals: [(packets, bytes)], then the final."""
    start, n, ivs = recs[0][0], 0, [[0, 0]]
    for ts, _, orig in recs:
        while ts - start >= (n + 1) * step_ns:
            n += 1
            ivs.append([0, 0])
        ivs[n][0] += 1
        ivs[n][1] += orig
    if count:
        ivs = ivs[:count]
    return [tuple(x) for x in ivs]


def interval_counts(text):
    ivs = []
    for line in text.splitlines():
        o = json.loads(line)
        # a run of empty intervals is one object: as many empty intervals
        ivs += [{"total": {"packets": 0, "bytes": 0}}] * o.get("empty_intervals", 1) \
            if "empty_intervals" in o else [o]
    per = [(o["total"]["packets"], o["total"]["bytes"]) for o in ivs if not o.get("final")]
    fin = [(o["total"]["packets"], o["total"]["bytes"]) for o in ivs if o.get("final")]
    return per, fin, ivs


def check_intervals(t, d, base):
    shutil.copy(base, os.path.join(d, "iv.pcap.src"))
    iv = os.path.join(d, "iv.pcap")
    interval_file(iv)
    _, _, recs = read_pcap(iv)
    for step in ("1", "0.5"):
        want = io_stat(iv, step)
        r = ebpfcount(["-r", iv, "-I", step, "-F", "json", "count by ip.proto"])
        per, fin, _ = interval_counts(r.stdout)
        allp = (len(recs), sum(o for _, _, o in recs))
        good = r.returncode == 0 and per == want and fin == [allp] and len(want) > 5
        if not t.ok(good, "-I %s: intervals equal tshark -z io,stat,%s, then the final" % (step, step)):
            t.diag("want (tshark): %s final %s\ngot:           %s final %s\n%s"
                   % (want, allp, per, fin, r.stderr))
    # CSV: the same intervals, final=1 on the totals since start
    want = io_stat(iv, "0.5")
    r = ebpfcount(["-r", iv, "-I", "0.5", "-F", "csv", "count by ip.proto"])
    ivs = parse_csv(r.stdout, "count by ip.proto")
    per = [tuple(x["total"]) for x in ivs if not x["final"]]
    fin = [tuple(x["total"]) for x in ivs if x["final"]]
    t.is_((r.returncode, per, fin, ivs[-1]["final"] if ivs else None),
          (0, want, [(len(recs), sum(o for _, _, o in recs))], True),
          "-I 0.5 -F csv: the same intervals, final=1 last")
    # -c 2: two intervals, the final with their packets only
    want = io_stat(iv, "1")[:2]
    r = ebpfcount(["-r", iv, "-c", "2", "-F", "json", "count by ip.proto"])
    per, fin, _ = interval_counts(r.stdout)
    t.is_((r.returncode, per, fin), (0, want, [tuple(map(sum, zip(*want)))]),
          "-c 2: two intervals, then the final with their packets")
    # back in time across intervals and before the first record: the
    # current interval (tshark would put them earlier, so a model here)
    rel_ms = [0, 300, 1500, 200, 2100, 2600, -500, 2700, 5900, 5000]
    back = [(T0_NS + ms * 1000000, recs[0][1], 60 + i) for i, ms in enumerate(rel_ms)]
    bpath = os.path.join(d, "back.pcap")
    write_pcap(bpath, back)
    want = model_intervals(back, 1000000000)
    r = ebpfcount(["-r", bpath, "-F", "json", "count"])
    per, fin, _ = interval_counts(r.stdout)
    t.is_((r.returncode, per, fin), (0, want, [(len(back), sum(o for _, _, o in back))]),
          "records back in time count in the current interval")
    # nanoseconds: 0.999999999 s after the first record is still interval 1
    # (tshark's io,stat rounds to milliseconds here, so the model decides)
    npath = os.path.join(d, "ns.pcap")
    ns = [(T0_NS + 123, recs[0][1], 42), (T0_NS + 123 + 999999999, recs[0][1], 43),
          (T0_NS + 123 + 1000000000, recs[0][1], 44), (T0_NS + 123 + 2000000001, recs[0][1], 45)]
    write_pcap(npath, ns, nsec=True)
    r = ebpfcount(["-r", npath, "-F", "json", "count"])
    per, fin, _ = interval_counts(r.stdout)
    t.is_((r.returncode, per, fin), (0, model_intervals(ns, 1000000000), [(4, 174)]),
          "nanosecond pcap: 0.999999999 s after the first record is still interval 1")
    return iv


def same_output(t, files, runs, name):
    """Every file gives the same stdout and exit status as the first, per run."""
    bad = []
    for args in runs:
        outs = []
        for f in files:
            r = ebpfcount(["-r", f] + args)
            outs.append((r.returncode, r.stdout, r.stderr))
        for f, o in zip(files[1:], outs[1:]):
            if o != outs[0] or o[0] != 0:
                bad.append("ebpfcount -r %s %s\n  got  %r\n  want %r (from %s)"
                           % (os.path.basename(f), args, o, outs[0],
                              os.path.basename(files[0])))
    if not t.ok(not bad, name):
        t.diag("\n".join(bad[:3]))


def peak_rss(args):
    r = subprocess.run(["/usr/bin/time", "-v", EBPFCOUNT] + args, capture_output=True,
                       text=True)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr)
    return r.returncode, int(m.group(1)) if m else None


def check_rss(t, d, base):
    _, _, recs = read_pcap(base)
    small, big = os.path.join(d, "small.pcap"), os.path.join(d, "big.pcap")
    for path, reps in ((small, 100), (big, 1000)):
        write_pcap(path, [(T0_NS + i * 2000000, d_, o) for i, (_, d_, o) in
                          enumerate(recs * reps)])
    args = ["-F", "csv", "-I", "5", "count by ip.src/24, tcp.dstport, udp.dstport"]
    rc1, rss1 = peak_rss(["-r", small] + args)
    rc2, rss2 = peak_rss(["-r", big] + args)
    size1, size2 = os.path.getsize(small), os.path.getsize(big)
    slack = 1024 + rss1 // 20
    good = rc1 == rc2 == 0 and rss1 and rss2 and rss2 <= rss1 + slack
    if not t.ok(good, "peak RSS does not grow with the file (%d kB file: %s kB, %d kB file: %s kB)"
                % (size1 // 1024, rss1, size2 // 1024, rss2)):
        t.diag("want the big file's peak RSS within %d kB of the small one's; exit %s %s"
               % (slack, rc1, rc2))


def check_bad_inputs(t, d, base):
    _, _, recs = read_pcap(base)
    expr = "count by ip.proto"
    one_line_error(t, ["-r", os.path.join(d, "no-such.pcap"), expr], "missing file")
    # unreadable: no permission (as nobody when root), and a directory
    sub = os.path.join(d, "perm")
    os.mkdir(sub)
    os.chmod(sub, 0o755)
    locked = os.path.join(sub, "locked.pcap")
    shutil.copy(base, locked)
    os.chmod(locked, 0)
    args = ["-r", locked, expr]
    if os.geteuid() == 0:
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            EBPFCOUNT] + args, capture_output=True, text=True)
    else:
        r = ebpfcount(args)
    good = r.returncode == 1 and len(r.stderr.splitlines()) == 1 and r.stdout == ""
    if not t.ok(good, "unreadable file (mode 000)"):
        t.diag("got: exit %d stderr %r stdout %r" % (r.returncode, r.stderr, r.stdout))
    one_line_error(t, ["-r", sub, expr], "a directory instead of a file")
    text = os.path.join(d, "text.pcap")
    with open(text, "w") as f:
        f.write("this is not a capture file\n" * 4)
    one_line_error(t, ["-r", text, expr], "not a capture file")
    empty = os.path.join(d, "empty.pcap")
    open(empty, "w").close()
    one_line_error(t, ["-r", empty, expr], "empty file")
    wlan = os.path.join(d, "wlan.pcap")
    write_pcap(wlan, recs[:2], linktype=105)
    r = one_line_error(t, ["-r", wlan, expr], "unsupported link type (IEEE 802.11)")
    if not t.ok(re.search(r"802[._]11", r.stderr), "the link type's line names it"):
        t.diag("got: %r" % r.stderr)
    # cut mid-record: the records before the cut are reported, as tcpdump does
    raw = open(base, "rb").read()
    out = os.path.join(d, "cut-out.pcap")
    rec4 = 24 + 3 * (16 + len(recs[0][1]))      # the first three are the same size
    for label, cut_at in (("in record 4's data", rec4 + 16 + 5),
                          ("in record 4's header", rec4 + 7),
                          ("in record 1's data", 24 + 16 + 9)):
        cut = os.path.join(d, "cut.pcap")
        with open(cut, "wb") as f:
            f.write(raw[:cut_at])
        subprocess.run(["tcpdump", "-r", cut, "-w", out], capture_output=True)
        _, _, before = read_pcap(out)
        want = [len(before), sum(o for _, _, o in before)]
        r = ebpfcount(["-r", cut, "-F", "csv", expr])
        ivs = parse_csv(r.stdout, expr)
        per = [x["total"] for x in ivs if not x["final"]]
        fin = [x["total"] for x in ivs if x["final"]]
        if before:
            good_out = per == [want] and fin == [want]
            why = "the %d records before the cut (%s), one interval and the final" % (
                len(before), want)
        else:
            good_out = per == [] and fin in ([], [[0, 0]])
            why = "no interval (no record before the cut)"
        # the error names the file, as tcpdump's do (issue 26)
        good = (r.returncode == 1 and len(r.stderr.splitlines()) == 1 and good_out
                and r.stderr.startswith("ebpfcount: %s: " % cut))
        if not t.ok(good, "file cut %s: one line naming the file, exit 1, %s" % (label, why)):
            t.diag("got: exit %d stderr %r\nstdout %r" % (r.returncode, r.stderr, r.stdout))
    # pcapng cut in the middle of a block
    ng = os.path.join(d, "base.pcapng")
    raw = open(ng, "rb").read()
    cut = os.path.join(d, "cut.pcapng")
    with open(cut, "wb") as f:
        f.write(raw[:len(raw) - 30])
    subprocess.run(["tcpdump", "-r", cut, "-w", out], capture_output=True)
    _, _, before = read_pcap(out)
    want = [len(before), sum(o for _, _, o in before)]
    r = ebpfcount(["-r", cut, "-F", "csv", expr])
    ivs = parse_csv(r.stdout, expr)
    fin = [x["total"] for x in ivs if x["final"]]
    good = (r.returncode == 1 and len(r.stderr.splitlines()) == 1 and fin == [want]
            and r.stderr.startswith("ebpfcount: %s: " % cut))
    if not t.ok(good, "pcapng cut mid-block: one line naming the file, exit 1, the %d records before it"
                % len(before)):
        t.diag("got: exit %d stderr %r\nstdout %r" % (r.returncode, r.stderr, r.stdout[-800:]))
    # a record longer than the snapshot length: hand-written.  libpcap
    # cuts it to the snapshot length, and tcpdump and tshark read it so:
    # counted like the others, from a file and from a pipe alike (issue 26)
    over = os.path.join(d, "oversnap.pcap")
    small = [rec for rec in recs if len(rec[1]) <= 50]
    large = [rec for rec in recs if len(rec[1]) > 50]
    write_pcap(over, small[:2] + large[:1] + small[2:3], snaplen=50)
    subprocess.run(["tcpdump", "-r", over, "-w", out], capture_output=True)
    _, _, seen = read_pcap(out)
    want = [len(seen), sum(o for _, _, o in seen)]
    for how, args, stdin in (("a file", ["-r", over], None),
                             ("a pipe", ["-r", "-"], open(over, "rb"))):
        r = ebpfcount(args + ["-F", "csv", expr], stdin=stdin)
        fin = [x["total"] for x in parse_csv(r.stdout, expr) if x["final"]]
        good = r.returncode == 0 and r.stderr == "" and fin == [want] and want[0] == 4
        if not t.ok(good, "a record of %d captured bytes in a file of snapshot length 50, "
                    "from %s: read as tcpdump reads it, %d records, %d bytes"
                    % (len(large[0][1]), how, want[0], want[1])):
            t.diag("got: exit %d stderr %r\nstdout %r" % (r.returncode, r.stderr,
                                                         r.stdout[-800:]))


def check_top(t, base):
    """--top N: the rows left out are summed in every format (issue 26)."""
    expr = "count by ip.src, udp.dstport"
    sums = {}
    r = ebpfcount(["-r", base, "-F", "csv", "--top", "2", expr])
    for iv in parse_csv(r.stdout, expr):
        if iv["final"]:
            rows = [sum(v[i] for v in iv["rows"].values()) for i in (0, 1)]
            sums["csv"] = (len(iv["rows"]), [rows[i] + iv.get("others", [0, 0])[i] +
                                             iv["overflow"][i] for i in (0, 1)], iv["total"])
    r = ebpfcount(["-r", base, "-F", "json", "--top", "2", expr])
    for line in r.stdout.splitlines():
        o = json.loads(line)
        if o.get("final"):
            rest = o.get("others", {"packets": 0, "bytes": 0})
            sums["json"] = (len(o["rows"]), [sum(x[k] for x in o["rows"]) + rest[k] +
                                             o["overflow"][k] for k in ("packets", "bytes")],
                            [o["total"]["packets"], o["total"]["bytes"]])
    r = ebpfcount(["-r", base, "-F", "human", "--top", "2", expr])
    final = r.stdout.split("total since start:")[-1].splitlines()
    total = [int(x) for x in re.findall(r"(\d+) packets, (\d+) bytes", final[0])[0]]
    lines = [ln for ln in final[2:] if ln.strip()]
    rows = [ln for ln in lines if not re.match(r"\s*\((\d+ more keys?|overflow)\)", ln)]
    sums["human"] = (len(rows), [sum(int(ln.split()[-2 + i]) for ln in lines) for i in (0, 1)],
                     total)
    for fmt in ("human", "json", "csv"):
        n, added, total = sums.get(fmt, (0, None, None))
        if not t.ok(n == 2 and added == total,
                    "--top 2, %s: 2 rows, and rows + others + overflow = total" % fmt):
            t.diag("got %r" % (sums.get(fmt),))


def check_many_keys(t, d):
    """A file with more new keys in a moment than the first tables hold:
    they grow before anything overflows, every key exact (issue 26)."""
    rng = __import__("random").Random(26)
    eth = bytes.fromhex("525400123401525400123402") + b"\x08\x00"
    recs, want = [], collections.Counter()
    for i in range(20000):
        sport, pad = rng.randrange(1024, 4024), rng.randrange(5)
        tcp = struct.pack("!HHIIBBHHH", sport, 80, 0, 0, 0x50, 0x10, 1000, 0, 0)
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, 0, 0, 64, 6, 0,
                         bytes([198, 18, 0, 2]), bytes([198, 18, 0, 1])) + tcp
        fr = eth + ip + bytes(6 + pad)
        recs.append((T0_NS + i * 1000, fr, len(fr)))
        want[(str(sport), "80", str(len(fr)))] += 1
    path = os.path.join(d, "keys.pcap")
    write_pcap(path, recs)
    expr = "count by tcp.srcport, tcp.dstport, frame.len"
    r = ebpfcount(["-r", path, "-F", "csv", expr])
    fin = [iv for iv in parse_csv(r.stdout, expr) if iv["final"]]
    got = {k[:3]: v[0] for k, v in fin[0]["rows"].items()} if fin else {}
    bad = [k for k in set(want) | set(got) if want.get(k) != got.get(k)]
    if not t.ok(fin and fin[0]["overflow"] == [0, 0] and not bad,
                "%d keys in 20000 records, 1024-key tables at first: none overflows, "
                "every key's count exact" % len(want)):
        t.diag("overflow %r, %d keys differ, e.g. %r" % (
            fin[0]["overflow"] if fin else None, len(bad),
            [(k, want.get(k), got.get(k)) for k in bad[:3]]))


def check_sigint(t, base):
    """-r - on a pipe that stays open: the first SIGINT ends the reading and
    prints the totals at once, as live (issue 26)."""
    import signal
    expr = "count by ip.proto"
    want = ebpfcount(["-r", base, "-F", "csv", expr])
    want = [x["total"] for x in parse_csv(want.stdout, expr) if x["final"]]
    p = subprocess.Popen([EBPFCOUNT, "-r", "-", "-F", "csv", expr], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=False)
    p.stdin.write(open(base, "rb").read())
    p.stdin.flush()
    time.sleep(1)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=5)     # stdin stays open meanwhile
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        rc = "no exit within 5 s"
    fin = [x["total"] for x in parse_csv(out.decode(), expr) if x["final"]]
    if not t.ok(rc == 0 and err == b"" and fin == want and want,
                "-r - on an idle pipe: SIGINT prints the totals at once, exit 0"):
        t.diag("got: exit %r stderr %r totals %r, want %r" % (rc, err, fin, want))


def check_usage(t, base):
    for args, name in ((["-r", base, "-i", "lo", "count"], "-r with -i"),
                       (["-r", base, "-p", "count"], "-r with -p"),
                       # -d: nothing is loaded even if the usage check were gone
                       (["--engine", "user", "-d", "count"], "--engine without -r")):
        r = ebpfcount(args)
        good = r.returncode == 2 and r.stderr.startswith("ebpfcount: ") and r.stdout == ""
        if not t.ok(good, "%s is a usage error (exit 2)" % name):
            t.diag("got: exit %d stderr %r stdout %r" % (r.returncode, r.stderr[:300],
                                                         r.stdout[:300]))


def chunks(xs, n):
    return [xs[i:i + n] for i in range(0, len(xs), n)]


def parse_multi(text, fmt, exprs):
    """{expr: final interval} of a program of several expressions."""
    fins = {}
    if fmt == "json":
        for e in exprs:
            lines = [ln for ln in text.splitlines() if json.loads(ln).get("expr") == e]
            fins[e] = final_of(parse_json("\n".join(lines), e))
        return fins
    lines = list(csv.reader(io.StringIO(text)))
    head = lines[0]
    if head[:5] != ["time", "interval", "final", "expr", "kind"]:
        raise ValueError("CSV header %r" % head)
    for e in exprs:
        cols = []
        for k in keys_of(e):
            cols.append(next(i for i in range(5, len(head) - 3)
                             if head[i] == k.split("/")[0] and i not in cols))
        cur, ivs = None, []
        for c in lines[1:]:
            if c[3] != e:
                continue
            if cur is None:
                cur = {"time": c[0], "final": c[2] == "1", "rows": {}}
            counts = [int(c[-2]), int(c[-1])]
            if c[4] == "row":
                add_row(cur["rows"], tuple(c[i] if c[i] != "" else "-" for i in cols)
                        + (c[-3],), counts)
            elif c[4] in ("overflow", "total"):
                cur[c[4]] = counts
                if c[4] == "total":
                    ivs.append(cur)
                    cur = None
        fins[e] = final_of(ivs)
    return fins


def check_multi(t, base, alone):
    """Eight expressions to a program: each one's final figures as alone."""
    groups = chunks(WHERE_EXPRS, 8)
    for fmt in ("json", "csv"):
        for g in groups:
            args = ["-r", base, "-F", fmt] + [a for e in g for a in ("-e", e)]
            r = ebpfcount(args)
            try:
                fins = parse_multi(r.stdout, fmt, g)
            except (ValueError, KeyError, IndexError, StopIteration) as e:
                fins = {"error": str(e)}
            bad = [e for e in g if fins.get(e) is None or alone[e] is None or
                   any(fins[e][k] != alone[e][k] for k in ("rows", "overflow", "total"))]
            if not t.ok(r.returncode == 0 and not r.stderr and not bad and "error" not in fins,
                        "-F %s: one program of %d expressions: each one's rows as alone"
                        % (fmt, len(g))):
                t.diag("exit %d %s; differ: %s\n%s" % (r.returncode, r.stderr, bad,
                                                      r.stdout[-1500:]))
    # --max-keys: four maps an expression (two tables swapped), none too few
    g = groups[0]
    r = ebpfcount(["-r", base, "-F", "json", "--max-keys", "1000"] +
                  [a for e in g for a in ("-e", e)])
    try:
        fins = parse_multi(r.stdout, "json", g)
    except (ValueError, KeyError, IndexError) as e:
        fins = {}
    bad = [e for e in g if fins.get(e) is None or alone[e] is None or
           any(fins[e][k] != alone[e][k] for k in ("rows", "overflow", "total"))]
    if not t.ok(r.returncode == 0 and not r.stderr and not bad,
                "--max-keys 1000: one program of %d expressions: each one's rows as alone"
                % len(g)):
        t.diag("exit %d %s; differ: %s" % (r.returncode, r.stderr, bad))
    # the program reading the packet directly (EBPFCOUNT_FRAME, as on a
    # kernel with the series) and with LD_ABS: the same final figures
    for way in ("direct", "ld_abs"):
        bad = []
        for g in groups:
            r = ebpfcount(["-r", base, "-F", "json"] + [a for e in g for a in ("-e", e)],
                          env={"EBPFCOUNT_FRAME": way})
            try:
                fins = parse_multi(r.stdout, "json", g)
            except (ValueError, KeyError, IndexError) as e:
                fins = {}
            bad += ["exit %d %s" % (r.returncode, r.stderr)] if r.returncode or r.stderr else []
            bad += [e for e in g if fins.get(e) is None or alone[e] is None or
                    any(fins[e][k] != alone[e][k] for k in ("rows", "overflow", "total"))]
        if not t.ok(not bad, "EBPFCOUNT_FRAME=%s: every expression's rows as read from the "
                    "copy" % way):
            t.diag("differ: %s" % bad[:5])
    g = groups[0][:3]
    r = ebpfcount(["-r", base] + [a for e in g for a in ("-e", e)])
    heads = [ln for ln in r.stdout.splitlines() if ln.startswith("total since start:")]
    if not t.ok(r.returncode == 0 and len(heads) == len(g) and
                all(h.endswith("  " + e) for h, e in zip(heads, g)),
                "-F human: each expression's table is headed by its text"):
        t.diag(r.stdout[-1500:])
    for args, name in ((["-e", "count", "count by ip.proto"], "-e and an argument"),
                       (["-e", "count", "-e", "count"], "an expression given twice"),
                       ([a for i in range(9) for a in ("-e", "count by ip.src/%d" % (i + 8))],
                        "nine expressions")):
        r = ebpfcount(["-r", base] + args)
        if not t.ok(r.returncode == 2 and r.stderr.startswith("ebpfcount: ") and not r.stdout,
                    "%s is a usage error (exit 2)" % name):
            t.diag("exit %d stderr %r stdout %r" % (r.returncode, r.stderr, r.stdout[:300]))
    r = ebpfcount(["-r", base, "-e", "count by ip.proto", "-e", "count by ip.bogus"])
    want = ["ebpfcount: bad expression at column 10: unknown field 'ip.bogus' "
            "(see ebpfcount --list-fields)", "  count by ip.bogus", "           ^"]
    if not t.ok(r.returncode == 1 and r.stderr.splitlines()[:1] and
                r.stderr.splitlines()[1:] == want[1:] and not r.stdout,
                "a bad second expression: shown with the caret under its error"):
        t.diag("exit %d stderr %r" % (r.returncode, r.stderr))


def main():
    t = tap.Tap()
    for tool in ("tshark", "tcpdump", "editcap"):
        if not shutil.which(tool):
            print("1..0 # SKIP %s not installed" % tool)
            return 0
    if not os.access(CRAFT, os.X_OK) or not os.access(EBPFCOUNT, os.X_OK):
        print("Bail out! build/bin/craft or build/bin/ebpfcount missing: make all")
        return 1
    started = time.monotonic()
    variants_exprs = [e for e in WHERE_EXPRS if ip_level(e)]
    t.plan(2 * len(EXPRS) + 3              # CSV and JSON rows, where clauses and tags
           + 6 + 3 + 3                      # intervals, ns/pcapng, standard input
           + 5 * (len(variants_exprs) + 2) + 2 * 2    # cooked and raw IP
           + len(EXPRS)                     # snapshot length
           + 13 + 3 + 3 + 1 + 1 + 1         # bad input, usage, --top, keys, SIGINT, RSS
           + 2 * len(chunks(WHERE_EXPRS, 8)) + 8  # several expressions, ways to read
           + len(TAGGED) + len(CASES.EXPECT))
    with tempfile.TemporaryDirectory() as d:
        base = os.path.join(d, "base.pcap")
        craft(base, [s for s, _ in SPECS])
        _, _, recs = read_pcap(base)
        ts_index = {ts: i for i, (ts, _, _) in enumerate(recs)}
        frames = base_frames(base, WHERE_EXPRS + [e for _, _, e in TAGGED])

        # 1. every count line of the case table: CSV and JSON final rows
        for expr in WHERE_EXPRS:
            count_check(t, base, expr, frames, d, ts_index, "csv")
        alone = {}
        for expr in WHERE_EXPRS:
            alone[expr] = count_check(t, base, expr, frames, d, ts_index, "json")
        # the where clause sees tags as tcpdump -r does: 'udp port 9' passes
        # untagged frames only, 'vlan and ...' the tagged ones
        qinq = os.path.join(d, "qinq.pcap")
        craft(qinq, [sp for sp, _ in QINQ] + ["udp4,n=2,vlan=42,dport=9", "udp4,n=4,dport=9"])
        _, _, qrecs = read_pcap(qinq)
        qframes = [Frame(v, int(v["frame.len"][0])) for v in
                   tshark_decode(qinq, fields_of(["count by ip.proto"]))]
        for filt in ("udp port 9", "vlan and udp port 9", "vlan and vlan and udp port 9"):
            count_check(t, qinq, "count by ip.proto where " + filt, qframes, d,
                        {ts: i for i, (ts, _, _) in enumerate(qrecs)})

        # 2. nanosecond pcap and pcapng: identical output
        for fmt in ("nsecpcap", "pcapng"):
            subprocess.run(["editcap", "-F", fmt, base, os.path.join(d, "base." + fmt)],
                           check=True)
        iv = check_intervals(t, d, base)
        for fmt in ("nsecpcap", "pcapng"):
            subprocess.run(["editcap", "-F", fmt, iv, os.path.join(d, "iv." + fmt)], check=True)
        runs = [["-F", "json", e] for e in WHERE_EXPRS] + [["-F", "csv", WHERE_EXPRS[2]]]
        same_output(t, [base, os.path.join(d, "base.nsecpcap")], runs,
                    "nanosecond pcap: identical output for every expression")
        same_output(t, [base, os.path.join(d, "base.pcapng")], runs,
                    "pcapng: identical output for every expression")
        ivruns = [["-I", "0.5", "-F", "json", "count by ip.proto"],
                  ["-I", "1", "-F", "csv", "count by ip.src, udp.dstport"]]
        same_output(t, [iv, os.path.join(d, "iv.nsecpcap"), os.path.join(d, "iv.pcapng")],
                    ivruns, "nanosecond pcap and pcapng: identical intervals")

        # 3. standard input
        for path, label in ((base, "pcap"), (os.path.join(d, "base.pcapng"), "pcapng"),
                            (iv, "pcap, intervals")):
            args = ["-F", "json", "-I", "0.5", WHERE_EXPRS[1]]
            want = ebpfcount(["-r", path] + args)
            with open(path, "rb") as f:
                got = ebpfcount(["-r", "-"] + args, stdin=f)
            good = got.returncode == 0 and got.stdout == want.stdout and want.stdout != ""
            if not t.ok(good, "-r - (standard input, %s) counts as -r FILE" % label):
                t.diag("got:  %r %r\nwant: %r" % (got.returncode, got.stdout[-600:] + got.stderr,
                                                 want.stdout[-600:]))

        # 4. cooked v1/v2 and raw IP: the same rows for IP-level keys
        variants = [("Linux cooked v1 (SLL)", 113, list(enumerate(cooked(recs, False)))),
                    ("Linux cooked v2 (SLL2)", 276, list(enumerate(cooked(recs, True)))),
                    ("raw IP (DLT_RAW)", 101, raw_ip(recs, (0x0800, 0x86dd))),
                    ("raw IPv4", 228, raw_ip(recs, (0x0800,))),
                    ("raw IPv6", 229, raw_ip(recs, (0x86dd,)))]
        for label, dlt, vrecs in variants:
            path = os.path.join(d, "v%d.pcap" % dlt)
            write_pcap(path, [r for _, r in vrecs], linktype=dlt)
            vframes = [Frame(frames[i].vals, r[2], frames[i].cut) for i, r in vrecs]
            vindex = {r[0]: j for j, (_, r) in enumerate(vrecs)}
            for expr in variants_exprs:
                count_check(t, path, expr, vframes, d, vindex, "csv",
                            name="%s: '%s'" % (label, expr))
            if dlt in (113, 276):
                for filt in ("inbound", "outbound"):
                    count_check(t, path, "count by ip.proto, udp.dstport where " + filt, vframes,
                                d, vindex, "csv", name="%s: 'where %s' as tcpdump" % (label, filt))
            bad = []
            for key in ("eth.src", "eth.dst"):
                # one reason line; a bad expression's echo and caret may follow
                r = ebpfcount(["-r", path, "count by ip.proto, " + key])
                err = r.stderr.splitlines()
                if (r.returncode != 1 or r.stdout or not err or key not in err[0]
                        or len([x for x in err if x.startswith("ebpfcount")]) != 1
                        or len(err) not in (1, 3)):
                    bad.append("%s: exit %d stderr %r stdout %r"
                               % (key, r.returncode, r.stderr, r.stdout[:300]))
            if not t.ok(not bad, "%s: eth.src and eth.dst keys refused (one line, exit 1)"
                        % label):
                t.diag("\n".join(bad))
            # where clauses: what tcpdump refuses for the file's own link
            # type, with its message; Ethernet address bytes, which the
            # file does not have (issue 26)
            bad = []
            for filt in ("ether host 52:54:00:12:34:02", "ether broadcast", "ether[6] = 0x52"):
                r = ebpfcount(["-r", path, "count where " + filt])
                td = subprocess.run(["tcpdump", "-r", path, "-w", os.devnull, filt],
                                    capture_output=True, text=True)
                why = [x[len("tcpdump: "):] for x in td.stderr.splitlines()
                       if x.startswith("tcpdump: ")]
                want = why[0] if why else "capture has no Ethernet addresses"
                err = r.stderr.splitlines()
                if r.returncode != 1 or r.stdout or not err or want not in err[0]:
                    bad.append("%s: exit %d stderr %r (tcpdump: %r)"
                               % (filt, r.returncode, r.stderr, td.stderr))
            if not t.ok(not bad, "%s: where clauses that read Ethernet addresses refused, "
                        "with tcpdump's reason where it has one" % label):
                t.diag("\n".join(bad))

        # 5. cut by a snapshot length: original bytes, truncated keys
        snap = os.path.join(d, "snap.pcap")
        subprocess.run(["editcap", "-F", "pcap", "-s", str(SNAP), base, snap], check=True)
        _, _, srecs = read_pcap(snap)
        ends = tshark_positions(base, fields_of(WHERE_EXPRS))
        sframes = snap_frames(frames, ends, [len(r[1]) for r in srecs])
        for expr in WHERE_EXPRS:
            count_check(t, snap, expr, sframes, d, ts_index, "csv",
                        name="snaplen %d: '%s'" % (SNAP, expr))

        # 6. several expressions in one program
        check_multi(t, base, alone)

        # 7. bad input, usage errors, memory
        check_bad_inputs(t, d, base)
        check_usage(t, base)
        check_top(t, base)
        check_many_keys(t, d)
        check_sigint(t, base)
        check_rss(t, d, base)

        # 8. VLAN tags and IPv6 extension headers
        for name, specs, expr in TAGGED:
            path = os.path.join(d, "gap.pcap")
            craft(path, [sp for sp, _ in specs])
            _, _, grecs = read_pcap(path)
            gspecs = frame_specs(specs)
            gframes = [Frame(v, int(v["frame.len"][0]), specs[gspecs[i]][1]) for i, v in
                       enumerate(tshark_decode(path, fields_of([expr])))]
            count_check(t, path, expr, gframes, d, {ts: i for i, (ts, _, _) in enumerate(grecs)},
                        "csv", name="%s: '%s'" % (name, expr))
        # 5. the case table's own cases, each on a file of its frames
        for case in CASES.EXPECT:
            path = os.path.join(d, "case.pcap")
            craft(path, case.specs)
            r = ebpfcount(["-r", path, "-n", "-F", "csv", case.expr])
            if r.returncode or r.stderr:
                t.diag(r.stderr)
            cases.check(t, case, cases.csv_rows(r.stdout, case.expr), "-r")
    t.diag("run time %.1f s" % (time.monotonic() - started))
    return t.done()


sys.exit(main())
