#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Property test: random expressions (tests/gen_exprs.py: random key tuples and
# prefixes, random where clauses from pcap primitives) must load through the
# real verifier and count, live, exactly what the user engine counts on a
# capture of the same frames (tests/guest/property.sh); on both kernels, with
# the JIT on and off, each kernel and JIT mode with its own expressions, a
# quarter of them run without CAP_PERFMON (tests/progs/nocap), which reads
# the frame with LD_ABS.  Every expression is a TAP result.
#
#   EBPFCOUNT_SEED=N        the seed (default 57), a non-negative integer:
#     EBPFCOUNT_SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') tests/run tests/vm/57-property.t
#   EBPFCOUNT_PROPERTY_N=N  expressions per kernel and JIT mode (default 75)
. "$(dirname "$0")/lib.sh"
seed=${EBPFCOUNT_SEED:-57}
per=${EBPFCOUNT_PROPERTY_N:-75}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

diag "seed $seed, $per expressions per kernel and JIT mode, kernels $KERNELS:" \
	"EBPFCOUNT_SEED=$seed EBPFCOUNT_PROPERTY_N=$per EBPFCOUNT_KERNELS='$KERNELS' tests/run tests/vm/57-property.t reproduces this run"
nk=$(echo "$KERNELS" | wc -w)
if ! python3 "$top/tests/gen_exprs.py" --ebpfcount "$top/build/bin/ebpfcount" --seed "$seed" \
	--count $((nk * 2 * per)) >"$work/all" 2>"$work/gen.err"; then
	cat "$work/gen.err"
	echo "1..1"
	echo "not ok 1 - gen_exprs.py"
	exit 1
fi
sed 's/^/# /' "$work/gen.err"
frames=$(python3 "$top/tests/gen_exprs.py" --frames | tr '\n' ' ')
mix=0 tagged=0
for f in $frames; do
	n=$(echo "$f" | tr , '\n' | sed -n 's/^n=//p')
	mix=$((mix + ${n:-1}))
	case ,$f, in *,vlan=*) tagged=$((tagged + ${n:-1})) ;; esac
done
peer="sh /tests/guest/property.sh 2 $frames"

# expressions 1..per for the first kernel with the JIT on, then off, ...
i=0
for k in $KERNELS; do
	for jit in 1 0; do
		sed -n "$((i * per + 1)),$(((i + 1) * per))p" "$work/all" >"$work/$k.$jit"
		i=$((i + 1))
	done
done
for k in $KERNELS; do
	vm_tap "$k: " --kernel "$k" --mem 2048 --timeout 600 \
		--add "$work/$k.1:/root/exprs.1" --add "$work/$k.0:/root/exprs.0" --peer "$peer" -- \
		env MIX_FRAMES=$mix MIX_TAGGED=$tagged sh /tests/guest/property.sh 1:/root/exprs.1 0:/root/exprs.0
done
plan "$tap_n"
done_testing
