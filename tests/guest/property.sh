# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/57-property.t: random expressions (tests/gen_exprs.py)
# live through the real verifier, against the user engine on the same frames.
#
#   main:  property.sh JIT:FILE [JIT:FILE...]
#   peer:  property.sh ROUNDS SPEC...
#
# One round per JIT:FILE (bpf_jit_enable JIT; FILE: gen_exprs.py lines).  The
# main guest starts tcpdump -w and one ebpfcount per expression on eth0, all
# at once, waits until each has bound its socket (its CSV header is out) or
# exited, and triggers the peer, which sends the frame mix (SPECs, paced) and
# then a mark.  Once the link is quiet again, everything is stopped: each
# expression's live totals must equal the user engine's on the capture file:
# `ebpfcount -r` on its untagged records (EXPR) plus its tagged records
# (TAGGED, 4 bytes less per packet: the kernel took the tag out of the frame
# before the live socket saw it; see gen_exprs.py).  One TAP result per
# expression; on a failure, its live error or both sets of rows.
. /tests/tap.sh
. /tests/guest/lib.sh

MAIN_MAC=52:54:00:12:34:01
PEER_MAC=52:54:00:12:34:02
MARK_MAC=52:54:00:12:34:99
GO_PORT=9000		# + round: main -> peer, start sending
MARK_PORT=9800		# + round: peer -> main, all sent

peer() {
	local rounds=$1 r
	shift
	for r in $(seq 1 "$rounds"); do
		tcpdump -i eth0 -Z root -c 1 -n "udp dst port $((GO_PORT + r))" >/dev/null 2>&1
		craft -q -i eth0 -g 5:2000 "$@"
		craft -q -i eth0 -c 3 -g 1:1000 "udp4,smac=$MARK_MAC,dst=198.18.0.99,dport=$((MARK_PORT + r))"
	done
}

# listening FILE: tcpdump said so in FILE (its stderr)
listening() { grep -qs 'listening on' "$1"; }

# ready N: every ebpfcount of 1..N has printed its CSV header (after the
# bind) or exited
ready() {
	local i=1 pid
	while [ $i -le "$1" ]; do
		eval pid=\$pid_$i
		[ -s /tmp/p/$i.live ] || ! kill -0 "$pid" 2>/dev/null || return 1
		i=$((i + 1))
	done
}

# same LIVE FILE TAGGED FL: the final lines of ebpfcount's CSV in LIVE add
# up to those of FILE plus TAGGED (tagged records: 4 bytes less per packet
# and a frame.len key, key FL, 4 less), key by key (kind, keys, missing);
# prints "LIVE-PACKETS TAGGED-PACKETS" of the totals when they do, else every
# line summed on both sides
same() {
	awk -F, -v live="$1" -v tagged="$3" -v fl="$4" '$3 == "1" {
		adj = FILENAME == tagged
		k = $4
		for (i = 5; i <= NF - 2; i++) {
			v = $i
			if (adj && i == 4 + fl && v != "")
				v -= 4
			k = k "," v
		}
		s = FILENAME == live ? "live" : "file"
		p[s, k] += $(NF - 1)
		b[s, k] += $NF - 4 * adj * $(NF - 1)
		seen[k] = 1
		has[s, k] = 1
		if ($4 == "total" && s == "live")
			lt += $(NF - 1)
		if ($4 == "total" && adj)
			t += $(NF - 1)
	} END {
		for (k in seen)
			if (p["live", k] != p["file", k] || b["live", k] != b["file", k])
				bad = 1
		if (!bad) {
			print lt + 0, t + 0
			exit 0
		}
		for (k in seen)
			for (s = 0; s < 2; s++) {
				w = s ? "file" : "live"
				if (has[w, k] == 1)
					print w, k, p[w, k], b[w, k]
			}
		exit 1
	}' "$1" "$2" "$3"
}

# mode LIVE: how ebpfcount ran live, for the test's name
mode() { [ "$1" = noperfmon ] && echo ", no CAP_PERFMON"; }

# records FILTER: records of the capture that FILTER matches
records() {
	ebpfcount -r /tmp/p/cap.pcap -F csv "count where $1" 2>/dev/null |
		awk -F, '$3 == "1" && $4 == "total" { print $(NF - 1) }'
}

# compare I OPTS FL EXPR TAGGED: expression I of the round, into /tmp/p/I.res:
# a first line "ok LIVE-PACKETS TAGGED-PACKETS" or "not ok", then diagnostics
compare() {
	local i=$1 opts=$2 fl=$3 expr=$4 tagged=$5 d=/tmp/p/$1 rc=0
	[ "$opts" = - ] && opts=
	if ! grep -q '^[0-9.]*,[0-9.]*,1,total,' $d.live; then
		echo "not ok"
		echo "no final totals live; its standard error ends:"
		tail -n 8 $d.err
		return
	fi
	# shellcheck disable=SC2086
	ebpfcount -r /tmp/p/untagged.pcap -n -F csv $opts "$expr" >$d.u 2>&1 || rc=1
	: >$d.t
	if [ "$tagged" != - ]; then
		# shellcheck disable=SC2086
		ebpfcount -r /tmp/p/tagged.pcap -n -F csv $opts "$tagged" >$d.t 2>&1 || rc=1
	fi
	if [ $rc = 0 ] && same $d.live $d.u $d.t "$fl" >$d.same; then
		echo "ok $(cat $d.same)"
		return
	fi
	echo "not ok"
	[ $rc = 0 ] || tail -n 3 $d.u $d.t
	echo "opts: $opts; on tagged records: $tagged"
	echo "kernel (live) and user engine (file) rows, summed per key:"
	sort -k2 $d.same | head -n 60
}

# worker K N FILE: compare the expressions I of FILE with I % N = K
worker() {
	local i=0 live opts fl expr tagged
	while IFS='	' read -r live opts fl expr tagged; do
		i=$((i + 1))
		[ $((i % $2)) = "$1" ] && compare "$i" "$opts" "$fl" "$expr" "$tagged" >/tmp/p/$i.res
	done <"$3"
}

# round R JIT FILE
round() {
	local r=$1 jit=$2 file=$3 n i pid live pre opts fl expr tagged w try t0 mix tagged_n
	echo "$jit" >/proc/sys/net/core/bpf_jit_enable
	tag="jit $(cat /proc/sys/net/core/bpf_jit_enable)"
	rm -rf /tmp/p
	mkdir /tmp/p
	quiet_link
	tcpdump -i eth0 -Z root -w /tmp/p/cap.pcap 2>/tmp/p/tcpdump.err &
	tcpdump_pid=$!
	n=0
	while IFS='	' read -r live opts fl expr tagged; do
		n=$((n + 1))
		[ "$opts" = - ] && opts=
		pre=
		[ "$live" = noperfmon ] && pre="nocap perfmon,sys_admin"
		# shellcheck disable=SC2086
		$pre ebpfcount -i eth0 -n -F csv -I 3600 $opts "$expr" >/tmp/p/$n.live 2>/tmp/p/$n.err &
		eval pid_$n=$!
	done <"$file"
	t0=$(date +%s)
	retry 300 ready "$n"
	retry 60 listening /tmp/p/tcpdump.err
	diag "$tag: $n ebpfcount started in $(($(date +%s) - t0)) s"
	tcpdump -i eth0 -Z root -c 1 -n "ether src $MARK_MAC and udp dst port $((MARK_PORT + r))" \
		>/dev/null 2>/tmp/p/mark.err &
	w=$!
	retry 60 listening /tmp/p/mark.err
	try=0
	while kill -0 $w 2>/dev/null && [ $try -lt 30 ]; do
		craft -q -i eth0 "udp4,src=198.18.0.1,dst=198.18.0.2,smac=$MAIN_MAC,dmac=$PEER_MAC,dport=$((GO_PORT + r))"
		try=$((try + 1))
		sleep 2
	done
	kill $w 2>/dev/null
	wait $w
	quiet_link
	i=1
	while [ $i -le "$n" ]; do
		eval pid=\$pid_$i
		kill -INT "$pid" 2>/dev/null
		i=$((i + 1))
	done
	kill -INT $tcpdump_pid
	wait
	grep 'dropped' /tmp/p/tcpdump.err | sed 's/^/# tcpdump: /'
	ok "$tag: tcpdump dropped no packet" grep -q '^0 packets dropped by kernel' /tmp/p/tcpdump.err
	tcpdump -r /tmp/p/cap.pcap -w /tmp/p/untagged.pcap 'not vlan' 2>/dev/null
	tcpdump -r /tmp/p/cap.pcap -w /tmp/p/tagged.pcap 'vlan' 2>/dev/null
	# the peer's frames less its ICMP errors for the trigger frames (the
	# filter cannot exclude them: its loads past a short frame's end reject)
	mix=$(($(records "ether src $PEER_MAC") -
		$(records "ether src $PEER_MAC and icmp and dst host 198.18.0.1")))
	tagged_n=$(records vlan)
	diag "$tag: $(records 'len >= 0') records captured, $mix of the peer's frame mix ($tagged_n tagged)"
	is "$mix:$tagged_n" "$MIX_FRAMES:$MIX_TAGGED" "$tag: every frame of the mix was captured"
	t0=$(date +%s)
	# one worker a CPU: the guest has two
	worker 0 2 "$file" &
	worker 1 2 "$file"
	wait
	i=0 counted=0 counted_tagged=0
	while IFS='	' read -r live opts fl expr tagged; do
		i=$((i + 1))
		# shellcheck disable=SC2046
		set -- $(head -n 1 /tmp/p/$i.res)
		if [ "$1" = ok ]; then
			_tap_result 0 "$tag$(mode "$live"): $expr"
			[ "$2" = 0 ] || counted=$((counted + 1))
			[ "$3" = 0 ] || counted_tagged=$((counted_tagged + 1))
		else
			_tap_result 1 "$tag$(mode "$live"): $expr"
			tail -n +2 /tmp/p/$i.res | sed 's/^/#   /'
		fi
	done <"$file"
	diag "$tag: compared in $(($(date +%s) - t0)) s; $counted of the $n expressions counted packets, $counted_tagged of them tagged records"
}

main() {
	local a r=0 total=0
	for a in "$@"; do
		total=$((total + $(wc -l <"${a#*:}") + 2))
	done
	plan $((total + 1))
	ok "peer answers ping" wait_peer
	for a in "$@"; do
		r=$((r + 1))
		round $r "${a%%:*}" "${a#*:}"
	done
	done_testing
}

if [ "$EBPFCOUNT_ROLE" = peer ]; then
	peer "$@"
else
	main "$@"
fi
