// SPDX-License-Identifier: GPL-2.0
/* The floor: a socket filter that does nothing and keeps no packet. */
#include "common.h"

SEC("socket")
int empty(struct __sk_buff *skb)
{
	return 0;
}
