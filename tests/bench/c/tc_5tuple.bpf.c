// SPDX-License-Identifier: GPL-2.0
/* The peer of tests/bench/peer.sh: a TC ingress (clsact) counter in the
 * style of pktstat-bpf (its tc program and LRU_HASH map): direct packet
 * access through data/data_end, Ethernet/IPv4/UDP or TCP, a 5-tuple key,
 * packets and bytes per key in a BPF_MAP_TYPE_LRU_HASH of 131072 entries,
 * pktstat-bpf's MAX_ENTRIES.  Frames it cannot parse are not counted, as in
 * pktstat-bpf.  Attached and read by tests/progs/tc_peer.c. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define TC5_ENTRIES 131072	/* pktstat-bpf's MAX_ENTRIES */

struct key {
	__be32 src;
	__be32 dst;
	__u16 sport;
	__u16 dport;
	__u8 proto;
	__u8 pad[3];
};

struct counter {
	__u64 packets;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TC5_ENTRIES);
	__type(key, struct key);
	__type(value, struct counter);
} counts SEC(".maps");

SEC("tc")
int tc_5tuple(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct counter *c;
	struct key k;
	void *l4;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end || ip->ihl < 5)
		return TC_ACT_OK;
	l4 = (void *)ip + ip->ihl * 4;

	__builtin_memset(&k, 0, sizeof(k));
	k.src = ip->saddr;
	k.dst = ip->daddr;
	k.proto = ip->protocol;
	if (ip->protocol == IPPROTO_UDP) {
		struct udphdr *udp = l4;

		if ((void *)(udp + 1) > data_end)
			return TC_ACT_OK;
		k.sport = bpf_ntohs(udp->source);
		k.dport = bpf_ntohs(udp->dest);
	} else if (ip->protocol == IPPROTO_TCP) {
		struct tcphdr *tcp = l4;

		if ((void *)(tcp + 1) > data_end)
			return TC_ACT_OK;
		k.sport = bpf_ntohs(tcp->source);
		k.dport = bpf_ntohs(tcp->dest);
	}

	c = bpf_map_lookup_elem(&counts, &k);
	if (c) {
		__sync_fetch_and_add(&c->packets, 1);
		__sync_fetch_and_add(&c->bytes, skb->len);
	} else {
		struct counter init = { 1, skb->len };

		bpf_map_update_elem(&counts, &k, &init, BPF_NOEXIST);
	}
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
