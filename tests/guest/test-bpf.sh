# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/41-test-bpf.t: the kernel's own lib/test_bpf
# module (CONFIG_TEST_BPF=m), run on the last CPU so that a per-CPU pointer
# resolved for CPU 0 shows (the module checks it against the running CPU).
# Arguments: "yes" when the kernel has the series (then its per-CPU test
# must run and pass), "no" for stock; the mode: jit, interp or hardened.  One mode per boot: the kernel cannot unload modules.
# Hardened runs only the per-CPU test: with bpf_jit_harden=2 the JIT fails
# the suite's largest programs, and interpreting them takes an hour on TCG.
. /tests/tap.sh
series=$1
log=/tmp/kmsg	# the whole kernel log, kept by qemu-env/init

percpu_test='ALU64_PERCPU_ADDR_X: register combinations'

run_mode() {
	local mode=$1 jit=$2 harden=$3 rc=0 sum want_jit suites args=
	suites="test_bpf test_tail_calls test_skb_segment"
	if [ "$mode" = hardened ]; then
		suites=test_bpf
		args="test_name=\"$percpu_test\""
	fi
	echo "$jit" >/proc/sys/net/core/bpf_jit_enable
	echo "$harden" >/proc/sys/net/core/bpf_jit_harden
	echo "ebpfcount: test_bpf $mode" >/dev/kmsg
	taskset -c "$(($(nproc) - 1))" insmod /root/test_bpf.ko $args || rc=$?
	sleep 0.5
	sed -n "/ebpfcount: test_bpf $mode\$/,\$p" "$log" | cut -d';' -f2- >"/tmp/$mode.log"
	is "$rc" 0 "$mode: insmod test_bpf succeeds (every suite passed)"
	for suite in $suites; do
		sum=$(grep -a "$suite: Summary:" "/tmp/$mode.log" | tail -n 1)
		diag "$mode: $sum"
		case $sum in
		*" 0 FAILED"*) _tap_result 0 "$mode: $suite: none failed" ;;
		*) _tap_result 1 "$mode: $suite: none failed" ;;
		esac
	done
	grep -a -E 'FAIL( |$)' "/tmp/$mode.log" | head -n 20 | sed 's/^/# /'
	# its result comes in continuations (pr_cont); a message from another
	# context in between splits them into records of their own, flagged
	# "c" in /dev/kmsg's "prio,seq,usec,flags;text": join the test's
	# record with the continuation records after it, skip the others
	line=$(sed -n "/ebpfcount: test_bpf $mode\$/,\$p" "$log" |
		awk -v name="$percpu_test" '
		{ hdr = $0; sub(/;.*/, "", hdr); text = substr($0, length(hdr) + 2) }
		on && hdr ~ /,c(,|$)/ { out = out text }
		!on && index(text, name) { on = 1; out = text }
		on && out ~ /PASS|FAIL/ { print out; on = 0 }' |
		grep -aEo "$percpu_test +(jited:[0-9] [0-9]+ [A-Z]+|[A-Z]+)" | tail -n 1)
	diag "$mode: ${line:-no per-CPU test}"
	if [ "$series" = yes ]; then
		want_jit=1
		[ "$jit" = 0 ] && want_jit=0
		case $line in
		*"jited:$want_jit "*PASS) _tap_result 0 "$mode: the per-CPU address test passes, jited:$want_jit" ;;
		*) _tap_result 1 "$mode: the per-CPU address test passes, jited:$want_jit" ;;
		esac
	else
		is "$line" "" "$mode: stock has no per-CPU address test"
	fi
}

case $2 in
jit) run_mode jit 1 0 ;;
interp) run_mode interp 0 0 ;;
hardened) run_mode hardened 1 2 ;;
*) echo "Bail out! unknown mode '$2'"; exit 2 ;;
esac
plan "$tap_n"
done_testing
