#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The command line and standard output, on the host (only ebpfcount -r
# with the user engine and -d run: no bpf(2), no socket).  Every numeric
# option is bounded and a bad value is a usage error (exit 2, one line
# that states the bound); a write error on standard output is one line
# and exit 1; a reader that goes away (| head) ends the run quietly with
# status 0; tests/run refuses a test that does not exist.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
E=$top/build/bin/ebpfcount
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A pcap file of n UDP frames, sport 1..n, t 1 ms apart: n rows of output.
pcap() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
path, n = sys.argv[1], int(sys.argv[2])
out = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1)
for i in range(n):
    sport = i + 1
    udp = struct.pack("!HHHH", sport, 2000, 8 + 18, 0) + bytes(18)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                     bytes([198, 18, 0, 2]), bytes([198, 18, 0, 1])) + udp
    fr = bytes.fromhex("525400123401525400123402") + b"\x08\x00" + ip
    us = 1000 * i
    out += struct.pack("<IIII", 1700000000 + us // 1000000, us % 1000000, len(fr), len(fr)) + fr
open(path, "wb").write(out)
EOF
}
pcap "$tmp/small.pcap" 3
pcap "$tmp/big.pcap" 5000

bad=(
	"--max-keys 0|--max-keys wants a whole number from 1 to 1048576, not '0'"
	"--max-keys 1048577|--max-keys wants a whole number from 1 to 1048576, not '1048577'"
	"--max-keys 4294967296|--max-keys wants a whole number from 1 to 1048576, not '4294967296'"
	"--max-keys 4294967297|--max-keys wants a whole number from 1 to 1048576, not '4294967297'"
	"--max-keys 99999999999999999999|--max-keys wants a whole number from 1 to 1048576, not '99999999999999999999'"
	"--max-keys -1|--max-keys wants a whole number from 1 to 1048576, not '-1'"
	"-c 0|-c wants a whole number from 1 to 2147483647, not '0'"
	"-c 2147483648|-c wants a whole number from 1 to 2147483647, not '2147483648'"
	"-c 1x|-c wants a whole number from 1 to 2147483647, not '1x'"
	"--top 0|--top wants a whole number from 1 to 2147483647, not '0'"
	"-I 0|-I wants seconds from 0.01 to 86400, not '0'"
	"-I nan|-I wants seconds from 0.01 to 86400, not 'nan'"
	"-I 0x1p-3|-I wants seconds from 0.01 to 86400, not '0x1p-3'"
	"-I 1e-1|-I wants seconds from 0.01 to 86400, not '1e-1'"
	"-I +1|-I wants seconds from 0.01 to 86400, not '+1'"
	"-I .|-I wants seconds from 0.01 to 86400, not '.'"
	"-c 0x10|-c wants a whole number from 1 to 2147483647, not '0x10'"
	"-c +5|-c wants a whole number from 1 to 2147483647, not '+5'"
	"--top 1e3|--top wants a whole number from 1 to 2147483647, not '1e3'"
	"--max-keys 0x400|--max-keys wants a whole number from 1 to 1048576, not '0x400'"
	"-F xml|-F is human, json, csv or none, not 'xml'"
	"--listen 0|--listen wants [ADDR:]PORT, PORT from 1 to 65535 and an IPv6 ADDR in brackets, not '0'"
	"--listen ::1:80|--listen wants [ADDR:]PORT, PORT from 1 to 65535 and an IPv6 ADDR in brackets, not '::1:80'"
	"--textfile=|--textfile wants a file name"
	"--engine gpu|--engine is user or kernel, not 'gpu'"
)
# Strict decimal, as tcpdump's: no blank around a number either.
blank=(
	"-c| 5|-c wants a whole number from 1 to 2147483647"
	"-c|5 |-c wants a whole number from 1 to 2147483647"
	"-I| 0.5|-I wants seconds from 0.01 to 86400"
	"--top|	3|--top wants a whole number from 1 to 2147483647"
	"--listen| 9108|--listen wants [ADDR:]PORT, PORT from 1 to 65535 and an IPv6 ADDR in brackets"
)
plan $((${#bad[@]} + ${#blank[@]} + 29))

for b in "${bad[@]}"; do
	opt=${b%%|*} want=${b#*|}
	# shellcheck disable=SC2086
	err=$("$E" $opt -r "$tmp/small.pcap" count 2>&1 >/dev/null)
	rc=$?
	is "$rc:$err" "2:ebpfcount: $want (see ebpfcount -h)" "$opt: usage error, exit 2"
done
for b in "${blank[@]}"; do
	IFS='|' read -r opt val want <<<"$b"
	err=$("$E" "$opt" "$val" -r "$tmp/small.pcap" count 2>&1 >/dev/null)
	rc=$?
	is "$rc:$err" "2:ebpfcount: $want, not '$val' (see ebpfcount -h)" \
		"$opt '$val': usage error, exit 2"
done
out=$("$E" -c 2 -I .5 --top 010 --max-keys 1024 -r "$tmp/small.pcap" -F csv count 2>&1)
is "$?:$(echo "$out" | grep -c ',total,')" "0:2" "decimal numbers: -c 2 -I .5 --top 010 --max-keys 1024"

out=$("$E" --max-keys 1048576 -r "$tmp/small.pcap" -F csv 'count by udp.srcport' 2>&1)
rc=$?
is "$rc:$(echo "$out" | grep -c ',1,60$')" "0:6" "--max-keys at its bound counts (3 rows, twice)"

# A line break in an expression: escaped in the human header (as JSON, CSV
# and Prometheus escape or quote it), which stays one line.
out=$("$E" -r "$tmp/small.pcap" -c 1 -e count -e "count by udp.srcport
	where udp" 2>&1)
is "$?:$(echo "$out" | grep -c '^[0-9:.]*  1\.000 s  3 packets  180 bytes  count by udp\.srcport\\n\\twhere udp$'):$(echo "$out" | grep -c 'where'):$(echo "$out" | grep -c 'srcport\\n\\twhere udp$')" \
	"0:1:2:2" "-e with a line break and a tab: escaped in the human header (\\n, \\t)"

# Standard output on a full device: one line, exit 1.
for f in human json csv; do
	err=$("$E" -F $f -r "$tmp/small.pcap" 'count by udp.srcport' 2>&1 >/dev/full)
	rc=$?
	want="ebpfcount: cannot write the output: No space left on device"
	[ $f = json ] && want='{"error": "cannot write the output: No space left on device"}'
	is "$rc:$err" "1:$want" "-F $f > /dev/full: one line, exit 1"
done
err=$("$E" -d count 2>&1 >/dev/full)
is "$?:$err" "1:ebpfcount: cannot write the output: No space left on device" "-d > /dev/full"
err=$("$E" --list-fields 2>&1 >/dev/full)
is "$?:$err" "1:ebpfcount: cannot write the output: No space left on device" \
	"--list-fields > /dev/full"

# A reader that goes away: no "Broken pipe", status 0.
for f in human csv; do
	"$E" -F $f -r "$tmp/big.pcap" 'count by udp.srcport' 2>"$tmp/err" | head -3 >"$tmp/out"
	rcs="${PIPESTATUS[0]}:${PIPESTATUS[1]}"
	is "$rcs:$(wc -l <"$tmp/out"):$(cat "$tmp/err")" "0:0:3:" \
		"-F $f | head -3: three lines, quiet, status 0"
done
# The run really was cut short: whole, it writes a header, five 1 s
# intervals of 1000 rows and the final 5000 rows, each block with its
# overflow and total lines.
"$E" -F csv -r "$tmp/big.pcap" 'count by udp.srcport' | wc -l >"$tmp/n"
is "$(cat "$tmp/n")" "10013" "the same run whole: 10013 lines (so head cut it)"

# -r with standard input and output on a terminal (util-linux script):
# lines, never the live view, which is for an interface (a file is read
# at full speed).
TERM=xterm script -qec "'$E' -r '$tmp/small.pcap' 'count by udp.srcport'" "$tmp/typescript" \
	</dev/null >/dev/null 2>&1
rc=$?
is "$rc:$(grep -c $'\e\\[?1049h' "$tmp/typescript"):$(tr -d '\r' <"$tmp/typescript" |
	grep -c '^total since start: 3 packets, 180 bytes$')" "0:0:1" \
	"-r on a terminal: lines, not the live view"

# -r from a pipe that stays idle: the first SIGTERM cannot end the wait
# for data; a second one ends it at once.
mkfifo "$tmp/fifo"
sleep 30 >"$tmp/fifo" &
writer=$!
"$E" -r "$tmp/fifo" count >/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
sleep 0.5
kill -TERM $pid
for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
kill -0 $pid 2>/dev/null && kill -9 $pid
wait $pid
is "$?" 143 "-r from an idle pipe: a second SIGTERM ends it"
kill $writer 2>/dev/null

# A where clause too long for libpcap to compile in bounded time is
# refused before its optimizer runs (it took 12 minutes for 3,000 terms),
# with the bound; one just below the bounds compiles.
terms() { python3 -c "print(' or '.join('$1' % i for i in range(1, $2 + 1)))"; }
t0=$(date +%s%N)
err=$("$E" -d "count where $(terms 'port %d' 3000)" 2>&1 >/dev/null)
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
err=${err%%$'\n'*}
is "$rc" 1 "3000 terms: refused"
case $err in *"the where clause is too long: 3000 terms, at most 512") r=0 ;; *) r=1 ;; esac
is "$r" 0 "3000 terms: the message names the count and the bound"
cmp_ok "$ms" -lt 2000 "3000 terms: refused in under 2 s (took $ms ms)"
err=$("$E" -d "count where $(terms 'port %d' 300)" 2>&1 >/dev/null)
err=${err%%$'\n'*}
case $err in *"too long: 19142 classic instructions before libpcap optimizes them, at most 16384") r=0 ;; *) r=1 ;; esac
is "$r" 0 "300 port terms: refused before optimizing (19142 instructions)"
"$E" -d "count where $(terms 'port %d' 200)" >/dev/null 2>&1
is "$?" 0 "200 port terms compile"

# A signal during the set-up (here libpcap's optimizer, 500 host terms:
# seconds) ends ebpfcount at once, as it ends tcpdump.
clause="$(terms 'host 198.18.0.%d' 250) or $(terms 'host 198.18.1.%d' 250)"
"$E" -d "count where $clause" >/dev/null 2>&1 &
pid=$!
sleep 0.5
t0=$(date +%s%N)
kill -TERM $pid
wait $pid
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
is "$rc" 143 "SIGTERM during the set-up ends it (status 143)"
cmp_ok "$ms" -lt 1000 "SIGTERM during the set-up: at once (took $ms ms)"

# One error path: under -F json every fatal error is one JSON object on
# stderr (a usage error before -F too), and nothing on stdout; without it
# one line, a usage error pointing at -h.
jerr() { "$E" "$@" 2>&1 >"$tmp/jout"; echo "rc=$?:$(wc -c <"$tmp/jout")"; }
is "$(jerr -c 0 -F json -r "$tmp/small.pcap" count)" \
	"{\"error\": \"-c wants a whole number from 1 to 2147483647, not '0'\"}
rc=2:0" "-F json: a usage error before -F is one JSON object on stderr, exit 2"
is "$(jerr -F json -x count)" "{\"error\": \"unknown option -x\"}
rc=2:0" "-F json: an unknown option too"
is "$(jerr -F json -r "$tmp/small.pcap" 'count by ip.sorc')" \
	"{\"error\": \"bad expression at column 10: unknown field 'ip.sorc' (see 'ebpfcount --list-fields')\", \"expr\": \"count by ip.sorc\", \"column\": 10}
rc=1:0" "-F json: a bad expression, with the expression and the column, exit 1"
is "$(jerr -F json -r "$tmp/none.pcap" count)" "{\"error\": \"$tmp/none.pcap: No such file or directory\"}
rc=1:0" "-F json: a missing file"
jerr -F json -r "$tmp/small.pcap" count >"$tmp/jerr"
is "$(cat "$tmp/jerr"):$(python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/jout" && echo parsed)" \
	"rc=0:$(wc -c <"$tmp/jout"):parsed" "-F json without an error: nothing on stderr, stdout all JSON"
is "$(jerr --top)" "ebpfcount: --top wants a value (see ebpfcount -h)
rc=2:0" "an option without its value: one line, exit 2"
is "$(jerr -r "$tmp/small.pcap" -Q count)" "ebpfcount: unknown option -Q (see ebpfcount -h)
rc=2:0" "an unknown option: one line, exit 2"

# tests/run: a test that does not exist is an error, not skipped.
err=$("$top/tests/run" tests/host/no-such.t 2>&1 >/dev/null)
rc=$?
is "$rc:$err" "2:tests/run: no such test: tests/host/no-such.t" "tests/run refuses a missing test"
err=$("$top/tests/run" tests/host/no-such.t tests/host/65-cli.t 2>&1 >/dev/null)
is "$?" "2" "tests/run refuses a missing test among others"
done_testing
