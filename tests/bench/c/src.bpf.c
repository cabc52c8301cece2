// SPDX-License-Identifier: GPL-2.0
/* count by ip.src: a per-CPU hash keyed by the address and a status
 * (absent: not IPv4, truncated: too short), allocated as keys appear like
 * ebpfcount's. */
#include "common.h"

struct key {
	__u32 src;
	__u32 status;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1 << 20);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct key);
	__type(value, struct counter);
} counts SEC(".maps");

SEC("socket")
int count_src(struct __sk_buff *skb)
{
	struct key k = { .status = ABSENT };

	if (skb->len < ETH_HLEN)
		k.status = TRUNCATED;
	else if (pkt_half(skb, 12) == ETH_P_IP) {
		if (skb->len < ETH_HLEN + 16)
			k.status = TRUNCATED;
		else
			k = (struct key){ pkt_word(skb, ETH_HLEN + 12), 0 };
	}
	count(&counts, &k, skb);
	return 0;
}
