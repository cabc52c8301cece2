# SPDX-License-Identifier: GPL-2.0
# Main guest of tests/bench/readout.sh: for each N, a fresh
#   ebpfcount -v -F json -I T 'count by ip.src'
# while the peer sends frames from N distinct IPv4 sources (craft
# srcrange=N, paced); T is long enough for all of them to land in the first
# interval.  Reported: the time ebpfcount -v says it took to read and print
# that interval, its row count (distinct keys that arrived), and the
# process's peak RSS (VmHWM) just after it.  First the same for the third
# interval of an idle run (N=0).  One line per N on stdout:
#
#   readout N ROWS MS HWM_KB RSS_KB BURST_S
#
# The peer learns N from the source port of the start frame (N/100) and ends
# every burst with frames to UDP port 9998.
#
#   sh /tests/guest/bench-readout.sh N...
. /tests/guest/lib.sh

fail() { echo "bench-readout: $*" >&2; exit 1; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
go() {
	craft -q -i eth0 -c 5 -g 1:500000 \
		"udp4,src=$EBPFCOUNT_SELF,dst=$EBPFCOUNT_PEER,smac=52:54:00:12:34:01,dmac=52:54:00:12:34:02,sport=$1,dport=9999"
}
status() { sed -n "s/^$2:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$1/status"; }

# measure N T: 0 and a "readout" line, or 1 when the burst outlasted T
measure() {
	local n=$1 t=$2 pid t0 t1 line
	quiet_link
	rm -f /tmp/r.json /tmp/r.err
	ebpfcount -v -i eth0 -F json -I "$t" -c 2 'count by ip.src' >/tmp/r.json 2>/tmp/r.err &
	pid=$!
	retry 30 test -s /tmp/r.err || fail "ebpfcount did not start"
	sleep 1
	kill -0 "$pid" 2>/dev/null || fail "ebpfcount: $(tail -n 3 /tmp/r.err)"
	t0=$(uptime_s)
	go $((n / 100)) &
	timeout 600 tcpdump -i eth0 -Z root -c 1 -n 'udp dst port 9998' >/dev/null 2>&1 ||
		fail "no end of burst from the peer"
	t1=$(uptime_s)
	wait $!
	late=0
	grep -q 'interval 1:' /tmp/r.err && late=1
	retry $((t + 30)) grep -q 'interval 1:' /tmp/r.err || fail "no first interval"
	hwm=$(status "$pid" VmHWM)
	rss=$(status "$pid" VmRSS)
	kill -INT "$pid"
	wait "$pid" || fail "ebpfcount exited with an error: $(tail -n 3 /tmp/r.err)"
	burst=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	if [ $late = 1 ]; then
		echo "# N=$n: the burst took $burst s, longer than the interval ($t s)" >&2
		return 1
	fi
	line=$(sed -n 's/^ebpfcount: interval 1: \([0-9]*\) rows read and printed in \([0-9.]*\) ms$/\1 \2/p' /tmp/r.err)
	[ -n "$line" ] && [ -n "$hwm" ] || fail "no figures: $(tail -n 3 /tmp/r.err)"
	echo "readout $n $line $hwm $rss $burst"
}

# idle: the same, no traffic: the cost of an interval with (nearly) no keys
idle() {
	local pid line
	quiet_link
	ebpfcount -v -i eth0 -F json -c 5 'count by ip.src' >/tmp/r.json 2>/tmp/r.err &
	pid=$!
	retry 30 grep -q 'interval 3:' /tmp/r.err || fail "ebpfcount: $(tail -n 3 /tmp/r.err)"
	hwm=$(status "$pid" VmHWM)
	rss=$(status "$pid" VmRSS)
	kill -INT "$pid"
	wait "$pid" || fail "ebpfcount exited with an error: $(tail -n 3 /tmp/r.err)"
	line=$(sed -n 's/^ebpfcount: interval 3: \([0-9]*\) rows read and printed in \([0-9.]*\) ms$/\1 \2/p' /tmp/r.err)
	[ -n "$line" ] && [ -n "$hwm" ] || fail "no figures: $(tail -n 3 /tmp/r.err)"
	echo "readout 0 $line $hwm $rss 0"
}

wait_peer || fail "the peer does not answer ping"
echo "jit $(cat /proc/sys/net/core/bpf_jit_enable)"
idle
per=0.001	# seconds per source of a burst, as last seen (first guess)
for n in "$@"; do
	# the interval: 1.5 times the expected burst, plus 5 s
	t=$(awk -v p="$per" -v n="$n" 'BEGIN { printf "%d", 5 + 1.5 * p * n }')
	measure "$n" "$t" || { t=$((t * 2)); measure "$n" "$t"; } || fail "N=$n: the burst outlasted $t s twice"
	per=$(awk -v b="$burst" -v n="$n" 'BEGIN { print b / n }')
done
