# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/58-faults.t: least privilege and faults, on a
# veth pair made for the test (frames sent into vb arrive on va).  Every
# run must count exactly what was sent, print its final totals once and
# end with the status the man page gives.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 38

SHIM=/usr/lib/ebpfcount/bpf_fault.so
M=52:54:00:12:34:77
ZERO=0000000000000000

# New links send no IPv6 MLD reports or DAD probes: only our frames.
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
# send IFACE N [SPEC-OPTIONS]: N UDP frames from $M into IFACE's peer
send() {
	craft -q -i "$1" -c "$2" "udp4,smac=$M,dmac=$(cat /sys/class/net/va/address),dport=7000${3:+,$3}"
}
# caps PID: its effective, permitted, inheritable, ambient and bounding sets
caps() { grep '^Cap' "/proc/$1/status" | awk '{ printf "%s%s ", $1, $2 }'; }
# dropped PID: it has set up and dropped its capabilities (or ended)
dropped() {
	gone "$1" && return 0
	# (setpriv's own process is briefly without capabilities too)
	[ "$(readlink "/proc/$1/exe")" = /usr/bin/ebpfcount ] && grep -q "^CapEff:.$ZERO" "/proc/$1/status"; }
# final FILE WHAT: the final object's total or overflow packets
final() { grep '"final": true' "$1" | sed -n "s/.*\"$2\": {\"packets\": \([0-9]*\).*/\1/p"; }
# finals FILE: how many final objects
finals() { grep -c '"final": true' "$1"; }
# rows FILE: the packets of the final object's rows
rows() {
	grep '"final": true' "$1" | grep -o '"rows": \[[^]]*\]' | grep -o '"packets": [0-9]*' |
		sed 's/.*: //' | awk '{ s += $1 } END { print s + 0 }'
}
# kept PID: it has set up, keeping only CAP_BPF and CAP_SYS_ADMIN (or ended)
kept() { gone "$1" || grep -q "^CapEff:.0000008000200000" "/proc/$1/status"; }
# gone PID: it has ended
gone() { ! kill -0 "$1" 2>/dev/null; }
# catching PID: it has its handlers for SIGHUP, SIGINT and SIGTERM
catching() {
	local m
	m=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status")
	[ -n "$m" ] && [ $((0x$m & 0x4003)) = $((0x4003)) ]
}
# whole FILE: every line is one whole JSON object and the last is the final
whole() {
	[ "$(grep -cv '^{.*}$' "$1")" = 0 ] && tail -n 1 "$1" | grep -q '"final": true'
}
# count ARGS...: ebpfcount -F json ARGS in the background (pid in $pid),
# output in /tmp/out.json, errors in /tmp/err; returns once it has set up
count() {
	ebpfcount -F json "$@" >/tmp/out.json 2>/tmp/err &
	pid=$!
	retry 60 dropped $pid
}
# stop_count [SIG]: end it (SIGINT) and set $rc
stop_count() {
	kill -"${1:-INT}" $pid
	retry 20 gone $pid || kill -9 $pid
	wait $pid
	rc=$?
}

ok "veth pair va/vb" veth_pair va vb
EXPR="count by udp.dstport where ether src $M"

# Least privilege.  As root without -Z: every set empties after set-up.
count -i va "$EXPR"
is "$(caps $pid)" "CapInh:$ZERO CapPrm:$ZERO CapEff:$ZERO CapBnd:$ZERO CapAmb:$ZERO " \
	"root: no capability left once attached"
send vb 100
sleep 1.5
stop_count
is "$rc:$(final /tmp/out.json total)" "0:100" "root: 100 frames counted after the drop"

# SIGINT within an interval (-I 60: none ended): the interval is read out
# as it stands, and the totals hold every frame counted.
count -i va -I 60 "$EXPR"
send vb 100
sleep 1
stop_count
is "$rc:$(final /tmp/out.json total):$(grep -vc '"final": true' /tmp/out.json)" "0:100:1" \
	"SIGINT within an interval: that interval, then totals of every frame"

count -Z tcpdump -i va "$EXPR"
is "$(grep -E '^(Uid|Gid|Groups):' /proc/$pid/status | tr -s '\t\n' '  ')" \
	"Uid: 100 100 100 100 Gid: 100 100 100 100 Groups: 100 " "-Z tcpdump: its user, group and groups"
is "$(caps $pid)" "CapInh:$ZERO CapPrm:$ZERO CapEff:$ZERO CapBnd:$ZERO CapAmb:$ZERO " \
	"-Z tcpdump: no capability"
send vb 100
sleep 1.5
stop_count
is "$rc:$(final /tmp/out.json total)" "0:100" "-Z tcpdump: 100 frames counted"
err=$(ebpfcount -Z nosuch -i va count 2>&1)
is "$?:$err" "1:ebpfcount: -Z 'nosuch': no such user" "-Z with an unknown user: one line, exit 1"

# Not root: user 100 with only the capabilities given, unprivileged BPF
# off (the default of distributions: 2).
echo 2 >/proc/sys/kernel/unprivileged_bpf_disabled
# as CAPS ARGS...: ebpfcount as user 100 with only CAPS (setpriv names)
as() {
	local c=$1
	shift
	exec /usr/bin/setpriv --reuid=100 --regid=100 --clear-groups --inh-caps=-all,$c \
		--ambient-caps=-all,$c --bounding-set=-all,$c ebpfcount -F json "$@"
}
for c in +bpf,+net_raw +bpf,+net_raw,+perfmon; do
	as $c -i va "$EXPR" >/tmp/out.json 2>/tmp/err &
	pid=$!
	retry 60 dropped $pid
	# (its bounding set stays: dropping from it needs CAP_SETPCAP)
	is "$(awk '/^Uid:/ { print $2 }' /proc/$pid/status):$(caps $pid | sed 's/CapBnd:[0-9a-f]* //')" \
		"100:CapInh:$ZERO CapPrm:$ZERO CapEff:$ZERO CapAmb:$ZERO " \
		"user 100 with $c: no capability left once attached"
	send vb 100
	sleep 1.5
	stop_count
	is "$rc:$(final /tmp/out.json total):$(cat /tmp/err)" "0:100:" "user 100 with $c: 100 frames counted"
done
err=$(as +net_raw -i va "$EXPR" 2>&1 >/dev/null)
is "$?:$(echo "$err" | wc -l):$(echo "$err" | grep -c 'needs CAP_BPF')" "1:1:1" \
	"user 100 without CAP_BPF: one line that names it, exit 1"
err=$(as +bpf -i va "$EXPR" 2>&1 >/dev/null)
is "$?:$(echo "$err" | wc -l):$(echo "$err" | grep -c 'needs CAP_NET_RAW')" "1:1:1" \
	"user 100 without CAP_NET_RAW: one line that names it, exit 1"
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled

# The interface goes down and comes back up: counting goes on.
count -i va "$EXPR"
send vb 50
sleep 1
ip link set va down
sleep 1.5
ip link set va up
retry 10 grep -qx up /sys/class/net/va/operstate
retry 10 grep -qx up /sys/class/net/vb/operstate
send vb 50
sleep 1.5
ok "down and up: still counting" kill -0 $pid
stop_count
is "$rc:$(final /tmp/out.json total)" "0:100" "down and up: 50 + 50 frames counted"

# The interface is deleted: the totals, one line, exit 1.
ok "veth pair vc/vd" veth_pair vc vd
count -i vc "$EXPR"
craft -q -i vd -c 40 "udp4,smac=$M,dport=7000"
sleep 1.5
ip link del vc
retry 20 gone $pid || kill -9 $pid
wait $pid
rc=$?
is "$rc:$(cat /tmp/err)" '1:{"error": "interface vc went away"}' \
	"veth deleted: one line (JSON: -F json), exit 1"
is "$(finals /tmp/out.json):$(final /tmp/out.json total)" "1:40" "veth deleted: final totals, once"
ip link add link va name va.42 type vlan id 42
ip link set va.42 up
count -i va.42 "$EXPR"
send vb 30 vlan=42
sleep 1.5
ip link del va.42
retry 20 gone $pid || kill -9 $pid
wait $pid
rc=$?
is "$rc:$(cat /tmp/err)" '1:{"error": "interface va.42 went away"}' \
	"VLAN deleted: one line (JSON), exit 1"
is "$(finals /tmp/out.json):$(final /tmp/out.json total)" "1:30" "VLAN deleted: final totals, once"

# A reader that stalls for 5 s behind intervals of 1000 rows (more than a
# pipe holds): no interval lost, the sums exact.
b0=$(awk 'NR > 1 && $4 != "0000"' /proc/net/packet | wc -l)
{ ebpfcount -i va -F json -I 0.2 -c 20 "count by udp.srcport where ether src $M" 2>/tmp/err
  echo $? >/tmp/rc; } | { sleep 5; cat >/tmp/stall.json; } &
retry 60 bound $((b0 + 1))
send vb 2000 sportrange=1000
wait
n=$(grep -vc '"final": true' /tmp/stall.json)
sum=$(grep -v '"final": true' /tmp/stall.json | sed -n 's/.*"total": {"packets": \([0-9]*\).*/\1/p' |
	awk '{ s += $1 } END { print s + 0 }')
is "$(cat /tmp/rc):$n:$sum:$(final /tmp/stall.json total)" "0:20:2000:2000" \
	"stalled reader: 20 intervals, their sum and the final total exact"

# A reader that goes away: quiet, status 0, program and maps gone.
progs() { bpftool prog show | grep -c '^[0-9]'; }
maps() { bpftool map show | grep -c '^[0-9]'; }
p0=$(progs) m0=$(maps)
{ ebpfcount -i va -F csv -I 0.1 count 2>/tmp/err; echo $? >/tmp/rc; } | head -3 >/tmp/head.out
is "$(cat /tmp/rc):$(wc -l </tmp/head.out):$(cat /tmp/err)" "0:3:" "| head -3: quiet, status 0"
is "$(progs):$(maps)" "$p0:$m0" "| head -3: its program and maps are gone"

# SIGINT, SIGTERM, SIGHUP at any moment, from before set-up to the
# readouts (every 50 ms) while frames come: final totals once, status 0,
# no half line.
for sig in INT TERM HUP; do
	bad=""
	for i in 1 2 3 4 5 6 7 8; do
		send vb 2000 sportrange=1000 &
		s=$!
		ebpfcount -i va -F json -I 0.05 "count by udp.srcport" >/tmp/sig.json 2>/tmp/err &
		pid=$!
		# From the moment it catches the three (its first step).
		retry 60 catching $pid
		sleep "$(awk -v i=$i 'BEGIN { srand(i); printf "%.3f", (i - 1) * rand() * 0.1 }')"
		stop_count $sig
		wait $s
		if [ $rc != 0 ] || [ -s /tmp/err ] || [ "$(finals /tmp/sig.json)" != 1 ] ||
		   ! whole /tmp/sig.json; then
			bad="$bad $i(rc $rc, $(finals /tmp/sig.json) finals)"
		fi
	done
	is "$bad" "" "SIG$sig at 8 moments: status 0, final totals once, whole lines"
done

# Standard output on a full file system: one line, exit 1.
mkdir -p /tmp/small
mount -t tmpfs -o size=8k small /tmp/small
timeout 60 ebpfcount -i va -F json -I 0.02 count >/tmp/small/out 2>/tmp/err
is "$?:$(cat /tmp/err)" '1:{"error": "cannot write the output: No space left on device"}' \
	"full file system: one line (JSON), exit 1"
umount /tmp/small

# Faults injected into bpf(2) (tests/preload/bpf_fault.c).  A rejected
# program goes through the verifier twice: libbpf loads it again with a
# log.  (Every BPF_PROG_LOAD fails, libbpf's feature probe too, so only
# the loads of more than 2 instructions are ebpfcount's; EBPFCOUNT_FRAME
# spares the probe of direct reads, another such load.)
rm -f /tmp/bpf.log
err=$(BPF_FAULT_CMD=5 BPF_FAULT_ERRNO=22 BPF_FAULT_LOG=/tmp/bpf.log LD_PRELOAD=$SHIM \
	EBPFCOUNT_FRAME=window ebpfcount -i va count 2>&1)
is "$?:$err" "1:ebpfcount: the verifier rejected the program (Invalid argument): no log" \
	"a rejected program: one line, exit 1"
is "$(awk '$1 == 5 && $2 > 2' /tmp/bpf.log | wc -l)" 2 "a rejected program is loaded twice, not three times"

# A readout that fails (the overflow map's lookup) after it read the keys
# (and, with --max-keys, drained them): the totals with every key read,
# then the error, exit 1.
for mk in "" "--max-keys 1000"; do
	rm -f /tmp/out.json
	BPF_FAULT_CMD=1 BPF_FAULT_AFTER_READ=1 LD_PRELOAD=$SHIM \
		ebpfcount -i va -F json -I 5 $mk "count by udp.srcport where ether src $M" \
		>/tmp/out.json 2>/tmp/err &
	pid=$!
	retry 60 dropped $pid
	send vb 100 sportrange=100	# (all before the first readout, at 5 s)
	# (ends at that readout; a run that does not is killed)
	retry 30 gone $pid || kill -9 $pid
	wait $pid
	rc=$?
	diag "interval totals: $(sed -n 's/.*"total": {"packets": \([0-9]*\).*/\1/p' /tmp/out.json |
		tr '\n' ' '); eth: $(cat /sys/class/net/va/statistics/rx_packets)"
	is "$rc:$(cat /tmp/err)" '1:{"error": "cannot read the counters: Input/output error"}' \
		"readout fails${mk:+ ($mk)}: one line (JSON), exit 1"
	is "$(finals /tmp/out.json):$(final /tmp/out.json total):$(rows /tmp/out.json)" "1:100:100" \
		"readout fails${mk:+ ($mk)}: final totals with the 100 keys read"
done

# A kernel before 5.19 with kernel.unprivileged_bpf_disabled refuses every
# bpf(2) command without CAP_BPF or CAP_SYS_ADMIN (simulated by the shim):
# those two stay, and the counts are exact.
BPF_FAULT_OLD_UNPRIV=1 LD_PRELOAD=$SHIM ebpfcount -F json -i va "$EXPR" >/tmp/out.json 2>/tmp/err &
pid=$!
retry 60 kept $pid
is "$(caps $pid)" "CapInh:$ZERO CapPrm:0000008000200000 CapEff:0000008000200000 CapBnd:$ZERO CapAmb:$ZERO " \
	"bpf(2) refused without CAP_BPF: it and CAP_SYS_ADMIN stay, nothing else"
send vb 100
sleep 1.5
stop_count
is "$rc:$(final /tmp/out.json total):$(cat /tmp/err)" "0:100:" "bpf(2) refused without CAP_BPF: 100 frames counted"

# nohup: a SIGHUP ignored by whoever started it stays ignored.
(trap '' HUP; exec ebpfcount -i va -F json "$EXPR" >/tmp/out.json 2>/tmp/err) &
pid=$!
retry 60 dropped $pid
kill -HUP $pid
sleep 1.5
ok "an ignored SIGHUP stays ignored (nohup)" kill -0 $pid
stop_count
is "$rc:$(finals /tmp/out.json)" "0:1" "... and SIGINT still ends it with the totals"
done_testing
