#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ebpfcount -r: the kernel engine gives the user engine's rows (both
# kernels, JIT on and off); see tests/guest/offline.sh.
. "$(dirname "$0")/lib.sh"
for k in $KERNELS; do
	vm_tap "$k: " --kernel "$k" -- sh /tests/guest/offline.sh
done
plan "$tap_n"
done_testing
