# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/63-any.t: -i any counts on every interface once,
# as tcpdump -i any: 3 pings on lo and 20 frames sent into a veth pair
# (seen leaving vb and arriving on va) give the rows that ebpfcount -r
# gives for tcpdump -i any's capture of the same traffic (LINUX_SLL2).
. /tests/tap.sh
. /tests/guest/lib.sh
plan 10

M=52:54:00:12:34:77
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
# rows FILE: the final object's rows, one a line, without bytes
rows() {
	grep '"final": true' "$1" | grep -o '{"sll[^}]*}' | sed 's/, "bytes": [0-9]*//' | sort
}
total() { grep '"final": true' "$1" | sed -n 's/.*"total": {"packets": \([0-9]*\), "bytes": \([0-9]*\)}}/\1 \2/p'; }

ok "veth pair va/vb" veth_pair va vb
n0=$(awk 'NR > 1 && $4 != "0000"' /proc/net/packet | wc -l)
ebpfcount -i any -n -F json 'count by sll.ifindex, ip.proto where icmp or udp' >/tmp/all.json 2>&1 &
p1=$!
ebpfcount -i any -F json 'count by ip.proto where udp dst port 7000' >/tmp/udp.json 2>&1 &
p2=$!
tcpdump -i any -y LINUX_SLL2 -Z root -n -w /tmp/any.pcap 'icmp or udp' 2>/dev/null &
td=$!
ok "three sockets on every interface" retry 60 bound $((n0 + 3))
ping -c 3 -i 0.2 127.0.0.1 >/dev/null
# (to an address that is not this host's: no ICMP port unreachable back)
craft -q -i vb -c 20 "udp4,smac=$M,dmac=$(cat /sys/class/net/va/address),dst=198.18.3.3,dport=7000"
sleep 1.5
kill -INT $p1 $p2 $td
wait $p1
r1=$?
wait $p2
r2=$?
wait $td
lo=$(cat /sys/class/net/lo/ifindex) va=$(cat /sys/class/net/va/ifindex) vb=$(cat /sys/class/net/vb/ifindex)
is "$r1:$r2" "0:0" "both end with status 0"
want=$(printf '{"sll.ifindex": %s, "ip.proto": %s, "packets": %s}\n' \
	"$lo" 1 6 "$va" 17 20 "$vb" 17 20 | sort)
is "$(rows /tmp/all.json)" "$want" "lo: 6 ICMP (each once); va: 20 UDP in; vb: 20 UDP out"
ebpfcount -r /tmp/any.pcap -n -F json 'count by sll.ifindex, ip.proto where icmp or udp' >/tmp/file.json
is "$(rows /tmp/file.json)" "$want" "the same rows from tcpdump -i any's capture (LINUX_SLL2)"
is "$(total /tmp/udp.json)" "40 1680" \
	"a where clause on the network header: 40 UDP frames, of 42 bytes as on Ethernet"

# What a cooked packet does not have
err=$(ebpfcount -i any 'count by eth.src' 2>&1 | head -n 1)
is "$err" "ebpfcount: bad expression at column 10: eth.src: -i any has no Ethernet addresses" \
	"eth.src is refused"
err=$(ebpfcount -i any "count where ether src $M" 2>&1 | head -n 1)
is "$err" "ebpfcount: bad expression at column 13: -i any has no Ethernet addresses, which the filter reads" \
	"a filter on Ethernet addresses is refused"
err=$(ebpfcount -i any 'count where ether[ip[0] & 0xf] = 0' 2>&1 | head -n 1)
is "$err" "ebpfcount: bad expression at column 13: -i any has no Ethernet addresses, which the filter reads" \
	"an indirect read into the Ethernet header is refused"
# Without CAP_PERFMON the program reads with LD_ABS: the same counts.
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled
n0=$(awk 'NR > 1 && $4 != "0000"' /proc/net/packet | wc -l)
/usr/bin/setpriv --reuid=100 --regid=100 --clear-groups --inh-caps=-all,+bpf,+net_raw \
	--ambient-caps=-all,+bpf,+net_raw --bounding-set=-all,+bpf,+net_raw \
	ebpfcount -i any -n -F json -c 3 'count by ip.proto, udp.dstport where udp and not port 9999' \
	>/tmp/ld.json 2>&1 &
pid=$!
retry 60 bound $((n0 + 1))
craft -q -i vb -c 7 "udp4,smac=$M,dmac=$(cat /sys/class/net/va/address),dst=198.18.3.3,dport=7001"
wait $pid
is "$?:$(grep '"final": true' /tmp/ld.json | grep -o '"rows": \[[^]]*\]')" \
	'0:"rows": [{"ip.proto": 17, "udp.dstport": 7001, "packets": 14, "bytes": 588}]' \
	"user 100 with CAP_BPF and CAP_NET_RAW (LD_ABS): 7 frames out and 7 in"
done_testing
