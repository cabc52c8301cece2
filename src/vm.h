/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace engine: runs a generated socket filter program, unchanged,
 * on packets read from a file, counting in maps of its own.  It is what
 * `ebpfcount -r` runs by default (no bpf(2) call), and what the host tests
 * run every generated program in.
 *
 *	struct vm *vm = vm_new(0);
 *	int fd = vm_map_create(vm, BPF_MAP_TYPE_PERCPU_HASH, 8, 16, 1024);
 *	(relocate the program's map loads to such handles: layout_relocate())
 *	vm_load(vm, insns, n, err, sizeof(err));
 *	struct packet skb = { .data = frame, .len = len };
 *	if (vm_run(vm, &skb, &ret)) fprintf(stderr, "%s\n", vm_error(vm));
 *
 * What it runs: every opcode of the classes ALU, ALU64 (END too), JMP,
 * JMP32, LDX/STX/ST MEM, STX ATOMIC (add, and, or, xor, with or without
 * BPF_FETCH), LD_IMM64 (a constant or BPF_PSEUDO_MAP_FD), LD_ABS and
 * LD_IND (big-endian; a load outside the packet ends the program with 0,
 * as in the kernel, and offsets from SKF_NET_OFF and SKF_LL_OFF read as
 * the kernel reads them on an Ethernet device); the helpers
 * map_lookup_elem, map_update_elem, skb_load_bytes, get_smp_processor_id
 * and get_prandom_u32; reads of the __sk_buff fields in struct packet,
 * and of data and data_end (a 32-bit load of either gives the 64-bit
 * address, as the kernel converts it) with reads of the packet between
 * them.  Entry state as in the kernel: R1 = the context, R10 = the top of
 * a 512-byte stack.  The engine is one CPU:
 * a per-CPU map has one value per entry.
 *
 * Maps: ARRAY, PERCPU_ARRAY, HASH, PERCPU_HASH (open addressing, values
 * at fixed addresses, at most max_entries keys) and ARRAY_OF_MAPS (values
 * are inner maps' handles; a lookup gives the program the inner map).
 *
 * Bounded and safe: vm_load() refuses unknown opcodes, jumps out of the
 * program, a bad LD_IMM64 and maps it does not know; vm_run() stops after
 * VM_MAX_STEPS instructions, and every memory access must fall inside the
 * stack, a known context field, the packet's linear part (reads only), or
 * one value of a map entry.  A fault is
 * an error naming the instruction (vm_error()), never a crash.  A strict
 * engine (vm_new(1), for tests) also faults on what the verifier would
 * refuse: reading a register or a stack byte that was never written.
 */
#ifndef EBPFCOUNT_VM_H
#define EBPFCOUNT_VM_H

#include <stddef.h>
#include <stdio.h>
#include <linux/bpf.h>

#include "layout.h"
#include "packet.h"

#define VM_STACK_SIZE	512
/* each expression's: counts, overflow, and a hash's two tables; and the
 * bigger table that replaces one (maps.h) before that one is closed */
#define VM_MAX_MAPS	(4 * MAX_EXPRS + 1)
#define VM_MAX_STEPS	(1 << 20)

struct vm;

/* A new engine with no maps; strict: fault as the verifier would refuse. */
struct vm *vm_new(int strict);
void vm_free(struct vm *vm);

/*
 * A new map; returns its handle (>= 1), or -errno.  The handle is what the
 * program's BPF_PSEUDO_MAP_FD loads and an array of maps' values hold.
 */
int vm_map_create(struct vm *vm, __u32 type, __u32 key_size, __u32 value_size,
		  __u32 max_entries);
/* Free a map: its handle may be given to a new one. */
void vm_map_close(struct vm *vm, int fd);
/*
 * An array of maps fd takes inner maps like inner_fd (the kernel's
 * inner_map_fd): the same type and sizes, and for an array as many
 * entries; a hash may have any number.  Without it, any map but an array
 * of maps.  0 or -errno.
 */
int vm_map_set_inner(struct vm *vm, int fd, int inner_fd);
/* As bpf(2)'s map commands: 0 or -errno (-ENOENT at the end). */
int vm_map_update(struct vm *vm, int fd, const void *key, const void *value, __u64 flags);
int vm_map_lookup(struct vm *vm, int fd, const void *key, void *value);
int vm_map_delete(struct vm *vm, int fd, const void *key);
int vm_map_next_key(struct vm *vm, int fd, const void *key, void *next);
/*
 * BPF_MAP_LOOKUP_BATCH (drain: LOOKUP_AND_DELETE_BATCH): up to *count
 * entries after the cursor *in (NULL: from the start), with *out the
 * cursor to go on from; -ENOENT with the last ones.
 */
int vm_map_batch(struct vm *vm, int fd, int drain, const __u32 *in, __u32 *out,
		 void *keys, void *values, __u32 *count);
/* The value stored under key, in place, or NULL. */
void *vm_map_value(struct vm *vm, int fd, const void *key);

/* Take n instructions as the program to run; -1 with err filled if bad. */
int vm_load(struct vm *vm, const struct bpf_insn *insns, int n, char *err, size_t errlen);
/* Run the program on skb: 0 with *ret as the kernel returns it, or -1. */
int vm_run(struct vm *vm, const struct packet *skb, __u32 *ret);
/* Why the last vm_load() or vm_run() failed: "insn N: ...". */
const char *vm_error(const struct vm *vm);
/* Print every instruction as it runs (on f, NULL: off). */
void vm_trace(struct vm *vm, FILE *f);

/*
 * What runs cost, counted rather than timed (tests/bench/cost): vm_count()
 * adds what each later vm_run() executes to *c (NULL: stop).  An LD_IMM64
 * counts as one instruction, LD_ABS/LD_IND in insns and in ld_abs; helper
 * calls by kind, map lookups and updates by the map's type (those the
 * verifier inlines cost less than a call: the model in tests/bench/cost
 * weighs them); stack: the most bytes below r10 any run touched.
 */
#define VM_COST_MAP_TYPES 32
struct vm_cost {
	unsigned long long insns, ld_abs, ctx_loads, load_bytes, other_calls;
	unsigned long long lookup[VM_COST_MAP_TYPES], update[VM_COST_MAP_TYPES];
	unsigned int stack;
};
void vm_count(struct vm *vm, struct vm_cost *c);

#endif
