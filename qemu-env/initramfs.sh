#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guests' base initramfs: busybox, the project's binaries in
# build/bin, the test scripts, iperf3, tcpdump and bpftool, each with the
# shared libraries ldd names.  The archive is stored under the hash of its
# staged contents, so it is only packed again when an input changed.
#
#   qemu-env/initramfs.sh  -> prints the path of the archive
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${EBPFCOUNT_CACHE:-$HOME/.cache/ebpfcount}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,tests,lib64}
cp /bin/busybox "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp "$top/qemu-env/init" "$stage/init"
chmod 755 "$stage/init"
printf 'root:x:0:0:root:/root:/bin/sh\ntcpdump:x:100:100::/tmp:/bin/false\n' >"$stage/etc/passwd"
printf 'root:x:0:\ntcpdump:x:100:\n' >"$stage/etc/group"
printf '127.0.0.1 localhost\n198.18.0.1 main\n198.18.0.2 peer\n' >"$stage/etc/hosts"

add_lib() {
	local lib=$1
	[ -e "$stage$lib" ] && return 0
	mkdir -p "$stage$(dirname "$lib")"
	cp -L "$lib" "$stage$lib"
}

# Copy an executable and the shared libraries it needs.
add_bin() {
	local src=$1 dst=$2 lib
	install -D -m 755 "$src" "$stage$dst"
	for lib in $(ldd "$src" 2>/dev/null | grep -o '/[^ ]*'); do
		add_lib "$lib"
	done
}

for b in iperf3 tcpdump; do
	add_bin "$(command -v $b)" "/usr/bin/$b"
done
# util-linux's setpriv as /usr/bin/setpriv (busybox's, first in PATH, has
# no --reuid or --bounding-set): the least-privilege tests use it.
add_bin /usr/bin/setpriv /usr/bin/setpriv
# util-linux's script runs ebpfcount's live view under a pseudo-terminal
# (tests/guest/view.sh); ncurses wants the terminfo entry of its TERM, and
# the C.UTF-8 locale gives the view its UTF-8 sparklines.
add_bin /usr/bin/script /usr/bin/script
for t in x/xterm v/vt100; do
	for d in /lib/terminfo /usr/share/terminfo; do
		[ -f "$d/$t" ] && install -D -m 644 "$d/$t" "$stage/usr/share/terminfo/$t" && break
	done
done
[ -d /usr/lib/locale/C.utf8 ] && mkdir -p "$stage/usr/lib/locale" &&
	cp -a /usr/lib/locale/C.utf8 "$stage/usr/lib/locale/"
# iptables-legacy with the plugins of the xt_bpf rule of tests/progs/sk_direct.c
xt=/usr/lib/$(gcc -print-multiarch)/xtables
if [ -x /usr/sbin/xtables-legacy-multi ]; then
	add_bin /usr/sbin/xtables-legacy-multi /usr/sbin/xtables-legacy-multi
	ln -s xtables-legacy-multi "$stage/usr/sbin/iptables-legacy"
	for p in libxt_bpf libxt_udp libxt_standard; do
		add_bin "$xt/$p.so" "$xt/$p.so"
	done
fi
for b in bpftool; do
	p=$(command -v $b || true)
	[ -z "$p" ] && p=/usr/sbin/$b
	[ -x "$p" ] && add_bin "$p" "/usr/sbin/$b"
done
if [ -d "$top/build/bin" ]; then
	for b in "$top"/build/bin/*; do
		[ -f "$b" ] && [ -x "$b" ] && add_bin "$b" "/usr/bin/$(basename "$b")"
	done
fi
[ -d "$top/build/guest" ] && cp -a "$top/build/guest/." "$stage/"
cp -a "$top/tests/guest" "$stage/tests/" 2>/dev/null || true
cp "$top/tests/tap.sh" "$top/tests/cases.txt" "$stage/tests/" 2>/dev/null || true

key=$( (cd "$stage" && find . -type f -o -type l | LC_ALL=C sort | xargs sha256sum) |
	sha256sum | cut -c1-16)
out=$cache/initramfs/base-$key.cpio.gz
if [ ! -f "$out" ]; then
	mkdir -p "$cache/initramfs"
	find "$cache/initramfs" -name 'base-*.cpio.gz' -mmin +600 -delete 2>/dev/null || true
	# a temporary file of our own: another run may be packing the same key
	tmp=$(mktemp "$out.XXXXXX")
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$tmp"
	# qemu-env/vm appends a per-run archive: it must start 4-byte aligned.
	truncate -s %512 "$tmp"
	chmod 644 "$tmp"
	mv "$tmp" "$out"
fi
echo "$out"
