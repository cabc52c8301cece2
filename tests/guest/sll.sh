# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/62-sll.t: each packet once on lo, as tcpdump and
# lo's own counter see it; the packet type and interface keys on a veth
# pair made for the test (frames sent into vb arrive on va), checked
# against what was sent and against tcpdump.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 15

M=52:54:00:12:34:77
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
# final FILE: the final object
final() { grep '"final": true' "$1"; }
# total FILE: its total packets
total() { final "$1" | sed -n 's/.*"total": {"packets": \([0-9]*\).*/\1/p'; }
# row FILE KEY VALUE: packets of the final row whose KEY is VALUE
row() { final "$1" | grep -o "{\"$2\": $3, \"packets\": [0-9]*" | sed 's/.*: //'; }
# count ARGS...: ebpfcount -F json ARGS in the background, into /tmp/out.json
count() {
	n0=$(awk 'NR > 1 && $4 != "0000"' /proc/net/packet | wc -l)
	ebpfcount -F json "$@" >/tmp/out.json 2>/tmp/err &
	pid=$!
	retry 60 bound $((n0 + 1))
}
stop_count() {
	sleep 1.5
	kill -INT $pid
	wait $pid
	rc=$?
}

# lo: 3 pings are 6 packets, each seen leaving and arriving.
rx0=$(cat /sys/class/net/lo/statistics/rx_packets)
tcpdump -i lo -Z root -n -w /tmp/lo.pcap icmp 2>/dev/null &
td=$!
count -i lo 'count by ip.proto'
retry 30 bound $((n0 + 2))
ping -c 3 -i 0.2 127.0.0.1 >/dev/null
stop_count
sleep 1
kill -INT $td
wait $td
rx1=$(cat /sys/class/net/lo/statistics/rx_packets)
is "$rc:$(row /tmp/out.json ip.proto 1)" "0:6" "-i lo: 3 pings are 6 ICMP packets, each once"
is "$(tcpdump -r /tmp/lo.pcap -n 2>/dev/null | wc -l)" 6 "tcpdump -i lo saw 6 as well"
is "$(total /tmp/out.json)" $((rx1 - rx0)) "-i lo: the total equals lo's receive counter"
count -i lo 'count by sll.pkttype'
ping -c 2 -i 0.2 127.0.0.1 >/dev/null
stop_count
is "$rc:$(final /tmp/out.json | grep -o '"rows": \[[^]]*\]')" \
	'0:"rows": [{"sll.pkttype": 0, "packets": 4, "bytes": 392}]' "-i lo: every packet is to this host"

# A veth pair: frames to va's address, to broadcast, to a multicast group
# and to another host arrive on va; all of them leave vb.
ok "veth pair va/vb" veth_pair va vb
send() { craft -q -i vb -c "$1" "udp4,smac=$M,dmac=$2,dport=7000"; }
count -i va 'count by sll.pkttype where ether src '$M
tcpdump -i vb -Z root -n -w /tmp/vb.pcap "ether src $M" 2>/dev/null &
td=$!
retry 30 bound $((n0 + 2))
send 5 "$(cat /sys/class/net/va/address)"
send 7 ff:ff:ff:ff:ff:ff
send 11 01:00:5e:00:00:fb
send 13 52:54:00:99:99:99
stop_count
is "$rc:$(row /tmp/out.json sll.pkttype 0):$(row /tmp/out.json sll.pkttype 1):$(row /tmp/out.json sll.pkttype 2):$(row /tmp/out.json sll.pkttype 3)" \
	"0:5:7:11:13" "on va: 5 to this host, 7 broadcast, 11 multicast, 13 to another host"
count -i vb -n 'count by sll.pkttype, sll.ifindex where ether src '$M
send 17 ff:ff:ff:ff:ff:ff
stop_count
kill -INT $td
wait $td
is "$rc:$(final /tmp/out.json | grep -o '"rows": \[[^]]*\]')" \
	"0:\"rows\": [{\"sll.pkttype\": 4, \"sll.ifindex\": $(cat /sys/class/net/vb/ifindex), \"packets\": 17, \"bytes\": 714}]" \
	"on vb: 17 outgoing, on vb's interface index"
is "$(tcpdump -r /tmp/vb.pcap -n 2>/dev/null | wc -l)" 53 "tcpdump -i vb saw the 53 frames sent"

# The human view names them: packet types, and the interface unless -n;
# a row in the interval and in the totals.
# human ARGS...: ebpfcount -c 2 ARGS on va, 3 broadcast frames sent
human() {
	local n0 rc
	n0=$(awk 'NR > 1 && $4 != "0000"' /proc/net/packet | wc -l)
	ebpfcount -i va -c 2 "$@" 'count by sll.pkttype, sll.ifindex where ether src '$M \
		>/tmp/out.txt 2>&1 &
	pid=$!
	retry 60 bound $((n0 + 1))
	send 3 ff:ff:ff:ff:ff:ff
	wait $pid
}
human
is "$?:$(grep -c '^  broadcast    va   *3 ' /tmp/out.txt)" "0:2" "human: 'broadcast' on 'va'"
human -n
is "$?:$(grep -c "^  1            $(cat /sys/class/net/va/ifindex)   *3 " /tmp/out.txt)" "0:2" \
	"-n: numbers"

# Without CAP_PERFMON, the program reads the frame with LD_ABS: the
# verifier takes these keys there too, and they count.
err=$(/usr/bin/setpriv --reuid=100 --regid=100 --clear-groups --inh-caps=-all,+bpf,+net_raw \
	--ambient-caps=-all,+bpf,+net_raw --bounding-set=-all,+bpf,+net_raw \
	ebpfcount -v -d -i va 'count by sll.pkttype, sll.ifindex, ip.proto' 2>&1 >/dev/null)
is "$(echo "$err" | sed -n 's/^ebpfcount: reading the frame //p')" "with LD_ABS (no CAP_PERFMON)" \
	"user 100 with CAP_BPF and CAP_NET_RAW: LD_ABS"
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled
n0=$(awk 'NR > 1 && $4 != "0000"' /proc/net/packet | wc -l)
/usr/bin/setpriv --reuid=100 --regid=100 --clear-groups --inh-caps=-all,+bpf,+net_raw \
	--ambient-caps=-all,+bpf,+net_raw --bounding-set=-all,+bpf,+net_raw \
	ebpfcount -i va -n -F json -c 3 'count by sll.pkttype, sll.ifindex, ip.proto where ether src '$M \
	>/tmp/out.json 2>&1 &
pid=$!
retry 60 bound $((n0 + 1))
send 9 ff:ff:ff:ff:ff:ff
wait $pid
is "$?:$(final /tmp/out.json | grep -o '"rows": \[[^]]*\]')" \
	"0:\"rows\": [{\"sll.pkttype\": 1, \"sll.ifindex\": $(cat /sys/class/net/va/ifindex), \"ip.proto\": 17, \"packets\": 9, \"bytes\": 378}]" \
	"user 100, LD_ABS: loaded by the verifier, 9 broadcast frames counted"

# The outgoing copies are left out ahead of the where clause, not by
# splicing text into it: a clause that is not one alone is refused.
err=$(ebpfcount -d -i lo 'count where tcp) or (udp' 2>&1 >/dev/null | head -n 1)
case $err in "ebpfcount: bad expression at column 13: can't parse filter expression: syntax error"*) r=0 ;; *) r=1; diag "$err" ;; esac
_tap_result $r "-i lo: 'tcp) or (udp' is refused, as by tcpdump"

# -d without -i is as for a capture file: not for these keys.
err=$(ebpfcount -d 'count by sll.pkttype' 2>&1 | head -n 1)
is "$err" "ebpfcount: bad expression at column 10: sll.pkttype: only live, or in a capture file of type LINUX_SLL or LINUX_SLL2 (tcpdump -i any)" \
	"-d without -i refuses sll.pkttype"
ok "-d -i va takes it" ebpfcount -d -i va 'count by sll.pkttype'
done_testing
