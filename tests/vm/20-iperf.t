#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests joined by the virtual link carry iperf3 TCP traffic.
. "$(dirname "$0")/lib.sh"
vm --kernel "$KERNEL" --peer 'iperf3 -s' -- sh /tests/guest/iperf.sh
