#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-packet cost of per-CPU counting socket filters (tests/progs/bench_percpu.c)
# via BPF_PROG_TEST_RUN, stock vs patched kernel, JIT vs interpreter.
# TCG timings drift by +-30% between boots, so the kernels are booted
# alternately (stock patched stock patched ...) and the figure that counts is
# the median over rounds of the per-round ratio patched/stock.
#
#   tests/bench/percpu.sh       (BENCH_ROUNDS=4, BENCH_REPEAT=1000000)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${BENCH_ROUNDS:-4}
repeat=${BENCH_REPEAT:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "percpu: $rounds rounds of stock/patched boots, $repeat packets per run"
for r in $(seq "$rounds"); do
	for k in stock patched; do
		"$top/qemu-env/vm" --kernel "$k" --smp 1 -- bench_percpu "$repeat" 5 |
			tr -d '\r' | sed -n "s/^bench /$r $k /p" >>"$work/all"
	done
done
python3 - "$work/all" <<'PY'
import collections, statistics, sys
ns = collections.defaultdict(dict)          # (prog, mode, kernel) -> {round: ns}
for line in open(sys.argv[1]):
    r, k, prog, mode, v = line.split()
    ns[(prog, mode, k)][r] = float(v)
progs = ["empty", "array_proto", "hash_src", "lru_src"]
print("%-12s %-6s %10s %10s %14s %18s" % ("program", "mode", "stock ns", "patched ns",
      "patched/stock", "ratios per round"))
for mode in ("jit", "interp"):
    for p in progs:
        s, q = ns.get((p, mode, "stock"), {}), ns.get((p, mode, "patched"), {})
        rs = sorted(set(s) & set(q))
        if not rs:
            print("%-12s %-6s   (no data)" % (p, mode))
            continue
        ratios = [q[r] / s[r] for r in rs]
        print("%-12s %-6s %10.1f %10.1f %14.3f   %s" % (p, mode,
              statistics.median(s.values()), statistics.median(q.values()),
              statistics.median(ratios), " ".join("%.2f" % x for x in ratios)))
print("(ns: median over rounds; patched/stock: median of the per-round ratios)")
for k in ("stock", "patched"):
    parts = []
    for p in progs:
        j, i = ns.get((p, "jit", k), {}), ns.get((p, "interp", k), {})
        rs = sorted(set(j) & set(i))
        if rs:
            parts.append("%s %.2f" % (p, statistics.median([j[r] / i[r] for r in rs])))
    print("%s jit/interp: %s" % (k, ", ".join(parts)))
PY
