#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --max-keys between two guests, on both kernels: a bounded key table that
# starts empty at every interval (see tests/guest/maxkeys.sh).
. "$(dirname "$0")/lib.sh"
peer='. /tests/guest/lib.sh; wait_go
M=smac=52:54:00:12:34:99
craft -q -i eth0 -g 5:2000 "udp4,n=80,sport=1001,sportrange=8,$M"
sleep 3
craft -q -i eth0 -g 5:2000 "udp4,n=80,sport=2001,sportrange=8,$M"
sleep 2
craft -q -i eth0 -c 3 udp4,dport=9998
sleep 600'
for k in $KERNELS; do
	vm_tap "$k: " --kernel "$k" --peer "$peer" -- sh /tests/guest/maxkeys.sh
done
plan "$tap_n"
done_testing
