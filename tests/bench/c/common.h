/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a C author writes for a counting socket filter that does ebpfcount's
 * job: the classic LD_ABS loads (load_byte/half/word, as in the kernel's
 * samples/bpf) after a check of the frame length, so that a short frame is
 * counted as truncated instead of ending the program; a per-CPU map,
 * wire packets (gso_segs) and bytes per key.  The frame starts at offset 0
 * (live AF_PACKET socket).  Inline VLAN tags, which the kernel strips
 * before packet sockets see them, are left out.  Compiled with clang -O2
 * -g -target bpf for tests/bench/codegen.sh.
 */
#ifndef BENCH_C_COMMON_H
#define BENCH_C_COMMON_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>

unsigned long long load_byte(void *skb, unsigned long long off) asm("llvm.bpf.load.byte");
unsigned long long load_half(void *skb, unsigned long long off) asm("llvm.bpf.load.half");
unsigned long long load_word(void *skb, unsigned long long off) asm("llvm.bpf.load.word");

/* Key values of a missing field, as ebpfcount's statuses */
#define ABSENT 1
#define TRUNCATED 2

struct counter {
	__u64 packets;
	__u64 bytes;
};

/* Add the packet to key's counter; insert the key when it is new. */
static __always_inline void count(void *map, const void *key, struct __sk_buff *skb)
{
	struct counter *c = bpf_map_lookup_elem(map, key);
	__u32 segs = skb->gso_segs ?: 1;

	if (c) {
		c->packets += segs;
		c->bytes += skb->len;
	} else {
		struct counter init = { segs, skb->len };

		bpf_map_update_elem(map, key, &init, BPF_NOEXIST);
	}
}

/*
 * Direct reads, where the kernel lets socket filters read the packet
 * (kernel-patches/ 0008; the loader refuses these programs elsewhere): the
 * bytes at off straight from the linear part, else the classic load, as
 * ebpfcount's FRAME_DIRECT programs read.  off must be bounded (< 0x8000).
 */
#define DIRECT_LOAD(name, type, classic)					\
static __always_inline __u32 name(struct __sk_buff *skb, __u32 off)		\
{										\
	void *data = (void *)(long)skb->data;					\
	void *end = (void *)(long)skb->data_end;				\
										\
	off &= 0x7fff;								\
	if (data + off + sizeof(type) <= end)					\
		return __builtin_bswap##classic(*(type *)(data + off));		\
	return load_##classic(skb, off);					\
}
#define __builtin_bswapbyte(x) (x)
#define __builtin_bswaphalf(x) __builtin_bswap16(x)
#define __builtin_bswapword(x) __builtin_bswap32(x)
DIRECT_LOAD(direct_byte, __u8, byte)
DIRECT_LOAD(direct_half, __u16, half)
DIRECT_LOAD(direct_word, __u32, word)

/* How the programs read the frame: classic loads, or directly when
 * compiled with BENCH_DIRECT (the NAME_direct.bpf.c twins). */
#ifdef BENCH_DIRECT
#define pkt_byte direct_byte
#define pkt_half direct_half
#define pkt_word direct_word
#else
#define pkt_byte load_byte
#define pkt_half load_half
#define pkt_word load_word
#endif

char LICENSE[] SEC("license") = "GPL";

#endif
