#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The default key tables between two guests, on both kernels: they start
# at 1024 keys and grow in the kernel, through the helper that keeps
# CAP_BPF (see tests/guest/growth.sh).
. "$(dirname "$0")/lib.sh"
peer='. /tests/guest/lib.sh; wait_go
M=smac=52:54:00:12:34:99
craft -q -i eth0 -g 5:2000 "udp4,n=4000,src=198.18.16.1,srcrange=4000,$M"
sleep 3
craft -q -i eth0 -g 5:2000 "udp4,n=4000,src=198.18.48.1,srcrange=4000,$M"
sleep 2
craft -q -i eth0 -c 3 udp4,dport=9998
sleep 600'
for k in $KERNELS; do
	vm_tap "$k: " --kernel "$k" --peer "$peer" -- sh /tests/guest/growth.sh
done
plan "$tap_n"
done_testing
