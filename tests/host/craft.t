#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# craft -w writes the frames its SPECs describe: tshark, an independent
# decoder, reads back every kind and option, correct checksums, exact
# lengths, distinct keys for the ranges and exact counts.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
craft=$top/build/bin/craft

if ! command -v tshark >/dev/null; then
	echo "1..0 # SKIP tshark not installed"
	exit 0
fi
if [ ! -x "$craft" ]; then
	echo "Bail out! $craft missing: run make all"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fields FILE FIELD... : one line per frame, the fields joined by ','
fields() {
	local f=$1 e args=()
	shift
	for e in "$@"; do args+=(-e "$e"); done
	tshark -r "$f" -o ip.defragment:FALSE -o ipv6.defragment:FALSE \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-o tcp.check_checksum:TRUE -o tcp.analyze_sequence_numbers:FALSE \
		-T fields -E separator=, -E occurrence=f "${args[@]}" 2>/dev/null
}

# count FILE FILTER : frames matching a display filter
count() {
	tshark -r "$1" -o ip.defragment:FALSE -o ipv6.defragment:FALSE \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-o tcp.check_checksum:TRUE -o tcp.analyze_sequence_numbers:FALSE \
		-Y "$2" 2>/dev/null | wc -l
}

# SPEC | tshark fields | their values in the one frame SPEC makes
decode_table='
udp4|eth.type ip.proto ip.src ip.dst udp.srcport udp.dstport ip.ttl frame.len|0x0800,17,198.18.0.2,198.18.0.1,1000,2000,64,42
tcp4|ip.proto tcp.srcport tcp.dstport tcp.flags tcp.hdr_len frame.len|6,1000,2000,0x0002,20,54
tcp4,flags=SA,sport=5,dport=443|tcp.srcport tcp.dstport tcp.flags|5,443,0x0012
tcp4,flags=FPAU|tcp.flags|0x0039
tcp4,flags=0x19|tcp.flags|0x0019
icmp4|ip.proto icmp.type icmp.code|1,8,0
icmp4,type=3,code=3|icmp.type icmp.code|3,3
udp6|eth.type ipv6.nxt ipv6.src ipv6.dst udp.srcport udp.dstport ipv6.hlim frame.len|0x86dd,17,2001:2::2,2001:2::1,1000,2000,64,62
tcp6,dport=22|ipv6.nxt tcp.dstport tcp.flags|6,22,0x0002
icmp6|ipv6.nxt icmpv6.type icmpv6.code|58,128,0
icmp6,type=1,code=4|icmpv6.type icmpv6.code|1,4
arp|eth.type arp.opcode arp.src.hw_mac arp.src.proto_ipv4 arp.dst.proto_ipv4 frame.len|0x0806,1,52:54:00:12:34:02,198.18.0.2,198.18.0.1,42
arp,op=2,src=10.1.1.1,dst=10.1.1.2|arp.opcode arp.src.proto_ipv4 arp.dst.proto_ipv4 arp.dst.hw_mac|2,10.1.1.1,10.1.1.2,52:54:00:12:34:01
raw|eth.type frame.len|0x88b5,60
raw,etype=0x1234,len=100|eth.type frame.len|0x1234,100
udp4,src=10.0.0.1,dst=10.0.0.2|ip.src ip.dst|10.0.0.1,10.0.0.2
udp4,smac=02:00:00:00:00:01,dmac=ff:ff:ff:ff:ff:ff|eth.src eth.dst|02:00:00:00:00:01,ff:ff:ff:ff:ff:ff
udp6,src=fe80::1,dst=ff02::1|ipv6.src ipv6.dst|fe80::1,ff02::1
udp4,ttl=1,tos=0xb8|ip.ttl ip.dsfield.dscp ip.dsfield.ecn|1,46,0
udp6,hlim=255,tos=0xb9|ipv6.hlim ipv6.tclass.dscp ipv6.tclass.ecn|255,46,1
udp6,ttl=7|ipv6.hlim|7
udp4,len=100|frame.len ip.len udp.length|100,86,66
tcp6,len=1514|frame.len ipv6.plen|1514,1460
udp4,vlan=42,prio=5|eth.type vlan.id vlan.priority vlan.etype ip.proto udp.dstport frame.len|0x8100,42,5,0x0800,17,2000,46
tcp6,vlan=7|vlan.id vlan.priority ipv6.nxt tcp.dstport|7,0,6,2000
udp4,svlan=100,vlan=42|eth.type ieee8021ad.id vlan.id vlan.etype|0x88a8,100,42,0x0800
udp4,svlan=100,stpid=0x8100,vlan=42,tpid=0x9100|eth.type vlan.etype frame.len|0x8100,0x9100,50
tcp4,ihl=0|ip.hdr_len|0
tcp4,frag=df|ip.flags.df ip.flags.mf ip.frag_offset|1,0,0
raw,etype=38,len=26,payload=424203|llc.dsap llc.ssap frame.len|0x42,0x42,26
udp4,len=46,payload=deadbeef|udp.payload|deadbeef
arp,vlan=4095|vlan.id arp.opcode|4095,1
tcp4,ipopts=5|ip.hdr_len ip.len tcp.dstport|28,48,2000
udp4,ipopts=40|ip.hdr_len udp.dstport|60,2000
udp4,frag=first,len=200|ip.flags.mf ip.frag_offset ip.proto udp.dstport|1,0,17,2000
udp4,frag=later,len=200|ip.flags.mf ip.frag_offset ip.proto udp.dstport frame.len|0,185,17,,200
tcp4,frag=later|ip.frag_offset ip.len frame.len|185,20,34
udp6,ext=hop|ipv6.nxt ipv6.hopopts.nxt udp.dstport ipv6.plen|0,17,2000,16
tcp6,ext=dst|ipv6.nxt ipv6.dstopts.nxt tcp.dstport|60,6,2000
udp4,proto=47|ip.proto|47
udp6,proto=99|ipv6.nxt|99
udp6,ext=hop,proto=99|ipv6.nxt ipv6.hopopts.nxt|0,99
tcp4,trunc=20|frame.len frame.cap_len|20,20
tcp4,trunc=30|frame.len ip.len|30,40
tcp4,len=100,trunc=60|frame.len ip.len|60,86
'

# Good checksums: every kind and the options that move or add headers.
# shellcheck disable=SC2054 # commas are part of the SPECs
csum_specs=(udp4 tcp4 icmp4 udp6 tcp6 icmp6 udp4,len=333 tcp4,len=99
	icmp4,len=77 udp6,len=101 tcp6,len=200 icmp6,len=71
	udp4,vlan=3 tcp6,vlan=3 tcp4,ipopts=12 udp4,ipopts=3
	udp6,ext=hop tcp6,ext=dst icmp6,ext=hop udp4,tos=0xff,ttl=1
	udp4,srcrange=40,dstrange=3,sportrange=9,n=40
	tcp6,srcrange=17,sportrange=5,n=17 icmp6,dstrange=5,n=5
	icmp4,type=0,n=3)

# SPEC | the option the error message must name, in quotes, after the
# "craft: spec 'SPEC': " that every message about a spec starts with
error_table='
udp4,foo=1|foo=
udp4,dport=70000|dport=
udp4,dport=x|dport=
udp4,flags=S|flags=
tcp4,flags=SX|flags=
icmp4,sport=1|sport=
udp6,ipopts=4|ipopts=
udp4,ext=hop|ext=
udp6,src=1.2.3.4|src=
udp4,dst=::1|dst=
udp4,smac=1:2:3|smac=
udp4,len=20|len=
udp4,trunc=43|trunc=
udp4,frag=maybe|frag=
udp4,prio=1|prio=
udp4,vlan=4096|vlan=
udp4,tpid=0x9100|tpid=
udp4,vlan=1,stpid=0x9100|stpid=
udp4,ihl=16|ihl=
udp6,ihl=5|ihl=
udp4,payload=abc,len=50|payload=
udp4,payload=ab|payload=
udp4,sport=65530,sportrange=7|sportrange=
udp4,n=-1|n=
udp4,dport|dport
raw,src=1.1.1.1|src=
bogus|bogus
'

ndecode=$(grep -c '|' <<<"$decode_table")
nerror=$(grep -c '|' <<<"$error_table")
plan $((ndecode + nerror + 26))

# One file with a frame per row, one tshark run over every field named.
specs=() rowf=() wants=()
while IFS='|' read -r spec flds want; do
	[ -n "$spec" ] || continue
	specs+=("$spec") rowf+=("$flds") wants+=("$want")
done <<<"$decode_table"
mapfile -t all < <(printf '%s\n' "${rowf[@]}" | tr ' ' '\n' | sort -u)
declare -A col
for i in "${!all[@]}"; do col[${all[i]}]=$i; done
"$craft" -q -w "$tmp/d.pcap" "${specs[@]}"
mapfile -t lines < <(fields "$tmp/d.pcap" "${all[@]}" | tr , '|')
for r in "${!specs[@]}"; do
	IFS='|' read -ra v <<<"${lines[r]}"
	got=
	for f in ${rowf[r]}; do got+=${v[${col[$f]}]},; done
	is "${got%,}" "${wants[r]}" "${specs[r]} decodes: ${rowf[r]}"
done

# Checksums
"$craft" -q -w "$tmp/c.pcap" "${csum_specs[@]}"
frames=$(fields "$tmp/c.pcap" frame.number | wc -l)
ip4=$(count "$tmp/c.pcap" ip)
is "$frames" 85 "checksum set: 85 frames"
is "$(count "$tmp/c.pcap" 'ip.checksum.status == 1')" "$ip4" \
	"IPv4 header checksums good ($ip4)"
is "$(count "$tmp/c.pcap" 'udp.checksum.status == 1 || tcp.checksum.status == 1 || icmp.checksum.status == 1 || icmpv6.checksum.status == 1')" \
	"$frames" "TCP/UDP/ICMP/ICMPv6 checksums good in all $frames frames"
is "$(count "$tmp/c.pcap" '_ws.expert.severity >= "Warning"')" 0 \
	"no expert warning or error"
# The check above sees a bad checksum: flip the last payload byte.
"$craft" -q -w "$tmp/bad.pcap" udp4,len=60
printf '\xff' | dd of="$tmp/bad.pcap" bs=1 seek=$((24 + 16 + 59)) \
	conv=notrunc status=none
is "$(fields "$tmp/bad.pcap" udp.checksum.status)" 0 \
	"a corrupted UDP payload shows as a bad checksum"
"$craft" -q -w "$tmp/f.pcap" udp4,frag=first,len=100 tcp4,frag=first
is "$(fields "$tmp/f.pcap" ip.checksum.status)" "1
1" "first fragments: IPv4 header checksums good"
"$craft" -q -w "$tmp/t.pcap" icmp4,trunc=30
is "$(count "$tmp/t.pcap" '_ws.expert.severity == "Error"')" 1 \
	"a frame cut inside the IP header is flagged malformed"

# Ranges give distinct keys, cycling
"$craft" -q -w "$tmp/r.pcap" udp4,srcrange=50,n=200
is "$(fields "$tmp/r.pcap" ip.src | sort -u | wc -l)" 50 \
	"srcrange=50: 50 distinct sources"
is "$(fields "$tmp/r.pcap" ip.src | sort | uniq -c | awk '{print $1}' | sort -u)" 4 \
	"srcrange=50, n=200: each source 4 times"
is "$(fields "$tmp/r.pcap" ip.src | sed -n '1p;50p;51p;200p' | tr '\n' ' ')" \
	"198.18.0.2 198.18.0.51 198.18.0.2 198.18.0.51 " \
	"srcrange counts up from src and cycles"
"$craft" -q -w "$tmp/r.pcap" udp4,srcrange=300,n=300
is "$(fields "$tmp/r.pcap" ip.src | sort -u | wc -l)" 300 \
	"srcrange=300 carries into the third byte: 300 sources"
is "$(fields "$tmp/r.pcap" ip.src | tail -1)" 198.18.1.45 "srcrange carries"
"$craft" -q -w "$tmp/r.pcap" udp6,dstrange=10,n=30
is "$(fields "$tmp/r.pcap" ipv6.dst | sort -u | wc -l)" 10 \
	"IPv6 dstrange=10: 10 distinct destinations"
"$craft" -q -w "$tmp/r.pcap" tcp4,sportrange=7,n=21
is "$(fields "$tmp/r.pcap" tcp.srcport | sort -u | tr '\n' ' ')" \
	"1000 1001 1002 1003 1004 1005 1006 " "sportrange=7: ports 1000-1006"
"$craft" -q -w "$tmp/r.pcap" arp,srcrange=4,dstrange=2,n=8
is "$(fields "$tmp/r.pcap" arp.src.proto_ipv4 arp.dst.proto_ipv4 | sort -u | wc -l)" 4 \
	"ARP srcrange=4, dstrange=2: 4 distinct pairs"

# Exact counts, in sequence
"$craft" -w "$tmp/n.pcap" -c 3 udp4 tcp4,n=5 icmp4,n=0 arp,n=1000 \
	2>"$tmp/n.err"
is "$(fields "$tmp/n.pcap" eth.type ip.proto | uniq -c | awk '{print $1 "x" $2}' | tr '\n' ' ')" \
	"3x0x0800,17 5x0x0800,6 1000x0x0806, " \
	"-c 3 and n=: exact counts, spec after spec"
is "$(head -1 "$tmp/n.err")" "craft: sent 1008 frames (42396 bytes)" \
	"summary line"
is "$(sed -n '2,$p' "$tmp/n.err" | awk '{print $2}' | tr '\n' ' ')" \
	"3 5 0 1000 " "per-spec counts"
"$craft" -q -w - -c 7 udp6 >"$tmp/stdout.pcap"
is "$(fields "$tmp/stdout.pcap" ipv6.nxt | wc -l)" 7 "-w - writes to stdout"
"$craft" -q -w "$tmp/q.pcap" udp4 2>"$tmp/q.err"
is "$(wc -c <"$tmp/q.err")" 0 "-q: nothing on stderr"

# Errors: one line naming the offending option, exit status 1
while IFS='|' read -r spec word; do
	[ -n "$spec" ] || continue
	rc=0
	err=$("$craft" -w "$tmp/e.pcap" "$spec" 2>&1) || rc=$?
	# the spec itself holds the word: look at what follows it
	msg=${err#"craft: spec '$spec': "}
	if [ "$rc" = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] && [ "$msg" != "$err" ] &&
	   [[ $msg == *"'$word"* ]]; then
		is ok ok "$spec: rejected naming '$word'"
	else
		is "rc=$rc $err" "rc=1 craft: spec '$spec': ...'$word..." "$spec: rejected naming '$word'"
	fi
done <<<"$error_table"
rc=0
"$craft" -w "$tmp/no/such/dir.pcap" udp4 2>/dev/null || rc=$?
is "$rc" 1 "unwritable pcap file: exit 1"
rc=0
"$craft" udp4 2>/dev/null || rc=$?
is "$rc" 1 "neither -i nor -w: exit 1"
rc=0
"$craft" -w "$tmp/g.pcap" -g 20 udp4 2>/dev/null || rc=$?
is "$rc" 1 "bad -g: exit 1"
rc=0
"$craft" -w "$tmp/l.pcap" -l 34 udp4 2>/dev/null || rc=$?
is "$rc" 1 "-l with -w: exit 1"
rc=0
err=$("$craft" -w "$tmp/l.pcap" -l 13 udp4 2>&1) || rc=$?
is "$rc:$err" "1:craft: bad -l '13': want 14 to 65535" "-l shorter than an Ethernet header: exit 1"

# -h documents every option: at the start of a line of the option list,
# or after another option there ("  sport=, dport="); a bare "$o=" would
# find "n=" in "len=" and "type=" in "etype="
"$craft" -h >"$tmp/usage"
missing=
for o in src dst smac dmac sport dport flags type code ttl hlim tos len vlan \
	 svlan prio ipopts frag ext trunc proto etype op srcrange dstrange \
	 sportrange n; do
	grep -qE "^ +([a-z]+=[^ ,]*, +)*$o=" "$tmp/usage" || missing="$missing $o="
done
for o in -i -w -c -g -l -q -h udp4 tcp4 icmp4 udp6 tcp6 icmp6 arp raw; do
	grep -qw -- "$o" "$tmp/usage" || missing="$missing $o"
done
is "$missing" "" "-h documents every option and kind"
done_testing
