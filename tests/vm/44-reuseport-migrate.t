#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel-patches/0001: reuseport migration runs only sk_reuseport programs.
# The series' selftest (0002, tools/testing/selftests/net/
# reuseport_migrate_filter.c, built from the patched tree) closes a
# listener whose group has a socket filter loaded with expected_attach_type
# BPF_SK_REUSEPORT_SELECT_OR_MIGRATE, with tcp_migrate_req off and on.
# On the series it passes (and the guest's kernel reports no bug: under
# make check-debug, no KASAN report).  On stock it is a known failure: the
# bug is older than the series, so this asserts that stock fails exactly
# as the bug predicts (the filter ran twice for one SYN: once on a stack
# struct), which keeps the test from passing vacuously.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
at_exit 'rm -rf "$work"'

series=""
for k in $KERNELS; do has_series "$k" && series=$k; done
[ -n "$series" ] || { echo "1..0 # SKIP no kernel with the series in '$KERNELS'"; exit 0; }
src=$top/build/kernel/$series/tree/tools/testing/selftests/net/reuseport_migrate_filter.c
ok "the selftest is in the $series tree" test -f "$src"
ok "it builds" gcc -O2 -Wall -o "$work/reuseport_migrate_filter" "$src"

for k in $KERNELS; do
	rc=0
	vm --kernel "$k" --timeout 300 --add "$work/reuseport_migrate_filter:/root/rmf" -- \
		/root/rmf >"$work/$k.log" 2>&1 || rc=$?
	sed 's/^/# '"$k"': /' "$work/$k.log" | tr -d '\r' | grep -av '^# [a-z-]*: $'
	pass=$(grep -ac '^ok [0-9]* migrate\.' "$work/$k.log")
	fail=$(grep -ac '^not ok [0-9]* migrate\.' "$work/$k.log")
	if has_series "$k"; then
		is "$rc" 0 "$k: the selftest exits 0, the kernel reported no bug"
		is "$pass:$fail" "2:0" "$k: both variants pass (tcp_migrate_req off, on)"
	else
		diag "stock: expected failure, the bug 0001 fixes (not a test failure)"
		is "$rc" 1 "stock: the selftest fails, and the guest reports no kernel bug"
		is "$pass:$fail" "0:2" "stock: both variants fail"
		is "$(grep -ac 'ran 2 times for one SYN: it ran on migration' "$work/$k.log")" 2 \
			"stock: in both, the filter ran on migration (2 runs for 1 SYN)"
		ok "stock: with tcp_migrate_req=1 the request was dropped (the filter's 0 is SK_DROP)" \
			grep -aq 'tcp_migrate_req=1: the request did not migrate' "$work/$k.log"
	fi
done
plan "$tap_n"
done_testing
