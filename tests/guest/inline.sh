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
# the JIT the map's own lookup function that the verifier calls directly).
# Without inlining by the series every lookup of the program (ebpfcount -d)
# is still a call, but that of the array of maps (every hash), which the
# kernel itself inlines when the JIT is on.  A dump with no instructions
# (the program never loaded) fails either way.
check() {
	local name="jit $1, '$2'${3:+ $3}" insns want
	echo "$1" >/proc/sys/net/core/bpf_jit_enable
	# shellcheck disable=SC2086
	xlated "$2" "$3" >/tmp/xlated
	insns=$(grep -c '^ *[0-9]*: (' /tmp/xlated)
	# (an inlined per-CPU hash lookup still calls __htab_map_lookup_elem,
	# the hash walk, as the kernel's inlined hash lookups do)
	calls=$(grep -c 'call \(bpf_map\|percpu_array_map\|htab_percpu_map\)_lookup_elem' /tmp/xlated)
	# shellcheck disable=SC2086
	ebpfcount -d $3 "$2" >/tmp/listing
	want=$(grep -c 'call bpf_map_lookup_elem' /tmp/listing)
	# a hash counts in the live table of an array of maps, whose lookup
	# the kernel inlines itself with the JIT (one per count: the fast
	# path has its own)
	[ "$1" = 1 ] && want=$((want - $(grep -c 'the live table' /tmp/listing)))
	if [ "$insns" = 0 ]; then
		_tap_result 1 "$name: no translated program to look at"
	elif [ "$series" = yes ] && [ "$1" = 1 ]; then
		is "$calls" 0 "$name: lookups inlined ($insns insns)"
	else
		is "$calls" "$want" "$name: all $want lookups called"
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
