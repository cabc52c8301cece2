# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/75-prometheus.t: ebpfcount --listen 0.0.0.0:9108
# (the host reaches it through eth1; --listen PORT alone is loopback only,
# checked with a second ebpfcount on lo, port 9110), two
# expressions in one program (-e), on one end of a veth pair whose name needs escaping in a label value
# (v"a\b), 300 + 200 crafted UDP frames sent into the other end; the host
# scrapes it with a real Prometheus.  /sent on port 9109 says when the
# frames are out; the host's GET /cgi-bin/done ends the run, after which
# the final totals must be the frames sent.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 10

M=52:54:00:12:34:77
VA='v"a\b'
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
echo 1 >/proc/sys/kernel/bpf_stats_enabled
ok "veth pair $VA/vb" veth_pair "$VA" vb
www=/tmp/www
mkdir -p $www/cgi-bin
printf '#!/bin/sh\ntouch /tmp/done\nprintf "Content-Type: text/plain\\r\\n\\r\\nbye\\n"\n' >$www/cgi-bin/done
chmod 755 $www/cgi-bin/done
httpd -f -p 9109 -h $www &
httpd=$!

ebpfcount -i "$VA" -F json --listen 0.0.0.0:9108 --textfile /tmp/m.prom \
	-e "count by udp.dstport where ether src $M" -e "count by ip.proto where ether src $M" \
	>/tmp/out.json 2>/tmp/err &
pid=$!
ok "ebpfcount serves /metrics in the guest" retry 60 \
	sh -c "timeout 10 wget -q -O - http://198.19.0.15:9108/metrics | grep -q '^ebpfcount_keys[{ ]'"
# Every thread, the HTTP server's and its deadlines' too, has given up its capabilities.
is "$(ls /proc/$pid/task | wc -l):$(grep -h '^Cap[EPB][fnr][fmd]' /proc/$pid/task/*/status | sort -u | tr -s '\t\n' '  ')" \
	"3:CapBnd: 0000000000000000 CapEff: 0000000000000000 CapPrm: 0000000000000000 " \
	"the three threads (main, HTTP server, its deadlines) without capabilities"
# --listen PORT: 127.0.0.1 and ::1 (if lo has it), nothing else
ebpfcount -i lo -F none --listen 9110 count 2>/tmp/lo.err &
lo=$!
ok "--listen 9110 serves /metrics on 127.0.0.1" retry 60 \
	sh -c "timeout 10 wget -q -O - http://127.0.0.1:9110/metrics | grep -q '^ebpfcount_keys '"
out=$(timeout 10 wget -q -O - http://198.19.0.15:9110/metrics 2>&1)
case $out in *"Connection refused"*) r=0 ;; *) r=1; diag "wget: $out" ;; esac
_tap_result $r "--listen 9110: not on eth1's address (connection refused)"
# the listening sockets of port 9110 (0x2396): /proc/net/tcp{,6} state 0A
want="0100007F:2396"
grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2>/dev/null &&
	want="$want 00000000000000000000000001000000:2396"
is "$(awk '$4 == "0A" && $2 ~ /:2396$/ { print $2 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null | tr '\n' ' ')" \
	"$want " "--listen 9110 listens on the loopback addresses only ($want)"
kill -INT $lo
wait $lo
dst=$(cat "/sys/class/net/$VA/address")
craft -q -i vb -c 300 "udp4,smac=$M,dmac=$dst,dport=7000"
craft -q -i vb -c 200 "udp4,smac=$M,dmac=$dst,dport=7001"
sleep 1.5
echo 500 >$www/sent
diag "sent 500 frames; serving until the host fetches /cgi-bin/done"
i=0
while [ ! -e /tmp/done ] && [ $i -lt 300 ]; do
	sleep 1
	i=$((i + 1))
done
kill $httpd
ok "the host fetched /cgi-bin/done within 300 s" test -e /tmp/done
kill -INT $pid
wait $pid
rc=$?
is "$rc:$(cat /tmp/err)" "0:" "ebpfcount ends with status 0, nothing on stderr"
is "$(grep '"final": true' /tmp/out.json | grep -o '"total": {"packets": [0-9]*' | tr '\n' ' ')" \
	'"total": {"packets": 500 "total": {"packets": 500 ' \
	"the final totals of both expressions are the 500 frames sent"
is "$(sed -n 's/^ebpfcount_packets_total{expr="count by udp.dstport[^"]*",udp_dstport="\([0-9]*\)"} /\1:/p' /tmp/m.prom | sort | tr '\n' ' ')" \
	"7000:300 7001:200 " "the textfile holds the final totals"
done_testing
