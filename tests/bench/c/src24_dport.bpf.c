// SPDX-License-Identifier: GPL-2.0
/* count by ip.src/24, tcp.dstport where tcp port 443: IPv4 and IPv6 TCP
 * (not a later IPv4 fragment) with either port 443, keyed by the /24 of
 * the IPv4 source (absent for IPv6) and the destination port.  The filter
 * drops frames too short for it, as libpcap's does; the keys are then
 * known to be there. */
#include "common.h"

struct key {
	__u32 src;
	__u16 dport;
	__u8 src_status;
	__u8 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1 << 20);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct key);
	__type(value, struct counter);
} counts SEC(".maps");

SEC("socket")
int count_src24_dport(struct __sk_buff *skb)
{
	struct key k = {};
	__u32 l4, dport;

	if (skb->len < ETH_HLEN)
		return 0;
	switch (pkt_half(skb, 12)) {
	case ETH_P_IP:
		if (skb->len < ETH_HLEN + 20 || pkt_byte(skb, ETH_HLEN + 9) != IPPROTO_TCP ||
		    pkt_half(skb, ETH_HLEN + 6) & 0x1fff)
			return 0;
		l4 = ETH_HLEN + ((pkt_byte(skb, ETH_HLEN) & 0xf) << 2);
		k.src = pkt_word(skb, ETH_HLEN + 12) & 0xffffff00;
		break;
	case ETH_P_IPV6:
		if (skb->len < ETH_HLEN + 40 || pkt_byte(skb, ETH_HLEN + 6) != IPPROTO_TCP)
			return 0;
		l4 = ETH_HLEN + 40;
		k.src_status = ABSENT;
		break;
	default:
		return 0;
	}
	if (skb->len < l4 + 4)
		return 0;
	dport = pkt_half(skb, l4 + 2);
	if (dport != 443 && pkt_half(skb, l4) != 443)
		return 0;
	k.dport = dport;
	count(&counts, &k, skb);
	return 0;
}
