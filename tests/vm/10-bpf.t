#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bpf(2) works in the guest: per-CPU hash map, socket filter, test run.
. "$(dirname "$0")/lib.sh"
vm --kernel "$KERNEL" -- bpf_smoke
