#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --textfile on the host (ebpfcount -r with the user engine: no bpf(2),
# no socket): the exposition that Prometheus's node_exporter would read
# passes promtool, its series add up to the totals ebpfcount prints,
# label values are escaped, several expressions are told apart by the
# expr label and add up each to its own total, a file that cannot be
# written is one error line, and nothing but the file is left beside it.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
E=$top/build/bin/ebpfcount
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$top/qemu-env/deps.sh" prometheus >/dev/null || echo "Bail out! promtool missing"

# A pcap file: n UDP frames from 198.18.0.2 sport 1..n to port 2000,
# then one TCP SYN from 198.18.1.9, one IPv4 frame cut after its source
# address and one TCP frame cut after its first 2 bytes; 3 ms apart.
python3 - "$tmp/t.pcap" 300 <<'PY'
import struct, sys
path, n = sys.argv[1], int(sys.argv[2])
out = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1)
def ip(proto, src, payload):
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, 0, 64, proto, 0,
                       bytes(src), bytes([198, 18, 0, 1])) + payload
frames = []
for i in range(n):
    frames.append(ip(17, [198, 18, 0, 2], struct.pack("!HHHH", i + 1, 2000, 26, 0) + bytes(18)))
frames.append(ip(6, [198, 18, 1, 9], struct.pack("!HHIIBBHHH", 4000, 443, 1, 0, 0x50, 2, 1024, 0, 0)))
frames.append(ip(17, [198, 18, 0, 3], b"")[:16])
frames.append(ip(6, [198, 18, 2, 2], struct.pack("!HHIIBBHHH", 4000, 80, 1, 0, 0x50, 2, 1024, 0, 0))[:22])
for i, p in enumerate(frames):
    fr = bytes.fromhex("525400123401525400123402") + b"\x08\x00" + p
    us = 3000 * i
    out += struct.pack("<IIII", 1700000000 + us // 1000000, us % 1000000, len(fr), len(fr)) + fr
open(path, "wb").write(out)
PY

# sum NAME FILE: the sum of a metric's samples
sum() { awk -v m="$1" '$1 ~ "^" m "({|$)" { s += $NF } END { print s + 0 }' "$2"; }

plan 25

expr='count by ip.src/24, udp.srcport'
"$E" -r "$tmp/t.pcap" -F json --textfile "$tmp/m.prom" "$expr" >"$tmp/out.json"
is "$?" 0 "-r with --textfile runs"
out=$(promtool check metrics <"$tmp/m.prom" 2>&1)
is "$?:$out" "0:" "promtool check metrics accepts the file"
total=$(grep '"final": true' "$tmp/out.json" | sed 's/.*"total": {"packets": \([0-9]*\), "bytes": \([0-9]*\)}}/\1 \2/')
is "$(sum ebpfcount_packets_total "$tmp/m.prom") $(sum ebpfcount_bytes_total "$tmp/m.prom")" \
	"$total" "the series add up to the final totals ebpfcount printed"
is "$total" "303 18120" "which are the packets and bytes of the file"
is "$(grep -c '^ebpfcount_packets_total{ip_src="198.18.0.0/24",udp_srcport="[0-9]*"} 1$' "$tmp/m.prom")" \
	300 "one series per key, labelled by its fields"
is "$(grep -c '^ebpfcount_packets_total{ip_src="198.18.1.0/24",udp_srcport="(absent)",missing="absent"} 1$' "$tmp/m.prom")" \
	1 "an absent field: \"(absent)\", and missing=\"absent\""
is "$(grep -c '^ebpfcount_packets_total{ip_src="198.18.0.0/24",udp_srcport="(truncated)",missing="truncated"} 1$' "$tmp/m.prom")" \
	1 "a truncated field: \"(truncated)\", and missing=\"truncated\""
is "$(grep '^ebpfcount_keys ' "$tmp/m.prom")" "ebpfcount_keys 303" "ebpfcount_keys"
is "$(ls -A "$tmp" | tr '\n' ' ')" "m.prom out.json t.pcap " "no temporary file left beside it"
is "$(stat -c %a "$tmp/m.prom")" 644 "the file is readable by the collector (0644)"

# --max-keys 10: the totals keep about 10 keys; the rest is overflow.
"$E" -r "$tmp/t.pcap" -F none -I 0.1 --max-keys 10 --textfile "$tmp/b.prom" "$expr" >"$tmp/none.out"
is "$?:$(wc -c <"$tmp/none.out")" "0:0" "-F none prints nothing"
ovf=$(sed -n 's/^ebpfcount_packets_total{overflow="true"} //p' "$tmp/b.prom")
cmp_ok "${ovf:-0}" -gt 0 "--max-keys 10: an overflow series"
is "$(sum ebpfcount_packets_total "$tmp/b.prom")" 303 "--max-keys 10: the series still add up to the total"

# Keys missing in different fields (TCP truncated and UDP absent, and the
# other way round) are different series.
"$E" -r "$tmp/t.pcap" -F none --textfile "$tmp/d.prom" 'count by tcp.dstport, udp.dstport'
is "$(grep -v '^#' "$tmp/d.prom" | sed 's/ [0-9.]*$//' | sort | uniq -d)" "" "no series twice"
is "$(grep -c 'missing="truncated"' "$tmp/d.prom")" 4 \
	"two truncated keys, two series each (packets, bytes)"

# Label values: an expression with backslashes and quotes.
"$E" -r "$tmp/t.pcap" -F none --textfile "$tmp/e.prom" 'count by ip.proto where ip proto \udp or ip proto \tcp'
out=$(promtool check metrics <"$tmp/e.prom" 2>&1)
is "$?:$out" "0:" "promtool accepts the escaped expression"
is "$(grep -o 'expr="[^}]*' "$tmp/e.prom")" 'expr="count by ip.proto where ip proto \\udp or ip proto \\tcp"' \
	"backslashes escaped in the expr label"

# Several expressions: an expr label on every series, each expression's
# series adding up to its own total.
e1='count by ip.proto' e2='count by ip.src/24, udp.srcport where udp' e3='count'
"$E" -r "$tmp/t.pcap" -F json --textfile "$tmp/x.prom" -e "$e1" -e "$e2" -e "$e3" >"$tmp/x.json"
out=$(promtool check metrics <"$tmp/x.prom" 2>&1)
is "$?:$out" "0:" "several expressions: promtool accepts the exposition"
is "$(grep -v '^#' "$tmp/x.prom" | grep -c '^ebpfcount_\(packets\|bytes\)_total{expr="')" \
	"$(grep -c '^ebpfcount_\(packets\|bytes\)_total' "$tmp/x.prom")" "every series has an expr label"
bad=
for e in "$e1" "$e2" "$e3"; do
	want=$(grep '"final": true' "$tmp/x.json" | grep -F "\"expr\": \"$e\"" |
	       sed 's/.*"total": {"packets": \([0-9]*\), "bytes": \([0-9]*\)}}/\1 \2/')
	grep -F "{expr=\"$e\"" "$tmp/x.prom" >"$tmp/x.one"
	got="$(sum ebpfcount_packets_total "$tmp/x.one") $(sum ebpfcount_bytes_total "$tmp/x.one")"
	[ -n "$want" ] && [ "$got" = "$want" ] || bad="$bad [$e: $got, want $want]"
done
is "$bad" "" "each expression's series add up to its own final total"
is "$(grep '"final": true' "$tmp/x.json" | grep -c '"expr": ')" 3 "JSON: an expr in each final line"
is "$(grep -c '^ebpfcount_build_info{version="[^"]*",expr="' "$tmp/x.prom")" 3 \
	"ebpfcount_build_info: one series per expression"
is "$(grep -c '^ebpfcount_keys{expr="' "$tmp/x.prom")" 3 "ebpfcount_keys: one series per expression"

# A file that cannot be written: one line, exit 1, before counting.
err=$("$E" -r "$tmp/t.pcap" -F none --textfile "$tmp/no/such/m.prom" count 2>&1)
is "$?:$err" "1:ebpfcount: cannot write a file beside $tmp/no/such/m.prom: No such file or directory" \
	"--textfile in a missing directory: one error line, exit 1"
err=$("$E" -r "$tmp/t.pcap" --listen 9108 count 2>&1 | head -n 1)
is "$err" "ebpfcount: --listen is for an interface (use --textfile with -r) (see ebpfcount -h)" \
	"--listen is not for -r"
done_testing
