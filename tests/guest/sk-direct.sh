# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/46-sk-direct.t: tests/progs/sk_direct.c, with TCP
# to and from the peer's iperf3 server for the nonlinear skbs.  Argument:
# "yes" when the kernel under test has the series.
. /tests/guest/lib.sh
wait_peer || echo "# the peer does not answer ping"
exec sk_direct --series "$1" --iface eth0 --traffic \
	"timeout 30 iperf3 -c $EBPFCOUNT_PEER -t 2 >/dev/null; timeout 30 iperf3 -c $EBPFCOUNT_PEER -t 2 -R >/dev/null"
