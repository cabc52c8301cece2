# SPDX-License-Identifier: GPL-2.0
# Main guest of tests/bench/e2e.sh: the peer floods UDP into this guest's
# iperf3 server (iperf3 -u -b 0 -l 16) while one tool at a time runs here:
# ebpfcount, tcpdump -w /dev/null, or none.  Every round runs each tool once,
# in a rotated order.  One line per measurement on stdout:
#
#   e2e ROUND TOOL RX COUNTED SEEN DROPPED CPU CPU_TRAFFIC BUSY RX_BUSY PPS BPS
#
# RX      packets eth0 received from before the tool started to after it
#         stopped (rx_packets delta; the link is quiet at both ends)
# COUNTED packets the tool counted (ebpfcount: final JSON total; tcpdump:
#         "packets captured"), - for no tool
# SEEN    packets that reached the tool's socket (tcpdump: "received by
#         filter", which counts those still unread when it stopped too)
# DROPPED drops the tool reports (tcpdump: "dropped by kernel"; ebpfcount
#         has no drop counter: 0)
# CPU     utime+stime of the tool's process just before stopping it, s
# CPU_TRAFFIC  the part of CPU used from the start of the traffic on
# BUSY    CPU time of the whole guest (all CPUs, not idle) from the start
#         of the traffic until the iperf3 server ended, s: includes the
#         kernel's receive path and iperf3
# RX_BUSY packets eth0 received in that time
# PPS BPS datagrams per second and bit/s the iperf3 server received
#
#   sh /tests/guest/bench-e2e.sh ROUNDS SECS
. /tests/guest/lib.sh
rounds=${1:-3}
secs=${2:-5}
hz=100	# USER_HZ: the clock ticks of /proc/PID/stat and /proc/stat

rx() { cat /sys/class/net/eth0/statistics/rx_packets; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
secs_of() { awk -v t="$1" -v hz=$hz 'BEGIN { printf "%.2f", t / hz }'; }
fail() { echo "bench-e2e: $*" >&2; exit 1; }

# start_tool TOOL: start it in the background, set $pid, wait until it counts
start_tool() {
	rm -f /tmp/tool.out /tmp/tool.err
	case $1 in
	ebpfcount)
		ebpfcount -i eth0 -F json 'count by ip.proto where inbound' \
			>/tmp/tool.out 2>/tmp/tool.err &
		pid=$!
		retry 30 test -s /tmp/tool.out || fail "ebpfcount did not start: $(cat /tmp/tool.err)"
		;;
	tcpdump)
		tcpdump -i eth0 -Z root -w /dev/null inbound >/tmp/tool.out 2>/tmp/tool.err &
		pid=$!
		retry 30 grep -q 'listening on' /tmp/tool.err || fail "tcpdump did not start: $(cat /tmp/tool.err)"
		;;
	none) pid= ;;
	esac
}

# stop_tool TOOL: stop it; set $counted, $seen and $dropped
stop_tool() {
	counted=- seen=- dropped=-
	[ -n "$pid" ] || return 0
	kill -INT "$pid"
	wait "$pid" || fail "$1 exited with status $?: $(cat /tmp/tool.err)"
	case $1 in
	ebpfcount)
		counted=$(sed -n 's/.*"final": true.*"total": {"packets": \([0-9]*\).*/\1/p' /tmp/tool.out)
		seen=$counted dropped=0
		;;
	tcpdump)
		counted=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' /tmp/tool.err)
		seen=$(sed -n 's/^\([0-9]*\) packets\{0,1\} received by filter.*/\1/p' /tmp/tool.err)
		dropped=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' /tmp/tool.err)
		;;
	esac
	[ -n "$counted" ] && [ -n "$seen" ] && [ -n "$dropped" ] || fail "no counts from $1: $(cat /tmp/tool.err)"
}

# measure ROUND TOOL
measure() {
	local t0=0 t1=0 b0 b1 rx0 rxb0 rxb1 rx1 pps bps ip
	quiet_link
	timeout 120 iperf3 -s -1 -J >/tmp/iperf.json 2>&1 &
	ip=$!
	retry 10 sh -c 'netstat -ltn | grep -q ":5201 "' || fail "iperf3 server did not start"
	rx0=$(rx)
	start_tool "$2"
	[ -n "$pid" ] && t0=$(ticks "$pid")
	b0=$(busy)
	rxb0=$(rx)
	send_go
	wait "$ip" || fail "iperf3 server: $(tail -n 5 /tmp/iperf.json)"
	b1=$(busy)
	rxb1=$(rx)
	quiet_link
	[ -n "$pid" ] && t1=$(ticks "$pid")
	stop_tool "$2"
	rx1=$(rx)
	# the server's summary: end.sum_received (datagrams sent minus lost)
	set -- "$1" "$2" $(awk -F'[:,]' '
		/"sum_received"/ { s = 1 }
		s && /"seconds"/ && sec == "" { sec = $2 }
		s && /"bits_per_second"/ && bps == "" { bps = $2 }
		s && /"lost_packets"/ && lost == "" { lost = $2 }
		s && /"packets"/ && !/lost/ && pk == "" { pk = $2 }
		END { if (sec > 0 && pk != "") printf "%.0f %.0f\n", (pk - lost) / sec, bps }' /tmp/iperf.json)
	[ $# = 4 ] || fail "no receiver summary in iperf3's output: $(tail -n 20 /tmp/iperf.json)"
	pps=$3 bps=$4
	echo "e2e $1 $2 $((rx1 - rx0)) $counted $seen $dropped $(secs_of "$t1") $(secs_of $((t1 - t0)))" \
		"$(secs_of $((b1 - b0))) $((rxb1 - rxb0)) $pps $bps"
}

wait_peer || fail "the peer does not answer ping"
echo "jit $(cat /proc/sys/net/core/bpf_jit_enable)"
tools="ebpfcount tcpdump none"
for r in $(seq "$rounds"); do
	for t in $tools; do
		measure "$r" "$t"
	done
	# rotate: every tool runs first, second and last in turn
	tools="${tools#* } ${tools%% *}"
done
