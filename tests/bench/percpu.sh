#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-packet cost of per-CPU counting socket filters (tests/progs/bench_percpu.c)
# via BPF_PROG_TEST_RUN, stock vs patched kernel, JIT vs interpreter.
# TCG timings drift by +-30% between boots, so the kernels are booted
# alternately (stock patched stock patched ...) and the figure that counts is
# the median over rounds of the per-round ratio patched/stock, printed with
# the range of those ratios.  Every session's per-round figures are kept in
# tests/bench/results/percpu-DATE.txt (commit them with the change they
# measure), whatever they show.
#
#   tests/bench/percpu.sh   (BENCH_ROUNDS=6, BENCH_REPEAT=1000000, BENCH_SMP=2)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${BENCH_ROUNDS:-6}
repeat=${BENCH_REPEAT:-1000000}
smp=${BENCH_SMP:-2}
mkdir -p "$top/tests/bench/results"
raw=$top/tests/bench/results/percpu-$(date -u +%Y%m%d-%H%M).txt

{
	echo "# tests/bench/percpu.sh $(date -u '+%F %T') UTC, $rounds rounds, $repeat packets per run, $smp vCPUs"
	echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# round kernel program mode fastest-ns median-ns"
} >"$raw"
echo "percpu: $rounds rounds of stock/patched boots, $repeat packets per run, $smp vCPUs"
for r in $(seq "$rounds"); do
	for k in stock patched; do
		"$top/qemu-env/vm" --kernel "$k" --smp "$smp" -- bench_percpu "$repeat" 5 |
			tr -d '\r' | sed -n "s/^bench /$r $k /p" >>"$raw"
	done
done
echo "# host load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$raw"
echo "raw per-round figures: ${raw#"$top"/}"
python3 - "$raw" <<'PY'
import collections, statistics, sys
ns = collections.defaultdict(dict)          # (prog, mode, kernel) -> {round: ns}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    r, k, prog, mode, best, _median = line.split()
    ns[(prog, mode, k)][r] = float(best)
progs = ["empty", "array_proto", "hash_src", "lru_src", "hash_rand", "lru_rand"]
med = statistics.median

def spread(xs):
    return "%.3f  [%.3f-%.3f]" % (med(xs), min(xs), max(xs))

def rel(p, mode, k):
    """per boot: ns of p minus ns of the empty filter of the same boot"""
    a, e = ns.get((p, mode, k), {}), ns.get(("empty", mode, k), {})
    return {r: a[r] - e[r] for r in a if r in e}

print("%-12s %-6s %8s %8s  %-22s %s" % ("program", "mode", "stock", "patched",
      "p/s median [range]", "net of empty: p/s median [range]"))
for mode in ("jit", "interp"):
    for p in progs:
        s, q = ns.get((p, mode, "stock"), {}), ns.get((p, mode, "patched"), {})
        rs = sorted(set(s) & set(q))
        if not rs:
            print("%-12s %-6s   (no data)" % (p, mode))
            continue
        line = "%-12s %-6s %8.1f %8.1f  %-22s" % (p, mode, med(s.values()), med(q.values()),
                                                 spread([q[r] / s[r] for r in rs]))
        if p != "empty":
            a, b = rel(p, mode, "stock"), rel(p, mode, "patched")
            net = [b[r] / a[r] for r in rs if r in a and r in b and a[r] > 0]
            if net:
                line += " " + spread(net)
        print(line)
print("ns/packet: median over boots of the fastest of 5 runs per boot; p/s: the")
print("per-round ratios patched/stock, median and [min-max] over rounds; net of")
print("empty: the same after subtracting the empty filter of the same boot.")
def ji(p, k):
    """per boot: JIT ns / interpreter ns (the interpreted lookup is the
    same code on both kernels, so it cancels the drift of each boot)"""
    j, i = ns.get((p, "jit", k), {}), ns.get((p, "interp", k), {})
    return {r: j[r] / i[r] for r in j if r in i}
parts = []
for p in progs:
    a, b = ji(p, "stock"), ji(p, "patched")
    rs = sorted(set(a) & set(b))
    if rs:
        parts.append("%s %s" % (p, spread([b[r] / a[r] for r in rs])))
print("patched/stock of jit/interp per round, median [range]:")
for x in parts:
    print("  " + x)
PY
