#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qemu-env/vm --forward: a Prometheus server on the host scrapes an HTTP
# server in the guest through the forwarded port (see tests/guest/forward.sh).
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
at_exit "rm -rf '$work'"
hp=$(free_tcp_port)
vm_start "$work/guest.out" --kernel "$KERNEL" --smp 1 --timeout 600 --forward "$hp:9108" \
	-- sh /tests/guest/forward.sh "$hp"
# Prometheus starts while the guest boots
prom_start "$hp"
_tap_result $? "prometheus starts on 127.0.0.1:${PROM_PORT:-?}"
ok "the guest's /metrics answers on 127.0.0.1:$hp" wait_http "http://127.0.0.1:$hp/metrics" 300
is "$(curl -fs --max-time 10 "http://127.0.0.1:$hp/metrics" | grep -v '^#')" "forward_test_total 42" \
	"curl reads the guest's exposition through the forwarded port"
v=$(prom_poll 60 forward_test_total)
is "$v" 42 "prometheus scraped forward_test_total 42 from the guest"
is "$(prom_query 'up{job="guest"}')" 1 "prometheus's target is up"
is "$(curl -fs --max-time 30 "http://127.0.0.1:$hp/cgi-bin/done")" bye "the guest is told to stop"
rc=0
vm_finish || rc=$?
import "guest: " <"$work/guest.out"
is "$rc:$import_seen" "0:$import_planned" "guest exits 0 after all its $import_planned tests"
plan "$tap_n"
done_testing
