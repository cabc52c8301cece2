#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every kind of generated program passes the verifier of both kernels.
. "$(dirname "$0")/lib.sh"
rc=0
for k in stock patched; do
	echo "# kernel: $k"
	vm --kernel "$k" -- sh /tests/guest/load.sh | sed "s/^\(not \)\{0,1\}ok [0-9]*/& [$k]/" || rc=1
done
exit $rc
