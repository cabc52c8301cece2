#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scale of the readout (issue 5, part 3): 'count by ip.src' with 1k, 10k and
# 100k distinct sources (the peer sends one frame from each, paced; frames
# still get lost between the guests on a busy host, so the table shows how
# many sources arrived), then
# the time ebpfcount -v reports for reading and printing (JSON, to a file)
# the interval that holds them all, and the process's peak RSS (VmHWM).
# Patched kernel, then stock (tests/guest/bench-readout.sh); ratios show
# how the figures grow from one N to the next.
#
#   tests/bench/readout.sh      (BENCH_READOUT_N="1000 10000 100000")
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sizes=${BENCH_READOUT_N:-1000 10000 100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The peer: N/100 comes as the source port of the start frame.
peer='. /tests/guest/lib.sh
while :; do
	code=$(tcpdump -i eth0 -Z root -c 1 -n "udp dst port 9999" 2>/dev/null |
		sed -n "s/.*\.\([0-9]*\) > [0-9.]*\.9999:.*/\1/p")
	n=$((${code:-0} * 100))
	[ "$n" -gt 0 ] && craft -q -i eth0 -g 5:1000 "udp4,n=$n,srcrange=$n"
	sleep 1
	craft -q -i eth0 -c 3 udp4,dport=9998
	sleep 2
done'

echo "readout: count by ip.src with $sizes distinct sources, ebpfcount -v -F json >file"
for k in patched stock; do
	# shellcheck disable=SC2086
	if ! "$top/qemu-env/vm" --kernel "$k" --peer "$peer" --timeout 900 -- \
		sh /tests/guest/bench-readout.sh $sizes >"$work/$k.log" 2>&1; then
		echo "readout: the $k guest failed:" >&2
		grep -v '^peer| ' "$work/$k.log" | tail -n 20 >&2
		exit 1
	fi
	tr -d '\r' <"$work/$k.log" | awk -v k="$k" '
		/^jit / { jit = $2 }
		/^readout / { $1 = k " " jit; print }
		/^# / { print > "/dev/stderr" }' >>"$work/all"
done
python3 - "$work/all" "$sizes" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    k, jit, n, nrows, ms, hwm, rss, burst = line.split()
    rows[(k, jit, int(n))] = (int(nrows), float(ms), int(hwm), int(rss))
sizes = [int(n) for n in sys.argv[2].split()]
kernels = [(k, j) for k, j in sorted({(k, j) for k, j, _ in rows}, reverse=True)]
if not kernels or any((k, j, n) not in rows for k, j in kernels for n in [0] + sizes):
    sys.exit("readout: measurements missing")
print("%-8s %-3s %7s %7s %10s %9s %9s %10s %9s" % ("kernel", "jit", "sources", "rows",
      "read+print", "us/row", "peak RSS", "x time", "x RSS"))
for k, j in kernels:
    prev = None
    for n in [0] + sizes:
        nrows, ms, hwm, rss = rows[(k, j, n)]
        grow = ("%10.2f %9.2f" % (ms / prev[1], hwm / prev[2])) if prev else "%10s %9s" % ("", "")
        print("%-8s %-3s %7d %7d %7.1f ms %9s %6.1f MB %s" % (k, "on" if j == "1" else "off",
              n, nrows, ms, "%.1f" % (ms * 1e3 / nrows) if n and nrows else "-", hwm / 1024,
              grow))
        prev = (n, ms, hwm) if n else None
print("rows: keys in the interval (distinct sources that arrived, plus this guest's own);"
      " read+print: ebpfcount -v's\nfigure for that interval (sources 0: an idle interval);"
      " peak RSS: VmHWM after it; x time, x RSS:\ngrowth from the previous line")
PY
