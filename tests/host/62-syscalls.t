#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ebpfcount -r reads a capture in large reads and makes no system call per
# record (issue 26: an ftell() per record, an lseek(2) each, made -r five
# times slower and no test saw it).  Counted, not timed: strace -c on a
# generated file of 100k records, from the file and from a pipe; the calls
# beyond those of a one-record file, per MiB read, must stay under a small
# bound.  A call per record would be about 8,600 per MiB here; stdio's
# default 4 KiB buffer 256.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
E=$top/build/bin/ebpfcount
craft=$top/build/bin/craft
BOUND=32	# system calls per MiB read

for t in strace "$E" "$craft"; do
	command -v "$t" >/dev/null || { echo "Bail out! $t missing (make check installs it)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$craft" -q -w "$tmp/big.pcap" "udp4,n=60000,srcrange=300,len=120" "tcp4,n=40000,dport=443,len=100"
"$craft" -q -w "$tmp/one.pcap" "udp4,n=1,len=120"
recs=$(tshark -r "$tmp/big.pcap" -T fields -e frame.number 2>/dev/null | wc -l)
is "$recs" 100000 "the generated file has 100000 records"
mib=$(stat -c %s "$tmp/big.pcap" | awk '{ printf "%.2f", $1 / 1048576 }')

# calls FILE|-FILE: the system calls of ebpfcount -r on FILE (-FILE: from
# a pipe), all threads
calls() {
	local f=$1 log=$tmp/strace.log
	if [ "${f#-}" != "$f" ]; then
		cat "${f#-}" | strace -f -c -o "$log" "$E" -r - -F csv 'count by ip.proto' >/dev/null
	else
		strace -f -c -o "$log" "$E" -r "$f" -F csv 'count by ip.proto' >/dev/null
	fi || echo "# ebpfcount -r $f failed" >&2
	awk '$NF == "total" { print $4 }' "$log"
	grep -E ' (read|lseek|write)$' "$log" | sed 's/^/#   /' >&2
}

for how in file pipe; do
	p=""
	[ $how = pipe ] && p=-
	base=$(calls "$p$tmp/one.pcap")
	big=$(calls "$p$tmp/big.pcap")
	per=$(awk -v b="$base" -v g="$big" -v m="$mib" 'BEGIN { printf "%.1f", (g - b) / m }')
	diag "$how: $big system calls for 100000 records ($mib MiB), $base for one record: $per per MiB"
	ok "$how: at most $BOUND system calls per MiB read ($per)" \
		awk -v p="$per" -v b="$BOUND" 'BEGIN { exit !(p <= b) }'
done
plan "$tap_n"
done_testing
