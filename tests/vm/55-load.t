#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every kind of generated program passes the verifier of both kernels.
. "$(dirname "$0")/lib.sh"
for k in $KERNELS; do
	vm_tap "$k: " --kernel "$k" -- sh /tests/guest/load.sh
done
plan "$tap_n"
done_testing
