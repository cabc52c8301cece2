#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Code quality (issue 5, part 2): ebpfcount's programs next to hand-written
# C compiled by clang -O2 -target bpf (tests/bench/c, built by make bench
# into build/bench) and an empty socket filter (the floor).  ebpfcount's
# programs run as root gets them (reading a copy of the frame on the stack
# when that pays) and as without CAP_PERFMON (LD_ABS only).  For each:
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
repeat=${BENCH_CODEGEN_REPEAT:-500000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# NAME|EXPRESSION|C OBJECT: the cases, in the order of the table
cases="count|count|count
proto|count by ip.proto|proto
src|count by ip.src|src
src24_dport|count by ip.src/24, tcp.dstport where tcp port 443|src24_dport"

adds=(--add "$top/build/bench/empty.bpf.o:/root/c/empty.bpf.o")
args=(empty=/root/c/empty.bpf.o)
while IFS='|' read -r name expr obj; do
	o=$top/build/bench/$obj.bpf.o
	[ -r "$o" ] || { echo "codegen: $o missing: run 'make bench'" >&2; exit 1; }
	adds+=(--add "$o:/root/c/$obj.bpf.o")
	args+=("c_$name=/root/c/$obj.bpf.o" "ec_$name=ebpfcount:$expr" "el_$name=ebpfcount-ld:$expr")
done <<<"$cases"

echo "codegen: $rounds boots of each kernel, $repeat packets per run (1/4 interpreted)"
for r in $(seq "$rounds"); do
	for k in stock patched; do
		if ! "$top/qemu-env/vm" --kernel "$k" --smp 1 "${adds[@]}" -- \
			bench_prog -r "$repeat" -n 5 "${args[@]}" >"$work/log" 2>&1; then
			echo "codegen: bench_prog failed on $k:" >&2
			tail -n 20 "$work/log" >&2
			exit 1
		fi
		tr -d '\r' <"$work/log" | sed -n "s/^prog /$r $k /p" >>"$work/all"
	done
done
python3 - "$work/all" "$rounds" "$cases" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(dict)     # (kernel, mode, prog) -> {round: (insns, xlated, ns)}
for line in open(sys.argv[1]):
    r, k, prog, mode, insns, xlated, jited, ns = line.split()
    d[(k, mode, prog)][r] = (int(insns), int(xlated), float(ns))
rounds = int(sys.argv[2])
cases = [c.split("|") for c in sys.argv[3].split("\n")]
progs = ["empty"] + [p + "_" + c[0] for c in cases for p in ("c", "ec", "el")]
kms = [(k, m) for k in ("stock", "patched") for m in ("jit", "interp")]
if any(len(d[(k, m, p)]) != rounds for k, m in kms for p in progs):
    sys.exit("codegen: measurements missing")

def med(key, i):
    return statistics.median(v[i] for v in d[key].values())

def ratio(a, b, floor=None):
    """median over boots of ns(a)/ns(b), above the floor when given"""
    rs = []
    for r in d[a]:
        f = d[floor][r][2] if floor else 0
        rs.append((d[a][r][2] - f) / (d[b][r][2] - f))
    return statistics.median(rs)

print("%-8s %-4s %-52s %11s %11s %7s %7s %6s %9s %7s" % ("kernel", "jit", "expression",
      "clang ins/x", "ebpfc ins/x", "clang", "ebpfc", "ec/c", "ec/c-flr", "ld/c"))
for k, m in kms:
    fl = (k, m, "empty")
    print("%-8s %-4s %-52s %11s %11s %7.1f %7s %6s %9s" % (k, "on" if m == "jit" else "off",
          "(empty filter: the floor)", "%d/%d" % (med(fl, 0), med(fl, 1)), "", med(fl, 2),
          "", "", ""))
    for name, expr, _ in cases:
        c, e, l = (k, m, "c_" + name), (k, m, "ec_" + name), (k, m, "el_" + name)
        print("%-8s %-4s %-52s %11s %11s %7.1f %7.1f %6.2f %9.2f %7.2f" % (k,
              "on" if m == "jit" else "off", expr, "%d/%d" % (med(c, 0), med(c, 1)),
              "%d/%d" % (med(e, 0), med(e, 1)), med(c, 2), med(e, 2), ratio(e, c),
              ratio(e, c, fl), ratio(l, c)))
print("ins/x: instructions loaded / after the verifier (xlated); clang, ebpfc: ns per packet"
      " (median of %d boots);\nec/c: ebpfcount/clang ns; ec/c-flr: the same above the empty"
      " filter's ns (medians of per-boot ratios);\nld/c: the same program reading with LD_ABS"
      " only (no CAP_PERFMON) over clang's" % rounds)
for m in ("jit", "interp"):
    print("patched/stock ns, jit %s: %s" % ("on" if m == "jit" else "off", ", ".join(
        "%s %.2f" % (p, statistics.median(d[("patched", m, p)][r][2] / d[("stock", m, p)][r][2]
                                          for r in d[("stock", m, p)])) for p in progs)))
PY
