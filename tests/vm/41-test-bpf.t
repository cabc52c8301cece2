#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's lib/test_bpf module on both kernels, JIT on and off: every
# suite passes, and on the patched kernel the per-CPU address test (all
# register pairs, on the last CPU) runs and passes, also JIT-hardened.
. "$(dirname "$0")/lib.sh"
for k in $KERNELS; do
	want=no
	has_series "$k" && want=yes
	ko=$(dirname "$(readlink -f "$top/build/kernel/$k/bzImage")")/test_bpf.ko
	modes="jit interp"
	has_series "$k" && modes="$modes hardened"	# hardened: the per-CPU test only
	for mode in $modes; do
		vm_tap "$k: " --kernel "$k" --smp 2 --add "$ko:/root/test_bpf.ko" -- \
			sh /tests/guest/test-bpf.sh "$want" "$mode"
	done
done
plan "$tap_n"
done_testing
