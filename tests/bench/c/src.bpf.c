// SPDX-License-Identifier: GPL-2.0
/* count by ip.src: a per-CPU hash keyed by the address (0: not IPv4),
 * allocated as keys appear like ebpfcount's. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1 << 20);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct counter);
} counts SEC(".maps");

SEC("socket")
int count_src(struct __sk_buff *skb)
{
	__u32 key = 0;

	if (load_half(skb, 12) == ETH_P_IP)
		key = load_word(skb, ETH_HLEN + 12);
	count(&counts, &key, skb);
	return 0;
}
