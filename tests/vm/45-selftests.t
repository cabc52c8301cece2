#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own BPF regression programs (test_verifier, test_lru_map),
# built from each kernel's tree by qemu-env/selftests.sh, run on the stock
# and the patched kernel: the patched kernel must not fail any test_verifier
# case that does not also fail on stock, and test_lru_map must pass.  The
# series' own test_verifier cases pass on the series (JIT on, off and
# hardened) and, run by the patched tree's test_verifier on stock, fail
# there: those are the only new failures on stock.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs in the guest: prints "lru_rc=N", "tv_rc=N", the Summary line, the
# name of every failing case as "FAIL name (p|u)" and "tv_fails=N", how
# many such lines there are (counted in the guest: the serial console can
# drop characters of long outputs).  libbpf's warnings go to stderr, kept
# apart: written into the same file, they landed inside result lines
# ("#881/p maplibbpf: failed to find valid kernel BTF"), and a FAIL
# there was not counted.
guest='echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled
/root/test_lru_map >/tmp/lru.log 2>&1; echo "lru_rc=$?"; tail -n 3 /tmp/lru.log
/root/test_verifier >/tmp/tv.log 2>/tmp/tv.err; echo "tv_rc=$?"
grep "^Summary" /tmp/tv.log
sed -n "s|^#[0-9]*/\([up]\) \(.*\) FAIL.*|FAIL \2 (\1)|p" /tmp/tv.log >/tmp/tv.fail
cat /tmp/tv.fail
echo "tv_fails=$(wc -l </tmp/tv.fail)"
grep "per-CPU address opcode" /tmp/tv.log
grep -c "^#[0-9]*/[up] \(sk_filter: \|global function: \).* OK" /tmp/tv.log | sed "s/^/series_ok=/"
r=$(sed -n "s|^#\([0-9]*\)/p \(global function: \|sk_filter: \).*|\1|p" /tmp/tv.log | sort -n | sed -n "1p;\$p")
if [ -n "$r" ]; then
	for m in "0 0" "1 2"; do
		set -- $m
		echo $1 >/proc/sys/net/core/bpf_jit_enable
		echo $2 >/proc/sys/net/core/bpf_jit_harden
		/root/test_verifier $r >/tmp/tvm.log 2>/tmp/tvm.err
		echo "series_mode jit=$1 harden=$2 $(grep "^Summary" /tmp/tvm.log)"
	done
	echo 1 >/proc/sys/net/core/bpf_jit_enable
	echo 0 >/proc/sys/net/core/bpf_jit_harden
fi
exit 0'

# The cases the series adds or changes (0007, 0009 and the test3 case).
series_case='^FAIL (sk_filter: |global function: |direct packet access: test3 )'

for k in $KERNELS; do
	dir=$("$top/qemu-env/selftests.sh" "$k") || { echo "Bail out! cannot build $k selftests"; exit 1; }
	rc=0
	vm --kernel "$k" --timeout 1800 --add "$dir/test_verifier:/root/test_verifier" \
		--add "$dir/test_lru_map:/root/test_lru_map" -- sh -c "$guest" >"$work/$k.log" 2>&1 || rc=$?
	grep -a '^ebpfcount-vm: ' "$work/$k.log" | head -n 40 | sed 's/^/# /'
	is "$rc" 0 "$k: the guest exits 0, its kernel reported no bug"
	grep -a '^FAIL ' "$work/$k.log" | LC_ALL=C sort -u >"$work/$k.fail"
	sum=$(grep -a '^Summary' "$work/$k.log" || true)
	diag "$k test_verifier: ${sum:-no summary}"
	ok "$k: test_verifier ran to the end" test -n "$sum"
	# The comparison below sees only the cases listed as FAIL: as many as
	# the Summary counts, and test_verifier exits 1 exactly when there are.
	failed=$(sed -n 's/.* \([0-9][0-9]*\) FAILED.*/\1/p' <<<"$sum")
	rcwant=0
	[ "${failed:-0}" -gt 0 ] && rcwant=1
	is "$(grep -a '^tv_fails=' "$work/$k.log" | tr -d '\r'):$(grep -a '^tv_rc=' "$work/$k.log" | tr -d '\r')" \
		"tv_fails=${failed:-none}:tv_rc=$rcwant" \
		"$k: every failing case listed (as many as the Summary's FAILED), exit status to match"
	is "$(grep -a '^lru_rc=' "$work/$k.log")" "lru_rc=0" "$k: test_lru_map passes"
done

for k in $KERNELS; do
	has_series "$k" || continue
	# without a stock run there is nothing to compare with (comm would
	# fail and leave $new empty: a pass)
	if [ ! -f "$work/stock.fail" ]; then
		skip "$k: no test_verifier case fails that does not fail on stock" \
			"stock is not in EBPFCOUNT_KERNELS ($KERNELS)"
	else
		new=$(LC_ALL=C comm -13 "$work/stock.fail" "$work/$k.fail")
		[ -n "$new" ] && diag "failing on $k only:" && sed 's/^/#   /' <<<"$new"
		is "$new" "" "$k: no test_verifier case fails that does not fail on stock"
	fi
	grep -a 'per-CPU address opcode' "$work/$k.log" | sed 's/^/# /'
	ok "$k: the case rejecting the internal per-CPU opcode passes (p and u)" \
		test "$(grep -ac 'per-CPU address opcode OK' "$work/$k.log")" = 2
	n=$(grep -a '^series_ok=' "$work/$k.log" | tr -dc 0-9)
	diag "$k: ${n:-0} runs of the series' sk_filter and global function cases pass"
	ok "$k: the series' direct packet read cases run and pass" test "${n:-0}" -ge 60
	for m in "jit=0 harden=0" "jit=1 harden=2"; do
		line=$(grep -a "^series_mode $m " "$work/$k.log" | tr -d '\r')
		diag "$k: the series' cases, $m: ${line#series_mode $m }"
		ok "$k: the series' cases pass with $m" \
			grep -qE 'Summary: (6[0-9]|[7-9][0-9]) PASSED, [0-9]+ SKIPPED, 0 FAILED' <<<"$line"
	done
done

# The patched tree's test_verifier on stock: its new cases must fail there
# (they test the series), and nothing else may fail that stock's own fails.
if has_series "${KERNELS##* }" && [[ " $KERNELS " == *" stock "* ]]; then
	k=${KERNELS##* }
	dir=$("$top/qemu-env/selftests.sh" "$k") || { echo "Bail out! cannot build $k selftests"; exit 1; }
	rc=0
	vm --kernel stock --timeout 1800 --add "$dir/test_verifier:/root/test_verifier" \
		--add "$dir/test_lru_map:/root/test_lru_map" -- sh -c "$guest" >"$work/cross.log" 2>&1 || rc=$?
	is "$rc" 0 "$k's test_verifier on stock: the guest exits 0"
	grep -a '^FAIL ' "$work/cross.log" | LC_ALL=C sort -u >"$work/cross.fail"
	diag "$k's test_verifier on stock: $(grep -a '^Summary' "$work/cross.log" || echo no summary)"
	extra=$(LC_ALL=C comm -13 "$work/stock.fail" "$work/cross.fail")
	other=$(grep -avE "$series_case" <<<"$extra" || true)
	[ -n "$other" ] && diag "failing on stock, not a case of the series:" && sed 's/^/#   /' <<<"$other"
	is "$other" "" "$k's test_verifier on stock: only the series' cases fail beyond stock's own"
	n=$(grep -acE "$series_case" <<<"$extra" || true)
	diag "$n of the series' cases fail on stock"
	ok "$k's test_verifier on stock: the series' sk_filter cases fail there" \
		grep -q '^FAIL sk_filter: .* (p)' <<<"$extra"
	ok "$k's test_verifier on stock: the global function write case fails there" \
		grep -q '^FAIL global function: packet pointer of a read-only program (p)' <<<"$extra"
fi
plan "$tap_n"
done_testing
