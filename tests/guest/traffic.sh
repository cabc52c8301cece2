# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/60-traffic.t: iperf3 TCP and UDP from the peer;
# ebpfcount's inbound totals must equal eth0's receive counter.  Then the
# seed's sock_example, 'count by ip.proto' for 10 one-second intervals,
# while this guest sends known TCP and UDP frames: its rows must hold
# exactly those, every interval's rows adding up to the totals.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 12

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
retry 30 test -s /tmp/in.json
retry 10 iperf_client "$EBPFCOUNT_PEER" -R -t 3 >/tmp/tcp.txt 2>&1
ok "iperf3 TCP from the peer" grep -q receiver /tmp/tcp.txt
retry 3 iperf_client "$EBPFCOUNT_PEER" -R -u -b 20M -t 3 >/tmp/udp.txt 2>&1
ok "iperf3 UDP from the peer" grep -q receiver /tmp/udp.txt
quiet_link
rx1=$(rx)
kill -INT $cnt
wait $cnt
is "$?" 0 "ebpfcount -F json exits 0 on SIGINT"
total=$(final_total /tmp/in.json)
diag "eth0 received $((rx1 - rx0)) packets, ebpfcount counted ${total:-none} inbound"
is "${total:-none}" "$((rx1 - rx0))" "inbound total equals eth0's receive counter"
tcp=$(final_proto /tmp/in.json 6)
udp=$(final_proto /tmp/in.json 17)
diag "tcp ${tcp:-0} udp ${udp:-0}"
cmp_ok "${tcp:-0}" -gt 1000 "TCP segments counted"
cmp_ok "${udp:-0}" -gt 1000 "UDP datagrams counted"

# The seed's sock_example: TCP and UDP counts on eth0 every second.  The
# frames go to an address nobody has (the peer drops them without an
# answer), 100 bytes each; the socket is bound before the first is sent
# and the 10 intervals last 10 s, so all of them fall in the run.
NTCP=300 NUDP=200
quiet_link
ebpfcount -i eth0 -c 10 'count by ip.proto' >/tmp/seed.txt 2>/tmp/seed.err &
seed=$!
ok "sock_example: its socket is bound" retry 30 bound 1
craft -q -i eth0 "tcp4,n=$NTCP,src=$EBPFCOUNT_SELF,dst=198.18.0.99,len=100,smac=52:54:00:12:34:01,dmac=52:54:00:12:34:02" \
	"udp4,n=$NUDP,src=$EBPFCOUNT_SELF,dst=198.18.0.99,len=100,smac=52:54:00:12:34:01,dmac=52:54:00:12:34:02"
wait $seed
rc=$?
sed 's/^/# stderr: /' /tmp/seed.err
is "$rc" 0 "sock_example: 'ebpfcount -i eth0 -c 10 count by ip.proto' exits 0"
n=$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]' /tmp/seed.txt)
is "$n" 10 "it printed 10 intervals"
# seed_rows WHEN: "tcp PACKETS/BYTES udp PACKETS/BYTES", of the rows of the
# 10 intervals summed (WHEN = intervals) or of the final totals (final)
seed_rows() {
	awk -v when="$1" '/^total since start:/ { fin = 1; next }
		(when == "final") == fin && ($1 == "tcp" || $1 == "udp") { p[$1] += $2; b[$1] += $3 }
		END { printf "tcp %d/%d udp %d/%d\n", p["tcp"], b["tcp"], p["udp"], b["udp"] }' /tmp/seed.txt
}
want="tcp $NTCP/$((NTCP * 100)) udp $NUDP/$((NUDP * 100))"
is "$(seed_rows final)" "$want" "with TCP and UDP rows: the totals are exactly the frames sent"
is "$(seed_rows intervals)" "$want" "and the rows of the 10 intervals add up to them"
[ "$(seed_rows final)" = "$want" ] || sed 's/^/#   /' /tmp/seed.txt
done_testing
