#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ebpfcount's own programs: per-CPU lookups inlined on the patched kernel
# with the JIT on, out of line with the JIT off and on stock.
. "$(dirname "$0")/lib.sh"
rc=0
for k in stock:no patched:yes; do
	echo "# kernel: ${k%:*}"
	vm --kernel "${k%:*}" -- sh /tests/guest/inline.sh "${k#*:}" |
		sed "s/^\(not \)\{0,1\}ok [0-9]*/& [${k%:*}]/" || rc=1
done
exit $rc
