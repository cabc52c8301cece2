/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' view of the engine (src/vm.h): one strict engine, maps under
 * fds the test chooses, programs whose map loads name those fds.
 *
 * Use: #include "ebpf_vm.c" in the test.
 *
 *	struct packet skb = { .data = frame, .len = sizeof(frame),
 *			      .protocol = htons(ETH_P_IP) };
 *	vm_map_add(3, BPF_MAP_TYPE_HASH, 4, 8, 16);   // fd 3 in BPF_LD_MAP_FD
 *	long r = vm_exec(insns, n, &skb);              // R0, or VM_TRAP
 *	if (r == VM_TRAP) printf("# %s\n", vm_why());
 *	__u64 *v = vm_map_find(3, &key);
 *	vm_reset();                                    // drop all maps
 *
 * The strict engine faults where the verifier would refuse (a register or
 * stack byte read before it is written).  EBPF_VM_TRACE=1 in the
 * environment prints every executed instruction on stderr.
 */
#ifndef EBPFCOUNT_EBPF_VM_H
#define EBPFCOUNT_EBPF_VM_H

#include <stdio.h>

#include "vm.h"

#define VM_TRAP		(-1L)
#define VM_MAX_FD	64

/* A map under fd (the imm of BPF_LD_MAP_FD); 0, or -1. */
int vm_map_add(int fd, __u32 type, __u32 key_size, __u32 value_size, __u32 max_entries);
/* The engine's handle of fd's map (what an array of maps holds). */
int vm_handle(int fd);
/* The value stored under key, in place, or NULL. */
void *vm_map_find(int fd, const void *key);
/* Entries present (an array's max_entries), or -1 for an unknown fd. */
int vm_map_count(int fd);
/* The i-th entry present (0 <= i < vm_map_count()): 0, or -1. */
int vm_map_entry(int fd, int i, const void **key, void **value);
/* Forget all maps. */
void vm_reset(void);
/* From the next vm_reset() on: a strict engine (the default) or not. */
void vm_set_strict(int strict);
/* Run n instructions on skb: R0 as the kernel returns it (u32), or VM_TRAP. */
long vm_exec(const struct bpf_insn *insns, int n, const struct packet *skb);
/* Why the last vm_exec() trapped. */
const char *vm_why(void);
/* Print insns, one per line, each prefixed by prefix (e.g. "# "). */
void vm_dump(FILE *f, const char *prefix, const struct bpf_insn *insns, int n);

#endif
