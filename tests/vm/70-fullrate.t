#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Exact counts at full rate, on both kernels (see tests/guest/fullrate.sh).
. "$(dirname "$0")/lib.sh"
peer='. /tests/guest/lib.sh; wait_go
M=smac=52:54:00:12:34:99
craft -q -i eth0 -g 5:2000 "tcp4,n=2000,$M" "udp4,n=3000,$M" "icmp4,n=500,$M"
craft -q -i eth0 -g 0:0 "udp4,n=100000,sportrange=300,dport=7"
iperf_client 198.18.0.1 -u -b 0 -l 16 -t 3 >/dev/null
craft -q -i eth0 -c 3 udp4,dport=9998
sleep 600'
for k in $KERNELS; do
	vm_tap "$k: " --kernel "$k" --peer "$peer" -- sh /tests/guest/fullrate.sh
done
plan "$tap_n"
done_testing
