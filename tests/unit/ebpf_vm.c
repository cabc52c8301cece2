// SPDX-License-Identifier: GPL-2.0
/* The tests' view of the engine; see ebpf_vm.h. */
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>

#include "ebpf_vm.h"

static struct vm *test_vm;
static int test_fd[VM_MAX_FD];	/* test fd -> engine handle */
static char test_msg[300];
static int test_strict = 1;

void vm_set_strict(int strict)
{
	test_strict = strict;
}

static struct vm *the_vm(void)
{
	if (!test_vm) {
		test_vm = vm_new(test_strict);
		if (!test_vm)
			abort();
		if (getenv("EBPF_VM_TRACE"))
			vm_trace(test_vm, stderr);
	}
	return test_vm;
}

int vm_handle(int fd)
{
	return fd >= 0 && fd < VM_MAX_FD ? test_fd[fd] : 0;
}

int vm_map_add(int fd, __u32 type, __u32 key_size, __u32 value_size, __u32 max_entries)
{
	int h;

	if (fd < 0 || fd >= VM_MAX_FD || test_fd[fd])
		return -1;
	h = vm_map_create(the_vm(), type, key_size, value_size, max_entries);
	if (h < 0)
		return -1;
	test_fd[fd] = h;
	return 0;
}

void *vm_map_find(int fd, const void *key)
{
	return vm_handle(fd) ? vm_map_value(the_vm(), vm_handle(fd), key) : NULL;
}

int vm_map_entry(int fd, int i, const void **key, void **value)
{
	static unsigned char k[VM_STACK_SIZE], next[VM_STACK_SIZE];
	struct vm *vm = the_vm();
	int h = vm_handle(fd), first = 1;

	if (!h)
		return -1;
	while (!vm_map_next_key(vm, h, first ? NULL : k, next)) {
		first = 0;
		memcpy(k, next, sizeof(k));
		if (i-- == 0) {
			*key = k;
			*value = vm_map_value(vm, h, k);
			return 0;
		}
	}
	return -1;
}

int vm_map_count(int fd)
{
	const void *key;
	void *value;
	int n = 0;

	if (!vm_handle(fd))
		return -1;
	while (!vm_map_entry(fd, n, &key, &value))
		n++;
	return n;
}

void vm_reset(void)
{
	vm_free(test_vm);
	test_vm = NULL;
	memset(test_fd, 0, sizeof(test_fd));
}

long vm_exec(const struct bpf_insn *insns, int n, const struct packet *skb)
{
	struct bpf_insn *p = malloc((n ? n : 1) * sizeof(*p));
	struct vm *vm = the_vm();
	__u32 ret;
	int i, err;

	if (!p)
		abort();
	memcpy(p, insns, n * sizeof(*p));
	for (i = 0; i < n; i++)
		if (p[i].code == (BPF_LD | BPF_DW | BPF_IMM) && p[i].src_reg == BPF_PSEUDO_MAP_FD)
			p[i].imm = vm_handle(p[i].imm) ? vm_handle(p[i].imm) : -p[i].imm - 1;
	err = vm_load(vm, p, n, test_msg, sizeof(test_msg));
	free(p);
	if (err)
		return VM_TRAP;
	if (vm_run(vm, skb, &ret)) {
		snprintf(test_msg, sizeof(test_msg), "%s", vm_error(vm));
		return VM_TRAP;
	}
	test_msg[0] = '\0';
	return ret;
}

const char *vm_why(void)
{
	return test_msg;
}

void vm_dump(FILE *f, const char *prefix, const struct bpf_insn *insns, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s%3d: code %#04x dst r%d src r%d off %d imm %d\n", prefix, i,
			insns[i].code, insns[i].dst_reg, insns[i].src_reg, insns[i].off,
			insns[i].imm);
}
