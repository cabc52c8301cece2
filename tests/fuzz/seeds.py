#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpora of the fuzz targets: tests/fuzz/corpus/TARGET/.

    tests/fuzz/seeds.py        (rewrites every corpus; tcpdump -ddd makes
                                the classic programs of fuzz_cbpf_raw)

fuzz_expr: expressions, some with options and frames after a NUL byte;
fuzz_cbpf: bytes that the target's generator turns into filter strings
(FUZZ_SHOW=1 build/fuzz/fuzz_cbpf FILE prints them); fuzz_cbpf_raw:
programs of tcpdump -ddd in the target's encoding, and random ones;
fuzz_capture: tiny pcap and pcapng files of every link type ebpfcount
reads, and broken ones.  The input formats are in each target's header.
"""
import os
import random
import shutil
import struct
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(TOP, "tests/fuzz/corpus")

# the first frames of tests/fuzz/fuzz.h, as bytes
TCP4 = bytes.fromhex("020000000002020000000001" "0800" "450000281234000040060000"
                     "0a000001c6120001" "9c4001bb000003e800000000" "50020000ffff0000")
UDP6 = bytes.fromhex("020000000002020000000001" "86dd" "6000000000080040"
                     "20010db8000000000000000000000003" "20010002000000000000000000000002"
                     "03e800350008abcd")
VLAN = TCP4[:12] + bytes.fromhex("8100002a") + TCP4[12:]
ARP = bytes.fromhex("ffffffffffff020000000001" "0806" "0001080006040001020000000001c6120002"
                    "000000000000c6120001")

EXPRS = [
    "count", "count by ip.proto", "count by ip.src", "count by ip.src/24, tcp.dstport",
    "count by ip.src/24, tcp.dstport where tcp port 443", "count by ipv6.dst/64",
    "count by eth.src, eth.dst, eth.type", "count by vlan.id where vlan",
    "count by frame.len", "count by tcp.flags, ip.dsfield.dscp",
    "count by udp.srcport, udp.dstport where udp",
    "count by icmp.type, icmp.code where icmp", "count by icmpv6.type where icmp6",
    "count by ipv6.src/48, ipv6.nxt", "count by ip.ttl where ip[8] > 1",
    "count where ip6 protochain 6", "count where tcp[tcpflags] & tcp-syn != 0",
    "count by ip.dst where ether[ether[14] & 0xf : 2] > 0x800",
    "count by ip.proto where greater 60 or arp",
    "count by ip.src, ip.dst, ip.proto, tcp.srcport, tcp.dstport, udp.srcport, "
    "udp.dstport, frame.len",
    "count by ip.src/33", "count by tcp.dstport/8", "count by nosuch.field",
    "count by ip.src, ip.src", "count where", "count where tcp port", "count by",
    "count by ip.src,", "count by ip.src / 24 where not (udp or arp)",
    "counting", "count where ip broadcast", "count by ip.proto where inbound",
]


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def frames_tail(rng, n):
    """frame_from() records: real frames, changed and cut, and raw ones."""
    out = b""
    for _ in range(n):
        which = rng.randrange(13)
        if which == 12:
            raw = bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
            out += bytes([which, len(raw)]) + raw
        else:
            k = rng.randrange(4)
            out += bytes([which, rng.choice([255, 255, 20, 40, 60]), k])
            out += bytes(rng.randrange(256) for _ in range(2 * k))
    return out


def expr_seeds(rng):
    for i, e in enumerate(EXPRS):
        write("fuzz_expr", "expr-%02d" % i, e.encode())
    for i, e in enumerate(EXPRS[:12]):
        opt = rng.randrange(256)
        data = e.encode() + b"\0" + bytes([opt, rng.randrange(256)]) + frames_tail(rng, 3)
        write("fuzz_expr", "frames-%02d" % i, data)
    # several expressions in one program (-e), ';' between them (a generator
    # of their own: the other seeds stay as they were)
    mrng = random.Random(14)
    for i in range(6):
        e = ";".join(mrng.sample(EXPRS, mrng.randrange(2, 9)))
        data = e.encode() + b"\0" + bytes([mrng.randrange(256), mrng.randrange(256)])
        write("fuzz_expr", "multi-%02d" % i, data + frames_tail(mrng, 3))


def cbpf_seeds(rng):
    for i in range(32):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(8, 120)))
        write("fuzz_cbpf", "gen-%02d" % i, data)


# fuzz_cbpf_raw's opcode table, in its order
CODES = [0x20, 0x28, 0x30, 0x40, 0x48, 0x50, 0x80, 0x00, 0x60, 0x01, 0x61, 0x81, 0xb1,
         0x02, 0x03, 0x04, 0x14, 0x24, 0x34, 0x94, 0x54, 0x44, 0xa4, 0x64, 0x74, 0x84,
         0x0c, 0x1c, 0x2c, 0x3c, 0x9c, 0x5c, 0x4c, 0xac, 0x6c, 0x7c,
         0x05, 0x15, 0x25, 0x35, 0x45, 0x1d, 0x2d, 0x3d, 0x4d, 0x06, 0x16, 0x07, 0x87]

RAW_FILTERS = ["tcp port 443", "ip", "ip6 and udp", "vlan 42 and tcp", "host 198.18.0.1",
               "net 10.0.0.0/8 and not port 22", "tcp[tcpflags] & tcp-syn != 0",
               "greater 100", "ip[2:2] - 20 > 40", "ether[16:2] % (ether[14] & 0xf) == 0",
               "icmp or arp", "ip6 net 2001:db8::/32"]


def encode_raw(insns, ret_a=False):
    """A program in fuzz_cbpf_raw's encoding; the target appends a RET."""
    n = len(insns)
    out = bytes([n - 1])
    for i, (code, jt, jf, k) in enumerate(insns):
        after = n - i
        if code in CODES and jt < after and jf < after and (code != 0x05 or k < after):
            out += bytes([CODES.index(code), jt, jf])
        else:
            out += bytes([0xf0]) + struct.pack(">HBB", code, jt, jf)
        if k < 80:
            out += bytes([k])
        else:
            out += bytes([0xe0]) + struct.pack(">I", k)
    return out + bytes([1 if ret_a else 2])


def cbpf_raw_seeds(rng):
    i = 0
    for expr in RAW_FILTERS:
        try:
            out = subprocess.run(["tcpdump", "-ddd", "-y", "EN10MB", expr],
                                 capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        insns = [tuple(int(x) for x in line.split()) for line in out.splitlines()[1:]]
        if len(insns) > 64:
            continue
        data = encode_raw(insns) + bytes([rng.randrange(256)]) + frames_tail(rng, 2)
        write("fuzz_cbpf_raw", "tcpdump-%02d" % i, data)
        i += 1
    for j in range(20):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(8, 200)))
        write("fuzz_cbpf_raw", "random-%02d" % j, data)


# ---- capture files ----

def pcap(linktype, records, nano=False, big=False, snap=262144):
    e = ">" if big else "<"
    magic = 0xa1b23c4d if nano else 0xa1b2c3d4
    out = struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, snap, linktype)
    for i, rec in enumerate(records):
        out += struct.pack(e + "IIII", 1700000000 + i, 250000 + i, len(rec), len(rec) + 4 * (i % 2))
        out += rec
    return out


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def option(code, value):
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def pcapng(linktype, records, opts=b"", spb=False):
    out = block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1))
    out += block(1, struct.pack("<HHI", linktype, 0, 262144) + opts)
    for i, rec in enumerate(records):
        if spb:
            out += block(3, struct.pack("<I", len(rec)) + rec)
        else:
            ts = (1700000000 + i) * 1000000
            out += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(rec),
                                        len(rec)) + rec)
    return out


def pcapng_offsets(offsets, records, frame=TCP4):
    """One interface per if_tsoffset (seconds), records [(interface, us)],
    each frame (tests/host/63-times.t writes its files with it too)."""
    out = block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1))
    for off in offsets:
        out += block(1, struct.pack("<HHI", 1, 0, 262144) +
                     option(14, struct.pack("<q", off)) + option(0, b""))
    for ifc, us in records:
        us &= (1 << 64) - 1
        out += block(6, struct.pack("<IIIII", ifc, us >> 32, us & 0xffffffff, len(frame),
                                    len(frame)) + frame)
    return out


def sll(frame, pkttype=0):
    return struct.pack(">HHH", pkttype, 1, 6) + frame[6:12] + b"\0\0" + frame[12:]


def sll2(frame, pkttype=4):
    return frame[12:14] + b"\0\0" + struct.pack(">IHBB", 2, 1, pkttype, 6) + frame[6:12] + \
        b"\0\0" + frame[14:]


def capture_seeds():
    frames = [TCP4, UDP6, VLAN, ARP]

    def w(name, data):
        write("fuzz_capture", name, data)

    w("eth.pcap", pcap(1, frames))
    w("eth-ns.pcap", pcap(1, frames, nano=True))
    w("eth-be.pcap", pcap(1, frames, big=True))
    w("eth-snap40.pcap", pcap(1, [f[:40] for f in frames], snap=40))
    w("sll.pcap", pcap(113, [sll(f, i % 5) for i, f in enumerate(frames)]))
    w("sll2.pcap", pcap(276, [sll2(f, i % 5) for i, f in enumerate(frames)]))
    w("raw.pcap", pcap(101, [TCP4[14:], UDP6[14:]]))
    w("ipv4.pcap", pcap(228, [TCP4[14:]]))
    w("ipv6.pcap", pcap(229, [UDP6[14:]]))
    w("unsupported.pcap", pcap(105, [TCP4]))
    w("empty.pcap", pcap(1, []))
    w("cut-record.pcap", pcap(1, frames)[:-10])
    w("short-header.pcap", pcap(1, [])[:20])
    w("over-snaplen.pcap", pcap(1, [TCP4], snap=40))
    w("eth.pcapng", pcapng(1, frames))
    w("eth-spb.pcapng", pcapng(1, frames, spb=True))
    w("tsresol.pcapng", pcapng(1, frames, option(9, b"\x09") + option(0, b"")))
    w("tsoffset.pcapng", pcapng(1, frames, option(14, struct.pack("<q", 1 << 40)) +
                                option(0, b"")))
    # times far apart: 570 years back and forth (once signed overflow in
    # main.c's run_file()), an interval ending past 2262, the earliest times
    far = 9200000000
    w("tsoffset-back.pcapng", pcapng_offsets([far, -far], [(0, 0), (1, 0), (0, 1)]))
    w("tsoffset-forth.pcapng", pcapng_offsets([-far, far], [(0, 0), (1, 0), (0, 1)]))
    w("tsoffset-last.pcapng", pcapng_offsets([9223372036], [(0, 500000)]))
    w("tsoffset-first.pcapng", pcapng_offsets([-9223372036], [(0, 0), (0, 3000000)]))
    w("sll.pcapng", pcapng(113, [sll(f) for f in frames]))
    w("raw.pcapng", pcapng(101, [TCP4[14:]]))
    w("cut.pcapng", pcapng(1, frames)[:-7])
    w("nothing", b"")


def main():
    rng = random.Random(2463534242)
    for t in ("fuzz_expr", "fuzz_cbpf", "fuzz_cbpf_raw", "fuzz_capture"):
        shutil.rmtree(os.path.join(CORPUS, t), ignore_errors=True)
    expr_seeds(rng)
    cbpf_seeds(rng)
    cbpf_raw_seeds(rng)
    capture_seeds()


if __name__ == "__main__":
    main()
