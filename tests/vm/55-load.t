#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every kind of generated program passes the verifier of both kernels, on
# the series reading the packet directly and from the copy as on stock.
. "$(dirname "$0")/lib.sh"
for k in $KERNELS; do
	series=no
	has_series "$k" && series=yes
	vm_tap "$k: " --kernel "$k" -- sh /tests/guest/load.sh "$series"
done
plan "$tap_n"
done_testing
