# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/55-load.t: every field, alone, behind a where
# clause and together, and a range of where clauses, load through the
# kernel's verifier, both as root gets them (reading a copy of the frame
# where that pays) and reading the frame with LD_ABS only (as without
# CAP_PERFMON, through tests/progs/bench_prog); errors are one clear line.
. /tests/tap.sh
. /tests/guest/lib.sh

quietly() { "$@" >/dev/null; }
has() { echo "$1" | grep -q "$2"; }

exprs=$(parser_table)

n=$(echo "$exprs" | wc -l)
plan $((n + 10))
while read -r e; do
	ok "loads: $e" quietly ebpfcount -i eth0 -c 1 -I 0.05 "$e"
done <<END
$exprs
END

# The same programs reading with LD_ABS only, run on bench_prog's IPv4/TCP
# frame, which the where clauses kept here all accept: every run counted.
set --
i=0
while read -r e; do
	i=$((i + 1))
	set -- "$@" "p$i=ebpfcount-ld:$e"
done <<END
$(echo "$exprs" | grep -v ' where ' ; echo "$exprs" | grep ' where ip or ip6 or arp$')
END
ok "all $i without a where clause or behind 'ip or ip6 or arp' load and count with LD_ABS" \
	quietly bench_prog -1 -r 4 -n 1 "$@"

mode() { ebpfcount -v -d "$1" 2>&1 >/dev/null | sed -n 's/^ebpfcount: reading the frame //p'; }
is "$(mode 'count by ip.proto')" "with LD_ABS (two reads or fewer)" "-v: one field read by LD_ABS"
is "$(mode 'count by tcp.dstport')" "from a copy on the stack" "-v: five reads from the copy"
is "$(mode 'count by ip.proto where tcp')" "from a copy on the stack" "-v: a where clause reads the copy"

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
