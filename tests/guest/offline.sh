# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/56-offline.t: ebpfcount -r with --engine kernel
# (the program through the verifier, run by BPF_PROG_TEST_RUN) prints
# exactly the rows of the user engine, for every field alone and behind a
# where clause and a range of where clauses, on a file of crafted frames
# (VLAN and QinQ tags, IPv6 extension headers, fragments, cut frames),
# with the JIT on and off: a differential test of the engine against the
# real verifier, interpreter and JIT.  Then the same expressions eight at
# a time in one program (-e ... -e ...), and the case table's own cases
# (tests/cases.txt), their rows as the table writes them.
. /tests/tap.sh
. /tests/guest/lib.sh

F=/tmp/frames.pcap
# the case table's frames, and three for this test alone: an 802.1ad tag,
# an extension header cut short, a TCP port behind a hop-by-hop header
# shellcheck disable=SC2046
craft -q -w $F $(case_lines frame | cut -f1) tcp4,n=2,vlan=7,svlan=3,dport=80 \
	udp6,n=1,ext=hop,trunc=60 tcp6,n=2,ext=hop,dport=8080
case_lines expect >/tmp/expect
ncases=$(wc -l </tmp/expect)

exprs="$(parser_table)
count by vlan.id, ip.proto where vlan and udp
count by ip.src, udp.srcport where len > 100"

n=$(echo "$exprs" | wc -l)
groups=$(((n + 7) / 8))
plan $((2 * n + 2 * groups + 2 * ncases + 1))
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
	# the case table's own cases, in the kernel
	while IFS="$(printf '\t')" read -r e specs rows; do
		# shellcheck disable=SC2086
		craft -q -w /tmp/case.pcap $specs
		ebpfcount -r /tmp/case.pcap -n -F csv --engine kernel "$e" >/tmp/case.csv 2>&1
		is "$(case_rows "$e" /tmp/case.csv)" "$(echo "$rows" | tr ' ' '\n' | sort | tr '\n' ' ' |
			sed 's/ $//')" "$tag: --engine kernel: '$e' on $specs: the case table's rows"
	done </tmp/expect
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
