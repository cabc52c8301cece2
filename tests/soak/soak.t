#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak (not part of make check): SOAK_SECONDS (default 600) of
# constant iperf3 traffic and churning keys from the peer guest; three
# ebpfcount instances' RSS and descriptors, the BPF maps and programs and
# the kernel's per-CPU memory must stay flat after the first minute, and
# the totals must equal eth0's receive counter (tests/guest/soak.sh).
# The guest's figures stream as they are sampled, every 30 s.
. "$(dirname "$0")/../vm/lib.sh"
secs=${SOAK_SECONDS:-600}
rcf=$(mktemp)
trap 'rm -f "$rcf"' EXIT
start=$(date +%s)
import "" < <(rc=0
	vm --kernel "$KERNEL" --timeout $((secs + 900)) --peer "sh /tests/guest/soak.sh $secs" \
		-- sh /tests/guest/soak.sh "$secs" 2>&1 || rc=$?
	echo "$rc" >"$rcf")
diag "host: the guests ran $(($(date +%s) - start)) s of wall time ($KERNEL kernel)"
is "$(cat "$rcf"):$import_seen" "0:$import_planned" "guest exits 0 after all its $import_planned tests"
plan "$tap_n"
done_testing
