#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End to end, per tool, same traffic (issue 5, part 1).  The peer guest
# floods 16-byte UDP datagrams (iperf3 -u -b 0 -l 16) into the main guest,
# where, in turn, ebpfcount ('count by ip.proto where inbound'), tcpdump -w
# /dev/null inbound, or no tool runs; the order rotates over the rounds of
# one boot (tests/guest/bench-e2e.sh).  Figures: packets eth0 received, what
# the tool counted and says it dropped, its process's CPU time, the whole
# guest's busy CPU time and the iperf3 receiver's rate; ratios are medians
# of the per-round ratios.  Patched kernel, then stock; JIT as booted.
#
#   tests/bench/e2e.sh        (BENCH_E2E_ROUNDS=3, BENCH_E2E_SECS=5)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${BENCH_E2E_ROUNDS:-3}
secs=${BENCH_E2E_SECS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

peer=". /tests/guest/lib.sh
while :; do
	wait_go
	retry 5 iperf3 -c 198.18.0.1 -u -b 0 -l 16 -t $secs >/dev/null
done"

echo "e2e: $rounds rounds of ebpfcount/tcpdump/none per boot, iperf3 -u -b 0 -l 16 -t $secs"
for k in patched stock; do
	if ! "$top/qemu-env/vm" --kernel "$k" --peer "$peer" --timeout 600 -- \
		sh /tests/guest/bench-e2e.sh "$rounds" "$secs" >"$work/$k.log" 2>&1; then
		echo "e2e: the $k guest failed:" >&2
		grep -v '^peer| ' "$work/$k.log" | tail -n 20 >&2
		exit 1
	fi
	tr -d '\r' <"$work/$k.log" | awk -v k="$k" '
		/^jit / { jit = $2 }
		/^e2e / { $1 = k " " jit; print }' >>"$work/all"
done
python3 - "$work/all" "$rounds" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(dict)        # (kernel, jit, tool) -> {round: fields}
for line in open(sys.argv[1]):
    k, jit, r, tool, rx, counted, seen, dropped, cpu, cpu_t, busy, rx_busy, pps, bps = line.split()
    num = lambda v: None if v == "-" else int(v)
    f = dict(rx=int(rx), counted=num(counted), seen=num(seen), dropped=num(dropped),
             cpu=float(cpu), cpu_t=float(cpu_t), busy=float(busy), pps=float(pps))
    f["us"] = f["busy"] * 1e6 / int(rx_busy) if int(rx_busy) else float("nan")
    f["ratio"] = f["counted"] / f["rx"] if f["counted"] is not None and f["rx"] else None
    rows[(k, "jit" if jit == "1" else "interp", tool)][int(r)] = f
want = int(sys.argv[2])
tools = ("ebpfcount", "tcpdump", "none")
kernels = sorted({(k, j) for k, j, _ in rows}, reverse=True)
if (not kernels or any(len(rows[key]) != want for key in rows) or
        any((k, j, t) not in rows for k, j in kernels for t in tools)):
    sys.exit("e2e: measurements missing")

def med(key, f):
    v = [x[f] for x in rows[key].values() if x[f] is not None]
    return statistics.median(v) if v else None

def ratio(a, b, f, floor=0.0):
    """median over rounds of a[f] / b[f] (b[f] counted as at least floor), and the list"""
    rs = [rows[a][r][f] / max(rows[b][r][f], floor) for r in sorted(rows[a])
          if r in rows[b] and max(rows[b][r][f], floor) > 0]
    if not rs:
        return "-"
    return "%.2f [%s]" % (statistics.median(rs), " ".join("%.2f" % x for x in rs))

def opt(v, fmt):
    return "-" if v is None else fmt % v

print("%-7s %-3s %-9s %8s %8s %8s %8s %7s %6s %6s %7s %7s" % ("kernel", "jit", "tool",
      "received", "counted", "cnt/rcv", "seen", "dropped", "cpu s", "cpu tr", "us/pkt",
      "rx kpps"))
for k, j in kernels:
    for t in tools:
        key = (k, j, t)
        print("%-7s %-3s %-9s %8d %8s %8s %8s %7s %6.2f %6.2f %7.1f %7.2f" % (k,
              "on" if j == "jit" else "off", t, med(key, "rx"), opt(med(key, "counted"), "%d"),
              opt(med(key, "ratio"), "%.4f"), opt(med(key, "seen"), "%d"),
              opt(med(key, "dropped"), "%d"), med(key, "cpu"), med(key, "cpu_t"),
              med(key, "us"), med(key, "pps") / 1e3))
print("""medians over %d rounds.  received: eth0's rx_packets delta; counted: ebpfcount's final total,
tcpdump's "packets captured"; seen: tcpdump's "received by filter" (read or not when it stopped);
cpu s: the tool's utime+stime at exit (start-up included); cpu tr: its part during the traffic;
us/pkt: the whole guest's non-idle CPU time while iperf3 ran per packet eth0 received (kernel
receive path, iperf3, the tool); rx kpps: datagrams/s the iperf3 server received""" % want)
tick = 0.01   # /proc/PID/stat counts 10 ms: a 0 counts as one tick in ratios
for k, j in kernels:
    e, t, n = (k, j, "ebpfcount"), (k, j, "tcpdump"), (k, j, "none")
    print("%s, jit %s (median [per round]):" % (k, "on" if j == "jit" else "off"))
    print("  cpu tcpdump/ebpfcount %s; traffic only %s (0 counted as 10 ms)" % (
          ratio(t, e, "cpu", tick), ratio(t, e, "cpu_t", tick)))
    print("  us/pkt vs no tool: ebpfcount %s, tcpdump %s" % (ratio(e, n, "us"), ratio(t, n, "us")))
    print("  rx kpps vs no tool: ebpfcount %s, tcpdump %s" % (ratio(e, n, "pps"),
          ratio(t, n, "pps")))
PY
