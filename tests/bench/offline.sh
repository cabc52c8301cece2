#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ebpfcount -r against tshark and tcpdump on the host (issue 12): one
# generated capture of BENCH_OFFLINE_N (5 M) records of mixed traffic;
# packets per second of ebpfcount -r (user engine) for three expressions,
# of tshark -q -z io,stat,1 and -z conv,ip, and of tcpdump -r FILE -w
# /dev/null [FILTER] (what reading the file with libpcap costs).  ebpfcount
# and tcpdump run BENCH_OFFLINE_ROUNDS (3) alternating rounds, the best of
# each quoted (the least disturbed by the shared host); tshark runs once (about 10 s and 1.3 GB per million records).
# Peak RSS of ebpfcount on the file and on its first fifth shows whether
# memory grows with the file.  Pure userspace: no bpf(2), no raw socket.
# Targets: >= 10x tshark's packet rate; <= 1.2x tcpdump's time (issue 26).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${BENCH_OFFLINE_N:-5000000}
rounds=${BENCH_OFFLINE_ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
E=$top/build/bin/ebpfcount

# Mixed traffic, n records: DNS, web, bulk TCP, NTP over IPv6, ICMP, ARP,
# VLAN-tagged UDP; sizes from 42 to 1514 bytes.
f=$((n / 100))
"$top/build/bin/craft" -q -w "$work/all.pcap" \
	"udp4,n=$((f * 20)),srcrange=4000,sportrange=500,dport=53,len=90" \
	"tcp4,n=$((f * 25)),srcrange=3000,dstrange=50,dport=443,flags=PA,len=600" \
	"tcp4,n=$((f * 20)),src=198.18.3.1,dst=198.18.4.1,sportrange=2000,dport=443,len=1514" \
	"tcp4,n=$((f * 10)),srcrange=300,dport=80,flags=A,len=66" \
	"udp6,n=$((f * 10)),srcrange=200,dport=123,len=110" \
	"icmp4,n=$((f * 5)),srcrange=100" \
	"arp,n=$((f * 2))" \
	"udp4,n=$((f * 8)),vlan=42,srcrange=1000,dport=4789,len=200"
"$top/build/bin/craft" -q -w "$work/fifth.pcap" \
	"udp4,n=$((f * 4)),srcrange=4000,sportrange=500,dport=53,len=90" \
	"tcp4,n=$((f * 5)),srcrange=3000,dstrange=50,dport=443,flags=PA,len=600" \
	"tcp4,n=$((f * 4)),src=198.18.3.1,dst=198.18.4.1,sportrange=2000,dport=443,len=1514" \
	"tcp4,n=$((f * 2)),srcrange=300,dport=80,flags=A,len=66" \
	"udp6,n=$((f * 2)),srcrange=200,dport=123,len=110" \
	"icmp4,n=$f,srcrange=100" \
	"arp,n=$((f * 2 / 5))" \
	"udp4,n=$((f * 2)),vlan=42,srcrange=1000,dport=4789,len=200"
records=$(capinfos -c -M "$work/all.pcap" | awk '/Number of packets/ { print $NF }')
echo "offline: $records records, $(du -m "$work/all.pcap" | cut -f1) MB, $rounds rounds; host $(nproc) CPUs"

# secs NAME CMD...: run CMD, append its elapsed seconds and peak RSS (KB)
secs() {
	local name=$1
	shift
	/usr/bin/time -f "$name %e %M" -a -o "$work/times" "$@" >/dev/null 2>"$work/err" ||
		{ echo "offline: $name failed: $(tail -1 "$work/err")" >&2; exit 1; }
}

E1='count by ip.proto'
E2='count by ip.src, ip.dst'
E3='count by ip.src/24, tcp.dstport where tcp port 443'
for r in $(seq "$rounds"); do
	secs read tcpdump -r "$work/all.pcap" -w /dev/null
	secs e1 "$E" -r "$work/all.pcap" -F csv "$E1"
	secs e2 "$E" -r "$work/all.pcap" -F csv "$E2"
	secs filt tcpdump -r "$work/all.pcap" -w /dev/null 'tcp port 443'
	secs e3 "$E" -r "$work/all.pcap" -F csv "$E3"
	secs small "$E" -r "$work/fifth.pcap" -F csv "$E2"
done
secs iostat tshark -r "$work/all.pcap" -q -z io,stat,1
secs conv tshark -r "$work/all.pcap" -q -z conv,ip

awk -v n="$records" -v e1="$E1" -v e2="$E2" -v e3="$E3" '
	{ t[$1] = t[$1] " " $2; rss[$1] = $3 > rss[$1] ? $3 : rss[$1] }
	function med(s,   a, k, i, m) {	# the best of the rounds
		k = split(s, a, " ")
		for (i = 1; i <= k; i++)
			if (i == 1 || a[i] < m) m = a[i]
		return m
	}
	function row(name, key, vs_tshark, vs_tcpdump) {
		s = med(t[key])
		printf "  %-66s %6.2f s %9.0f pps %8.1fx tshark %6.2fx tcpdump\n", name, s, n / s,
			med(t[vs_tshark]) / s, s / med(t[vs_tcpdump])
	}
	END {
		printf "  %-66s %6.2f s %9.0f pps\n", "tcpdump -r -w /dev/null", med(t["read"]), n / med(t["read"])
		printf "  %-66s %6.2f s %9.0f pps\n", "tcpdump -r -w /dev/null '\''tcp port 443'\''", med(t["filt"]), n / med(t["filt"])
		printf "  %-66s %6.2f s %9.0f pps  (peak RSS %d MB)\n", "tshark -q -z io,stat,1", med(t["iostat"]), n / med(t["iostat"]), rss["iostat"] / 1024
		printf "  %-66s %6.2f s %9.0f pps  (peak RSS %d MB)\n", "tshark -q -z conv,ip", med(t["conv"]), n / med(t["conv"]), rss["conv"] / 1024
		row("ebpfcount -r '\''" e1 "'\''", "e1", "iostat", "read")
		row("ebpfcount -r '\''" e2 "'\''", "e2", "conv", "read")
		row("ebpfcount -r '\''" e3 "'\''", "e3", "iostat", "filt")
		printf "  peak RSS of ebpfcount -r '\''%s'\'': %d MB on the file, %d MB on a fifth of it\n", e2, rss["e2"] / 1024, rss["small"] / 1024
		print "  targets: >= 10x tshark; <= 1.2x tcpdump (e1 and e2 against reading the file, e3 against the same filter); best of the rounds"
	}' "$work/times"
