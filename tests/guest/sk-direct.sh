# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/46-sk-direct.t: tests/progs/sk_direct.c, with TCP
# to and from the peer's iperf3 server for the nonlinear skbs of GRO and
# TSO, and frames sent over a veth pair with only their first LINEAR bytes
# in the linear part (craft -l) for headers outside it; KCM messages from
# the peer's sk_direct --kcm-source.  Argument: "yes"
# when the kernel under test has the series.
. /tests/guest/lib.sh
wait_peer || echo "# the peer does not answer ping"
# no IPv6 on the veth pair: nothing but the crafted frames crosses it
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
veth_pair vn0 vn1 && ip link set vn0 mtu 9000 && ip link set vn1 mtu 9000 ||
	echo "# no veth pair"
# craft4 LINEAR: 30 IPv4 frames of 5000 bytes, LINEAR of them linear
craft4() { echo "craft -q -c 10 -i vn0 -l $1 udp4,len=5000 tcp4,dport=443,len=5000 icmp4,len=5000"; }
exec sk_direct --series "$1" --kcm-peer "$EBPFCOUNT_PEER" --iface eth0 --traffic \
	"timeout 30 iperf3 -c $EBPFCOUNT_PEER -t 2 >/dev/null; timeout 30 iperf3 -c $EBPFCOUNT_PEER -t 2 -R >/dev/null" \
	--frames vn1 30 14 "$(craft4 14)" \
	--frames vn1 30 20 "$(craft4 20)" \
	--frames vn1 30 34 "$(craft4 34)" \
	--frames vn1 30 38 "$(craft4 38)" \
	--frames vn1 30 100 "$(craft4 100)" \
	--frames vn1 20 54 "craft -q -c 10 -i vn0 -l 54 udp6,len=5000 tcp6,ext=hop,len=5000"
