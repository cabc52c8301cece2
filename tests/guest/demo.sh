# SPDX-License-Identifier: GPL-2.0
# Main guest of make demo (qemu-env/demo.sh).
. /tests/guest/lib.sh

rx() { cat /sys/class/net/eth0/statistics/rx_packets; }
wait_peer
quiet_link
iperf3 -s -D
iperf3 -s -D -p 5202
rx0=$(rx)
ebpfcount -i eth0 -F json 'count where inbound' >/tmp/inbound.json &
inbound=$!
retry 30 test -s /tmp/inbound.json
send_go &

echo
echo '$ ebpfcount -i eth0 -c 15 '\''count by ip.proto'\'''
ebpfcount -i eth0 -c 15 'count by ip.proto'
echo '$ ebpfcount -i eth0 -c 5 --top 5 '\''count by ip.src, tcp.dstport where tcp'\'''
ebpfcount -i eth0 -c 5 --top 5 'count by ip.src, tcp.dstport where tcp'
quiet_link
rx1=$(rx)
kill -INT $inbound
wait $inbound
n=$(sed -n 's/.*"final": true.*"total": {"packets": \([0-9]*\).*/\1/p' /tmp/inbound.json)
echo "ebpfcount counted $n of $((rx1 - rx0)) packets received on eth0 (ip -s link: $rx1 since boot)"
[ "$n" = "$((rx1 - rx0))" ]
