/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a C author writes for a counting socket filter: the classic LD_ABS
 * loads (load_byte/half/word, as in the kernel's samples/bpf), a per-CPU
 * map, packets and bytes per key.  The frame starts at offset 0 (live
 * AF_PACKET socket).  Compiled with clang -O2 -g -target bpf for
 * tests/bench/codegen.sh.
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

struct counter {
	__u64 packets;
	__u64 bytes;
};

/* Add the packet to key's counter; insert the key when it is new. */
static __always_inline void count(void *map, const void *key, struct __sk_buff *skb)
{
	struct counter *c = bpf_map_lookup_elem(map, key);

	if (c) {
		c->packets++;
		c->bytes += skb->len;
	} else {
		struct counter init = { 1, skb->len };

		bpf_map_update_elem(map, key, &init, BPF_NOEXIST);
	}
}

char LICENSE[] SEC("license") = "GPL";

#endif
