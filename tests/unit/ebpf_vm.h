/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small eBPF interpreter for host unit tests: it runs what ebpfcount
 * emits for a BPF_PROG_TYPE_SOCKET_FILTER program, without bpf(2).
 *
 * Use: #include "ebpf_vm.c" in the test (the Makefile links only src/).
 *
 *	struct vm_skb skb = { .data = frame, .len = sizeof(frame),
 *			      .protocol = htons(ETH_P_IP) };
 *	vm_map_add(3, BPF_MAP_TYPE_HASH, 4, 8, 16);   // fd 3 in BPF_LD_MAP_FD
 *	long r = vm_run(insns, n, &skb);               // R0, or VM_TRAP
 *	if (r == VM_TRAP) printf("# %s\n", vm_error());
 *	__u64 *v = vm_map_lookup(3, &key);
 *	vm_reset();                                    // drop all maps
 *
 * Entry state as in the kernel: R1 = context (a struct __sk_buff built
 * from struct vm_skb), R10 = frame pointer of a 512-byte stack, other
 * registers unset.  Covered: ALU and ALU64 (all ops, END), JMP and JMP32,
 * LDX/STX/ST MEM and STX ATOMIC (add, and, or, xor, with or without
 * BPF_FETCH) on the stack and map values, reads of the __sk_buff fields
 * of struct vm_skb, LD_IMM64 (plain and BPF_PSEUDO_MAP_FD), LD_ABS and
 * LD_IND (B/H/W, big-endian; out of the packet, the program returns 0;
 * they and calls clobber R1-R5), and the helpers map_lookup_elem,
 * map_update_elem, get_smp_processor_id, get_prandom_u32, skb_load_bytes.
 *
 * The run traps (returns VM_TRAP, message in vm_error()) on what it does
 * not know and on what the verifier would refuse: a register read before
 * it is written, a stack byte read before it is written, a write to R10,
 * a memory access outside the stack, the listed context fields and map
 * values, a constant shift or division out of range, a jump out of the
 * program, more than VM_MAX_STEPS steps.  EBPF_VM_TRACE=1 in the
 * environment prints every executed instruction on stderr.
 */
#ifndef EBPFCOUNT_EBPF_VM_H
#define EBPFCOUNT_EBPF_VM_H

#include <stdio.h>
#include <linux/bpf.h>

#define VM_STACK_SIZE	512
#define VM_MAX_MAPS	16
#define VM_MAX_STEPS	(1 << 20)
#define VM_TRAP		(-1L)

struct vm_skb {
	const unsigned char *data;	/* the frame from L2, as AF_PACKET sees it */
	unsigned int len;		/* bytes at data, also __sk_buff.len */
	/* __sk_buff fields; protocol and vlan_proto in network byte order */
	__u32 pkt_type;
	__u32 protocol;
	__u32 vlan_present;
	__u32 vlan_tci;
	__u32 vlan_proto;
	__u32 mark;
	__u32 ifindex;
	__u32 queue_mapping;
	__u32 hash;
	__u32 gso_segs;
	__u32 cpu;			/* what bpf_get_smp_processor_id() returns */
};

/*
 * Register a fake map under fd (the imm of BPF_LD_MAP_FD).  Types: ARRAY,
 * HASH, LRU_HASH and their PERCPU variants, which behave as on one CPU,
 * and ARRAY_OF_MAPS, whose values are inner maps' fds (a lookup gives the
 * program the inner map).
 * Returns 0, or -1 (bad type or sizes, fd taken, too many maps).
 */
int vm_map_add(int fd, __u32 type, __u32 key_size, __u32 value_size,
	       __u32 max_entries);
/* The value stored under key, or NULL; does not count as a use for LRU. */
void *vm_map_lookup(int fd, const void *key);
/* Entries present (an array's max_entries), or -1 for an unknown fd. */
int vm_map_count(int fd);
/* The i-th entry present (0 <= i < vm_map_count()): 0, or -1. */
int vm_map_entry(int fd, int i, const void **key, void **value);
/* Forget all maps. */
void vm_reset(void);

/* Run n instructions on skb: R0 as the kernel returns it (u32), or VM_TRAP. */
long vm_run(const struct bpf_insn *insns, int n, const struct vm_skb *skb);
/* Why the last vm_run() trapped. */
const char *vm_error(void);
/* Print insns, one per line, each prefixed by prefix (e.g. "# "). */
void vm_dump(FILE *f, const char *prefix, const struct bpf_insn *insns, int n);

#endif
