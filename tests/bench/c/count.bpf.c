// SPDX-License-Identifier: GPL-2.0
/* count: every packet in the one entry of a per-CPU array. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counter);
} counts SEC(".maps");

SEC("socket")
int count_all(struct __sk_buff *skb)
{
	__u32 key = 0;

	count(&counts, &key, skb);
	return 0;
}
