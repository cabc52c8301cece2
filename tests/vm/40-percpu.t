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
for k in patched stock; do
	want=no
	[ "$k" = patched ] && want=yes
	rc=0
	out=$(vm --kernel "$k" --smp 2 -- percpu_inline --inline "$want" 2>&1) || rc=$?
	import "$k: " <<<"$out"
	is "$rc" 0 "$k: percpu_inline --inline $want exits 0"
	lru[$k]=$(grep -a '^# lru-order ' <<<"$out" | tr -d '\r')
done
ok "the LRU tests ran on both kernels" \
	test -n "${lru[stock]}" -a "$(wc -l <<<"${lru[stock]}")" = 3
is "${lru[patched]}" "${lru[stock]}" "LRU eviction order: the same keys survive on patched and stock"
plan "$tap_n"
done_testing
