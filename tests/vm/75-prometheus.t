#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A real Prometheus on the host scrapes ebpfcount --listen in a guest
# (qemu-env/vm --forward, tests/guest/prometheus.sh): PromQL sums of the
# counters of each of two expressions (the expr label) equal what was
# sent; the exposition passes promtool (text
# format 0.0.4) and prometheus_client's OpenMetrics parser when asked for
# OpenMetrics; the label of an interface named v"a\b is escaped.
. "$(dirname "$0")/lib.sh"
"$top/qemu-env/deps.sh" prometheus python3-prometheus-client curl >/dev/null ||
	echo "Bail out! cannot install prometheus"
work=$(mktemp -d)
at_exit "rm -rf '$work'"
hp=$(free_tcp_port)
hp2=$(free_tcp_port)
vm_start "$work/guest.out" --kernel "$KERNEL" --timeout 600 \
	--forward "$hp:9108" --forward "$hp2:9109" -- sh /tests/guest/prometheus.sh
prom_start "$hp"
_tap_result $? "prometheus starts on the host"
ok "ebpfcount's /metrics answers through the forwarded port" \
	wait_http "http://127.0.0.1:$hp/metrics" 300
ok "the guest has sent its frames" wait_http "http://127.0.0.1:$hp2/sent" 300

# What the scrapers get: the text format, or OpenMetrics when asked.
curl -fsS -D "$work/h.txt" -o "$work/m.txt" "http://127.0.0.1:$hp/metrics"
is "$(grep -i '^content-type:' "$work/h.txt" | tr -d '\r')" \
	"Content-Type: text/plain; version=0.0.4; charset=utf-8" "text format 0.0.4 by default"
out=$(promtool check metrics <"$work/m.txt" 2>&1)
is "$?:$out" "0:" "promtool check metrics accepts it"
curl -fsS -D "$work/h.om" -o "$work/m.om" \
	-H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
	"http://127.0.0.1:$hp/metrics"
is "$(grep -i '^content-type:' "$work/h.om" | tr -d '\r')" \
	"Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8" \
	"OpenMetrics 1.0 when the scraper asks for it"
out=$(/usr/bin/python3 -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
n = sum(len(f.samples) for f in parse(open(sys.argv[1]).read()))
print("samples", n)' "$work/m.om" 2>&1)
case $out in "samples "[1-9]*) r=0 ;; *) r=1 ;; esac
_tap_result $r "prometheus_client's OpenMetrics parser accepts it ($out)"
is "$(tail -n 1 "$work/m.om")" "# EOF" "it ends in # EOF"
is "$(grep -c '^ebpfcount_interface_receive_packets_total{interface="v\\"a\\\\b"} ' "$work/m.txt")" 1 \
	"the interface v\"a\\b is escaped in its label"

# Prometheus's own view of it (2.42 asks for OpenMetrics first).
M=52:54:00:12:34:77
E1="count by udp.dstport where ether src $M" E2="count by ip.proto where ether src $M"
v=$(prom_poll 90 "sum(ebpfcount_packets_total{expr=\"$E1\"}) == 500")
is "$v" 500 "PromQL: the packets summed over the first expression's series are the 500 sent"
is "$(prom_query "sum(ebpfcount_packets_total{expr=\"$E2\"})")" 500 \
	"PromQL: and over the second expression's"
is "$(prom_query 'count(sum by (expr) (ebpfcount_packets_total))')" 2 \
	"PromQL: two expressions, told apart by the expr label"
is "$(prom_query 'ebpfcount_packets_total{udp_dstport="7000"}')" 300 "PromQL: 300 to port 7000"
is "$(prom_query 'ebpfcount_packets_total{udp_dstport="7001"}')" 200 "PromQL: 200 to port 7001"
is "$(prom_query 'ebpfcount_packets_total{ip_proto="17"}')" 500 "PromQL: 500 UDP (ip.proto 17)"
is "$(prom_query "ebpfcount_packets_total{overflow=\"true\",expr=\"$E1\"}")" 0 \
	"PromQL: an overflow series, 0"
is "$(prom_query "sum(ebpfcount_bytes_total{expr=\"$E1\"})")" 21000 "PromQL: 500 frames of 42 bytes"
v=$(prom_query 'ebpfcount_interface_receive_packets_total{interface="v\"a\\b"}')
cmp_ok "${v:-0}" -ge 500 "PromQL: the interface's own receive counter, by its escaped name ($v)"
v=$(prom_query 'ebpfcount_program_runs_total')
cmp_ok "${v:-0}" -ge 500 "PromQL: the program ran for every frame (kernel.bpf_stats_enabled; $v)"
is "$(prom_query 'count(ebpfcount_build_info)')" 2 "PromQL: build_info names each expression"
is "$(prom_query 'up{job="guest"}')" 1 "Prometheus's scrapes succeed (up is 1)"

curl -fsS --max-time 30 -o /dev/null "http://127.0.0.1:$hp2/cgi-bin/done"
_tap_result $? "the host tells the guest to stop"
rc=0
vm_finish || rc=$?
import "guest: " <"$work/guest.out"
is "$rc:$import_seen" "0:$import_planned" "guest exits 0 after all its $import_planned tests"
plan "$tap_n"
done_testing
