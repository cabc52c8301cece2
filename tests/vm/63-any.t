#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# -i any in a guest (tests/guest/any.sh): every interface, each packet
# once, the rows tcpdump -i any's capture gives; Ethernet addresses refused.
. "$(dirname "$0")/lib.sh"
vm_tap "$KERNEL: " --kernel "$KERNEL" -- sh /tests/guest/any.sh
plan "$tap_n"
done_testing
