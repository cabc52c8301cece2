# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/20-iperf.t: 3 s of TCP to the peer's iperf3 server.
. /tests/tap.sh
. /tests/guest/lib.sh
plan 2
ok "peer answers ping" wait_peer
retry 30 iperf_client "$EBPFCOUNT_PEER" -t 3 -J >/tmp/iperf.json 2>&1
bps=$(awk -F'[:,]' '/"sum_received"/ { f = 1 } f && /"bits_per_second"/ { print int($2); exit }' /tmp/iperf.json)
diag "received ${bps:-0} bit/s"
cmp_ok "${bps:-0}" -gt 0 "iperf3 TCP throughput is nonzero"
done_testing
