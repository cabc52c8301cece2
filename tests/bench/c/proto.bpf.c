// SPDX-License-Identifier: GPL-2.0
/* count by ip.proto: a per-CPU array indexed by the protocol byte, with
 * entries for frames that are not IPv4 and frames too short to tell. */
#include "common.h"

#define NPROTO 256

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NPROTO + 2);
	__type(key, __u32);
	__type(value, struct counter);
} counts SEC(".maps");

SEC("socket")
int count_proto(struct __sk_buff *skb)
{
	__u32 key = NPROTO + ABSENT - 1;

	if (skb->len < ETH_HLEN)
		key = NPROTO + TRUNCATED - 1;
	else if (pkt_half(skb, 12) == ETH_P_IP)
		key = skb->len < ETH_HLEN + 10 ? NPROTO + TRUNCATED - 1 :
		      pkt_byte(skb, ETH_HLEN + 9);
	count(&counts, &key, skb);
	return 0;
}
