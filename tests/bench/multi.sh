#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Several expressions in one program (issue 14): ebpfcount -e E1 -e E2 -e E3
# -e E4, one program that analyses the headers once, against four
# ebpfcount processes of one expression each, whose four programs all run
# on every packet (tests/guest/bench-multi.sh).  Side by side in one boot of
# each kernel: ns per packet through BPF_PROG_TEST_RUN (JIT on and off,
# medians of 5 interleaved runs, also net of the empty filter's ns, the
# cost of a run itself, once per program), and live under a UDP flood the
# kernel's BPF statistics of the five programs on the same packets.
#
#   tests/bench/multi.sh   (BENCH_MULTI_REPEAT=200000 packets per run,
#                           BENCH_MULTI_SECS=5 of flood)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
repeat=${BENCH_MULTI_REPEAT:-200000}
secs=${BENCH_MULTI_SECS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
empty=$top/build/bench/empty.bpf.o
[ -r "$empty" ] || { echo "multi: $empty missing: run 'make bench'" >&2; exit 1; }

peer=". /tests/guest/lib.sh
wait_go && retry 5 iperf3 -c 198.18.0.1 -u -b 0 -l 16 -t $secs >/dev/null"

echo "multi: 4 expressions in one program vs 4 programs; $repeat packets per test run," \
	"$secs s of iperf3 -u -b 0 -l 16"
for k in stock patched; do
	if ! "$top/qemu-env/vm" --kernel "$k" --peer "$peer" --timeout 900 \
		--add "$empty:/root/c/empty.bpf.o" -- \
		sh /tests/guest/bench-multi.sh "$repeat" "$secs" >"$work/$k.log" 2>&1; then
		echo "multi: the $k guest failed:" >&2
		grep -v '^peer| ' "$work/$k.log" | tail -n 20 >&2
		exit 1
	fi
	tr -d '\r' <"$work/$k.log" | sed -n "s/^\(prog\|live\) /$k \1 /p" >>"$work/all"
done
python3 - "$work/all" <<'PY'
import collections, sys
prog, live = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[1] == "prog":          # kernel prog NAME MODE INSNS XLATED JITED NS
        prog[(f[0], f[3], f[2])] = (int(f[4]), float(f[7]))
    else:                       # kernel live NAME RUNS NS COUNTED
        live[(f[0], f[2])] = (int(f[3]), int(f[4]), int(f[5]))
singles = ["e1", "e2", "e3", "e4"]
print("%-8s %-9s %10s %10s %7s %12s %12s %7s" % ("kernel", "run", "one ns", "4 progs ns",
      "ratio", "one net", "4 net", "ratio"))
for k in ("stock", "patched"):
    for m in ("jit", "interp"):
        try:
            one, fl = prog[(k, m, "one")][1], prog[(k, m, "empty")][1]
            four = sum(prog[(k, m, e)][1] for e in singles)
        except KeyError:
            sys.exit("multi: measurements missing for %s %s" % (k, m))
        print("%-8s %-9s %10.1f %10.1f %7.2f %12.1f %12.1f %7.2f" % (k, "test " + m, one, four,
              one / four, one - fl, four - 4 * fl, (one - fl) / (four - 4 * fl)))
    try:
        r1, n1, c1 = live[(k, "one")]
        per = [live[(k, e)][1] / live[(k, e)][0] for e in singles]
        ce1 = live[(k, "e1")][2]
    except (KeyError, ZeroDivisionError):
        sys.exit("multi: live measurements missing for %s" % k)
    print("%-8s %-9s %10.1f %10.1f %7.2f %12s %12s %7s   (%d runs; ip.proto counted %d vs %d%s)"
          % (k, "live", n1 / r1, sum(per), n1 / r1 / sum(per), "", "", "", r1, c1, ce1,
             "" if c1 == ce1 else ": DIFFER"))
print("ns per packet: one program of 4 expressions, and the sum of the 4 one-expression programs;"
      "\nnet: less the empty filter's ns once per program (BPF_PROG_TEST_RUN's own cost);"
      "\nlive: the kernel's BPF statistics (run time / runs) of each program on the same flood")
PY
