#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Direct packet reads of socket filters (kernel-patches/): refused on
# stock; on the series, a checker filter on real sockets (UDP, TCP,
# AF_UNIX, AF_PACKET, a tail call, reuseport, nonlinear skbs from the
# peer's TCP, tun, xt_bpf, a KCM parser on the peer's messages) reads
# exactly what bpf_skb_load_bytes() reads, JIT off, on and hardened
# (tests/progs/sk_direct.c).
. "$(dirname "$0")/lib.sh"
for k in $KERNELS; do
	want=no
	has_series "$k" && want=yes
	vm_tap "$k: " --kernel "$k" --peer 'sk_direct --kcm-source 9911 & iperf3 -s' -- sh /tests/guest/sk-direct.sh "$want"
done
plan "$tap_n"
done_testing
