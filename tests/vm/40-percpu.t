#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-CPU map lookups (kernel-patches/): inlined on the patched kernel with
# the JIT, not inlined with the JIT off, interpreted after a JIT failure (see
# tests/progs/percpu_inline.c), and never on the stock kernel; each CPU's
# slot counts exactly that CPU's packets on both kernels, in every mode.
. "$(dirname "$0")/lib.sh"

for k in patched stock; do
	want=no
	[ "$k" = patched ] && want=yes
	rc=0
	out=$(vm --kernel "$k" --smp 2 -- percpu_inline --inline "$want" 2>&1) || rc=$?
	import "$k: " <<<"$out"
	is "$rc" 0 "$k: percpu_inline --inline $want exits 0"
done
plan "$tap_n"
done_testing
