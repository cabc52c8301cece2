# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/70-fullrate.t.  The peer sends paced crafted
# frames (known counts per protocol), then UDP as fast as it can (craft
# unpaced, iperf3 -u -b 0 -l 16).  ebpfcount must count exactly: inbound
# totals equal eth0's receive counter, also with a reader that does not
# read for seconds and with a key table smaller than the keys.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 10

# final FILE WHAT: from the final JSON object, WHAT = total | overflow
final() {
	grep '"final": true' "$1" | sed -n "s/.*\"$2\": {\"packets\": \([0-9]*\).*/\1/p"
}
# rows FILE: sum of the packets of the final object's rows
rows() {
	grep '"final": true' "$1" | grep -o '"missing": "[a-z]*", "packets": [0-9]*\|[0-9], "packets": [0-9]*' |
		sed 's/.*: //' | awk '{ s += $1 } END { print s + 0 }'
}
proto() {
	grep '"final": true' "$1" | grep -o "{\"ip.proto\": $2, \"packets\": [0-9]*" | sed 's/.*: //'
}
rx() { cat /sys/class/net/eth0/statistics/rx_packets; }
drops() {
	cd /sys/class/net/eth0/statistics && echo "dropped $(cat rx_dropped) errors $(cat rx_errors) length $(cat rx_length_errors) over $(cat rx_over_errors) missed $(cat rx_missed_errors)"
	cd /
}

ok "peer answers ping" wait_peer
iperf3 -s -D
quiet_link
rx0=$(rx)
ebpfcount -i eth0 -F json 'count by ip.proto where inbound' >/tmp/all.json 2>&1 &
p1=$!
ebpfcount -i eth0 -F json 'count by ip.proto where ether src 52:54:00:12:34:99' >/tmp/sent.json 2>&1 &
p2=$!
ebpfcount -i eth0 -F json --max-keys 100 'count by udp.srcport where inbound' >/tmp/max.json 2>&1 &
p3=$!
# A reader that reads nothing for 12 s behind a stream of 300-row objects.
ebpfcount -i eth0 -F json -I 0.2 'count by udp.srcport where inbound' 2>&1 |
	{ sleep 12; cat >/tmp/slow.json; } &
p4=$!
retry 30 test -s /tmp/all.json
retry 30 test -s /tmp/sent.json
retry 30 test -s /tmp/max.json
# The slow reader prints nothing for 12 s: wait for its socket instead.
# (A KASAN guest took long enough to start it that it missed 4196 frames.)
ok "four counting sockets bound before the traffic starts" retry 120 bound 4
send_go &
timeout 300 tcpdump -i eth0 -Z root -c 1 -n 'udp dst port 9998' >/dev/null 2>&1
quiet_link
rx1=$(rx)
# every ebpfcount once (the slow reader's pid is not $p4): a second
# signal would end one at once, without its final totals
kill -INT $(pidof ebpfcount)
wait
received=$((rx1 - rx0))
for f in all sent max slow; do
	grep -q '"final": true' /tmp/$f.json ||
		diag "$f: no final object; ends: $(tail -c 300 /tmp/$f.json | tr '\n' ' ')"
done
diag "eth0 received $received packets; $(drops)"
counted=$(final /tmp/all.json total)
is "$counted" "$received" "inbound total equals eth0's receive counter"
# what the link delivered, as the inbound socket saw it (a frame lost
# before eth0 shows in both sockets' counts; a miscount in one of them)
diag "inbound socket: TCP $(proto /tmp/all.json 6), UDP $(proto /tmp/all.json 17), ICMP $(proto /tmp/all.json 1)"
is "$(proto /tmp/sent.json 6)" 2000 "paced TCP frames counted exactly"
is "$(proto /tmp/sent.json 17)" 3000 "paced UDP frames counted exactly"
is "$(proto /tmp/sent.json 1)" 500 "paced ICMP frames counted exactly"
is "$(final /tmp/slow.json total)" "$counted" "slow reader: inbound total equals the prompt reader's"
ovf=$(final /tmp/max.json overflow)
diag "--max-keys 100: overflow $ovf packets"
cmp_ok "${ovf:-0}" -gt 0 "--max-keys 100 with 300 source ports overflows"
is "$(( $(rows /tmp/max.json) + ${ovf:-0} ))" "$counted" "--max-keys: rows plus overflow equal the inbound total"
is "$(final /tmp/max.json total)" "$counted" "and so does its total"
done_testing
