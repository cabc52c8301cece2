#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The cost table (issue 27): what ebpfcount's benchmark programs and their
clang -O2 twins cost per packet, counted in the user engine rather than timed
under TCG, so that noise cannot move it.

    tests/bench/cost.py [--json] [--tap] [--write-baseline] [--fit FILE]

build/bench/cost (tests/bench/cost.c) runs each program on each packet of a
fixed mix and reports what it executed: instructions, LD_ABS, context loads,
helper calls by kind, stack bytes.  The weighted cost is a model of ns per
packet: a weight per instruction, per LD_ABS, per context load (the
verifier's rewrites of __sk_buff reads), per bpf_skb_load_bytes() and per map
lookup of each kind (inlined by the verifier or not), plus the run's fixed
cost, fitted by least squares (relative error, no negative weight) to the
newest `make bench` codegen run in tests/bench/results (the file and its
commit are printed; a new run there is a refit).  One fit per JIT mode over
both kernels' runs: instructions, LD_ABS and bpf_skb_load_bytes() are the
same code in both and share a weight; the run and the map lookups (which
the series changes) have one per kernel.  Copy and ld_abs rows are weighed
as stock runs them, direct rows as the patched kernel does.  The
leave-one-out error of each fit is printed.

--json prints one object per program, mode and packet after the table.
--tap checks that no program of ebpfcount's executes more instructions than
tests/bench/cost-baseline.txt allows (make check); --write-baseline writes
that file from this tree.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
B = os.path.join(TOP, "build")
BASELINE = os.path.join(TOP, "tests", "bench", "cost-baseline.txt")
# The fit in use: weights fitted to a codegen run with the counts of the
# programs that run measured (--refit writes it), so that the weights do
# not move when the compiler changes the programs.
FIT = os.path.join(TOP, "tests", "bench", "cost-fit.json")

# NAME, craft spec, cost.c options: the packet mix.  tcp4 is the benchmarks'
# frame (tests/progs/bench_prog.c).
PACKETS = [
    ("tcp4", "tcp4,src=198.18.0.2,dst=198.18.0.1,sport=40000,dport=443,len=60", ""),
    ("udp4", "udp4,src=198.18.0.2,dst=198.18.0.1,sport=40000,dport=53,len=90", ""),
    ("tcp6", "tcp6,sport=40000,dport=443,len=80", ""),
    ("udp6", "udp6,sport=40000,dport=123,len=110", ""),
    ("vlan", "tcp4,vlan=42,sport=40000,dport=443,len=64", ""),
    ("short", "tcp4,sport=40000,dport=443,len=60", ",len=30"),
    ("nonlinear", "tcp4,sport=40000,dport=443,len=1514", ",linear=34"),
    ("frag", "udp4,frag=later,len=200", ""),
]

# NAME, expression, C twin, C twin reading directly: the benchmarks' programs
# (tests/bench/codegen.sh), and the UDP 5-tuple next to the TC peer.
PROGRAMS = [
    ("count", "count", "count", "count"),
    ("proto", "count by ip.proto", "proto", "proto_direct"),
    ("src", "count by ip.src", "src", "src_direct"),
    ("src24_dport", "count by ip.src/24, tcp.dstport where tcp port 443", "src24_dport",
     "src24_dport_direct"),
    ("udp5", "count by ip.src, ip.dst, ip.proto, udp.srcport, udp.dstport", None, None),
]
PEER = "tc-peer"        # tc_5tuple.bpf.o: udp5's twin

# The model's terms: a name, and what of a run's counts it weighs.  The
# verifier inlines an array of maps' lookup (8 instructions for the call):
# counted as instructions.  A map update is weighed as a hash lookup (the
# repeat-key mix has none).
TERMS = [
    ("run", lambda c: 1),
    ("insn", lambda c: c["insns"] + 7 * c["lookups"].get("array_of_maps", 0)),
    ("ld_abs", lambda c: c["ld_abs"]),
    ("load_bytes", lambda c: c["load_bytes"]),
    ("array_lookup", lambda c: c["lookups"].get("array", 0) + c["lookups"].get("percpu_array", 0)),
    ("hash_lookup", lambda c: sum(c["lookups"].get(t, 0) for t in
                                  ("hash", "percpu_hash", "lru_hash")) +
     sum(c["updates"].values())),
]


def run_cost(cost=os.path.join(B, "bench", "cost")):
    tmp = tempfile.mkdtemp()
    args = []
    for name, spec, opts in PACKETS:
        f = os.path.join(tmp, name + ".pcap")
        subprocess.run([os.path.join(B, "bin", "craft"), "-q", "-w", f, spec], check=True)
        args += ["-p", "%s=%s%s" % (name, f, opts)]
    obj = lambda n: os.path.join(B, "bench", n + ".bpf.o")
    for name, expr, twin, direct in PROGRAMS:
        args.append(expr + ("|%s|%s" % (obj(twin), obj(direct)) if twin else ""))
    args += ["@%s=%s" % (PEER, obj("tc_5tuple")), "@empty=%s" % obj("empty")]
    out = subprocess.run([cost] + args, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    return [json.loads(line) for line in out.splitlines()]


def bench_runs(path):
    """(commit, {(kernel, jit|interp, bench name): median ns}) of a codegen run"""
    text = open(path).read()
    m = re.search(r"commit (\S+)", text)
    commit = m.group(1) if m else "not recorded in the file"
    raw = {}
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "raw" and len(f) == 9:
            raw.setdefault((f[2], f[4], f[3]), []).append(float(f[8]))
    if raw:
        return commit, {k: statistics.median(v) for k, v in raw.items()}
    # Runs before the raw lines: the table (ns of clang's and ebpfcount's
    # programs, and ebpfcount's LD_ABS one as a ratio to clang's).
    ns = {}
    names = {expr: name for name, expr, _, _ in PROGRAMS}
    for line in text.splitlines():
        f = line.split()
        if len(f) < 4 or f[0] not in ("stock", "patched") or f[1] not in ("on", "off"):
            continue
        k, j = f[0], "jit" if f[1] == "on" else "interp"
        if "floor" in line:
            ns[(k, j, "empty")] = float(f[-1])
            continue
        reads, clang, ebpfc, ldc = f[-8], float(f[-5]), float(f[-4]), float(f[-1])
        name = names[" ".join(f[2:-8])]
        if reads == "window":
            ns[(k, j, "c_" + name)] = clang
            ns[(k, j, "ec_" + name)] = ebpfc
            ns[(k, j, "el_" + name)] = ldc * clang
        else:
            ns[(k, j, "cd_" + name)] = clang
            ns[(k, j, "ed_" + name)] = ebpfc
    return commit, ns


def solve(rows, ys, cols):
    """least squares of relative error over the terms cols, weights >= 0"""
    cols = list(cols)
    while True:
        n = len(cols)
        a = [[0.0] * (n + 1) for _ in range(n)]
        for r, y in zip(rows, ys):
            x = [r[c] / y for c in cols]
            for i in range(n):
                for j in range(n):
                    a[i][j] += x[i] * x[j]
                a[i][n] += x[i]
        for i in range(n):
            a[i][i] += 1e-9 * (1 + a[i][i])
        for i in range(n):     # Gauss-Jordan, partial pivoting
            p = max(range(i, n), key=lambda k: abs(a[k][i]))
            a[i], a[p] = a[p], a[i]
            for k in range(n):
                if k != i and a[i][i]:
                    t = a[k][i] / a[i][i]
                    a[k] = [u - t * v for u, v in zip(a[k], a[i])]
        w = {c: a[i][n] / a[i][i] for i, c in enumerate(cols)}
        neg = [c for c in cols if w[c] < 0]
        if not neg:
            return w
        cols.remove(min(neg, key=lambda c: w[c]))


# Terms whose weight depends on the kernel (the series changes per-CPU map
# lookups; the run's fixed cost is the test run's); the others (the JIT's
# code, LD_ABS, bpf_skb_load_bytes()) are the same code in both kernels and
# get one weight from the runs of both.
PER_KERNEL = ("run", "array_lookup", "hash_lookup")


def term_values(c, k):
    return {(t + "@" + k if t in PER_KERNEL else t): fn(c) for t, fn in TERMS}


def fit(features, ns):
    """per JIT mode, over both kernels: weights, leave-one-out errors, runs"""
    fits = {}
    for j in ("jit", "interp"):
        pts = [(term_values(features[n], k), y) for (k, jj, n), y in ns.items()
               if jj == j and n in features]
        if len(pts) < 4:
            continue
        cols = sorted({t for r, _ in pts for t in r if any(rr.get(t) for rr, _ in pts)})
        rows = [{t: r.get(t, 0) for t in cols} for r, _ in pts]
        ys = [y for _, y in pts]
        w = solve(rows, ys, cols)
        # leave-one-out, over the runs whose terms other runs also have
        loo = []
        for i in range(len(rows)):
            if any(rows[i][t] and not any(r[t] for r in rows[:i] + rows[i + 1:])
                   for t in cols):
                continue
            wi = solve(rows[:i] + rows[i + 1:], ys[:i] + ys[i + 1:], cols)
            pred = sum(wi.get(t, 0) * rows[i][t] for t in cols)
            loo.append(abs(pred - ys[i]) / ys[i])
        for k in ("stock", "patched"):
            fits[(k, j)] = ({t: w.get(t + "@" + k, w.get(t, 0)) for t, _ in TERMS}, loo,
                            len(rows))
    return fits


def weighted(w, c):
    return sum(w.get(t, 0) * fn(c) for t, fn in TERMS)


def bench_features(rows):
    """the counts of each benchmark program (bench_prog names) on tcp4"""
    f = {}
    for r in rows:
        if r["packet"] != "tcp4":
            continue
        name = next((n for n, e, _, _ in PROGRAMS if e == r["program"]), r["program"])
        if r["program"] == "empty":
            f["empty"] = r
        elif r["mode"] == "copy":
            f["ec_" + name] = r
            if "twin" in r:
                f["c_" + name] = r["twin"]
        elif r["mode"] == "ld_abs":
            f["el_" + name] = r
        elif r["mode"] == "direct":
            f["ed_" + name] = r
            if "twin" in r:
                f["cd_" + name] = r["twin"]
    return f


def print_targets(by, fits):
    """issue 27's targets on the benchmarks' frame, in the cost model"""
    def w(r, k, j):
        return weighted(fits[(k, j)][0], r) if (k, j) in fits else float("nan")

    def verdict(x, limit, above=False):
        return "%.2f (target %s %g: %s)" % (x, ">=" if above else "<=", limit,
                                          "met" if (x >= limit if above else x <= limit)
                                          else "MISSED")

    print("\ntargets on tcp4, udp5's on udp4 (weighted: model ns; insns: executed instructions):")
    for name, expr, twin, _ in PROGRAMS:
        for m, k in (("copy", "stock"), ("direct", "patched")):
            r = by["%s|%s|%s" % (expr, m, "tcp4" if twin else "udp4")]
            t = r["twin"]
            print("  %-12s %-6s ebpfcount/%s: insns %s, weighted JIT %s, interpreted %s" % (
                name, m, "clang" if twin else "TC peer",
                verdict(r["insns"] / t["insns"], 1), verdict(w(r, k, "jit") / w(t, k, "jit"), 1),
                verdict(w(r, k, "interp") / w(t, k, "interp"), 1.2)))
    r, d = by[PROGRAMS[3][1] + "|copy|tcp4"], by[PROGRAMS[3][1] + "|direct|tcp4"]
    print("  where clause, stock (copy) / patched (direct), weighted JIT: %s" %
          verdict(w(r, "stock", "jit") / w(d, "patched", "jit"), 2, True))


def key(r):
    return "%s|%s|%s" % (r["program"], r["mode"], r["packet"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tap", action="store_true")
    ap.add_argument("--write-baseline", action="store_true")
    ap.add_argument("--fit", help="with --refit: a codegen results file (default: the newest)")
    ap.add_argument("--refit", metavar="COMMIT",
                    help="fit the weights anew to the codegen run, whose programs are those "
                    "of COMMIT, and write them to tests/bench/cost-fit.json")
    ap.add_argument("--cost", default=os.path.join(B, "bench", "cost"),
                    help="with --refit: the cost tool built at COMMIT")
    o = ap.parse_args()

    rows = run_cost()
    # udp5's twin is the TC peer, on every packet
    peer = {r["packet"]: r for r in rows if r["program"] == PEER}
    for r in rows:
        if r["program"] == PROGRAMS[-1][1]:
            r["twin"] = {x: v for x, v in peer[r["packet"]].items()
                         if x not in ("program", "mode", "packet")}
    mine = [r for r in rows if r["program"] not in (PEER, "empty")]

    if o.refit:
        path = o.fit or max(glob.glob(os.path.join(TOP, "tests/bench/results/codegen-*.txt")))
        _, ns = bench_runs(path)
        counted = run_cost(o.cost) if o.cost else rows
        fits = fit(bench_features(counted), ns)
        with open(FIT, "w") as f:
            json.dump({"results": os.path.relpath(path, TOP), "programs_of": o.refit,
                       "fits": [{"kernel": k, "jit": j, "weights": w, "loo": loo, "runs": n}
                                for (k, j), (w, loo, n) in sorted(fits.items())]}, f, indent=1)
            f.write("\n")
    saved = json.load(open(FIT))
    path, commit = os.path.join(TOP, saved["results"]), saved["programs_of"]
    fits = {(x["kernel"], x["jit"]): (x["weights"], x["loo"], x["runs"]) for x in saved["fits"]}
    fit_of = lambda r: fits.get(("patched" if r["mode"] == "direct" else "stock", "jit"))

    print("cost: per packet, counted in the user engine (src/vm.c): instructions executed, "
          "weighted\n(model ns, JIT on) and stack bytes; twin: clang -O2's (LD_ABS for copy "
          "and ld_abs, direct\nreads for direct; udp5's: the TC peer, tc_5tuple.bpf.o)")
    print("fit (tests/bench/cost-fit.json): %s, the programs of commit %s, least squares of "
          "the relative error:" % (os.path.relpath(path, TOP), commit))
    for j in ("jit", "interp"):
        if ("stock", j) not in fits:
            continue
        for k in ("stock", "patched"):
            w = fits[(k, j)][0]
            print("  %-7s %-6s ns = %s" % (k, j, " + ".join(
                "%.2f %s" % (w[t], t) for t, _ in TERMS if w.get(t))))
        _, loo, n = fits[("stock", j)]
        print("  %-14s leave-one-out error over %d of %d runs: mean %.1f%%, max %.1f%% (the "
              "others alone have a term)" % ("", len(loo), n, 100 * statistics.mean(loo),
                                            100 * max(loo)))
    print("\n%-52s %-6s %-6s %6s %6s %6s %8s %8s %6s %6s" % (
        "program (packet tcp4)", "mode", "reads", "insns", "twin", "ratio", "weighted", "twin",
        "ratio", "stack"))
    for r in mine:
        r["weighted"] = round(weighted(fit_of(r)[0], r), 1) if fit_of(r) else None
        if "twin" in r:
            r["twin_insns"] = r["twin"]["insns"]
            r["twin_weighted"] = round(weighted(fit_of(r)[0], r["twin"]), 1) \
                if fit_of(r) else None
        if r["packet"] != "tcp4":
            continue
        t = r.get("twin")
        print("%-52s %-6s %-6s %6d %6s %6s %8s %8s %6s %3d/%s" % (
            r["program"], r["mode"], r.get("reads", ""), r["insns"],
            t["insns"] if t else "-", "%.2f" % (r["insns"] / t["insns"]) if t else "-",
            r["weighted"], r.get("twin_weighted", "-"),
            "%.2f" % (r["weighted"] / r["twin_weighted"]) if t and r["weighted"] else "-",
            r["stack"], t["stack"] if t else "-"))
    names = [p for p, _, _ in PACKETS]
    print("\ninstructions executed per packet, ebpfcount/twin:")
    print("%-28s %-6s " % ("program", "mode") + " ".join("%9s" % p for p in names))
    by = {key(r): r for r in mine}
    for name, expr, _, _ in PROGRAMS:
        for m in ("copy", "ld_abs", "direct"):
            cells = []
            for p in names:
                r = by["%s|%s|%s" % (expr, m, p)]
                cells.append("%9s" % ("%d/%s" % (r["insns"], r["twin"]["insns"] if "twin" in r
                                                  else "-")))
            print("%-28s %-6s " % (name, m) + " ".join(cells))
    print_targets(by, fits)
    if o.json:
        for r in mine:
            print(json.dumps({x: r[x] for x in ("program", "mode", "packet", "insns", "weighted",
                                                "stack", "twin_insns", "twin_weighted",
                                                "reads", "ld_abs", "ctx_loads", "load_bytes",
                                                "lookups") if x in r}))
        for r in rows:
            if r["program"] == PEER:
                print(json.dumps({"program": PEER, "mode": "direct", "packet": r["packet"],
                                  "insns": r["insns"], "weighted": round(weighted(
                                      fits[("patched", "jit")][0], r), 1)
                                  if ("patched", "jit") in fits else None,
                                  "stack": r["stack"]}))
    if o.write_baseline:
        with open(BASELINE, "w") as f:
            f.write("# Instructions executed per packet (tests/bench/cost.py): make check "
                    "fails above these.\n# Written by tests/bench/cost.py --write-baseline; "
                    "lower them when the code gets better.\n")
            for r in mine:
                f.write("%d %s\n" % (r["insns"], key(r)))
    if o.tap:
        base = {}
        for line in open(BASELINE):
            if not line.startswith("#"):
                n, k = line.rstrip("\n").split(" ", 1)
                base[k] = int(n)
        print("1..%d" % len(mine))
        bad = 0
        for i, r in enumerate(mine, 1):
            b = base.get(key(r))
            ok = b is not None and r["insns"] <= b
            bad += not ok
            print("%sok %d - %s: %d instructions (baseline %s)%s" % (
                "" if ok else "not ", i, key(r), r["insns"], b,
                "" if b is None or r["insns"] >= b else ": below it, lower the baseline"))
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
