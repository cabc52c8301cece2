#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Loopback and the Linux cooked keys, live in a guest (tests/guest/sll.sh):
# -i lo counts each packet once, as tcpdump -i lo and lo's counter do;
# sll.pkttype and sll.ifindex give what was sent, as tcpdump saw it.
. "$(dirname "$0")/lib.sh"
vm_tap "$KERNEL: " --kernel "$KERNEL" -- sh /tests/guest/sll.sh
plan "$tap_n"
done_testing
