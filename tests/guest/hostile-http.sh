# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/77-hostile-http.t: ebpfcount --listen 9108 (the
# loopback addresses) with 20,000 keys, under 1,000 hostile connections
# from 127.0.0.2 (slowpeer: 500 slowloris, 500 that never read) for 30 s.
# A scrape from 127.0.0.1 every 2 s succeeds every time; RSS grows by at
# most two expositions; a lone slowloris (127.0.0.3), and a kept-alive
# connection that sends only empty lines after its answer (127.0.0.4),
# are cut at the request deadline (serve.h: 20 s); two requests are answered
# on one kept-alive connection.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 10

kib() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
scrape() { timeout 10 wget -q -O "$1" http://127.0.0.1:9108/metrics && grep -q '^ebpfcount_keys ' "$1"; }

echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
ok "veth pair va/vb" veth_pair va vb
ebpfcount -i va -F none --max-keys 32768 --listen 9108 'count by ip.src, udp.srcport' \
	2>/tmp/err &
pid=$!
ok "ebpfcount serves /metrics on 127.0.0.1" retry 60 scrape /tmp/m0
craft -q -i vb -c 20000 "udp4,srcrange=20000"
sleep 2
scrape /tmp/m1
size=$(wc -c </tmp/m1)
keys=$(sed -n 's/^ebpfcount_keys //p' /tmp/m1)
is "$keys" 20000 "20000 keys counted (one exposition: $size bytes)"

(printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'; sleep 2
 printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'; sleep 2) |
	timeout 10 nc 127.0.0.1 9108 >/tmp/kept 2>&1
is "$(grep -c '^HTTP/1.1 200 OK' /tmp/kept)" 2 \
	"two requests answered on one connection (keep-alive)"

rss0=$(kib $pid VmRSS)
echo 5 >/proc/$pid/clear_refs	# VmHWM from now
slowpeer slowloris 500 127.0.0.2 127.0.0.1 9108 30 >/tmp/slow.out 2>&1 &
s1=$!
slowpeer noread 500 127.0.0.2 127.0.0.1 9108 30 >/tmp/noread.out 2>&1 &
s2=$!
slowpeer slowloris 1 127.0.0.3 127.0.0.1 9108 25 >/tmp/lone.out 2>&1 &
s3=$!
slowpeer trickle 1 127.0.0.4 127.0.0.1 9108 30 >/tmp/trickle.out 2>&1 &
s4=$!
sleep 1
good=0
tries=0
while [ $tries -lt 12 ]; do
	t0=$(date +%s)
	scrape /tmp/ms && good=$((good + 1))
	diag "scrape $tries: $(($(date +%s) - t0)) s, $(wc -c </tmp/ms) bytes"
	tries=$((tries + 1))
	sleep 2
done
is "$good" 12 "every scrape from 127.0.0.1 during the attack succeeds"
wait $s1 $s2 $s3 $s4
diag "slowloris: $(cat /tmp/slow.out); non-readers: $(cat /tmp/noread.out)"
hwm=$(kib $pid VmHWM)
diag "RSS before the attack $rss0 KiB, peak during it $hwm KiB, exposition $((size / 1024)) KiB"
cmp_ok "$((hwm - rss0))" -le "$((2 * size / 1024))" \
	"RSS grew by at most two expositions ($((hwm - rss0)) KiB)"
case $(cat /tmp/lone.out) in *" closed "[1-9]*) r=0 ;; *) r=1 ;; esac
_tap_result $r "a lone slowloris is cut at the deadline ($(cat /tmp/lone.out))"
case $(cat /tmp/trickle.out) in *" closed "[1-9]*) r=0 ;; *) r=1 ;; esac
_tap_result $r "so is an empty line every 2 s after an answer, kept alive ($(cat /tmp/trickle.out))"
ok "still serving after the attack" scrape /tmp/m2
kill -INT $pid
wait $pid
is "$?:$(cat /tmp/err)" "0:" "ebpfcount ends with status 0, nothing on stderr"
done_testing
