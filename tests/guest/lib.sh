# SPDX-License-Identifier: GPL-2.0
# Helpers for scripts that run inside the guests.

# retry N CMD...: run CMD until it succeeds, at most N times, 1 s apart
retry() {
	local n=$1 i=1
	shift
	until "$@"; do
		[ $i -ge "$n" ] && return 1
		i=$((i + 1))
		sleep 1
	done
}

# iperf_client ARGS...: iperf3 -c ARGS, killed after 30 s.  iperf3 3.12
# clients now and then hang after the test, before the results exchange
# (esnet/iperf#1527); the data has arrived by then.
iperf_client() { timeout 30 iperf3 -c "$@"; }

# wait_peer: wait up to 60 s for the peer guest to answer ping
wait_peer() { retry 60 ping -c 1 -W 1 "$EBPFCOUNT_PEER" >/dev/null 2>&1; }

# bound N: at least N packet sockets are bound (a protocol set by bind());
# ebpfcount binds its socket after the filter is attached.
bound() { [ "$(awk 'NR > 1 && $4 != "0000"' /proc/net/packet | wc -l)" -ge "$1" ]; }

# quiet_link: wait until eth0 received nothing for 2 s
quiet_link() {
	local a b
	b=$(cat /sys/class/net/eth0/statistics/rx_packets)
	until [ "$a" = "$b" ]; do
		a=$b
		sleep 2
		b=$(cat /sys/class/net/eth0/statistics/rx_packets)
	done
}

# Start signal between the guests that adds no traffic while waiting:
# the peer runs "wait_go && CMD"; the main guest calls send_go when ready.
wait_go() { tcpdump -i eth0 -Z root -c 1 -n 'udp dst port 9999' >/dev/null 2>&1; }
send_go() {
	craft -q -i eth0 -c 5 -g 1:500000 \
		"udp4,src=$EBPFCOUNT_SELF,dst=$EBPFCOUNT_PEER,smac=52:54:00:12:34:01,dmac=52:54:00:12:34:02,dport=9999"
}

# parser_table [live]: the expressions every kind of program is tested
# with, one a line: every field alone and behind a where clause, then
# combinations; the sll.* fields only with "live" (an Ethernet capture
# file, or a test run, has none)
parser_table() {
	echo count
	for f in $(ebpfcount --list-fields | cut -d' ' -f1); do
		case $f in sll.*) [ "$1" = live ] || continue ;; esac
		echo "count by $f"
		echo "count by $f where ip or ip6 or arp"
	done
	cat <<END
count by ip.src/8, ip.dst/31, ipv6.src/1, ipv6.dst/127
count by eth.src, eth.dst, eth.type, vlan.id, frame.len, ip.src, ip.dst, ip.proto
count by ipv6.src, ipv6.dst, ipv6.nxt, tcp.srcport, tcp.dstport, tcp.flags, udp.srcport, udp.dstport
count by ip.proto where tcp port 443 and not net 198.18.0.0/16
count by vlan.id where vlan 42
count by ip.src where inbound and ip[6:2] & 0x1fff != 0
count by tcp.flags where tcp[tcpflags] & (tcp-syn|tcp-fin) != 0
count by udp.dstport where ip6 and udp portrange 1-1024
count by icmp.type where icmp or icmp6
count by frame.len where greater 1000 or less 64
END
}

# veth_pair A B: a veth pair named A and B (busybox ip names the peer
# itself), both up
veth_pair() {
	local d peer
	ip link add "$1" type veth || return 1
	for d in /sys/class/net/*; do
		[ "$(cat "$d/ifindex")" = "$(cat "/sys/class/net/$1/iflink")" ] && peer=${d##*/}
	done
	ip link set "$peer" name "$2" && ip link set "$1" up && ip link set "$2" up &&
		retry 10 grep -qx up "/sys/class/net/$1/operstate"
}

# The case table (tests/cases.txt): case_lines KIND prints its KIND lines
# without the kind, fields separated by tabs; case_rows EXPR CSV prints the
# final rows of ebpfcount -n -F csv's output CSV (one expression) as an
# expect line writes them, sorted, on one line.
case_lines() { awk -F'\t' -v k="$1" '$1 == k { sub(/^[^\t]*\t/, ""); print }' /tests/cases.txt; }
case_rows() {
	k=$(echo "$1" | sed 's/ where .*//' | awk -F' by ' '{ print (NF > 1 ? split($2, a, ",") : 0) }')
	awk -F, -v k="$k" 'NR > 1 && $3 == "1" {
		if ($4 == "row") {
			key = ""
			for (i = 5; i < 5 + k; i++)
				key = key (i > 5 ? "," : "") ($i == "" ? "-" : $i)
			if ($(NF - 2) != "")
				key = key (k ? "," : "") $(NF - 2)
			n[key == "" ? "row" : key] += $(NF - 1)
		} else if ($4 == "total" || ($4 == "overflow" && $(NF - 1) > 0)) {
			n[$4] += $(NF - 1)
		}
	} END { for (x in n) print x "=" n[x] }' "$2" | sort | tr '\n' ' ' | sed 's/ $//'
}
