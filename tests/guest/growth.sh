# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/53-growth.t.  ebpfcount without --max-keys counts
# IPv4 sources in half-second intervals while the peer sends 4000 paced
# frames from 4000 sources (198.18.16.1 on), pauses, then 4000 from 4000
# others (198.18.48.1 on).  The first burst finds the 1024-key tables
# full: the table grows in the kernel (-v says so), with every capability
# of ebpfcount itself dropped and only CAP_BPF left to its helper.  The
# second burst then counts exactly: every one of its sources has its own
# row of 1 packet and no interval after the growth has an overflow; rows
# plus overflow add up in every interval and to the 8000 frames sent.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 11

ZERO=0000000000000000
# intervals FILE: the interval objects, one per line
intervals() { grep -v '"final": true' "$1" | grep '"rows"'; }
# total, overflow, rows_packets: packets of the object(s) on stdin
total() { grep -o '"total": {"packets": [0-9]*' | sed 's/.*: //'; }
overflow() { grep -o '"overflow": {"packets": [0-9]*' | sed 's/.*: //' | awk '{ s += $1 } END { print s + 0 }'; }
rows_packets() { grep -o '"rows": \[[^]]*\]' | grep -o '"packets": [0-9]*' | sed 's/.*: //' |
	awk '{ s += $1 } END { print s + 0 }'; }
# second: the rows of the second burst's sources (198.18.48.0 - 198.18.63.255)
second() { grep -oE '"ip.src": "198\.18\.(4[89]|5[0-9]|6[0-3])\.[0-9]+", "packets": [0-9]+'; }
caps() { grep '^Cap' "/proc/$1/status" | awk '{ printf "%s%s ", $1, $2 }'; }

ok "peer answers ping" wait_peer
quiet_link
ebpfcount -v -i eth0 -F json -I 0.5 'count by ip.src where ether src 52:54:00:12:34:99' \
	>/tmp/gr.json 2>/tmp/gr.err &
pid=$!
retry 30 test -s /tmp/gr.json
helper=$(awk -v p="$pid" '$1 == "PPid:" && $2 == p { print FILENAME }' /proc/[0-9]*/status 2>/dev/null |
	head -n 1 | cut -d/ -f3)
is "$(caps $pid)" "CapInh:$ZERO CapPrm:$ZERO CapEff:$ZERO CapBnd:$ZERO CapAmb:$ZERO " \
	"ebpfcount: no capability left once attached"
is "$(caps "${helper:-0}")" "CapInh:$ZERO CapPrm:0000008000000000 CapEff:0000008000000000 CapBnd:$ZERO CapAmb:$ZERO " \
	"its helper keeps CAP_BPF alone"
send_go &
timeout 120 tcpdump -i eth0 -Z root -c 1 -n 'udp dst port 9998' >/dev/null 2>&1
quiet_link
sleep 1
kill -INT $pid
wait $pid
ok "ebpfcount exits 0 on SIGINT" test $? -eq 0
diag "$(grep -v 'rows read' /tmp/gr.err)"
ok "-v: the key table grew from 1024 keys" grep -q 'key table grown from 1024 to' /tmp/gr.err
ok "-v: no refusal" sh -c '! grep -q "cannot create a bigger key table" /tmp/gr.err'
bad=$(intervals /tmp/gr.json | while IFS= read -r l; do
	echo "$(( $(echo "$l" | rows_packets) + $(echo "$l" | overflow) )) $(echo "$l" | total)"
done | awk '$1 != $2' | wc -l)
is "$bad" 0 "every interval: rows + overflow = total"
# from the first interval of the second burst on, no overflow
late=$(intervals /tmp/gr.json | awk '/"ip.src": "198\.18\.(4[89]|5[0-9]|6[0-3])\./ { on = 1 } on' |
	overflow)
is "$late" 0 "the second burst, once grown: no overflow"
is "$(grep '"final": true' /tmp/gr.json | second | grep -c '"packets": 1$')" 4000 \
	"final: each of the second burst's 4000 sources has its row of 1 packet"
final=$(grep '"final": true' /tmp/gr.json)
is "$(( $(echo "$final" | rows_packets) + $(echo "$final" | overflow) ))" 8000 \
	"final: rows plus overflow add up to the 8000 frames sent"
is "$(echo "$final" | total)" 8000 "final total"
done_testing
