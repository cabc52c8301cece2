# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/42-inline.t: are the per-CPU map lookups of
# ebpfcount's own programs inlined?  Argument: "yes" when the kernel under
# test has the series (then only with the JIT on), "no" for stock.
. /tests/tap.sh
series=$1
plan 6

# xlated EXPR: the translated program of ebpfcount loaded with EXPR.
# Wait until it is loaded (start-up takes seconds on a KASAN kernel), then
# stop it with SIGTERM: a background job of a script ignores SIGINT until
# ebpfcount installs its handler.
xlated() {
	local i=0
	ebpfcount -i eth0 $2 "$1" >/dev/null 2>&1 &
	pid=$!
	until bpftool prog show name ebpfcount >/dev/null 2>&1 || [ $i -ge 240 ]; do
		sleep 0.25
		i=$((i + 1))
	done
	sleep 0.5
	bpftool prog dump xlated name ebpfcount 2>/dev/null
	kill -TERM $pid
	wait $pid
}

# check JIT EXPR OPTS: count the out-of-line lookups (the helper, or with
# the JIT the map's own lookup function that the verifier calls directly)
check() {
	echo "$1" >/proc/sys/net/core/bpf_jit_enable
	calls=$(xlated "$2" "$3" |
		grep -c 'call \(bpf_map\|percpu_array_map\|htab_percpu_map\)_lookup_elem')
	if [ "$series" = yes ] && [ "$1" = 1 ]; then
		is "$calls" 0 "jit $1, '$2' $3: lookups inlined"
	else
		cmp_ok "$calls" -ge 1 "jit $1, '$2' $3: lookups called ($calls)"
	fi
}

check 1 'count by ip.proto' ''
check 1 'count by ip.src' ''
check 1 'count by ip.src' '--max-keys 1000'
check 0 'count by ip.proto' ''
check 0 'count by ip.src' ''
check 0 'count by ip.src' '--max-keys 1000'
echo 1 >/proc/sys/net/core/bpf_jit_enable
done_testing
