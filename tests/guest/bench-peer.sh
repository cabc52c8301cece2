# SPDX-License-Identifier: GPL-2.0
# Main guest of tests/bench/peer.sh: ebpfcount against a TC ingress program
# in the style of pktstat-bpf (tests/bench/c/tc_5tuple.bpf.c, attached by
# tests/progs/tc_peer.c), both counting the same 5-tuple.
#
# 1. BPF_PROG_TEST_RUN, 3 times in turn: bench_prog with ebpfcount's program
#    of the UDP 5-tuple (e_udp) and of the TCP one (e_tcp) on bench_prog's
#    TCP frame, then tc_peer -t (the TC program on a UDP frame and on that
#    TCP frame).  Lines "prog NAME MODE INSNS XLATED JITED NS" and
#    "test tc-FRAME INSNS XLATED JITED NS".
# 2. Live, one flood from the peer per phase, in the order of PHASES (the
#    peer's): in "both" the TC program and ebpfcount count the same UDP
#    packets with churning 5-tuples; "steady" is the same with one 5-tuple
#    (every packet a hit); "tc", "ebpfcount" and "none" (no tool) flood
#    churning 5-tuples for the guest's CPU time per received packet.
#    Per phase:
#
#      phase PHASE RX BUSY
#      tc PHASE KEYS PACKETS BYTES RUNS RUN_NS
#      ebpfcount PHASE KEYS INBOUND ALL RUNS RUN_NS
#
# RX: eth0's rx_packets delta over the flood (quiet link at both ends);
# BUSY: the whole guest's non-idle CPU time meanwhile, in USER_HZ ticks;
# KEYS: keys in the map (TC) or ebpfcount's totals; PACKETS: the sum over
# the TC program's LRU map; INBOUND: ebpfcount's packets to this guest (its
# expression also counts what the guest sends), with those counted in the
# overflow (no key: a table full before it grew), ALL: all it counted; RUNS,
# RUN_NS: the kernel's statistics of the program (kernel.bpf_stats_enabled).
#
#   sh /tests/guest/bench-peer.sh REPEAT PHASES [EBPFCOUNT_OPTIONS]
. /tests/guest/lib.sh
repeat=${1:-200000}
phases=${2:-both steady tc ebpfcount none}
opts=${3:-}
obj=/root/c/tc_5tuple.bpf.o
expr='count by ip.src, ip.dst, ip.proto, udp.srcport, udp.dstport'
texpr='count by ip.src, ip.dst, ip.proto, tcp.srcport, tcp.dstport'
fail() { echo "bench-peer: $*" >&2; exit 1; }
rx() { cat /sys/class/net/eth0/statistics/rx_packets; }
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

echo "jit $(cat /proc/sys/net/core/bpf_jit_enable)"
# ebpfcount's program as it loads here: reading the packet directly where
# the kernel lets it (the series), else from the copy
how=ebpfcount
ebpfcount -v -d -i eth0 count 2>&1 >/dev/null | grep -q 'directly' && how=ebpfcount-direct
echo "reads $how"
for _ in 1 2 3; do
	bench_prog -r "$repeat" -n 5 "e_udp=$how:$expr" "e_tcp=$how:$texpr" ||
		fail "bench_prog failed"
	tc_peer -t -r "$repeat" -n 5 "$obj" || fail "tc_peer -t failed"
done

# start PHASE: start the phase's tools; stop PHASE: stop them, print their lines
start() {
	tpid="" epid=""
	case $1 in both|steady|tc)
		tc_peer -i eth0 "$obj" >/tmp/tc.out 2>/tmp/tc.err &
		tpid=$!
		retry 30 grep -q attached /tmp/tc.out || fail "tc_peer did not start: $(cat /tmp/tc.err)"
	esac
	case $1 in both|steady|ebpfcount)
		rm -f /tmp/e.prom
		# one interval for the whole run: no readout during the flood
		# shellcheck disable=SC2086 # $opts: options, split
		ebpfcount -i eth0 -F none -I 3600 $opts --textfile /tmp/e.prom "$expr" 2>/tmp/e.err &
		epid=$!
		retry 60 bound 1 || fail "ebpfcount did not start: $(cat /tmp/e.err)"
	esac
}

stop() {
	if [ -n "$tpid" ]; then
		kill -INT "$tpid"
		wait "$tpid" || fail "tc_peer: $(cat /tmp/tc.err)"
		sed -n "s/^tc /tc $1 /p" /tmp/tc.out
	fi
	if [ -n "$epid" ]; then
		kill -INT "$epid"
		wait "$epid" || fail "ebpfcount: $(cat /tmp/e.err)"
		awk -v p="$1" -v self="ip_dst=\"$EBPFCOUNT_SELF\"" '
			/^ebpfcount_packets_total/ {
				all += $NF
				if (index($0, self) || index($0, "overflow=\"true\"")) inb += $NF
			}
			/^ebpfcount_keys / { keys = $2 }
			/^ebpfcount_program_runs_total / { runs = $2 }
			/^ebpfcount_program_run_seconds_total / { ns = $2 * 1e9 }
			END {
				if (runs == "") exit 1
				printf "ebpfcount %s %d %d %d %d %.0f\n", p, keys, inb, all, runs, ns
			}' /tmp/e.prom || fail "ebpfcount: no program statistics: $(cat /tmp/e.err)"
	fi
}

wait_peer || fail "the peer does not answer ping"
echo 1 >/proc/sys/kernel/bpf_stats_enabled || fail "no kernel.bpf_stats_enabled"
# No ICMP port unreachable back to the flood: one that lands in ebpfcount's
# overflow (no key, so no direction) would count as received.
echo 0 >/proc/sys/net/ipv4/icmp_msgs_burst
echo 0 >/proc/sys/net/ipv4/icmp_msgs_per_sec
for p in $phases; do
	start "$p"
	quiet_link
	rx0=$(rx)
	b0=$(busy)
	send_go
	retry 30 test "$(rx)" -gt $((rx0 + 1000)) || fail "$p: no flood from the peer"
	quiet_link
	b1=$(busy)
	rx1=$(rx)
	stop "$p"
	echo "phase $p $((rx1 - rx0)) $((b1 - b0))"
done
