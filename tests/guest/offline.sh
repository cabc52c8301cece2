# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/56-offline.t: ebpfcount -r with --engine kernel
# (the program through the verifier, run by BPF_PROG_TEST_RUN) prints
# exactly the rows of the user engine, for every field alone and behind a
# where clause and a range of where clauses, on a file of crafted frames
# (VLAN and QinQ tags, IPv6 extension headers, fragments, cut frames),
# with the JIT on and off: a differential test of the engine against the
# real verifier, interpreter and JIT.  Then the same expressions eight at
# a time in one program (-e ... -e ...).
. /tests/tap.sh
. /tests/guest/lib.sh

F=/tmp/frames.pcap
craft -q -w $F udp4,n=7,dport=53 udp4,n=5,sport=5353,srcrange=5 \
	tcp4,n=6,dport=443,flags=S tcp4,n=3,dport=22,ipopts=12,flags=PA,len=200 \
	icmp4,n=4 icmp4,n=2,type=3,code=3,ttl=5 udp4,n=3,frag=first,dport=4789 \
	udp4,n=2,frag=later udp4,n=4,vlan=42,dport=9 tcp4,n=2,vlan=7,svlan=3,dport=80 \
	udp6,n=5,dport=53 tcp6,n=3,dport=443 icmp6,n=4 tcp6,n=2,ext=hop,dport=8080 \
	udp6,n=1,ext=dst,vlan=9 arp,n=3 raw,n=2,len=100 tcp4,n=2,trunc=20 \
	tcp4,n=2,trunc=40 udp6,n=1,trunc=50 udp6,n=1,ext=hop,trunc=60 \
	udp4,n=2,len=1514,dport=7 udp4,n=1,len=4000,dport=8

exprs="$(parser_table)
count by vlan.id, ip.proto where vlan and udp
count by ip.src, udp.srcport where len > 100"

n=$(echo "$exprs" | wc -l)
groups=$(((n + 7) / 8))
plan $((2 * n + 2 * groups + 1))
ok "the JIT can be turned off" sh -c 'echo 0 >/proc/sys/net/core/bpf_jit_enable'
for jit in 1 0; do
	echo $jit >/proc/sys/net/core/bpf_jit_enable 2>/dev/null
	tag="jit $(cat /proc/sys/net/core/bpf_jit_enable)"
	while read -r e; do
		ebpfcount -r $F -n -F csv --max-keys 40 "$e" >/tmp/user.csv 2>&1
		ebpfcount -r $F -n -F csv --max-keys 40 --engine kernel "$e" >/tmp/kernel.csv 2>&1
		if cmp -s /tmp/user.csv /tmp/kernel.csv && grep -q ',1,total,' /tmp/user.csv; then
			ok "$tag: same rows: $e" true
		else
			ok "$tag: same rows: $e" false
			diff /tmp/user.csv /tmp/kernel.csv | head -10 | sed 's/^/# /'
		fi
	done <<END
$exprs
END
	# the same, eight expressions to a program
	for g in $(seq 1 $groups); do
		set --
		while read -r e; do
			set -- "$@" -e "$e"
		done <<END
$(echo "$exprs" | sed -n "$((8 * g - 7)),$((8 * g))p")
END
		ebpfcount -r $F -n -F csv --max-keys 40 "$@" >/tmp/user.csv 2>&1
		ebpfcount -r $F -n -F csv --max-keys 40 --engine kernel "$@" >/tmp/kernel.csv 2>&1
		name="$tag: same rows: one program of $(($# / 2)) expressions ($g of $groups)"
		if cmp -s /tmp/user.csv /tmp/kernel.csv &&
		   [ "$(grep -c '^[0-9.]*,[0-9.]*,1,.*,total,' /tmp/user.csv)" = $(($# / 2)) ]; then
			ok "$name" true
		else
			ok "$name" false
			diff /tmp/user.csv /tmp/kernel.csv | head -10 | sed 's/^/# /'
		fi
	done
done
done_testing
