# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/55-load.t: every field, alone, behind a where
# clause and together, and a range of where clauses, load through the
# kernel's verifier, both as root gets them (reading a copy of the frame
# where that pays) and reading the frame with LD_ABS only (as without
# CAP_PERFMON, through tests/progs/bench_prog), also eight expressions to
# a program (-e); errors are one clear line.  Argument: "yes" when the
# kernel has the series, whose direct reads root's programs then use: then
# every program loads reading the copy too (EBPFCOUNT_FRAME=window).
. /tests/tap.sh
. /tests/guest/lib.sh
series=$1

quietly() { "$@" >/dev/null; }
has() { echo "$1" | grep -q "$2"; }

exprs=$(parser_table live)

n=$(echo "$exprs" | wc -l)
# reads indexed by the IPv4 header length, in every way of reading the frame
modes="window ld_abs"
[ "$series" = yes ] && modes="$modes direct"
indexed="tcp port 443|tcp[tcpflags] & tcp-syn != 0|udp[4:4] = 0|tcp[2:2] = 443|icmp[0] = 8"
plan $((n + 20 + $(echo $modes | wc -w) * 5))
while read -r e; do
	ok "loads: $e" quietly ebpfcount -i eth0 -c 1 -I 0.05 "$e"
done <<END
$exprs
END
window_all() {
	local e
	while read -r e; do
		EBPFCOUNT_FRAME=window ebpfcount -i eth0 -c 1 -I 0.05 "$e" >/dev/null || return 1
	done <<END
$exprs
END
}
if [ "$series" = yes ]; then
	ok "all $n load reading the copy on the stack as well" window_all
else
	skip "all $n load reading the copy on the stack as well" "they did above"
fi

# The same programs reading with LD_ABS only, run on bench_prog's IPv4/TCP
# frame, which the where clauses kept here all accept: every run counted.
set --
i=0
while read -r e; do
	i=$((i + 1))
	set -- "$@" "p$i=ebpfcount-ld:$e"
done <<END
$(echo "$exprs" | grep -v ' where \|sll\.' ; echo "$exprs" | grep -v 'sll\.' | grep ' where ip or ip6 or arp$')
END
ok "all $i without a where clause or behind 'ip or ip6 or arp' load and count with LD_ABS" \
	quietly bench_prog -1 -r 4 -n 1 "$@"

# Eight to a program (-e): every expression of the table, live; the LD_ABS
# ones through bench_prog (each expression's table counts every run).
multi_live() {
	local g=0 e
	while :; do
		g=$((g + 1))
		set --
		while read -r e; do
			[ -n "$e" ] && set -- "$@" -e "$e"
		done <<END
$(echo "$exprs" | sed -n "$((8 * g - 7)),$((8 * g))p")
END
		[ $# = 0 ] && return 0
		ebpfcount -i eth0 -c 1 -I 0.05 "$@" >/dev/null || return 1
	done
}
ok "loads: the $n expressions, eight to a program" multi_live
multi_ld() {
	local args= i=0 j=0 case
	for case in "$@"; do
		j=$((j + 1))
		args="$args${args:+;}${case#*=ebpfcount-ld:}"
		if [ $((j % 8)) = 0 ] || [ $j = $# ]; then
			i=$((i + 1))
			quietly bench_prog -1 -r 4 -n 1 "m$i=ebpfcount-ld:$args" || return 1
			args=
		fi
	done
}
ok "the same $i with LD_ABS, eight to a program" multi_ld "$@"

mode() { ebpfcount -v -d "$1" 2>&1 >/dev/null | sed -n 's/^ebpfcount: reading the frame //p'; }
is "$(mode 'count by ip.proto')" "with LD_ABS (two reads or fewer)" "-v: one field read by LD_ABS"
is "$(mode 'count by tcp.dstport')" "from a copy on the stack" "-v: five reads from the copy"
is "$(mode 'count by ip.proto where tcp')" "from a copy on the stack" "-v: a where clause reads the copy"
# With -i the kernel is asked whether its socket filters may read the packet.
live_mode() { ebpfcount -v -d -i eth0 "$1" 2>&1 >/dev/null | sed -n 's/^ebpfcount: reading the frame //p'; }
if [ "$series" = yes ]; then
	want="directly from the packet (LD_ABS past its linear part)"
else
	want="from a copy on the stack"
fi
is "$(live_mode 'count by tcp.dstport')" "$want" "-v -i eth0: $want"
is "$(live_mode 'count by ip.proto where tcp')" "$want" "-v -i eth0, a where clause: $want"
# Reads at X + k, X the IPv4 header length (ldxb 4*([14]&0xf)): from the
# copy, one load of the size when the verifier can tell it is aligned
# (X a multiple of 4), which it must accept.
for m in $modes; do
	echo "$indexed" | tr '|' '\n' >/tmp/indexed
	while read -r f; do
		ok "$m: loads: where $f" \
			quietly env EBPFCOUNT_FRAME=$m ebpfcount -i eth0 -c 1 -I 0.05 "count by ip.proto where $f"
	done </tmp/indexed
done
# Constant offsets past a load's 16-bit offset, up to the largest read directly
for at in 40000 65280:4 65531:4; do
	ok "loads: a where clause at ether[$at]" \
		quietly ebpfcount -i eth0 -c 1 -I 0.05 "count where ether[$at] = 0"
done
is "$(EBPFCOUNT_FRAME=bogus ebpfcount -d count 2>&1)" \
	"ebpfcount: EBPFCOUNT_FRAME is window, direct or ld_abs, not 'bogus'" \
	"EBPFCOUNT_FRAME: a bad value is one clear line"

# No -i: ebpfcount takes the first up, non-loopback interface, eth0.  Its
# socket is bound to eth0's index (/proc/net/packet, column Iface), and it
# counts exactly the frames this guest sends on eth0 (those of a source MAC
# of their own: their where clause holds nothing else).
M=52:54:00:12:34:77
ebpfcount -F csv -I 0.2 "count where ether src $M" >/tmp/noi.csv 2>&1 &
pid=$!
retry 30 bound 1
is "$(awk 'NR > 1 && $4 != "0000" { print $5 }' /proc/net/packet)" \
	"$(cat /sys/class/net/eth0/ifindex)" "no -i: the socket is bound to eth0"
craft -q -i eth0 -c 7 "udp4,smac=$M,dst=198.18.0.99"
sleep 0.5
kill -INT $pid
wait $pid
is "$?:$(awk -F, '$3 == "1" && $4 == "total" { print $(NF - 1) }' /tmp/noi.csv)" "0:7" \
	"no -i: exit 0, the 7 frames sent on eth0 counted"

err=$(ebpfcount -i nosuch0 count 2>&1)
rc=$?
is "$rc:$err" "1:ebpfcount: no such interface 'nosuch0'" "unknown interface: one line, exit 1"

err=$(su -s /bin/sh tcpdump -c "ebpfcount -i eth0 count" 2>&1)
rc=$?
diag "$err"
ok "without privileges: exit 1" test "$rc" = 1
ok "and the message names the capability" has "$err" 'needs CAP_BPF or CAP_SYS_ADMIN'

err=$(ebpfcount -i eth0 'count by ip.src where tcp prot 80' 2>&1)
ok "a bad filter is reported with its position" has "$err" 'column 23'

ok "-F json errors are one JSON object on stderr, nothing on stdout" sh -c \
	"ebpfcount -i eth0 -F json 'count by ip.sorc' 2>&1 >/tmp/json.out |
		grep -q '^{\"error\": \"bad expression.*\"column\": 10}\$' && ! test -s /tmp/json.out"
