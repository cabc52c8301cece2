# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/soak/soak.t (make soak), for both guests:
#   sh /tests/guest/soak.sh SECONDS
# The peer sends for SECONDS of its wall time: iperf3 TCP and UDP (fixed
# ports) and, round after round, 1500 crafted UDP frames whose source
# addresses and ports come from 6000 pairs (rounds cycle through 4 sets
# of 1500) and whose destination port is new every round.  The main guest
# counts with three ebpfcount instances:
#   A  count by ip.src, udp.srcport where inbound      (default hash: the
#      6000 pairs churn but stay the same keys after the first rounds)
#   B  --max-keys 1000, the same keys and udp.dstport  (two tables drained
#      at every readout; a key is never seen again after its round)
#   C  count by ip.proto where inbound                 (an array)
# and every 30 s samples their VmRSS, VmHWM and open descriptors, the BPF
# maps and programs loaded and the kernel memory that moves with them
# (/proc/meminfo: Percpu, Slab, SUnreclaim, VmallocUsed, MemAvailable).
# After the first minute every figure must stay flat: descriptors, maps
# and programs exactly, RSS within RSS_SLACK KiB, Percpu within
# PERCPU_SLACK KiB and VmallocUsed within VMALLOC_SLACK KiB (see below);
# Slab and MemAvailable move with the traffic's buffers and are only
# printed.  At the end, with the link quiet again, the totals must equal
# eth0's receive counter.
. /tests/tap.sh
. /tests/guest/lib.sh
SOAK=${1:-600}

# The peer: traffic from the go signal for SOAK seconds, then a marker.
if [ "$EBPFCOUNT_ROLE" = peer ]; then
	wait_go
	end=$(($(date +%s) + SOAK))
	timeout $((SOAK + 60)) iperf3 -c "$EBPFCOUNT_PEER" -p 5201 -t "$SOAK" >/tmp/tcp.txt 2>&1 &
	timeout $((SOAK + 60)) iperf3 -c "$EBPFCOUNT_PEER" -p 5202 --cport 5300 -u -b 2M -l 400 \
		-t "$SOAK" >/tmp/udp.txt 2>&1 &
	r=0
	while [ "$(date +%s)" -lt $end ]; do
		craft -q -i eth0 -g 10:2000 "udp4,n=1500,src=198.18.2.0,srcrange=8,sport=$((10000 + r % 4 * 251)),sportrange=251,dport=$((20000 + r % 40000))"
		r=$((r + 1))
	done
	wait
	echo "craft: $r rounds of 1500 frames, $((r * 1500)) frames"
	grep -h -E 'sender|receiver' /tmp/tcp.txt /tmp/udp.txt
	sleep 1
	craft -q -i eth0 -c 3 udp4,dport=9998
	exec sleep 1200
fi

plan 19
# Tolerances, in KiB.  ebpfcount's memory after set-up is its key table
# (it doubles at half full, so a growth is 2x, never a few pages), one row
# array and the stdio buffer: at steady state it allocates and frees the
# same sizes every interval and glibc reuses them, so RSS should not move
# at all.  64 KiB (16 pages) leaves room for the heap's top to wander and
# still catches a leak of 120 bytes per interval over 9 minutes, or of one
# byte per row (A prints over 1000 rows a second).  Percpu grows by whole
# pages of a chunk; the tables are preallocated (B, C) or keep the keys of
# the first minute (A), so nothing should be allocated later: 8 KiB is two
# pages, room for some other kernel user's allocation.  VmallocUsed holds
# the maps' bucket arrays and preallocated elements and the JIT images,
# but also the 16 KiB kernel stack of every process (the sampling starts
# a few): 64 KiB is four stacks, about the size of one of B's tables.
RSS_SLACK=${RSS_SLACK:-64}
PERCPU_SLACK=${PERCPU_SLACK:-8}
VMALLOC_SLACK=${VMALLOC_SLACK:-64}

rx() { cat /sys/class/net/eth0/statistics/rx_packets; }
mem() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
status() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
# nfds PID: its open descriptors, the least of three looks: every
# interval, if_indextoname() opens and closes a socket (whether the
# interface still exists), which a single look can catch
nfds() {
	{ ls "/proc/$1/fd" | wc -l; sleep 0.2; ls "/proc/$1/fd" | wc -l; sleep 0.2
	  ls "/proc/$1/fd" | wc -l; } | sort -n | head -n 1
}
# cpu PID: its user and system CPU time, in seconds
cpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }
# objs PID: the BPF maps and programs it holds, as MAPS+PROGS
objs() {
	echo "$(grep -l '^map_type:' /proc/$1/fdinfo/* 2>/dev/null | wc -l)+$(grep -l '^prog_type:' /proc/$1/fdinfo/* 2>/dev/null | wc -l)"
}
# tally OUT: read ebpfcount's JSON Lines; write OUT.final (the final
# object) and OUT.sum: "intervals packets bad", bad counting the
# intervals whose rows plus overflow (every "packets" but the last of a
# line) differ from the total (the last); split is linear in the line,
# whose rows number thousands.
tally() {
	awk -v out="$1" '
	/"final": true/ { print > (out ".final"); next }
	/"error"/ { print > (out ".error"); next }
	{
		k = split($0, p, /"packets": /)
		t = p[k] + 0
		s = 0
		for (i = 2; i < k; i++)
			s += p[i] + 0
		n++
		sum += t
		if (s != t)
			bad++
	}
	END { print n + 0, sum + 0, bad + 0 > (out ".sum") }'
}
# final OUT WHAT: from OUT.final, rows (their number), overflow or total
final() {
	awk -v what="$2" '{
		k = split($0, p, /"packets": /)
		if (what == "rows") print k - 3
		else if (what == "overflow") print p[k - 1] + 0
		else print p[k] + 0
	}' "$1.final"
}
# proto PROTO: packets of C's final row of ip.proto PROTO
proto() { grep -o "{\"ip.proto\": $1, \"packets\": [0-9]*" /tmp/c.final | sed 's/.*: //'; }
# sample T: one row of figures at T seconds, to /tmp/samples and as diag
sample() {
	local row="$1" p
	for p in $pa $pb $pc; do
		row="$row $(status $p VmRSS) $(status $p VmHWM) $(nfds $p) $(objs $p)"
	done
	row="$row $(bpftool map show | grep -c '^[0-9]') $(bpftool prog show | grep -c '^[0-9]')"
	for p in Percpu Slab SUnreclaim VmallocUsed MemAvailable; do
		row="$row $(mem $p)"
	done
	row="$row $(rx)"
	echo "$row" >>/tmp/samples
	echo "$row" | awk '{ printf "# %5s %6s %6s %3s %3s  %6s %6s %3s %3s  %6s %6s %3s %3s  %4s %5s  %6s %6s %6s %6s %7s %10s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21 }'
}
# spread COLUMN: "min max growth" of COLUMN over the samples from 60 s
# on; growth is the largest rise over the first of them (the baseline)
spread() {
	awk -v c="$1" '$1 >= 60 {
		if (!n++) { b = $c; lo = $c; hi = $c }
		if ($c < lo) lo = $c
		if ($c > hi) hi = $c
	} END { print lo + 0, hi + 0, hi - b }' /tmp/samples
}
# same COLUMN...: each column holds one value in every sample
same() {
	local c
	for c; do
		[ "$(awk -v c="$c" '{ print $c }' /tmp/samples | sort -u | wc -l)" = 1 ] || return 1
	done
}

ok "peer answers ping" wait_peer
iperf3 -s -p 5201 -D --logfile /tmp/tcp.log
iperf3 -s -p 5202 -D --logfile /tmp/udp.log
for i in a b c; do
	mkfifo /tmp/$i.fifo
	tally /tmp/$i </tmp/$i.fifo &
done
quiet_link
rx0=$(rx)
ebpfcount -i eth0 -F json 'count by ip.src, udp.srcport where inbound' \
	>/tmp/a.fifo 2>/tmp/a.err &
pa=$!
ebpfcount -i eth0 -F json --max-keys 1000 'count by ip.src, udp.srcport, udp.dstport where inbound' \
	>/tmp/b.fifo 2>/tmp/b.err &
pb=$!
ebpfcount -i eth0 -F json 'count by ip.proto where inbound' >/tmp/c.fifo 2>/tmp/c.err &
pc=$!
ok "three counting sockets bound before the traffic starts" retry 120 bound 3
# The end marker, waited for in the background: a file with its time.
{ timeout $((SOAK + 600)) tcpdump -i eth0 -Z root -c 1 -n 'udp dst port 9998' >/dev/null 2>&1
  date +%s >/tmp/done; } &
retry 30 bound 4
send_go &
t0=$(date +%s)
diag "soak: $SOAK s of traffic from the peer; figures in KiB, fds: descriptors, m+p: BPF maps+programs held"
diag "    t |  A: rss    hwm fds m+p |  B: rss    hwm fds m+p |  C: rss    hwm fds m+p | maps progs | Percpu   Slab SUnrec Vmalloc MemAvail  eth0 rx"
next=0
while [ ! -e /tmp/done ]; do
	t=$(($(date +%s) - t0))
	if [ $t -ge $next ]; then
		sample $t
		next=$((next + 30))
	fi
	sleep 1
done
elapsed=$(($(cat /tmp/done) - t0))
quiet_link
rx1=$(rx)
sample $(($(date +%s) - t0))
diag "CPU time (user + system): A $(cpu $pa) s, B $(cpu $pb) s, C $(cpu $pc) s"
kill -INT $pa $pb $pc
for p in $pa $pb $pc; do
	wait $p
	echo $? >>/tmp/rcs
done
wait

cmp_ok "$elapsed" -ge "$SOAK" "traffic ran for $SOAK s of guest wall time ($elapsed s go to end marker)"
is "$(cat /tmp/rcs | tr '\n' ' ')" "0 0 0 " "the three exit 0 on SIGINT"
is "$(cat /tmp/*.err /tmp/*.error 2>/dev/null)" "" "no errors"
# Columns of /tmp/samples: 1 t, then per instance rss hwm fds m+p (A 2-5,
# B 6-9, C 10-13), 14 maps, 15 progs, 16 Percpu, 17 Slab, 18 SUnreclaim,
# 19 VmallocUsed, 20 MemAvailable, 21 rx.
# flat NAME COLUMN SLACK: print the column's start and its range from
# 60 s on; its largest rise over the first sample from 60 s on must be at
# most SLACK KiB (no SLACK: figures only).  Skipped with fewer than two
# samples from 60 s on (SOAK_SECONDS below 90).
late=$(awk '$1 >= 60' /tmp/samples | wc -l)
flat() {
	local name=$1 c=$2 slack=$3
	set -- $(spread "$c")
	if [ "$late" -gt 0 ]; then
		diag "$name: $(awk -v c="$c" 'NR == 1 { print $c }' /tmp/samples) KiB at start; from 60 s on $1..$2 KiB, largest rise $3 KiB"
	else
		diag "$name: $(awk -v c="$c" 'NR == 1 { print $c }' /tmp/samples) KiB at start, $(tail -n 1 /tmp/samples | awk -v c="$c" '{ print $c }') KiB at the end"
	fi
	[ -n "$slack" ] || return 0
	if [ "$late" -lt 2 ]; then
		skip "$name grows at most $slack KiB after the first minute" "$late sample(s) from 60 s on"
	else
		cmp_ok "$3" -le "$slack" "$name grows at most $slack KiB after the first minute"
	fi
}
for i in A:2 B:6 C:10; do
	c=${i#*:}
	flat "${i%:*}: RSS" "$c" "$RSS_SLACK"
	diag "${i%:*}: peak RSS (VmHWM) $(tail -n 1 /tmp/samples | awk -v c=$((c + 1)) '{ print $c }') KiB"
	ok "${i%:*}: open descriptors and BPF objects constant" same $((c + 2)) $((c + 3))
done
ok "BPF maps and programs loaded constant" same 14 15
flat Percpu 16 "$PERCPU_SLACK"
flat VmallocUsed 19 "$VMALLOC_SLACK"
flat Slab 17
flat SUnreclaim 18
flat MemAvailable 20

received=$((rx1 - rx0))
set -- $(cat /tmp/a.sum)
diag "eth0 received $received packets; A: $1 intervals, $(final /tmp/a rows) keys at the end"
is "$(final /tmp/a total)" "$received" "A: final total equals eth0's receive counter"
is "$2:$3" "$(final /tmp/a total):0" "A: its intervals add up to the final total, rows to totals"
set -- $(cat /tmp/b.sum)
diag "B: $1 intervals, final: $(final /tmp/b rows) rows, overflow $(final /tmp/b overflow)"
is "$(final /tmp/b total):$2:$3" "$received:$received:0" \
	"B: final total and intervals equal eth0's counter, rows plus overflow every total"
cmp_ok "$(final /tmp/b overflow)" -gt 0 "B: keys overflowed its 1000"
diag "C: TCP $(proto 6) packets, UDP $(proto 17) packets"
is "$(final /tmp/c total)" "$received" "C: final total equals eth0's receive counter"
diag "iperf3 (server side):"
grep -h -E 'receiver|sender' /tmp/tcp.log /tmp/udp.log | tail -n 4 | sed 's/^/#   /'
done_testing
