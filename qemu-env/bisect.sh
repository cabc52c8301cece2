#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability of kernel-patches/: apply the series one patch at a time
# to a copy of the built stock tree and build after each, as git bisect
# would stop there: bzImage and modules when a patch touches the kernel
# (every .c file it touches must have been compiled again), test_verifier
# when it touches tools/testing/selftests/bpf.  A compiler warning about a
# file the patch touches fails that step; the other warnings of the step
# (files rebuilt because a header changed) are listed.  Prints TAP.
#
#   qemu-env/bisect.sh        (builds the stock kernel first if needed)
#
# Not part of make check: each step that touches include/linux/filter.h
# rebuilds most of the kernel (about 3 minutes here).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${EBPFCOUNT_CACHE:-$HOME/.cache/ebpfcount}
jobs=${JOBS:-$(($(nproc) + 1))}
series=$top/kernel-patches/series

"$top/qemu-env/kernel.sh" stock >/dev/null
mapfile -t patches < <(grep -v -e '^#' -e '^[[:space:]]*$' "$series")
work=$(mktemp -d "${TMPDIR:-/tmp}/ebpfcount-bisect.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
(
	flock 9	# kernel.sh changes the stock tree only under this lock
	cp -a "$cache/tree/stock/." "$work"
) 9>"$cache/lock"

echo "1..${#patches[@]}"
n=0 failed=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	log=$work/.bisect-$n.log
	if ! patch -s -p1 -d "$work" <"$top/kernel-patches/$p" >"$log" 2>&1; then
		echo "not ok $n - $p applies"
		failed=$((failed + 1))
		break
	fi
	files=$(grep -E '^\+\+\+ b/' "$top/kernel-patches/$p" | sed 's|^+++ b/||')
	kfiles=$(grep -v '^tools/' <<<"$files" || true)
	tfiles=$(grep '^tools/testing/selftests/bpf/' <<<"$files" || true)
	why=""
	touch "$work/.bisect-stamp"
	sleep 1	# object files newer than the stamp were built by this step
	if [ -n "$kfiles" ] &&
		! make -C "$work" ARCH=x86_64 -j"$jobs" -s bzImage modules >>"$log" 2>&1; then
		why="kernel build failed"
	fi
	if [ -z "$why" ] && [ -n "$tfiles" ]; then
		mkdir -p "$work/.st"
		make -s -C "$work/tools/testing/selftests/bpf" -j"$jobs" OUTPUT="$work/.st" \
			"$work/.st/test_verifier" >>"$log" 2>&1 || why="test_verifier build failed"
	fi
	for f in $(grep '\.c$' <<<"$kfiles" || true); do
		[ -z "$why" ] || break
		[ "$work/${f%.c}.o" -nt "$work/.bisect-stamp" ] || why="$f was not compiled"
	done
	# warnings about the files this patch touches (selftests print their
	# paths from tools/testing/selftests/bpf)
	mine=$(grep 'warning:' "$log" | grep -F -f <(sed 's|^tools/testing/selftests/bpf/||' <<<"$files") || true)
	others=$(grep -c 'warning:' "$log" || true)
	[ -z "$why" ] && [ -n "$mine" ] && why="warnings"
	if [ -z "$why" ]; then
		echo "ok $n - $p builds on its own"
	else
		failed=$((failed + 1))
		echo "not ok $n - $p builds on its own: $why"
		[ -n "$mine" ] && sed 's/^/# /' <<<"$mine"
		[ "$why" != warnings ] && tail -30 "$log" | sed 's/^/# /'
	fi
	[ "$others" = 0 ] || grep 'warning:' "$log" | sed 's/^/# other warning: /'
done
[ $failed = 0 ]
