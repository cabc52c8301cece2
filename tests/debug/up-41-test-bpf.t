#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-debug: tests/vm/41-test-bpf.t on the series built with CONFIG_SMP=n
# (kernel-patches/up.config), next to stock.
export EBPFCOUNT_KERNEL=patched-up EBPFCOUNT_KERNELS="stock patched-up"
exec "$(dirname "$0")/../vm/41-test-bpf.t"
