#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ebpfcount's own programs: per-CPU lookups inlined on the patched kernel
# with the JIT on, out of line with the JIT off and on stock.
. "$(dirname "$0")/lib.sh"
vm_tap "stock: " --kernel stock -- sh /tests/guest/inline.sh no
vm_tap "patched: " --kernel patched -- sh /tests/guest/inline.sh yes
plan "$tap_n"
done_testing
