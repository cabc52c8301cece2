# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/30-craft.t, run by both guests.  Each time the main
# guest triggers it, the peer sends the same crafted frames with craft -i:
# first paced (the default -g 20:2000), then unpaced (-g 0:0).  The main
# guest checks that its eth0 rx packet counter grew by exactly the number
# of frames sent with pacing, and reports how many unpaced frames arrived.
. /tests/tap.sh
. /tests/guest/lib.sh

# Frames the main guest's stack drops without answering (addresses that are
# not its own, an unknown EtherType), so that nothing else reaches its
# counter while they arrive.  No VLAN tags: QEMU's virtio-net drops tagged
# frames unless the receiver is promiscuous.
SPECS="udp4,dst=198.18.0.99,srcrange=50,n=400
tcp6,dst=2001:2::99,sportrange=10,n=300 raw,n=200
icmp4,dst=198.18.0.99,len=1514,n=100"
SENT=1000
TRIGGER=0x88b6

rx() { cat /sys/class/net/eth0/statistics/rx_packets; }

wait_trigger() {
	tcpdump -i eth0 -Z root -p -c 1 "ether proto $TRIGGER" >/dev/null 2>&1
}

trigger() {
	craft -q -i eth0 -g 0:0 "raw,smac=52:54:00:12:34:01,dmac=52:54:00:12:34:02,etype=$TRIGGER"
}

# batch: trigger the peer until frames arrive, wait until the rx counter
# has stood still for 3 s, print how much it grew
batch() {
	local base last now try=0 still=0 t=0

	base=$(rx)
	while [ "$(rx)" = "$base" ] && [ $try -lt 10 ]; do
		trigger
		try=$((try + 1))
		sleep 3
	done
	last=$(rx)
	while [ $still -lt 3 ] && [ $t -lt 300 ]; do
		sleep 1
		t=$((t + 1))
		now=$(rx)
		if [ "$now" = "$last" ]; then
			still=$((still + 1))
		else
			still=0
		fi
		last=$now
	done
	echo $((last - base))
}

peer() {
	# shellcheck disable=SC2086
	wait_trigger && craft -i eth0 $SPECS
	# shellcheck disable=SC2086
	wait_trigger && craft -i eth0 -g 0:0 $SPECS
}

main() {
	local paced unpaced

	plan 4
	ok "peer answers ping" wait_peer
	paced=$(batch)
	diag "paced (-g 20:2000): $paced of $SENT frames arrived"
	is "$paced" "$SENT" "every paced frame reached the main guest's eth0"
	unpaced=$(batch)
	diag "unpaced (-g 0:0): $unpaced of $SENT frames arrived"
	cmp_ok "$unpaced" -le "$SENT" "unpaced: no more frames than sent"
	ok "craft -i fails on an unknown interface" \
		sh -c '! craft -q -i nosuch0 udp4 2>/dev/null'
	done_testing
}

if [ "$EBPFCOUNT_ROLE" = peer ]; then
	peer
else
	main
fi
