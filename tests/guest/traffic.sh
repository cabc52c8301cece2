# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/60-traffic.t: iperf3 TCP and UDP from the peer;
# ebpfcount's inbound totals must equal eth0's receive counter.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 9

rx() { cat /sys/class/net/eth0/statistics/rx_packets; }
# final_total FILE: packets of the "final" JSON object
final_total() { sed -n 's/.*"final": true.*"total": {"packets": \([0-9]*\).*/\1/p' "$1"; }
# proto_rows FILE PROTO: packets of the final row of ip.proto PROTO
final_proto() {
	grep '"final": true' "$1" | grep -o "{\"ip.proto\": $2, \"packets\": [0-9]*" |
		sed 's/.*: //'
}

ok "peer answers ping" wait_peer
quiet_link
rx0=$(rx)
ebpfcount -i eth0 -F json 'count by ip.proto where inbound' >/tmp/in.json 2>&1 &
cnt=$!
# The seed's sock_example: TCP and UDP counts on eth0 every second.
ebpfcount -i eth0 -c 10 'count by ip.proto' >/tmp/seed.txt 2>&1 &
seed=$!
retry 30 test -s /tmp/in.json
retry 10 iperf_client "$EBPFCOUNT_PEER" -R -t 3 >/tmp/tcp.txt 2>&1
ok "iperf3 TCP from the peer" grep -q receiver /tmp/tcp.txt
retry 3 iperf_client "$EBPFCOUNT_PEER" -R -u -b 20M -t 3 >/tmp/udp.txt 2>&1
ok "iperf3 UDP from the peer" grep -q receiver /tmp/udp.txt
quiet_link
rx1=$(rx)
kill -INT $cnt
wait $cnt
total=$(final_total /tmp/in.json)
diag "eth0 received $((rx1 - rx0)) packets, ebpfcount counted ${total:-none} inbound"
is "${total:-none}" "$((rx1 - rx0))" "inbound total equals eth0's receive counter"
tcp=$(final_proto /tmp/in.json 6)
udp=$(final_proto /tmp/in.json 17)
diag "tcp ${tcp:-0} udp ${udp:-0}"
cmp_ok "${tcp:-0}" -gt 1000 "TCP segments counted"
cmp_ok "${udp:-0}" -gt 1000 "UDP datagrams counted"
wait $seed
ok "sock_example: 'ebpfcount -i eth0 -c 10 count by ip.proto' exits 0" true
n=$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]' /tmp/seed.txt)
is "$n" 10 "it printed 10 intervals"
ok "with TCP and UDP rows" grep -q '^  udp ' /tmp/seed.txt
grep -q '^  tcp ' /tmp/seed.txt || cat /tmp/seed.txt
done_testing
