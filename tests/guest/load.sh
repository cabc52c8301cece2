# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/55-load.t: every field, alone and together, and a
# range of where clauses, load through the kernel's verifier; errors are
# one clear line.
. /tests/tap.sh

quietly() { "$@" >/dev/null; }
has() { echo "$1" | grep -q "$2"; }

fields=$(ebpfcount --list-fields | cut -d' ' -f1)
exprs="count"
for f in $fields; do exprs="$exprs
count by $f"; done
exprs="$exprs
count by ip.src/8, ip.dst/31, ipv6.src/1, ipv6.dst/127
count by eth.src, eth.dst, eth.type, vlan.id, frame.len, ip.src, ip.dst, ip.proto
count by ipv6.src, ipv6.dst, ipv6.nxt, tcp.srcport, tcp.dstport, tcp.flags, udp.srcport, udp.dstport
count by ip.proto where tcp port 443 and not net 198.18.0.0/16
count by vlan.id where vlan 42
count by ip.src where inbound and ip[6:2] & 0x1fff != 0
count by tcp.flags where tcp[tcpflags] & (tcp-syn|tcp-fin) != 0
count by udp.dstport where ip6 and udp portrange 1-1024
count by icmp.type where icmp or icmp6
count by frame.len where greater 1000 or less 64"

n=$(echo "$exprs" | wc -l)
plan $((n + 6))
while read -r e; do
	ok "loads: $e" quietly ebpfcount -i eth0 -c 1 -I 0.05 "$e"
done <<END
$exprs
END

out=$(ebpfcount -c 1 -I 0.05 -F csv count 2>&1)
ok "no -i: picks eth0" test "$(echo "$out" | wc -l)" -ge 3

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

ok "-F json errors are JSON on stdout" sh -c \
	"ebpfcount -i eth0 -F json 'count by ip.sorc' 2>/dev/null | grep -q '^{\"error\": \"bad expression'"
