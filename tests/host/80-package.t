#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Packaging, on the host (no bpf(2): the binaries run only --version and
# -d): make install and uninstall; the man page passes mandoc -Tlint and
# groff -ww and documents exactly the options ebpfcount -h lists; systemd
# accepts the unit; make deb builds a package that lintian finds no error
# in and whose binary runs.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
E=$top/build/bin/ebpfcount
man=$top/man/ebpfcount.8
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 16

# make install into a DESTDIR, as a package build does.
d=$tmp/dest
ok "make install DESTDIR PREFIX=/usr" make -s -C "$top" install DESTDIR="$d" PREFIX=/usr
is "$(cd "$d" && find . -type f -printf '%m %p\n' | sort -k2)" \
"755 ./usr/bin/ebpfcount
644 ./usr/lib/systemd/system/ebpfcount@.service
644 ./usr/share/man/man8/ebpfcount.8" "installed: the binary, the man page, the unit"
is "$(grep '^ExecStart=' "$d/usr/lib/systemd/system/ebpfcount@.service")" \
	"ExecStart=/usr/bin/ebpfcount -i %i -F none --listen 9108 'count by ip.proto'" \
	"the unit runs /usr/bin/ebpfcount"
make -s -C "$top" uninstall DESTDIR="$d" PREFIX=/usr
is "$(cd "$d" && find . -type f)" "" "make uninstall removes them"

# Another PREFIX: the unit names the binary there; systemd-analyze verify
# (which checks that the binary and the man page exist) accepts it.
p=$tmp/prefix
make -s -C "$top" install PREFIX="$p"
unit=$p/lib/systemd/system/ebpfcount@.service
is "$(grep -c "^ExecStart=$p/bin/ebpfcount " "$unit")" 1 "PREFIX=/x: ExecStart=/x/bin/ebpfcount"
out=$(cd "$tmp" && MANPATH=$p/share/man systemd-analyze verify "$unit" 2>&1)
is "$?:$out" "0:" "systemd-analyze verify ebpfcount@.service: no complaint"

# The man page.
out=$(mandoc -Tlint -W warning "$man" 2>&1)
is "$?:$out" "0:" "mandoc -Tlint -W warning: nothing"
out=$(groff -man -ww -z "$man" 2>&1)
is "$?:$out" "0:" "groff -man -ww -z: nothing"

# Options: those ebpfcount -h names, against those of the man page's
# synopsis and the tags of its OPTIONS section.
opts() { grep -oE '(^|[][ |,(])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[^-]//' | sort -u; }
"$E" -h | opts >"$tmp/help"
mandoc -Tascii -O width=200 "$man" | col -bx >"$tmp/man.txt"
{
	awk '/^[A-Z]/ { s = $0; next } s == "SYNOPSIS"' "$tmp/man.txt"
	awk '/^[A-Z]/ { s = $0; next } s == "OPTIONS" && /^       -/ { print $1 }' "$tmp/man.txt"
} | opts >"$tmp/man"
cmp_ok "$(wc -l <"$tmp/help")" -ge 15 "ebpfcount -h names options"
missing=$(comm -23 "$tmp/help" "$tmp/man" | tr '\n' ' ')
is "$missing" "" "every option of -h is in the man page's synopsis or OPTIONS"
[ -n "$missing" ] && diag "only in -h: $missing"
extra=$(comm -13 "$tmp/help" "$tmp/man" | tr '\n' ' ')
is "$extra" "" "every option of the man page's synopsis and OPTIONS is in -h"
[ -n "$extra" ] && diag "only in the man page: $extra"

# The Debian package.
rm -rf "$top/build/deb"
make -C "$top" deb >"$tmp/deb.log" 2>&1
rc=$?
debs=$(ls "$top"/build/deb/*.deb 2>/dev/null)
is "$rc:$(echo "$debs" | grep -c '/ebpfcount_.*\.deb$')" "0:1" "make deb: build/deb/ebpfcount_*.deb"
[ "$rc" = 0 ] || tail -20 "$tmp/deb.log" | sed 's/^/# /'
deb=$(echo "$debs" | head -1)
lintian "$deb" >"$tmp/lintian" 2>&1
rc=$?
sed 's/^/# lintian: /' "$tmp/lintian"
is "$rc:$(grep -c '^E:' "$tmp/lintian")" "0:0" "lintian: no error"
is "$(dpkg-deb -c "$deb" | awk '!/^d/ { print $6 }' | sort)" \
"./usr/bin/ebpfcount
./usr/lib/systemd/system/ebpfcount@.service
./usr/share/doc/ebpfcount/README.md.gz
./usr/share/doc/ebpfcount/changelog.gz
./usr/share/doc/ebpfcount/copyright
./usr/share/man/man8/ebpfcount.8.gz" "the package's files"
dpkg-deb -x "$deb" "$tmp/x"
out=$("$tmp/x/usr/bin/ebpfcount" --version 2>&1)
is "$?:$out" "0:ebpfcount $(dpkg-deb -f "$deb" Version)" "packaged ebpfcount --version"
out=$("$tmp/x/usr/bin/ebpfcount" -d 'count by ip.proto' 2>&1)
is "$?:$(echo "$out" | tail -1 | sed 's/^([0-9]*) //')" "0:exit" \
	"packaged ebpfcount -d 'count by ip.proto': a program"
done_testing
