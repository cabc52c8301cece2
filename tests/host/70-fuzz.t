#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fuzz targets of tests/fuzz (see its README), briefly: built if needed
# (make fuzzers installs clang through qemu-env/deps.sh when run as root),
# each run on every crash reproducer of tests/fuzz/regress/TARGET, then
# fuzzed for FUZZ_TEST_SECONDS (15) with a fixed seed, from its seeds into
# a scratch corpus.  No crash, no leak, no finding of the targets' oracles.
# Nothing here loads BPF: the programs run in the user engine.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
cd "$top" || exit 1
secs=${FUZZ_TEST_SECONDS:-15}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! make --no-print-directory fuzzers >"$tmp/make.log" 2>&1; then
	tail -20 "$tmp/make.log" | sed 's/^/# /'
	echo "Bail out! make fuzzers failed"
	exit 1
fi
targets=()
for f in tests/fuzz/fuzz_*.c; do
	targets+=("$(basename "$f" .c)")
done
plan $((2 * ${#targets[@]}))

# regress TARGET: every reproducer, run once
regress() {
	local t=$1 files=("tests/fuzz/regress/$1"/*)

	build/fuzz/"$t" "${files[@]}" >"$tmp/$t.regress.log" 2>&1 && return 0
	grep -E 'FINDING|ERROR|runtime error|Running: ' "$tmp/$t.regress.log" | tail -5 |
		sed 's/^/# /'
	return 1
}

for t in "${targets[@]}"; do
	n=$(find "tests/fuzz/regress/$t" -type f 2>/dev/null | wc -l)
	if [ "$n" -gt 0 ]; then
		ok "$t: the crash reproducers of tests/fuzz/regress ($n)" regress "$t"
	else
		skip "$t: crash reproducers" "none in tests/fuzz/regress/$t"
	fi
	if tests/fuzz/run -t "$secs" -s 1 -d "$tmp" "$t" >"$tmp/$t.out"; then
		ok "$t: $secs s of fuzzing, no crash" true
	else
		ok "$t: $secs s of fuzzing, no crash" false
		grep -E 'FINDING|ERROR|runtime error' "$tmp/log/$t.log" | head -5 | sed 's/^/# /'
		cp -r "$tmp/artifacts/$t" "build/fuzz/artifacts-70-fuzz-$t" 2>/dev/null &&
			diag "the crashing input: build/fuzz/artifacts-70-fuzz-$t/"
	fi
	tail -2 "$tmp/$t.out" | head -1 | sed 's/^/# /'
done
done_testing
