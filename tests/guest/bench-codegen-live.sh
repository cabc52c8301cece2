# SPDX-License-Identifier: GPL-2.0
# Guest side of the live part of tests/bench/codegen.sh: while the peer
# floods UDP into this guest, ebpfcount counts EXPRESSION once for each
# way of reading the frame given (EBPFCOUNT_FRAME), next to the empty
# filter (tests/progs/sockfilter_stats), all on eth0, so that each program
# runs on the same packets.  The kernel's BPF statistics
# (kernel.bpf_stats_enabled) give the time in each: lines
# "live NAME RUNS NS", NAME empty or the way.
#
#   sh /tests/guest/bench-codegen-live.sh EXPRESSION WAY...
. /tests/guest/lib.sh
expr=$1
shift
fail() { echo "bench-codegen-live: $*" >&2; exit 1; }

wait_peer || fail "the peer does not answer ping"
echo 1 >/proc/sys/kernel/bpf_stats_enabled || fail "no kernel.bpf_stats_enabled"
quiet_link
sockfilter_stats eth0 /root/c/empty.bpf.o >/tmp/empty.out 2>/tmp/empty.err &
epid=$!
pids=
for w in "$@"; do
	EBPFCOUNT_FRAME=$w ebpfcount -i eth0 -F none -I 0.5 --textfile "/tmp/$w.prom" "$expr" \
		2>"/tmp/$w.err" &
	pids="$pids $!"
done
retry 60 grep -q attached /tmp/empty.out || fail "the empty filter: $(cat /tmp/empty.err)"
for w in "$@"; do
	retry 60 test -s "/tmp/$w.prom" || fail "$w did not start: $(cat "/tmp/$w.err")"
done
timeout 120 iperf3 -s -1 >/dev/null 2>&1 &
ip=$!
retry 10 sh -c 'netstat -ltn | grep -q ":5201 "' || fail "iperf3 server did not start"
send_go
wait "$ip" || fail "iperf3 server failed"
quiet_link
# shellcheck disable=SC2086
kill -INT $pids
kill -TERM "$epid"
wait
awk '/^stats / { printf "live empty %d %d\n", $2, $3 }' /tmp/empty.out
for w in "$@"; do
	awk -v w="$w" '
		/^ebpfcount_program_runs_total / { runs = $2 }
		/^ebpfcount_program_run_seconds_total / { ns = $2 * 1e9 }
		END { if (runs == "") exit 1; printf "live %s %d %.0f\n", w, runs, ns }
	' "/tmp/$w.prom" || fail "$w: no program statistics: $(cat "/tmp/$w.err")"
done
