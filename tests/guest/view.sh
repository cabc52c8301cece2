# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/76-view.t: ebpfcount's live view on a 100x30
# pseudo-terminal (util-linux script, keys written to its input).  The
# peer sends three paced flows to an address nobody has (no answer):
# UDP to port 7000 (1000 frames of 100 bytes, ~100 per second), to 53
# (500 of 80, ~50/s) and TCP to 443 (200 of 1400, ~20/s).  The view must
# start on the alternate screen, take s, p and q, leave the screen and
# print the final totals, exactly what eth0 carried; SIGTERM ends it the
# same way; with two expressions (-e), Tab shows the second's tab, q
# prints both final totals; -c, -F, a pipe, TERM=dumb and an input that is
# not a terminal keep the lines.  The typescripts, with the moments the
# host renders them (snapshots), go to the host as "# b64" lines: a
# gzipped tar.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 24

grep -q ' /dev/pts ' /proc/mounts || mount -t devpts devpts /dev/pts
EXPR='count by ip.proto, udp.dstport'
SMCUP=$(printf '\033[?1049h')	# xterm's alternate screen, on and off
RMCUP=$(printf '\033[?1049l')
D=/tmp/view
mkdir -p $D

rx() { cat /sys/class/net/eth0/statistics/rx_packets; }
# received N: eth0 has received N packets since boot
received() { [ "$(rx)" -ge "$1" ]; }
# frames: eth0's packets, both ways (what a query without where counts)
frames() { echo $(($(rx) + $(cat /sys/class/net/eth0/statistics/tx_packets))); }
# term TS CMD: the shell command CMD under script on a 100x30 terminal in
# the background (typescript TS, script's pid in $spid), its keys from fd 3
term() {
	rm -f /tmp/keys "$1"
	mkfifo /tmp/keys
	/usr/bin/script -qefc "stty rows 30 cols 100; $2" "$1" </tmp/keys >/dev/null 2>&1 &
	spid=$!
	exec 3>/tmp/keys
}
# term_end: wait for it; its status in $rc
term_end() {
	wait $spid
	rc=$?
	exec 3>&-
}
key() { printf %s "$1" >&3; }
# snap NAME TS: remember TS's length now, for the host to render
snap() { echo "$1 $(basename "$2") $(wc -c <"$2")" >>$D/snaps; }
# started TS: the view is drawn (its title is in TS)
started() { grep -qs "ebpfcount on eth0: $EXPR" "$1"; }
# text FILE: FILE without carriage returns, charset shifts and escape
# sequences, each of which starts a line (the view moves the cursor
# rather than write newlines)
text() {
	tr -d '\r\016\017' <"$1" | tr '\033' '\n' |
		sed 's/^\[[?0-9;]*[A-Za-z]//; s/^[()][0-9AB]//; s/^[=>]//'
}
# after_rmcup TS: the text TS holds after the alternate screen closed
after_rmcup() {
	awk -v m="$RMCUP" 'f { print; next } i = index($0, m) { f = 1; print substr($0, i) }' "$1" \
		>$D/after.ts
	text $D/after.ts
}
# final TS: the packets of the final totals
final() { text "$1" | sed -n 's/^total since start: \([0-9]*\) packets.*/\1/p'; }
# final_rows TS: the final rows "PROTO PORT PACKETS BYTES", one a line
final_rows() { text "$1" | awk '/^total since start:/ { f = 1; next } f && NF == 4 { print $1, $2, $3, $4 }'; }
# final_of TS EXPR: with several expressions, the final totals' line of
# EXPR's block (it ends with EXPR), then its rows, one a line
final_of() {
	text "$1" | awk -v e="  $2" '/^total since start: / {
			f = substr($0, length($0) - length(e) + 1) == e
			if (f) print
			next
		}
		f && NF == 0 { f = 0 }
		f && $NF ~ /^[0-9]+$/ && $(NF - 1) ~ /^[0-9]+$/ { $1 = $1; print }'
}
# lines TS: the lines' format, no alternate screen
lines() { ! grep -qF "$SMCUP" "$1" && text "$1" | grep -q '^total since start: '; }

ok "peer answers ping" wait_peer
quiet_link
f0=$(frames)
rx0=$(rx)
term $D/view.ts "exec env TERM=xterm LANG=C.UTF-8 ebpfcount -i eth0 '$EXPR'"
ok "the view starts" retry 60 started $D/view.ts
ok "on the alternate screen" grep -qF "$SMCUP" $D/view.ts
send_go
# mid-traffic: sorted by packets, then by bytes, then paused twice
retry 60 received $((rx0 + 300))
sleep 2
snap packets $D/view.ts
key s
sleep 2
snap bytes $D/view.ts
key p
sleep 2
snap paused $D/view.ts
sleep 3
snap paused-later $D/view.ts
key p
# the traffic over, two more intervals
quiet_link
sleep 2.5
snap after $D/view.ts
key q
term_end
f1=$(frames)
is "$rc" 0 "q: ebpfcount exits 0"
after_rmcup $D/view.ts >$D/after.txt
is "$(grep -c '^total since start: ' $D/after.txt)" 1 \
	"q: the view leaves the alternate screen, then the final totals, once"
is "$(final $D/view.ts)" "$((f1 - f0))" "q: the final total is what eth0 carried both ways"
final_rows $D/view.ts >$D/rows.txt
sed 's/^/# final row: /' $D/rows.txt
ok "q: final rows: udp 7000" grep -qx 'udp 7000 1000 100000' $D/rows.txt
ok "q: final rows: udp domain" grep -qx 'udp domain 500 40000' $D/rows.txt
ok "q: final rows: tcp (absent)" grep -qx 'tcp (absent) 200 280000' $D/rows.txt
is "$(awk '$1 == "udp" && $2 == 9999 { print $3 }' $D/rows.txt)" 5 "q: final rows: the 5 start frames"

# SIGTERM, in the C locale on a vt100 (no alternate screen): 50 frames
# from here, then the totals.
quiet_link
f0=$(frames)
term $D/term.ts "exec env TERM=vt100 ebpfcount -i eth0 '$EXPR'"
retry 60 started $D/term.ts
craft -q -i eth0 -c 50 -g 10:100000 \
	"udp4,src=$EBPFCOUNT_SELF,dst=198.18.0.99,smac=52:54:00:12:34:01,dmac=52:54:00:12:34:02,dport=7001,len=60"
sleep 2.5
snap ascii $D/term.ts
kill -TERM "$(pidof ebpfcount)"
term_end
f1=$(frames)
is "$rc:$(final $D/term.ts)" "0:$((f1 - f0))" "SIGTERM: exit 0, the final total"
text $D/term.ts | grep -Eq '^  udp +7001 +50 +3000$'
is $? 0 "SIGTERM: the row of the 50 frames"

# Two expressions, a tab each: this guest sends UDP to port 7002 (500
# frames of 100 bytes, ~100/s) and TCP to 443 (60 of 200, ~20/s).  The
# host checks the first tab's rows, then the second's after Tab.
E2='count by ip.dst where udp'
M="src=$EBPFCOUNT_SELF,dst=198.18.0.99,smac=52:54:00:12:34:01,dmac=52:54:00:12:34:02"
quiet_link
f0=$(frames)
term $D/tabs.ts "exec env TERM=xterm LANG=C.UTF-8 ebpfcount -i eth0 -e '$EXPR' -e '$E2'"
ok "two expressions: the view starts" retry 60 started $D/tabs.ts
craft -q -i eth0 -c 500 -g 10:100000 "udp4,$M,dport=7002,len=100" &
c1=$!
craft -q -i eth0 -c 60 -g 2:100000 "tcp4,$M,dport=443,len=200" &
c2=$!
sleep 2.5
snap tab1 $D/tabs.ts
key "$(printf '\t')"
sleep 1
snap tab2 $D/tabs.ts
wait $c1 $c2	# (not script's)
sleep 1.5
key q
term_end
f1=$(frames)
snap tabs-end $D/tabs.ts
is "$rc" 0 "two expressions: q: ebpfcount exits 0"
after_rmcup $D/tabs.ts >$D/after.txt
sed 's/^/# after q: /' $D/after.txt
is "$(grep -c '^total since start: ' $D/after.txt)" 2 "two expressions: q: the final totals of each"
final_of $D/tabs.ts "$EXPR" >$D/rows1.txt
final_of $D/tabs.ts "$E2" >$D/rows2.txt
is "$(sed -n '1s/^total since start: \([0-9]*\) packets.*/\1/p' $D/rows1.txt)" "$((f1 - f0))" \
	"two expressions: the first's final total is what eth0 carried both ways"
ok "two expressions: the first's final rows: udp 7002" grep -qx 'udp 7002 500 50000' $D/rows1.txt
ok "two expressions: the first's final rows: tcp (absent)" grep -qx 'tcp (absent) 60 12000' $D/rows1.txt
ok "two expressions: the second's final rows: 198.18.0.99, UDP only" \
	grep -qx '198.18.0.99 500 50000' $D/rows2.txt

# Lines, not the view: -c, -F, a pipe, TERM=dumb, input not a terminal.
E="env TERM=xterm ebpfcount -i eth0"
for c in "-c 2:exec $E -c 2 count" \
	"-F human:exec timeout -s INT 3 $E -F human count" \
	"a pipe:timeout -s INT 3 $E count | cat" \
	"TERM=dumb:exec timeout -s INT 3 env TERM=dumb ebpfcount -i eth0 count" \
	"input not a terminal:exec timeout -s INT 3 $E count </dev/null"; do
	term $D/lines.ts "${c#*:}"
	term_end
	ok "${c%%:*}: lines" lines $D/lines.ts
done

# For the host: the typescripts and the snapshots.
tar -C $D -czf /tmp/view.tgz snaps view.ts term.ts tabs.ts
base64 /tmp/view.tgz | sed 's/^/# b64 /'
done_testing
