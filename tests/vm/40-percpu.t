#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-CPU map lookups (kernel-patches/): inlined on the patched kernel with
# the JIT, not inlined with the JIT off, interpreted after a JIT failure (see
# tests/progs/percpu_inline.c), and never on the stock kernel; each CPU's
# slot counts exactly that CPU's packets on both kernels, in every mode.
# The LRU eviction pattern (which keys survive after lookups) must be the
# same on both kernels: the inlined LRU lookup still sets the reference bit.
. "$(dirname "$0")/lib.sh"

declare -A lru
for k in $KERNELS; do
	want=no
	has_series "$k" && want=yes
	rc=0
	out=$(vm --kernel "$k" --smp 2 -- percpu_inline --inline "$want" 2>&1) || rc=$?
	import "$k: " <<<"$out"
	# percpu_inline plans at its end: a result lost on the way (the serial
	# console can drop characters) shows as fewer results than planned
	is "$rc:$import_seen" "0:$import_planned" \
		"$k: percpu_inline --inline $want exits 0 after all its $import_planned tests"
	lru[$k]=$(grep -a '^# lru-order ' <<<"$out" | tr -d '\r')
done
for k in $KERNELS; do
	ok "$k: the LRU tests ran" test "$(grep -c . <<<"${lru[$k]}")" = 3
	has_series "$k" && is "${lru[$k]}" "${lru[stock]}" \
		"LRU eviction order: the same keys survive on $k and stock"
done
plan "$tap_n"
done_testing
