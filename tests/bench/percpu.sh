#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-packet cost of per-CPU counting socket filters (tests/progs/bench_percpu.c)
# via BPF_PROG_TEST_RUN, stock vs patched kernel, JIT vs interpreter.
# TCG timings drift by +-30% between boots, so the kernels are booted
# alternately (stock patched stock patched ...) and the figure that counts is
# the median over rounds of the per-round ratio patched/stock.
#
#   tests/bench/percpu.sh       (BENCH_ROUNDS=6, BENCH_REPEAT=1000000)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${BENCH_ROUNDS:-6}
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
    r, k, prog, mode, best, _median = line.split()
    ns[(prog, mode, k)][r] = float(best)
progs = ["empty", "array_proto", "hash_src", "lru_src"]
med = statistics.median

def rel(p, mode, k):
    """per boot: ns of p minus ns of the empty filter of the same boot"""
    a, e = ns.get((p, mode, k), {}), ns.get(("empty", mode, k), {})
    return {r: a[r] - e[r] for r in a if r in e}

print("%-12s %-6s %9s %9s %9s %12s %12s" % ("program", "mode", "stock", "patched",
      "p/s", "stock-floor", "patched-floor"))
for mode in ("jit", "interp"):
    for p in progs:
        s, q = ns.get((p, mode, "stock"), {}), ns.get((p, mode, "patched"), {})
        rs = sorted(set(s) & set(q))
        if not rs:
            print("%-12s %-6s   (no data)" % (p, mode))
            continue
        ratios = [q[r] / s[r] for r in rs]
        line = "%-12s %-6s %9.1f %9.1f %9.3f" % (p, mode, med(s.values()),
                                                 med(q.values()), med(ratios))
        if p != "empty":
            rs_, rq = rel(p, mode, "stock"), rel(p, mode, "patched")
            line += " %12.1f %12.1f   net p/s %.3f" % (med(rs_.values()), med(rq.values()),
                    med([rq[r] / rs_[r] for r in rs if r in rq and r in rs_ and rs_[r] > 0]))
        print(line + "   [" + " ".join("%.2f" % x for x in ratios) + "]")
print("ns/packet: median over boots of the fastest of 5 runs per boot; p/s: median")
print("of the per-round ratios patched/stock [listed]; -floor: minus the empty")
print("filter of the same boot, net p/s: median of the per-round ratios of those")
def ji(p, k):
    """per boot: JIT ns / interpreter ns (the interpreted lookup is the
    same code on both kernels, so it cancels the drift of each boot)"""
    j, i = ns.get((p, "jit", k), {}), ns.get((p, "interp", k), {})
    return {r: j[r] / i[r] for r in j if r in i}
for k in ("stock", "patched"):
    print("%s jit/interp: %s" % (k, ", ".join("%s %.3f" % (p, med(ji(p, k).values()))
                                               for p in progs if ji(p, k))))
parts = []
for p in progs:
    a, b = ji(p, "stock"), ji(p, "patched")
    rs = sorted(set(a) & set(b))
    if rs:
        parts.append("%s %.3f" % (p, med([b[r] / a[r] for r in rs])))
print("patched/stock of jit/interp (median of per-round ratios): " + ", ".join(parts))
PY
