# SPDX-License-Identifier: GPL-2.0
# Main guest of tests/bench/multi.sh: one program of four expressions
# (ebpfcount -e ... -e ...) against the four programs of four ebpfcount
# processes, one expression each.
#
# 1. BPF_PROG_TEST_RUN (tests/progs/bench_prog.c), JIT on and off, the
#    cases interleaved: lines "prog NAME MODE INSNS XLATED JITED NS".
# 2. Live: the peer floods UDP into this guest (iperf3 -u -b 0 -l 16) while
#    all five processes count on eth0, so every program runs on the same
#    packets; the kernel's BPF statistics (kernel.bpf_stats_enabled), as
#    each process exports them in its --textfile, give the time in each
#    program.  Lines "live NAME RUNS NS COUNTED": runs and ns of its
#    program, and packets counted by 'count by ip.proto' (one and e1).
#
#   sh /tests/guest/bench-multi.sh REPEAT SECS
. /tests/guest/lib.sh
repeat=${1:-200000}
secs=${2:-5}
fail() { echo "bench-multi: $*" >&2; exit 1; }

set -- 'count by ip.proto' 'count by ip.src/24, ip.dst/24' \
	'count by ip.dst, tcp.dstport, udp.dstport' 'count by ip.src/24 where not port 22'

bench_prog -r "$repeat" -n 5 empty=/root/c/empty.bpf.o "one=ebpfcount:$1;$2;$3;$4" \
	"e1=ebpfcount:$1" "e2=ebpfcount:$2" "e3=ebpfcount:$3" "e4=ebpfcount:$4" ||
	fail "bench_prog failed"

wait_peer || fail "the peer does not answer ping"
echo 1 >/proc/sys/kernel/bpf_stats_enabled || fail "no kernel.bpf_stats_enabled"
quiet_link
ebpfcount -i eth0 -F none -I 0.5 --textfile /tmp/one.prom -e "$1" -e "$2" -e "$3" -e "$4" \
	2>/tmp/one.err &
pids=$!
i=0
for e in "$@"; do
	i=$((i + 1))
	ebpfcount -i eth0 -F none -I 0.5 --textfile /tmp/e$i.prom "$e" 2>/tmp/e$i.err &
	pids="$pids $!"
done
for n in one e1 e2 e3 e4; do
	retry 60 test -s /tmp/$n.prom || fail "$n did not start: $(cat /tmp/$n.err)"
done
timeout 120 iperf3 -s -1 >/dev/null 2>&1 &
ip=$!
retry 10 sh -c 'netstat -ltn | grep -q ":5201 "' || fail "iperf3 server did not start"
send_go
wait "$ip" || fail "iperf3 server failed"
quiet_link
kill -INT $pids
wait
for n in one e1 e2 e3 e4; do
	awk -v n=$n -v e="$1" '
		/^ebpfcount_program_runs_total / { runs = $2 }
		/^ebpfcount_program_run_seconds_total / { ns = $2 * 1e9 }
		/^ebpfcount_packets_total/ && (n == "e1" || index($0, "{expr=\"" e "\"")) {
			counted += $NF
		}
		END { if (runs == "") exit 1; printf "live %s %d %.0f %d\n", n, runs, ns, counted }
	' /tmp/$n.prom || fail "$n: no program statistics: $(cat /tmp/$n.err)"
done
