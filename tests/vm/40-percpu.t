#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-CPU map lookups (kernel-patches/): inlined on the patched kernel with
# the JIT, not inlined with the JIT off, interpreted after a JIT failure (see
# tests/progs/percpu_inline.c), and never on the stock kernel; each CPU's
# slot counts exactly that CPU's packets on both kernels, in every mode.
. "$(dirname "$0")/lib.sh"

# import PREFIX: re-emit the guest's TAP lines as results of this test
import() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) _tap_result 0 "$1${line#ok * - }" ;;
		"not ok "*) _tap_result 1 "$1${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		"1.."*) ;;
		*) echo "# $line" ;;
		esac
	done
}

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
