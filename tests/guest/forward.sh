# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/74-forward.t (qemu-env/vm --forward HOSTPORT:9108):
# check eth0 and eth1, then serve a Prometheus exposition on port 9108 with
# busybox httpd until the host fetches /cgi-bin/done (at most 300 s).
#   sh /tests/guest/forward.sh HOSTPORT
. /tests/tap.sh
. /tests/guest/lib.sh
hostport=$1
plan 8
is "$(cat /sys/class/net/eth0/address) $(ip -4 -o addr show dev eth0 | awk '{ print $4 }')" \
	"52:54:00:12:34:01 198.18.0.1/24" "eth0 is still the link to the peer, 198.18.0.1/24"
is "$(cat /sys/class/net/eth1/address) $(ip -4 -o addr show dev eth1 | awk '{ print $4 }')" \
	"52:54:00:12:35:01 198.19.0.15/24" "eth1 is the forwarding NIC, 198.19.0.15/24"
is "$(ip route | grep ^default; ip -6 route | grep ^default)" "" "no default route, IPv4 or IPv6"
is "$(ip route show dev eth1 | awk '{ print $1 }')" "198.19.0.0/24" \
	"eth1's only route is its own /24"
is "$(ip -6 addr show dev eth1)" "" "eth1 has no IPv6 address"
www=/tmp/www
mkdir -p $www/cgi-bin
printf '# HELP forward_test_total A constant for tests/vm/74-forward.t.\n# TYPE forward_test_total counter\nforward_test_total 42\n' >$www/metrics
printf '#!/bin/sh\ntouch /tmp/done\nprintf "Content-Type: text/plain\\r\\n\\r\\nbye\\n"\n' >$www/cgi-bin/done
chmod 755 $www/cgi-bin/done
httpd -f -p 9108 -h $www &
httpd=$!
# (busybox 1.35's wget -T crashes: timeout instead)
ok "httpd serves /metrics on 198.19.0.15:9108" retry 10 \
	sh -c "timeout 10 wget -q -O - http://198.19.0.15:9108/metrics | grep -qx 'forward_test_total 42'"
# Without restrict=on QEMU would connect this to the host's 127.0.0.1,
# where its own forwarding socket listens, and so back to httpd.
out=$(timeout 20 wget -O /dev/null "http://198.19.0.2:$hostport/metrics" 2>&1)
case $out in *"Connection refused"*) r=0 ;; *) r=1; diag "wget: $out" ;; esac
_tap_result $r "restrict=on: QEMU refuses the guest's connection to the host"
diag "serving on port 9108 until the host fetches /cgi-bin/done"
i=0
while [ ! -e /tmp/done ] && [ $i -lt 300 ]; do
	sleep 1
	i=$((i + 1))
done
kill $httpd
ok "the host fetched /cgi-bin/done within 300 s" test -e /tmp/done
diag "eth1: $(cat /sys/class/net/eth1/statistics/rx_packets) packets in, $(cat /sys/class/net/eth1/statistics/tx_packets) out"
done_testing
