// SPDX-License-Identifier: GPL-2.0
/* count by ip.src/24, tcp.dstport where tcp port 443 (src24_dport.bpf.c), reading the packet directly where the linear part
 * holds the bytes (common.h), for kernels with the series. */
#define BENCH_DIRECT
#include "src24_dport.bpf.c"
