# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/52-maxkeys.t.  ebpfcount --max-keys 4 counts
# UDP source ports in half-second intervals while the peer sends 80 paced
# frames from 8 ports (1001-1008), pauses, then 80 from 8 others
# (2001-2008).  No interval may have more than 4 rows; the later ports
# must get rows of their own (each interval starts with an empty table,
# the first keys do not keep it); and rows plus overflow must add up to
# the 160 frames in every view.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 8

M='"udp.srcport": '
# intervals FILE: the interval objects, one per line
intervals() { grep -v '"final": true' "$1" | grep '"rows"'; }
# sum FIELD: sum of the packets after FIELD on stdin
sum() { grep -o "$1[^}]*\"packets\": [0-9]*" | sed 's/.*: //' | awk '{ s += $1 } END { print s + 0 }'; }
# rows_packets: packets of the rows on stdin
rows_packets() { grep -o '"rows": \[.*\]' | sum "$M"; }
overflow() { grep -o '"overflow": {"packets": [0-9]*' | sed 's/.*: //' | awk '{ s += $1 } END { print s + 0 }'; }

ok "peer answers ping" wait_peer
quiet_link
ebpfcount -i eth0 -F json -I 0.5 --max-keys 4 \
	'count by udp.srcport where ether src 52:54:00:12:34:99' >/tmp/mk.json 2>&1 &
pid=$!
retry 30 test -s /tmp/mk.json
send_go &
timeout 120 tcpdump -i eth0 -Z root -c 1 -n 'udp dst port 9998' >/dev/null 2>&1
quiet_link
kill -INT $pid
wait $pid
ok "ebpfcount exits 0 on SIGINT" test $? -eq 0

most=$(intervals /tmp/mk.json | awk -v m="$M" '{ n = gsub(m, ""); if (n > x) x = n } END { print x + 0 }')
diag "$(intervals /tmp/mk.json | wc -l) intervals, at most $most rows in one"
cmp_ok "$most" -le 4 "no interval has more than 4 rows"
late=$(intervals /tmp/mk.json | grep -c "$M"'200[1-8]')
cmp_ok "$late" -gt 0 "ports of the second burst get rows after the first burst's ports"
cmp_ok "$(intervals /tmp/mk.json | overflow)" -gt 0 "8 ports at once overflow the 4 keys"
is "$(( $(intervals /tmp/mk.json | rows_packets) + $(intervals /tmp/mk.json | overflow) ))" 160 \
	"intervals: rows plus overflow add up to the frames sent"
final=$(grep '"final": true' /tmp/mk.json)
is "$(( $(echo "$final" | rows_packets) + $(echo "$final" | overflow) ))" 160 \
	"final: rows plus overflow add up to the frames sent"
is "$(echo "$final" | grep -o '"total": {"packets": [0-9]*' | sed 's/.*: //')" 160 "final total"
done_testing
