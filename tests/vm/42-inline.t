#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ebpfcount's own programs: per-CPU lookups inlined on the patched kernel
# with the JIT on, out of line with the JIT off and on stock.
. "$(dirname "$0")/lib.sh"
for k in $KERNELS; do
	want=no
	has_series "$k" && want=yes
	vm_tap "$k: " --kernel "$k" -- sh /tests/guest/inline.sh "$want"
done
plan "$tap_n"
done_testing
