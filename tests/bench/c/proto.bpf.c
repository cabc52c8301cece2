// SPDX-License-Identifier: GPL-2.0
/* count by ip.proto: a per-CPU array indexed by the protocol byte, with
 * one more entry for packets that are not IPv4. */
#include "common.h"

#define ABSENT 256

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ABSENT + 1);
	__type(key, __u32);
	__type(value, struct counter);
} counts SEC(".maps");

SEC("socket")
int count_proto(struct __sk_buff *skb)
{
	__u32 key = ABSENT;

	if (load_half(skb, 12) == ETH_P_IP)
		key = load_byte(skb, ETH_HLEN + 9);
	count(&counts, &key, skb);
	return 0;
}
