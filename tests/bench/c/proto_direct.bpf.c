// SPDX-License-Identifier: GPL-2.0
/* count by ip.proto (proto.bpf.c), reading the packet directly where the linear part
 * holds the bytes (common.h), for kernels with the series. */
#define BENCH_DIRECT
#include "proto.bpf.c"
