#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the kernel's own BPF regression programs, test_verifier and
# test_lru_map, from the tree of a kernel built by qemu-env/kernel.sh.
#
#   qemu-env/selftests.sh VARIANT   -> prints the directory holding them
#
# The programs are stored next to that kernel's bzImage in the cache
# ($EBPFCOUNT_CACHE/out/VARIANT-KEY/selftests), so they are keyed exactly
# like the kernel and rebuilt only when the kernel's inputs changed.  Run
# "qemu-env/kernel.sh VARIANT" (or "make kernel") first.
set -euo pipefail

variant=${1:?usage: selftests.sh stock|patched|patched-debug|patched-up}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${EBPFCOUNT_CACHE:-$HOME/.cache/ebpfcount}
jobs=${JOBS:-$(($(nproc) + 1))}
die() { echo "selftests.sh: $*" >&2; exit 1; }

link=$top/build/kernel/$variant/bzImage
[ -e "$link" ] || die "$link missing: run 'qemu-env/kernel.sh $variant'"
out=$(dirname "$(readlink -f "$link")")/selftests
tree=$cache/tree/$variant
progs="test_verifier test_lru_map"

built() { local p; for p in $progs; do [ -x "$out/$p" ] || return 1; done; }
if ! built; then
	# kernel.sh holds this lock while it changes the tree
	exec 9>"$cache/lock"
	flock 9
	tmp=$out.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	echo "selftests: building $progs from $tree" >&2
	make -s -C "$tree/tools/testing/selftests/bpf" -j"$jobs" OUTPUT="$tmp" \
		$(for p in $progs; do echo "$tmp/$p"; done) >&2 ||
		die "build in $tree failed"
	mkdir -p "$out"
	for p in $progs; do cp "$tmp/$p" "$out/$p"; done
	rm -rf "$tmp"
fi
echo "$out"
