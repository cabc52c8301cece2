#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Live traffic between two guests: ebpfcount agrees with eth0's counters.
. "$(dirname "$0")/lib.sh"
vm --kernel "$KERNEL" --peer 'iperf3 -s' -- sh /tests/guest/traffic.sh
