#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Out of memory, on the host (ebpfcount -r with the user engine: no
# bpf(2)): every allocation of a run fails in turn (tests/preload/
# malloc_fail.c).  Each run must either print exactly what a run with
# memory prints (an allocation it can do without) or end with status 1
# and one line that says memory ran out: no crash, no wrong cause, no
# wrong count.  The where clause is left out: libpcap 1.10.3's
# pcap_compile() crashes or exits on some of its own failed allocations.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
E=$top/build/bin/ebpfcount
SHIM=$top/build/guest/usr/lib/ebpfcount/malloc_fail.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 40 UDP frames from 8 source ports, 10 ms apart: several intervals.
python3 - "$tmp/in.pcap" <<'PY'
import struct, sys
out = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1)
for i in range(40):
    udp = struct.pack("!HHHH", 1000 + i % 8, 2000, 26, 0) + bytes(18)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                     bytes([198, 18, 0, 2]), bytes([198, 18, 0, 1])) + udp
    fr = bytes.fromhex("525400123401525400123402") + b"\x08\x00" + ip
    out += struct.pack("<IIII", 1700000000, 10000 * i, len(fr), len(fr)) + fr
open(sys.argv[1], "wb").write(out)
PY

runs=(
	"-F csv -I 0.1 count by udp.srcport"
	"-F json -I 0.1 --max-keys 4 count by udp.srcport"
	"-F human -I 0.1 --top 2 count by ip.src/24, udp.srcport"
	"-d count by udp.srcport, ip.proto"
)
plan $((2 * ${#runs[@]}))
for r in "${runs[@]}"; do
	opts=${r%%count*} expr=count${r#*count}
	# shellcheck disable=SC2086
	MALLOC_COUNT=$tmp/n LD_PRELOAD=$SHIM "$E" $opts -r "$tmp/in.pcap" "$expr" >"$tmp/ref"
	n=$(cat "$tmp/n")
	cmp_ok "$n" -gt 10 "$r: $n allocations to fail in turn"
	bad="" same=0 nomem=0
	for i in $(seq 1 "$n"); do
		# shellcheck disable=SC2086
		MALLOC_FAIL_AT=$i LD_PRELOAD=$SHIM "$E" $opts -r "$tmp/in.pcap" "$expr" \
			>"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc = 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/out" "$tmp/ref"; then
			same=$((same + 1))
		elif [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		     grep -Eq '^(ebpfcount: |\{"error": ")(.*: )?(out of memory|(malloc: )?Cannot allocate memory)' "$tmp/err"; then
			nomem=$((nomem + 1))
		else
			bad="$bad [$i: status $rc, $(head -c 200 "$tmp/err" | tr '\n' '|')]"
		fi
	done
	diag "$r: $same runs as with memory, $nomem 'out of memory'"
	is "$bad" "" "$r: each failed allocation: the same output, or one line and status 1"
done
done_testing
