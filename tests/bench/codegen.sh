#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Code quality (issue 5, part 2): ebpfcount's programs next to hand-written
# C compiled by clang -O2 -target bpf (tests/bench/c, built by make bench
# into build/bench) and an empty socket filter (the floor).  ebpfcount's
# programs run as root gets them on stock (reading a copy of the frame on
# the stack when that pays), as without CAP_PERFMON (LD_ABS only), and on
# the patched kernel also reading the packet directly (kernel-patches/
# 0008), next to C twins that read directly too (issue 15).  For each:
# instructions loaded and after the verifier (xlated), and ns per packet
# through BPF_PROG_TEST_RUN (tests/progs/bench_prog.c), with the JIT and
# interpreted, on the stock and the patched kernel.  The kernels boot
# alternately (stock patched stock patched ...); ns are medians over the
# boots, ratios medians of the per-boot ratios.
#
#   tests/bench/codegen.sh   (BENCH_CODEGEN_ROUNDS=2 boots of each kernel,
#                             BENCH_CODEGEN_REPEAT=500000 packets per run)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${BENCH_CODEGEN_ROUNDS:-2}
secs=${BENCH_CODEGEN_LIVE_SECS:-5}
repeat=${BENCH_CODEGEN_REPEAT:-500000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# NAME|EXPRESSION|C OBJECT: the cases, in the order of the table.  The C
# objects have direct-read twins (NAME_direct.bpf.o) but for count, which
# reads nothing.
cases="count|count|count
proto|count by ip.proto|proto
src|count by ip.src|src
src24_dport|count by ip.src/24, tcp.dstport where tcp port 443|src24_dport"

adds=(--add "$top/build/bench/empty.bpf.o:/root/c/empty.bpf.o")
args=(empty=/root/c/empty.bpf.o)
direct=()	# patched only: direct reads, which stock refuses
while IFS='|' read -r name expr obj; do
	o=$top/build/bench/$obj.bpf.o
	d=$obj
	[ "$name" != count ] && d=${obj}_direct
	for f in "$o" "$top/build/bench/$d.bpf.o"; do
		[ -r "$f" ] || { echo "codegen: $f missing: run 'make bench'" >&2; exit 1; }
	done
	adds+=(--add "$o:/root/c/$obj.bpf.o" --add "$top/build/bench/$d.bpf.o:/root/c/$d.bpf.o")
	args+=("c_$name=/root/c/$obj.bpf.o" "ec_$name=ebpfcount:$expr" "el_$name=ebpfcount-ld:$expr")
	direct+=("cd_$name=/root/c/$d.bpf.o" "ed_$name=ebpfcount-direct:$expr")
done <<<"$cases"

echo "codegen: $rounds boots of each kernel, $repeat packets per run (1/4 interpreted)"
for r in $(seq "$rounds"); do
	for k in stock patched; do
		extra=()
		[ "$k" = patched ] && extra=("${direct[@]}")
		if ! "$top/qemu-env/vm" --kernel "$k" --smp 1 "${adds[@]}" -- \
			bench_prog -r "$repeat" -n 5 "${args[@]}" "${extra[@]}" >"$work/log" 2>&1; then
			echo "codegen: bench_prog failed on $k:" >&2
			tail -n 20 "$work/log" >&2
			exit 1
		fi
		tr -d '\r' <"$work/log" | sed -n "s/^prog /$r $k /p" >>"$work/all"
	done
done
# Live: one boot of each kernel, the peer flooding UDP; stock reads the
# copy, the patched kernel reads directly and the copy, beside the empty
# filter.
live_expr='count by ip.src/24, udp.dstport where udp port 5201'
peer=". /tests/guest/lib.sh
wait_go && retry 5 iperf3 -c 198.18.0.1 -u -b 0 -l 64 -t $secs >/dev/null"
for k in stock patched; do
	ways=window
	[ "$k" = patched ] && ways="direct window"
	# shellcheck disable=SC2086
	if ! "$top/qemu-env/vm" --kernel "$k" --peer "$peer" --timeout 900 \
		--add "$top/build/bench/empty.bpf.o:/root/c/empty.bpf.o" -- \
		sh /tests/guest/bench-codegen-live.sh "$live_expr" $ways >"$work/live-$k.log" 2>&1; then
		echo "codegen: the live $k guest failed:" >&2
		grep -v '^peer| ' "$work/live-$k.log" | tail -n 20 >&2
		exit 1
	fi
	tr -d '\r' <"$work/live-$k.log" | sed -n "s/^live /$k /p" >>"$work/live"
done
python3 - "$work/all" "$rounds" "$cases" "$work/live" "$live_expr" "$secs" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(dict)     # (kernel, mode, prog) -> {round: (insns, xlated, ns)}
for line in open(sys.argv[1]):
    r, k, prog, mode, insns, xlated, jited, ns = line.split()
    d[(k, mode, prog)][r] = (int(insns), int(xlated), float(ns))
rounds = int(sys.argv[2])
cases = [c.split("|") for c in sys.argv[3].split("\n")]
names = [c[0] for c in cases]
progs = {"stock": ["empty"] + [p + "_" + n for n in names for p in ("c", "ec", "el")]}
progs["patched"] = progs["stock"] + [p + "_" + n for n in names for p in ("cd", "ed")]
kms = [(k, m) for k in ("stock", "patched") for m in ("jit", "interp")]
if any(len(d[(k, m, p)]) != rounds for k, m in kms for p in progs[k]):
    sys.exit("codegen: measurements missing")

def med(key, i=2):
    return statistics.median(v[i] for v in d[key].values())

def ratio(a, b, floor=None):
    """median over boots of ns(a)/ns(b), above the floor when given"""
    rs = []
    for r in d[a]:
        f = d[floor][r][2] if floor else 0
        rs.append((d[a][r][2] - f) / (d[b][r][2] - f))
    return statistics.median(rs)

def insns(key):
    return "%d/%d" % (med(key, 0), med(key, 1))

print("%-8s %-4s %-42s %-6s %11s %11s %7s %7s %6s %9s %7s" % ("kernel", "jit", "expression",
      "reads", "clang ins/x", "ebpfc ins/x", "clang", "ebpfc", "ec/c", "ec/c-flr", "ld/c"))
for k, m in kms:
    fl = (k, m, "empty")
    print("%-8s %-4s %-42s %-6s %11s %11s %7.1f" % (k, "on" if m == "jit" else "off",
          "(empty filter: the floor)", "", insns(fl), "", med(fl)))
    for name, expr, _ in cases:
        rows = [("c", "ec", "window")] + ([("cd", "ed", "direct")] if k == "patched" else [])
        for cp, ep, how in rows:
            c, e, l = (k, m, cp + "_" + name), (k, m, ep + "_" + name), (k, m, "el_" + name)
            print("%-8s %-4s %-42s %-6s %11s %11s %7.1f %7.1f %6.2f %9.2f %7.2f" % (k,
                  "on" if m == "jit" else "off", expr, how, insns(c), insns(e), med(c),
                  med(e), ratio(e, c), ratio(e, c, fl), ratio(l, c)))
print("reads: window: ebpfcount's copy on the stack, clang's LD_ABS; direct: both read the "
      "packet\n(kernel-patches/ 0008) with LD_ABS past its linear part.  ins/x: instructions "
      "loaded / after\nthe verifier; clang, ebpfc: ns per packet (median of %d boots); ec/c: "
      "ebpfcount/clang ns;\nec/c-flr: the same above the empty filter's ns; ld/c: ebpfcount "
      "with LD_ABS only (no\nCAP_PERFMON) over clang's (window rows: clang's LD_ABS)" % rounds)
for m in ("jit", "interp"):
    print("patched/stock ns, same program, jit %s: %s" % ("on" if m == "jit" else "off",
          ", ".join("%s %.2f" % (p, statistics.median(
              d[("patched", m, p)][r][2] / d[("stock", m, p)][r][2] for r in d[("stock", m, p)]))
              for p in progs["stock"])))

def across(a, b):
    """median over boots of ns(a) / ns(b), a and b from the same round"""
    return statistics.median(d[a][r][2] / d[b][r][2] for r in d[a])

print("targets:")
w = "src24_dport"
for m, what in (("jit", "JIT on"), ("interp", "interpreted")):
    x = across(("stock", m, "ec_" + w), ("patched", m, "ed_" + w))
    print("  where clause, %s: stock (window) / patched (direct) = %.2fx%s" % (what, x,
          " (target >= 2: %s)" % ("met" if x >= 2 else "MISSED") if m == "jit" else ""))
for name in names:
    x = ratio(("patched", "jit", "ed_" + name), ("patched", "jit", "cd_" + name))
    y = ratio(("patched", "interp", "ed_" + name), ("patched", "interp", "cd_" + name))
    print("  %-12s patched, direct, ebpfcount/clang: JIT %.2f (target <= 1: %s), "
          "interpreted %.2f (target <= 1.2: %s)" % (name, x, "met" if x <= 1 else "MISSED",
          y, "met" if y <= 1.2 else "MISSED"))

live = {}
for line in open(sys.argv[4]):
    k, w, runs, ns = line.split()
    live[(k, w)] = (int(runs), int(ns))
print("live, %s s of iperf3 -u -b 0 -l 64 into the guest, '%s', JIT on, kernel BPF "
      "statistics:" % (sys.argv[6], sys.argv[5]))
per = {kw: ns / runs if runs else float("nan") for kw, (runs, ns) in live.items()}
for (k, w), (runs, ns) in sorted(live.items()):
    net = per[(k, w)] - per[(k, "empty")]
    print("  %-8s %-7s %10d runs %8.1f ns/run%s" % (k, w, runs, per[(k, w)],
          "" if w == "empty" else "  %8.1f net of the empty filter" % net))
net = lambda k, w: per[(k, w)] - per[(k, "empty")]
x = net("stock", "window") / net("patched", "direct")
print("  where clause, live: stock (window) / patched (direct), net = %.2fx (target >= 2: %s); "
      "patched window / direct = %.2fx" % (x, "met" if x >= 2 else "MISSED",
                                           net("patched", "window") / net("patched", "direct")))
# Every measurement (ROUND KERNEL NAME MODE INSNS XLATED JITED NS), which
# tests/bench/cost.py fits its weights to.
for line in open(sys.argv[1]):
    print("raw", line.strip())
PY
