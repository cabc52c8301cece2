#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The live view (tests/guest/view.sh: ebpfcount under script on a 100x30
# pseudo-terminal, the peer's three paced flows, the keys s, p and q,
# SIGTERM, and the cases that keep the lines).  Here the host replays the
# guest's typescripts in a terminal emulator (tmux, 100x30) up to the
# moments the guest noted, and checks the screens a person saw: the
# flows' rows sorted by packets, then by bytes, a paused screen that does
# not move, the totals since start after the traffic equal to the final
# ones, the screen given back, ASCII sparklines in the C locale; with two
# expressions, the line of tabs, the first tab's rows, the second's after
# Tab, and both final totals on the screen given back.
. "$(dirname "$0")/lib.sh"
peer='. /tests/guest/lib.sh; wait_go
D=198.18.0.99
craft -q -i eth0 -c 1000 -g 10:100000 udp4,dst=$D,dport=7000,len=100 &
craft -q -i eth0 -c 500 -g 5:100000 udp4,dst=$D,dport=53,len=80 &
craft -q -i eth0 -c 200 -g 2:100000 tcp4,dst=$D,dport=443,len=1400 &
wait
sleep 600'
tmp=$(mktemp -d)
T=(tmux -S "$tmp/tmux" -f /dev/null)
trap '"${T[@]}" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT

rc=0
out=$(vm --kernel "$KERNEL" --peer "$peer" -- sh /tests/guest/view.sh 2>&1) || rc=$?
import "$KERNEL: " < <(grep -v '^# b64 ' <<<"$out")
is "$rc:$import_seen" "0:$import_planned" "$KERNEL: guest exits 0 after all its $import_planned tests"
grep '^# b64 ' <<<"$out" | cut -c7- | base64 -d 2>/dev/null | tar -xz -C "$tmp" 2>/dev/null
ok "the guest's typescripts arrived" \
	test -s "$tmp/snaps" -a -s "$tmp/view.ts" -a -s "$tmp/term.ts" -a -s "$tmp/tabs.ts"

# screen NAME: what a 100x30 terminal shows after the typescript bytes of
# snapshot NAME (all of view.ts for "end")
screen() {
	local ts n i
	if [ "$1" = end ]; then
		ts=view.ts n=$(wc -c <"$tmp/view.ts")
	else
		read -r ts n < <(awk -v s="$1" '$1 == s { print $2, $3 }' "$tmp/snaps")
	fi
	[ -n "$n" ] || return 1
	head -c "$n" "$tmp/$ts" >"$tmp/part"
	rm -f "$tmp/done"
	"${T[@]}" new-session -d -x 100 -y 30 \
		"stty raw -echo; cat '$tmp/part'; touch '$tmp/done'; exec sleep 600"
	for i in $(seq 100); do
		[ -e "$tmp/done" ] && break
		sleep 0.1
	done
	sleep 0.3
	"${T[@]}" capture-pane -p
	"${T[@]}" kill-server
}
# rows: the key rows of a screen on stdin, "PROTO PORT PPS BIT/S SHARE",
# rates in units (1.20 kpps: 1200)
rows() {
	awk 'function val(n, u) {
		return n * (u ~ /^k/ ? 1e3 : u ~ /^M/ ? 1e6 : u ~ /^G/ ? 1e9 : 1)
	}
	NR > 7 && NF >= 7 && $4 ~ /pps$/ { print $1, $2, val($3, $4), val($5, $6), $7 }'
}
# descending COLUMN: the rows on stdin are sorted by COLUMN, largest first
descending() { awk -v c="$1" 'NR > 1 && $c > prev { bad = 1 } { prev = $c } END { exit bad }'; }
# flows: the peer's three flows, with a rate (or, with 0, without one)
flows() {
	awk -v zero="${1:-}" '($1 == "udp" && ($2 == "7000" || $2 == "domain")) ||
		($1 == "tcp" && $2 == "(absent)") { n += zero == "" ? $3 > 0 : $3 == 0 }
		END { exit n != 3 }'
}

# positive RATE-COLUMN: the rows on stdin have a rate above 0 in that column
positive() { awk -v c="$1" '$c <= 0 { bad = 1 } END { exit bad || NR == 0 }'; }

for s in packets bytes paused paused-later after ascii end tab1 tab2 tabs-end; do
	screen "$s" >"$tmp/$s.txt"
done
for s in packets bytes after tab1 tab2; do
	diag "the screen of the snapshot '$s':"
	sed 's/^/#   /' "$tmp/$s.txt"
done

p=$tmp/packets.txt
ok "sorted by packets: the title" grep -q '^ebpfcount on eth0: count by ip.proto, udp.dstport .*sorted by packets' "$p"
ok "sorted by packets: the header with eth0's counters" grep -Eq '^  eth0: [0-9]+ received, [0-9]+ sent; counted [0-9]+ of [0-9]+$' "$p"
ok "sorted by packets: the rows of the three flows, with their rates" flows < <(rows <"$p")
ok "sorted by packets: largest rate first" descending 3 < <(rows <"$p")
ok "sorted by packets: UTF-8 sparklines" grep -Eq '^  udp +7000 .*%  .*[▁▂▃▄▅▆▇█]' "$p"
b=$tmp/bytes.txt
ok "s: sorted by bytes, the title says so" grep -q '^ebpfcount on eth0: .*sorted by bytes' "$b"
ok "s: largest bit rate first" descending 4 < <(rows <"$b")
ok "s: the three flows" flows < <(rows <"$b")
ok "p: the title says PAUSED" grep -q '^ebpfcount on eth0: .* PAUSED .*sorted by bytes' "$tmp/paused.txt"
ok "p: the screen does not move while paused" cmp -s "$tmp/paused.txt" "$tmp/paused-later.txt"
a=$tmp/after.txt
final=$(tr -d '\r' <"$tmp/view.ts" | grep -ao 'total since start: [0-9]* packets' | grep -o '[0-9]*')
since=$(sed -n 's/^since start ([0-9]* s): \([0-9]*\) packets.*/\1/p' "$a")
is "${since:-none}" "${final:-no final}" "after the traffic: the totals since start are the final totals"
ok "after the traffic: eth0 counted them all" grep -Eq "^  eth0: [0-9]+ received, [0-9]+ sent; counted $since of $since\$" "$a"
ok "after the traffic: the flows stay, at 0 pps" flows 0 < <(rows <"$a")
ok "q: the screen given back, the final totals on it" \
	sh -c "grep -q '^total since start: $final packets' '$tmp/end.txt' && ! grep -q '^ebpfcount on' '$tmp/end.txt'"
ok "C locale: ASCII sparklines" sh -c "grep -Eq '^  udp +7001 .*bit/s +[.:=+*#@-]+\$' '$tmp/ascii.txt' &&
	! LC_ALL=C grep -q '[^ -~]' '$tmp/ascii.txt'"

# Two expressions: count by ip.proto, udp.dstport; count by ip.dst where udp
E1='count by ip.proto, udp.dstport'
E2='count by ip.dst where udp'
t=$tmp/tab1.txt
ok "two expressions: the first tab's title" grep -q "^ebpfcount on eth0: $E1 .*sorted by packets" "$t"
ok "two expressions: the line of tabs, the first shown" \
	grep -qx "\[1 $E1\] 2 $E2 *" "$t"
ok "two expressions: the first tab's rows: udp 7002, with a rate" \
	positive 3 < <(rows <"$t" | grep '^udp 7002 ')
ok "two expressions: the first tab's rows: tcp (absent), with a rate" \
	positive 3 < <(rows <"$t" | grep '^tcp (absent) ')
ok "two expressions: the first tab counts every packet" \
	grep -Eq '^  eth0: [0-9]+ received, [0-9]+ sent; counted [0-9]+ of [0-9]+$' "$t"
ok "two expressions: the keys' line names the tab keys" grep -q ' Tab S-Tab 1-2 tabs ' "$t"
t=$tmp/tab2.txt
ok "Tab: the second tab's title" grep -q "^ebpfcount on eth0: $E2 .*sorted by packets" "$t"
ok "Tab: the line of tabs, the second shown" grep -qx " 1 $E1 \[2 $E2\] *" "$t"
# the rows of a key column: "KEY PPS"
rows1() {
	awk 'function val(n, u) { return n * (u ~ /^k/ ? 1e3 : 1) }
		NR > 7 && $3 ~ /pps$/ { print $1, val($2, $3) }'
}
is "$(rows1 <"$t" | cut -d' ' -f1 | tr '\n' ' ')" "198.18.0.99 " "Tab: the second tab's rows: 198.18.0.99 alone"
ok "Tab: 198.18.0.99 with a rate" positive 2 < <(rows1 <"$t")
ok "Tab: a where clause: no counted N of M" \
	grep -Eq '^  eth0: [0-9]+ received, [0-9]+ sent$' "$t"
t=$tmp/tabs-end.txt
ok "two expressions: q: the screen given back, the final totals of each" \
	sh -c "grep -q '^total since start: [0-9]* packets, [0-9]* bytes  $E1\$' '$t' &&
	grep -q '^total since start: 500 packets, 50000 bytes  $E2\$' '$t' &&
	! grep -q '^ebpfcount on' '$t'"
plan "$tap_n"
done_testing
