#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: two guests; the peer sends iperf3 TCP, iperf3 UDP and ping for
# about 20 s while the main guest shows ebpfcount's per-second statistics.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=${EBPFCOUNT_KERNEL:-patched}

peer='. /tests/guest/lib.sh; wait_go
ping -c 44 -i 0.5 -q 198.18.0.1 >/dev/null &
iperf3 -c 198.18.0.1 -t 20 >/dev/null 2>&1 &
sleep 3
iperf3 -c 198.18.0.1 -p 5202 -u -b 40M -t 10 >/dev/null 2>&1
wait
sleep 600'

echo "demo: booting two guests on the $kernel kernel (peer traffic: iperf3 TCP, iperf3 UDP, ping)"
exec "$top/qemu-env/vm" --kernel "$kernel" --timeout 300 --peer "$peer" -- sh /tests/guest/demo.sh
