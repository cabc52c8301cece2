#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Least privilege and faults (tests/guest/faults.sh: capabilities, -Z, a
# user with only CAP_BPF and CAP_NET_RAW, an interface down and up or
# deleted, a stalled or vanished reader, signals, a full file system,
# bpf(2) failures), then --max-keys under a flood of 1.7 M distinct keys
# from the peer (tests/guest/keyflood.sh).
# The end marker (port 9998) goes out once a second for 10 s: three in a
# row were lost once, behind the flood's backlog, and the main guest then
# waited its full 600 s; keyflood.sh lets the link go quiet after the
# first it sees, so all of them are counted before its SIGINT.
. "$(dirname "$0")/lib.sh"
vm_tap "$KERNEL: " --kernel "$KERNEL" -- sh /tests/guest/faults.sh
peer='. /tests/guest/lib.sh; wait_go
craft -q -i eth0 -g 0:0 -c 1703936 udp4,src=198.18.0.0,srcrange=131072,sportrange=13
sleep 2
craft -q -i eth0 -c 10 -g 1:1000000 udp4,dport=9998
sleep 600'
vm_tap "$KERNEL: key flood: " --kernel "$KERNEL" --peer "$peer" -- sh /tests/guest/keyflood.sh
plan "$tap_n"
done_testing
