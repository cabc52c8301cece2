#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build a kernel from Debian's linux-source-6.1: "stock", "patched" (the
# series in kernel-patches/), or the series with the config fragment
# kernel-patches/debug.config ("patched-debug": KASAN, lockdep, preemption
# checks) or up.config ("patched-up": CONFIG_SMP=n).
#
#   qemu-env/kernel.sh stock|patched|patched-debug|patched-up
#
# Trees live in $EBPFCOUNT_CACHE (default ~/.cache/ebpfcount), never in the
# checkout.  Each bzImage is stored under a key made of the source package
# version, the config fragment and (patched) the series and patch contents,
# so a finished key is never rebuilt and a changed input is never missed.
# The patched tree starts as a copy of the built stock tree, so applying the
# series only rebuilds what the patches touch.
set -euo pipefail

variant=${1:?usage: kernel.sh stock|patched|patched-debug|patched-up}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${EBPFCOUNT_CACHE:-$HOME/.cache/ebpfcount}
tarball=/usr/src/linux-source-6.1.tar.xz
frag=$top/kernel-patches/ebpfcount.config
series=$top/kernel-patches/series
jobs=${JOBS:-$(($(nproc) + 1))}

die() { echo "kernel.sh: $*" >&2; exit 1; }
[ -r "$tarball" ] || die "$tarball missing: run qemu-env/deps.sh as root"

pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
patches() { grep -v -e '^#' -e '^[[:space:]]*$' "$series" || true; }

stock_key() { { echo "$pkgver"; cat "$frag"; } | sha256sum | cut -c1-16; }
patched_key() {
	{ stock_key; patches | while read -r p; do
		echo "$p"; cat "$top/kernel-patches/$p"; done; } | sha256sum | cut -c1-16
}

# the fragment merged over $frag: none, debug.config or up.config
extra=""
case $variant in
stock) key=$(stock_key) ;;
patched) key=$(patched_key) ;;
patched-debug|patched-up)
	extra=$top/kernel-patches/${variant#patched-}.config
	key=$({ patched_key; cat "$extra"; } | sha256sum | cut -c1-16) ;;
*) die "unknown variant '$variant'" ;;
esac

out=$cache/out/$variant-$key
link() {
	mkdir -p "$top/build/kernel/$variant"
	ln -sfn "$out/bzImage" "$top/build/kernel/$variant/bzImage"
	ln -sfn "$cache/tree/$variant" "$top/build/kernel/$variant/tree"
}
if [ -f "$out/bzImage" ]; then
	link
	echo "kernel: $variant up to date ($key)"
	exit 0
fi

[ "$variant" != stock ] && "$0" stock	# the patched trees start from it
mkdir -p "$cache/tree" "$cache/out"
exec 9>"$cache/lock"
flock 9
if [ -f "$out/bzImage" ]; then	# built while we waited for the lock
	link
	exit 0
fi
tree=$cache/tree/$variant

# The symbol settings the fragments ask for: $extra's override $frag's.
wanted() {
	local pat='^CONFIG_|^# CONFIG_.* is not set'
	if [ -z "$extra" ]; then
		grep -E "$pat" "$frag"
		return
	fi
	grep -E "$pat" "$frag" | grep -v -w -F -f <(grep -oE 'CONFIG_[A-Z0-9_]+' "$extra")
	grep -E "$pat" "$extra"
}

# (Re)configure only when the fragment changed: rewriting .config makes
# kbuild rebuild everything.
configure() {
	local stamp
	stamp=$(cat "$frag" $extra | sha256sum | cut -c1-16)
	[ -f "$tree/.config" ] && [ "$(cat "$tree/.ebpfcount-config" 2>/dev/null)" = "$stamp" ] &&
		return 0
	make -s -C "$tree" ARCH=x86_64 tinyconfig >/dev/null
	(cd "$tree" && KCONFIG_CONFIG=.config scripts/kconfig/merge_config.sh -m -O . .config "$frag" $extra >/dev/null)
	make -s -C "$tree" ARCH=x86_64 olddefconfig >/dev/null
	# Every symbol the fragment asks for must have survived its dependencies.
	local want
	while read -r want; do
		grep -qxF "$want" "$tree/.config" || die "config: '$want' not satisfied in $variant"
	done < <(wanted)
	echo "$stamp" >"$tree/.ebpfcount-config"
}

prepare_stock() {
	if [ ! -f "$tree/.ebpfcount-extracted" ]; then
		echo "kernel: extracting $tarball"
		rm -rf "$tree"
		mkdir -p "$tree"
		tar -xJf "$tarball" -C "$tree" --strip-components=1
		touch "$tree/.ebpfcount-extracted"
	fi
	configure
}

# Put the series that $tree carries back out, then apply the current one.
# A tree that does not reverse cleanly is replaced by a copy of stock.
prepare_patched() {
	local stock=$cache/tree/stock applied=$tree/.ebpfcount-applied p
	if [ -d "$applied" ]; then
		while read -r p; do
			patch -s -R -p1 -d "$tree" <"$applied/$p" || { rm -rf "$tree"; break; }
		done < <(tac "$applied/series")
	fi
	if [ ! -d "$tree" ] || [ ! -d "$applied" ]; then
		echo "kernel: copying the stock tree"
		rm -rf "$tree"
		cp -a "$stock" "$tree"
	fi
	rm -rf "$applied"
	mkdir -p "$applied"
	patches >"$applied/series"
	while read -r p; do
		echo "kernel: applying $p"
		cp "$top/kernel-patches/$p" "$applied/$p"
		patch -s -p1 -d "$tree" <"$applied/$p" || die "$p does not apply"
	done <"$applied/series"
	configure
}

case $variant in
stock) prepare_stock ;;
*) prepare_patched ;;
esac
localversion=""
[ "$variant" != stock ] && localversion=-ebpfcount
echo "kernel: building $variant ($key) with -j$jobs"
start=$(date +%s)
make -C "$tree" ARCH=x86_64 LOCALVERSION="$localversion" -j"$jobs" -s bzImage modules ||
	die "build of $variant failed"
mkdir -p "$out"
# lib/test_bpf.ko (CONFIG_TEST_BPF=m): the kernel's own BPF JIT/interpreter tests
cp "$tree/lib/test_bpf.ko" "$out/test_bpf.ko"
cp "$tree/arch/x86/boot/bzImage" "$out/bzImage.tmp"
cp "$tree/.config" "$out/config"
make -s -C "$tree" ARCH=x86_64 LOCALVERSION="$localversion" kernelrelease >"$out/release"
mv "$out/bzImage.tmp" "$out/bzImage"
echo "kernel: $variant $(cat "$out/release") built in $(($(date +%s) - start)) s"
link
