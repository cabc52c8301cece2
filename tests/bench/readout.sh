#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cost of the readout (issue 15): ebpfcount's maps and report, linked into
# tests/progs/bench_readout.c, on kernel maps it fills directly
# (BPF_MAP_UPDATE_BATCH: no packets), one guest boot per kernel, patched
# then stock.  Printed, with ratios:
#
# - an idle interval of the default 'count by ip.src' (two 1024-key
#   preallocated tables swapped, one drained, the overflow read) against
#   one BPF_MAP_LOOKUP_BATCH of an empty preallocated 1024-entry per-CPU
#   hash (target: within 2x; an interval that counted nothing leaves the
#   live table in place), and of the empty 2^20-entry BPF_F_NO_PREALLOC
#   hash ebpfcount read before;
# - N keys (1k, 10k, 100k, 1M; the tables grown to fit them as ebpfcount
#   grows them): one readout (swap, drain, report), and the JSON output of
#   it to /dev/null, against the bare lookup batch and lookup-and-delete
#   batch passes over the same map, 1024 entries a call (target at 100k:
#   readout within 2x of lookup-and-delete, the syscalls it makes);
# - the peak RSS ebpfcount's user space reaches for N keys (maps created,
#   grown, read) against the rows' own size, N rows of key and counter
#   bytes (target: within 2x).
#
#   tests/bench/readout.sh      (BENCH_READOUT_N="1000 10000 100000 1000000")
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sizes=${BENCH_READOUT_N:-1000 10000 100000 1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "readout: 'count by ip.src', tables filled directly; N keys: $sizes"
for k in patched stock; do
	# shellcheck disable=SC2086
	if ! "$top/qemu-env/vm" --kernel "$k" --mem 2048 --timeout 1800 -- \
		sh /tests/guest/bench-readout.sh $sizes >"$work/$k.log" 2>&1; then
		echo "readout: the $k guest failed:" >&2
		tail -n 20 "$work/$k.log" >&2
		exit 1
	fi
	tr -d '\r' <"$work/$k.log" | awk -v k="$k" '
		/^jit / { jit = $2 }
		/^(idle|keys) / { print k, jit, $0 }' >>"$work/all"
done
python3 - "$work/all" <<'PY'
import sys
idle, keys = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    k, jit = f[0], "on" if f[1] == "1" else "off"
    if f[2] == "idle":
        idle[(k, jit)] = [float(v) for v in f[3:6]]
    else:
        keys.setdefault((k, jit), []).append([int(f[3]), int(f[4]), int(f[5])] +
                                             [float(v) for v in f[6:10]] + [int(f[10]), int(f[11])])
if not idle or set(idle) != set(keys):
    sys.exit("readout: measurements missing")
met = lambda r, t: "met" if r <= t else "MISSED"
print("Idle interval (median of 7, us):")
print("%-8s %-3s %10s %10s %10s %12s %12s" % ("kernel", "jit", "ebpfcount", "empty 1k", "old 2^20",
      "x empty 1k", "old/ebpfcount"))
for (k, j), (eb, pre, old) in sorted(idle.items(), reverse=True):
    print("%-8s %-3s %10.1f %10.1f %10.1f %8.2f %-3s %12.1f" % (k, j, eb, pre, old, eb / pre,
          met(eb / pre, 2), old / eb))
print("\nN keys in one interval (ms; median of 3 runs, 1 at 1M):")
print("%-8s %-3s %8s %8s %8s %8s %8s %8s %8s %10s %10s %8s %8s %9s" % (
      "kernel", "jit", "keys", "rows", "table", "readout", "+print", "lookup", "lk+del",
      "x lk+del", "x lookup", "peak MB", "rows MB", "x rows"))
for (k, j), lines in sorted(keys.items(), reverse=True):
    for n, rows, table, rd, pr, lk, dr, peak, rb in lines:
        own = rows * rb / 1048576
        print("%-8s %-3s %8d %8d %8d %8.2f %8.2f %8.2f %8.2f %6.2f %-3s %10.2f %8.1f %8.1f %5.2f %s" % (
              k, j, n, rows, table, rd / 1e3, pr / 1e3, lk / 1e3, dr / 1e3, rd / dr,
              met(rd / dr, 2) if n == 100000 else "", rd / lk, peak / 1024, own,
              peak / 1024 / own, met(peak / 1024 / own, 2)))
print("readout: report_collect() (swap, drain, report) of the interval holding N keys; +print:")
print("its JSON output to /dev/null; lookup, lk+del: one BPF_MAP_LOOKUP_BATCH and one")
print("LOOKUP_AND_DELETE_BATCH pass over the same N entries, 1024 a call; x lk+del: readout over")
print("lk+del (target 2 at 100k); peak MB: VmHWM from creating the maps to the readout minus")
print("VmRSS before (the user space ebpfcount holds for N keys); rows MB:")
print("rows x (key + counter bytes); targets: idle within 2x of the empty 1k table, peak within")
print("2x of the rows' own size.")
PY
