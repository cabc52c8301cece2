#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cost table (issue 27): ebpfcount's benchmark programs and their clang
# twins, counted in the user engine on a fixed packet mix
# (tests/bench/cost.py); no program of ebpfcount's may execute more
# instructions per packet than tests/bench/cost-baseline.txt allows, so
# code quality cannot regress unseen.  Counted, not timed; no bpf(2).
top=$(cd "$(dirname "$0")/../.." && pwd)
for f in build/bench/cost build/bench/src24_dport.bpf.o build/bin/craft; do
	[ -x "$top/$f" ] || [ -r "$top/$f" ] || { echo "Bail out! $f missing (make check builds it)"; exit 1; }
done
out=$("$top/tests/bench/cost.py" --tap) || rc=1
# the table as diagnostics, the checks as they are
printf '%s\n' "$out" | sed -n '/^1\.\./,$p'
printf '%s\n' "$out" | sed -n '/^1\.\./q;s/^/# /p'
exit ${rc:-0}
