#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The exporter (--listen) under hostile clients in a guest, on its
# loopback only (tests/guest/hostile-http.sh): slowloris and non-reading
# connections from one address do not stop scrapes from another, nor grow
# memory past two expositions; requests have a deadline; keep-alive.
. "$(dirname "$0")/lib.sh"
vm_tap "$KERNEL: " --kernel "$KERNEL" -- sh /tests/guest/hostile-http.sh
plan "$tap_n"
done_testing
