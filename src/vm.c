// SPDX-License-Identifier: GPL-2.0
/* The userspace engine; see vm.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/if_ether.h>

#include "vm.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the engine models a little-endian machine"
#endif

#define MAX_VALUE_SIZE	65536
#define MAX_ENTRIES	(1u << 24)

struct vm_map {
	__u32 type, key_size, value_size, max_entries;
	unsigned char *keys;	/* max_entries slots (an array's: none) */
	unsigned char *values;	/* max_entries values, at fixed addresses */
	unsigned char *used;	/* per slot */
	__u32 *bucket;		/* hash: slot + 1, 0 when empty */
	__u32 mask;		/* buckets - 1 */
	__u32 count, top;	/* entries; slots ever used */
	__u32 *free;		/* deleted slots, to reuse */
	__u32 nfree;
	/* an array of maps: what its inner maps must be like (type 0: any) */
	__u32 inner_type, inner_key_size, inner_value_size, inner_max_entries;
};

struct vm {
	struct vm_map map[VM_MAX_MAPS];
	int nmaps;
	struct bpf_insn *prog;	/* as loaded, map loads resolved */
	int n;
	bool strict;
	FILE *trace;
	struct vm_cost *cost;
	char msg[256];
	__u64 seed;
	/* one run */
	const struct packet *skb;
	int pc;
	bool fault;
	__u64 r[11];
	unsigned int set;	/* strict: registers written */
	struct __sk_buff ctx;
	unsigned char stack[VM_STACK_SIZE] __attribute__((aligned(8)));
	bool stack_set[VM_STACK_SIZE];
};

static int fail(struct vm *vm, int pc, const char *fmt, ...)
{
	int len = snprintf(vm->msg, sizeof(vm->msg), "insn %d: ", pc);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(vm->msg + len, sizeof(vm->msg) - len, fmt, ap);
	va_end(ap);
	vm->fault = true;
	return -1;
}

#define fault(vm, ...) fail(vm, (vm)->pc, __VA_ARGS__)

const char *vm_error(const struct vm *vm)
{
	return vm->msg;
}

struct vm *vm_new(int strict)
{
	struct vm *vm = calloc(1, sizeof(*vm));

	if (vm) {
		vm->strict = strict;
		vm->seed = 0x2545f4914f6cdd1dULL;
	}
	return vm;
}

static void map_free(struct vm_map *m)
{
	free(m->keys);
	free(m->values);
	free(m->used);
	free(m->bucket);
	free(m->free);
}

void vm_free(struct vm *vm)
{
	int i;

	if (!vm)
		return;
	for (i = 0; i < vm->nmaps; i++)
		map_free(&vm->map[i]);
	free(vm->prog);
	free(vm);
}

void vm_trace(struct vm *vm, FILE *f)
{
	vm->trace = f;
}

/* ---- maps ---- */

static bool is_array(__u32 type)
{
	return type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       type == BPF_MAP_TYPE_ARRAY_OF_MAPS;
}

static bool is_hash(__u32 type)
{
	return type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_PERCPU_HASH;
}

static bool is_percpu(__u32 type)
{
	return type == BPF_MAP_TYPE_PERCPU_ARRAY || type == BPF_MAP_TYPE_PERCPU_HASH;
}

static struct vm_map *map_by_fd(struct vm *vm, int fd)
{
	return fd >= 1 && fd <= vm->nmaps && vm->map[fd - 1].type ? &vm->map[fd - 1] : NULL;
}

/* The map a register holding a map pointer refers to. */
static struct vm_map *map_by_ptr(struct vm *vm, __u64 p)
{
	uintptr_t base = (uintptr_t)vm->map;

	if (p < base || p >= base + sizeof(vm->map) || (p - base) % sizeof(vm->map[0]) ||
	    (p - base) / sizeof(vm->map[0]) >= (__u64)vm->nmaps ||
	    !vm->map[(p - base) / sizeof(vm->map[0])].type)
		return NULL;
	return (struct vm_map *)(uintptr_t)p;
}

static __u32 roundup_pow2(__u32 n)
{
	__u32 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

int vm_map_create(struct vm *vm, __u32 type, __u32 key_size, __u32 value_size,
		  __u32 max_entries)
{
	struct vm_map *m = vm->map;

	while (m < vm->map + vm->nmaps && m->type)	/* a closed map's place, or a new one */
		m++;
	if (m == vm->map + VM_MAX_MAPS)
		return -ENOSPC;
	if (!value_size || value_size > MAX_VALUE_SIZE || !max_entries ||
	    max_entries > MAX_ENTRIES || key_size > VM_STACK_SIZE)
		return -E2BIG;
	if (is_array(type) ? key_size != 4 : !is_hash(type) || !key_size)
		return -EINVAL;
	if (type == BPF_MAP_TYPE_ARRAY_OF_MAPS && value_size != 4)
		return -EINVAL;
	*m = (struct vm_map){ .type = type, .key_size = key_size, .value_size = value_size,
			      .max_entries = max_entries };
	/* Large allocations are mapped on demand: untouched slots cost nothing. */
	m->values = calloc(max_entries, value_size);
	if (is_hash(type)) {
		m->mask = roundup_pow2(2 * max_entries) - 1;
		m->keys = calloc(max_entries, key_size);
		m->used = calloc(max_entries, 1);
		m->bucket = calloc((size_t)m->mask + 1, sizeof(*m->bucket));
		m->free = calloc(max_entries, sizeof(*m->free));
	}
	if (!m->values || (is_hash(type) && (!m->keys || !m->used || !m->bucket || !m->free))) {
		map_free(m);
		return -ENOMEM;
	}
	if (is_array(type))
		m->count = m->top = max_entries;
	if (m == vm->map + vm->nmaps)
		vm->nmaps++;
	return m - vm->map + 1;
}

void vm_map_close(struct vm *vm, int fd)
{
	struct vm_map *m = map_by_fd(vm, fd);

	if (!m)
		return;
	map_free(m);
	memset(m, 0, sizeof(*m));
}

int vm_map_set_inner(struct vm *vm, int fd, int inner_fd)
{
	struct vm_map *m = map_by_fd(vm, fd), *inner = map_by_fd(vm, inner_fd);

	if (!m || !inner)
		return -EBADF;
	if (m->type != BPF_MAP_TYPE_ARRAY_OF_MAPS || inner->type == BPF_MAP_TYPE_ARRAY_OF_MAPS)
		return -EINVAL;
	m->inner_type = inner->type;
	m->inner_key_size = inner->key_size;
	m->inner_value_size = inner->value_size;
	m->inner_max_entries = inner->max_entries;
	return 0;
}

/*
 * May inner go into the array of maps m?  As the kernel's map_meta_equal:
 * the type and sizes of the map m was created with; for an array, its
 * entries too (a hash may have any number, Linux 5.10 on).
 */
static bool inner_fits(const struct vm_map *m, const struct vm_map *inner)
{
	if (inner->type == BPF_MAP_TYPE_ARRAY_OF_MAPS)
		return false;
	return !m->inner_type ||
	       (inner->type == m->inner_type && inner->key_size == m->inner_key_size &&
		inner->value_size == m->inner_value_size &&
		(!is_array(inner->type) || inner->max_entries == m->inner_max_entries));
}

static __u32 hash(const unsigned char *key, __u32 size)
{
	__u64 h = 0x9e3779b97f4a7c15ULL ^ size, w;
	__u32 i;

	for (i = 0; i + 8 <= size; i += 8) {
		memcpy(&w, key + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (i < size) {
		w = 0;
		memcpy(&w, key + i, size - i);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
	}
	h ^= h >> 29;
	return (__u32)(h * 0xc4ceb9fe1a85ec53ULL >> 32);
}

static unsigned char *value_at(const struct vm_map *m, __u32 slot)
{
	return m->values + (size_t)slot * m->value_size;
}

static unsigned char *key_at(const struct vm_map *m, __u32 slot)
{
	return m->keys + (size_t)slot * m->key_size;
}

/* The bucket holding key, or the empty one where it would go. */
static __u32 find_bucket(const struct vm_map *m, const void *key)
{
	__u32 b = hash(key, m->key_size) & m->mask, s;

	while ((s = m->bucket[b]) && memcmp(key_at(m, s - 1), key, m->key_size))
		b = (b + 1) & m->mask;
	return b;
}

/* The slot of key, or -1. */
static long find(const struct vm_map *m, const void *key)
{
	__u32 i;

	if (is_array(m->type)) {
		memcpy(&i, key, 4);
		return i < m->max_entries ? (long)i : -1;
	}
	i = m->bucket[find_bucket(m, key)];
	return (long)i - 1;
}

static long insert(struct vm_map *m, __u32 b, const void *key)
{
	__u32 slot;

	if (m->count == m->max_entries)
		return -E2BIG;
	slot = m->nfree ? m->free[--m->nfree] : m->top++;
	memcpy(key_at(m, slot), key, m->key_size);
	m->used[slot] = 1;
	m->bucket[b] = slot + 1;
	m->count++;
	return slot;
}

/* Linear probing's deletion: later entries move back into the hole. */
static void remove_bucket(struct vm_map *m, __u32 b)
{
	__u32 slot = m->bucket[b] - 1, i = b, j = b, home;

	for (;;) {
		j = (j + 1) & m->mask;
		if (!m->bucket[j])
			break;
		home = hash(key_at(m, m->bucket[j] - 1), m->key_size) & m->mask;
		/* move j to the hole i unless its home lies cyclically in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->bucket[i] = m->bucket[j];
			i = j;
		}
	}
	m->bucket[i] = 0;
	m->used[slot] = 0;
	memset(value_at(m, slot), 0, m->value_size);
	m->free[m->nfree++] = slot;
	m->count--;
}

/* bpf_map_update_elem(), from a program or from user space. */
static int update(struct vm_map *m, const void *key, const void *value, __u64 flags)
{
	long slot;
	__u32 b = 0;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (is_array(m->type)) {
		slot = find(m, key);
		if (slot < 0)
			return -E2BIG;
		if (flags == BPF_NOEXIST)
			return -EEXIST;
	} else {
		b = find_bucket(m, key);
		slot = (long)m->bucket[b] - 1;
		if (slot >= 0 && flags == BPF_NOEXIST)
			return -EEXIST;
		if (slot < 0 && flags == BPF_EXIST)
			return -ENOENT;
		if (slot < 0 && (slot = insert(m, b, key)) < 0)
			return (int)slot;
	}
	memmove(value_at(m, slot), value, m->value_size);
	return 0;
}

/* A user-space value of a per-CPU map is round_up(value_size, 8) bytes a CPU. */
static size_t user_value_size(const struct vm_map *m)
{
	return is_percpu(m->type) ? (m->value_size + 7) & ~7u : m->value_size;
}

int vm_map_update(struct vm *vm, int fd, const void *key, const void *value, __u64 flags)
{
	struct vm_map *m = map_by_fd(vm, fd);

	if (!m)
		return -EBADF;
	if (m->type == BPF_MAP_TYPE_ARRAY_OF_MAPS) {
		struct vm_map *inner = map_by_fd(vm, *(const __s32 *)value);

		if (!inner || !inner_fits(m, inner))
			return -EINVAL;
	}
	return update(m, key, value, flags);
}

int vm_map_lookup(struct vm *vm, int fd, const void *key, void *value)
{
	struct vm_map *m = map_by_fd(vm, fd);
	long slot;

	if (!m)
		return -EBADF;
	slot = find(m, key);
	if (slot < 0)
		return -ENOENT;
	memset(value, 0, user_value_size(m));
	memcpy(value, value_at(m, slot), m->value_size);
	return 0;
}

void *vm_map_value(struct vm *vm, int fd, const void *key)
{
	struct vm_map *m = map_by_fd(vm, fd);
	long slot = m ? find(m, key) : -1;

	return slot < 0 ? NULL : value_at(m, slot);
}

int vm_map_delete(struct vm *vm, int fd, const void *key)
{
	struct vm_map *m = map_by_fd(vm, fd);
	__u32 b;

	if (!m)
		return -EBADF;
	if (is_array(m->type))
		return -EINVAL;
	b = find_bucket(m, key);
	if (!m->bucket[b])
		return -ENOENT;
	remove_bucket(m, b);
	return 0;
}

/* The first slot in use from slot on, or m->top. */
static __u32 next_used(const struct vm_map *m, __u32 slot)
{
	if (is_array(m->type))
		return slot;
	while (slot < m->top && !m->used[slot])
		slot++;
	return slot;
}

int vm_map_next_key(struct vm *vm, int fd, const void *key, void *next)
{
	struct vm_map *m = map_by_fd(vm, fd);
	long slot;
	__u32 s;

	if (!m)
		return -EBADF;
	slot = key ? find(m, key) : -1;
	s = next_used(m, (__u32)(slot + 1));
	if (s >= m->top)
		return -ENOENT;
	if (is_array(m->type))
		memcpy(next, &s, 4);
	else
		memcpy(next, key_at(m, s), m->key_size);
	return 0;
}

int vm_map_batch(struct vm *vm, int fd, int drain, const __u32 *in, __u32 *out,
		 void *keys, void *values, __u32 *count)
{
	struct vm_map *m = map_by_fd(vm, fd);
	size_t vsize;
	__u32 s, n = 0;

	if (!m)
		return -EBADF;
	if (drain && is_array(m->type))
		return -EINVAL;
	vsize = user_value_size(m);
	for (s = next_used(m, in ? *in : 0); s < m->top && n < *count; s = next_used(m, s + 1)) {
		unsigned char *v = (unsigned char *)values + n * vsize;

		if (is_array(m->type))
			memcpy((unsigned char *)keys + n * 4, &s, 4);
		else
			memcpy((unsigned char *)keys + (size_t)n * m->key_size, key_at(m, s),
			       m->key_size);
		memset(v, 0, vsize);
		memcpy(v, value_at(m, s), m->value_size);
		if (drain)
			remove_bucket(m, find_bucket(m, key_at(m, s)));
		n++;
	}
	*count = n;
	*out = s;
	return s >= m->top ? -ENOENT : 0;
}

/* ---- loading ---- */

static bool known_ctx_field(size_t off, __u32 size);

/* Is code an instruction the engine runs?  (LD_IMM64 apart.) */
static bool known_opcode(__u8 code)
{
	int op = BPF_OP(code), sz = BPF_SIZE(code), mode = BPF_MODE(code);

	switch (BPF_CLASS(code)) {
	case BPF_ALU:
	case BPF_ALU64:
		return op <= BPF_END && (op != BPF_END || BPF_CLASS(code) == BPF_ALU) &&
		       (op != BPF_NEG || BPF_SRC(code) == BPF_K);
	case BPF_JMP:
		return op <= BPF_JSLE && (op != BPF_CALL || BPF_SRC(code) == BPF_K) &&
		       (op != BPF_EXIT || BPF_SRC(code) == BPF_K);
	case BPF_JMP32:
		return op != BPF_JA && op != BPF_CALL && op != BPF_EXIT && op <= BPF_JSLE;
	case BPF_LDX:
	case BPF_ST:
		return mode == BPF_MEM;
	case BPF_STX:
		return mode == BPF_MEM || (mode == BPF_ATOMIC && (sz == BPF_W || sz == BPF_DW));
	default:	/* BPF_LD */
		return (mode == BPF_ABS || mode == BPF_IND) && sz != BPF_DW;
	}
}

static bool writes_dst(__u8 code)
{
	int cl = BPF_CLASS(code);

	return cl == BPF_ALU || cl == BPF_ALU64 || cl == BPF_LDX || cl == BPF_LD;
}

static int check_insn(struct vm *vm, int i)
{
	struct bpf_insn *in = &vm->prog[i];
	int cl = BPF_CLASS(in->code), op = BPF_OP(in->code);

	if (in->dst_reg > BPF_REG_10 || in->src_reg > BPF_REG_10)
		return fail(vm, i, "no register r%d", in->dst_reg > 10 ? in->dst_reg : in->src_reg);
	if (!known_opcode(in->code))
		return fail(vm, i, "unknown opcode %#x", in->code);
	if ((writes_dst(in->code) && in->dst_reg == BPF_REG_10) ||
	    (in->code == (BPF_STX | BPF_ATOMIC | BPF_SIZE(in->code)) && in->imm & BPF_FETCH &&
	     in->src_reg == BPF_REG_10))
		return fail(vm, i, "write to r10");
	if ((cl == BPF_ALU || cl == BPF_ALU64) && op != BPF_END && in->off)
		return fail(vm, i, "ALU with an offset (signed division, movsx)");
	if ((cl == BPF_ALU || cl == BPF_ALU64) && BPF_SRC(in->code) == BPF_K && op != BPF_END) {
		int bits = cl == BPF_ALU64 ? 64 : 32;

		if ((op == BPF_DIV || op == BPF_MOD) && !in->imm)
			return fail(vm, i, "division by zero");
		if ((op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) &&
		    (in->imm < 0 || in->imm >= bits))
			return fail(vm, i, "shift by %d", in->imm);
	}
	if ((cl == BPF_ALU || cl == BPF_ALU64) && op == BPF_END &&
	    (cl != BPF_ALU || (in->imm != 16 && in->imm != 32 && in->imm != 64)))
		return fail(vm, i, "bad BPF_END");
	if ((cl == BPF_JMP || cl == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT &&
	    (i + 1 + in->off < 0 || i + 1 + in->off >= vm->n))
		return fail(vm, i, "jump out of the program");
	if (cl == BPF_LD && in->dst_reg)
		return fail(vm, i, "bad LD_ABS/LD_IND");
	return 0;
}

/* LD_IMM64: a constant, or a map (its imm becomes the map's index + 1). */
static int check_ld_imm64(struct vm *vm, int i)
{
	struct bpf_insn *in = &vm->prog[i], *hi = in + 1;

	if (i + 1 >= vm->n || hi->code || hi->dst_reg || hi->src_reg || hi->off)
		return fail(vm, i, "bad second half of LD_IMM64");
	if (in->dst_reg >= BPF_REG_10)
		return fail(vm, i, "LD_IMM64 to r%d", in->dst_reg);
	if (in->src_reg == BPF_PSEUDO_MAP_FD && (!map_by_fd(vm, in->imm) || hi->imm))
		return fail(vm, i, "no map %d", in->imm);
	if (in->src_reg != 0 && in->src_reg != BPF_PSEUDO_MAP_FD)
		return fail(vm, i, "LD_IMM64 with src_reg %d", in->src_reg);
	return 0;
}

int vm_load(struct vm *vm, const struct bpf_insn *insns, int n, char *err, size_t errlen)
{
	int i;

	free(vm->prog);
	vm->n = 0;
	vm->prog = n > 0 ? malloc(n * sizeof(*insns)) : NULL;
	if (!vm->prog) {
		snprintf(err, errlen, n > 0 ? "out of memory" : "an empty program");
		return -1;
	}
	memcpy(vm->prog, insns, n * sizeof(*insns));
	vm->n = n;
	for (i = 0; i < n; i++) {
		bool wide = vm->prog[i].code == (BPF_LD | BPF_DW | BPF_IMM);

		if (wide ? check_ld_imm64(vm, i) : check_insn(vm, i)) {
			snprintf(err, errlen, "%s", vm->msg);
			free(vm->prog);
			vm->prog = NULL;
			vm->n = 0;
			return -1;
		}
		i += wide;
	}
	return 0;
}

/* ---- memory ---- */

#define SKB_FIELD(f) offsetof(struct __sk_buff, f)

static const size_t ctx_fields[] = {
	SKB_FIELD(len), SKB_FIELD(pkt_type), SKB_FIELD(mark), SKB_FIELD(queue_mapping),
	SKB_FIELD(protocol), SKB_FIELD(vlan_present), SKB_FIELD(vlan_tci),
	SKB_FIELD(vlan_proto), SKB_FIELD(ifindex), SKB_FIELD(hash), SKB_FIELD(gso_segs),
	SKB_FIELD(cb[0]), SKB_FIELD(cb[1]), SKB_FIELD(cb[2]), SKB_FIELD(cb[3]),
	SKB_FIELD(cb[4]),
};

/* Reads within one of the 32-bit fields above. */
static bool known_ctx_field(size_t off, __u32 size)
{
	size_t i;

	for (i = 0; i < sizeof(ctx_fields) / sizeof(ctx_fields[0]); i++)
		if (off >= ctx_fields[i] && off + size <= ctx_fields[i] + 4)
			return true;
	return false;
}

/* The bytes a direct read may reach: [data, data_end). */
static size_t linear_len(const struct packet *skb)
{
	return skb->nonlinear < skb->len ? skb->len - skb->nonlinear : 0;
}

/* A 32-bit load of __sk_buff.data or data_end: the address, in full. */
static bool pkt_field(__u64 base, __s16 off, const struct vm *vm)
{
	return base == (uintptr_t)&vm->ctx &&
	       (off == SKB_FIELD(data) || off == SKB_FIELD(data_end));
}

static __u64 pkt_addr(const struct vm *vm, __s16 off)
{
	uintptr_t data = (uintptr_t)vm->skb->data;

	return off == SKB_FIELD(data) ? data : data + linear_len(vm->skb);
}

static unsigned char *stack_mem(struct vm *vm, size_t off, __u32 size, bool write)
{
	__u32 i;

	if (vm->cost && VM_STACK_SIZE - off > vm->cost->stack)
		vm->cost->stack = VM_STACK_SIZE - off;
	if (vm->strict) {
		for (i = 0; i < size; i++) {
			if (write)
				vm->stack_set[off + i] = true;
			else if (!vm->stack_set[off + i])
				return fault(vm, "read of unset stack at fp%d",
					     (int)(off + i) - VM_STACK_SIZE), NULL;
		}
	}
	return vm->stack + off;
}

/* The map value holding [addr, addr + size), of an entry in use. */
static unsigned char *map_mem(struct vm *vm, __u64 base, __u64 addr, __u32 size)
{
	int i;

	for (i = 0; i < vm->nmaps; i++) {
		struct vm_map *m = &vm->map[i];
		uintptr_t v = (uintptr_t)m->values;
		size_t span = (size_t)m->max_entries * m->value_size, off = addr - v;

		if (m->type == BPF_MAP_TYPE_ARRAY_OF_MAPS || base - v >= span)
			continue;
		if (addr - v >= span || off % m->value_size + size > m->value_size ||
		    (m->used && !m->used[off / m->value_size]))
			break;
		return m->values + off;
	}
	return fault(vm, "access to %#llx%+lld, size %u, outside the stack, context and map "
		     "values", (unsigned long long)base, (long long)(addr - base), size), NULL;
}

/*
 * The host address of size bytes at base + off, if the program may use
 * them: base and the bytes lie in the same region (the frame pointer counts
 * as in the stack), so an overflow off r10 cannot land elsewhere.
 */
static unsigned char *mem(struct vm *vm, __u64 base, __s16 off, __u32 size, bool write)
{
	uintptr_t stack = (uintptr_t)vm->stack, ctx = (uintptr_t)&vm->ctx;
	uintptr_t pkt = (uintptr_t)vm->skb->data;
	size_t linear = linear_len(vm->skb);
	__u64 addr = base + (__s64)off;

	if (base - stack <= VM_STACK_SIZE) {
		if (size <= VM_STACK_SIZE && addr - stack <= VM_STACK_SIZE - size)
			return stack_mem(vm, addr - stack, size, write);
		return fault(vm, "access at fp%+lld, size %u, outside the stack",
			     (long long)(addr - stack - VM_STACK_SIZE), size), NULL;
	}
	if (pkt && base - pkt <= linear) {
		if (write || size > linear || addr - pkt > linear - size)
			return fault(vm, "%s the packet at %lld, size %u, outside data..data_end "
				     "(%zu bytes)",
				     write ? "write to" : "read of", (long long)(addr - pkt), size,
				     linear), NULL;
		return (unsigned char *)vm->skb->data + (addr - pkt);
	}
	if (base - ctx < sizeof(vm->ctx)) {
		if (write || addr - ctx >= sizeof(vm->ctx) || !known_ctx_field(addr - ctx, size))
			return fault(vm, "%s the context at %lld, size %u",
				     write ? "write to" : "read of", (long long)(addr - ctx),
				     size), NULL;
		return (unsigned char *)&vm->ctx + (addr - ctx);
	}
	return map_mem(vm, base, addr, size);
}

static __u64 load(const unsigned char *p, int size)
{
	switch (size) {
	case 1: return *p;
	case 2: { __u16 v; memcpy(&v, p, 2); return v; }
	case 4: { __u32 v; memcpy(&v, p, 4); return v; }
	default: { __u64 v; memcpy(&v, p, 8); return v; }
	}
}

static void store(unsigned char *p, int size, __u64 v)
{
	switch (size) {
	case 1: *p = v; break;
	case 2: { __u16 w = v; memcpy(p, &w, 2); break; }
	case 4: { __u32 w = v; memcpy(p, &w, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

/* ---- registers ---- */

static inline __u64 rd(struct vm *vm, int r)
{
	if (vm->strict && !(vm->set & 1u << r))
		fault(vm, "r%d read before it was written", r);
	return vm->r[r];
}

static inline void wr(struct vm *vm, int r, __u64 v)
{
	vm->r[r] = v;
	vm->set |= 1u << r;
}

/* Calls and LD_ABS/LD_IND leave r1-r5 unset. */
static void clobber(struct vm *vm)
{
	vm->set &= ~0x3eu;
}

static int size_of(int code)
{
	static const int sizes[] = { [BPF_W >> 3] = 4, [BPF_H >> 3] = 2,
				     [BPF_B >> 3] = 1, [BPF_DW >> 3] = 8 };

	return sizes[BPF_SIZE(code) >> 3];
}

/* ---- ALU and jumps ---- */

static __u64 alu(int op, __u64 d, __u64 s, bool is64)
{
	__u64 r;

	if (!is64) {
		d = (__u32)d;
		s = (__u32)s;
	}
	switch (op) {
	case BPF_ADD:	r = d + s; break;
	case BPF_SUB:	r = d - s; break;
	case BPF_MUL:	r = d * s; break;
	case BPF_DIV:	r = s ? d / s : 0; break;
	case BPF_MOD:	r = s ? d % s : d; break;
	case BPF_OR:	r = d | s; break;
	case BPF_AND:	r = d & s; break;
	case BPF_XOR:	r = d ^ s; break;
	case BPF_LSH:	r = d << (s & (is64 ? 63 : 31)); break;
	case BPF_RSH:	r = d >> (s & (is64 ? 63 : 31)); break;
	case BPF_NEG:	r = -d; break;
	case BPF_MOV:	r = s; break;
	default:	/* BPF_ARSH */
		r = is64 ? (__u64)((__s64)d >> (s & 63)) : (__u32)((__s32)d >> (s & 31));
		break;
	}
	return is64 ? r : (__u32)r;
}

static __u64 endian(const struct bpf_insn *in, __u64 d)
{
	if (BPF_SRC(in->code) == BPF_TO_BE)
		return in->imm == 16 ? __builtin_bswap16(d) :
		       in->imm == 32 ? __builtin_bswap32(d) : __builtin_bswap64(d);
	return in->imm == 16 ? (__u16)d : in->imm == 32 ? (__u32)d : d;
}

static bool cond(int op, __u64 d, __u64 s, bool is32)
{
	__s64 sd = is32 ? (__s32)d : (__s64)d, ss = is32 ? (__s32)s : (__s64)s;

	if (is32) {
		d = (__u32)d;
		s = (__u32)s;
	}
	switch (op) {
	case BPF_JEQ:	return d == s;
	case BPF_JNE:	return d != s;
	case BPF_JGT:	return d > s;
	case BPF_JGE:	return d >= s;
	case BPF_JLT:	return d < s;
	case BPF_JLE:	return d <= s;
	case BPF_JSET:	return d & s;
	case BPF_JSGT:	return sd > ss;
	case BPF_JSGE:	return sd >= ss;
	case BPF_JSLT:	return sd < ss;
	default:	return sd <= ss;	/* BPF_JSLE */
	}
}

/* ---- helpers ---- */

static struct vm_map *map_arg(struct vm *vm)
{
	struct vm_map *m = map_by_ptr(vm, rd(vm, BPF_REG_1));

	if (!m && !vm->fault)
		fault(vm, "r1 is not a map");
	return m;
}

static __u64 h_lookup(struct vm *vm)
{
	struct vm_map *m = map_arg(vm);
	const unsigned char *key;
	long slot;

	if (!m || !(key = mem(vm, rd(vm, BPF_REG_2), 0, m->key_size, false)))
		return 0;
	slot = find(m, key);
	if (slot < 0)
		return 0;
	if (m->type == BPF_MAP_TYPE_ARRAY_OF_MAPS) {
		struct vm_map *inner = map_by_fd(vm, *(const __s32 *)value_at(m, slot));

		return (uintptr_t)inner;
	}
	return (uintptr_t)value_at(m, slot);
}

static __u64 h_update(struct vm *vm)
{
	struct vm_map *m = map_arg(vm);
	const unsigned char *key, *value;
	__u64 flags = rd(vm, BPF_REG_4);

	if (!m || !(key = mem(vm, rd(vm, BPF_REG_2), 0, m->key_size, false)) ||
	    !(value = mem(vm, rd(vm, BPF_REG_3), 0, m->value_size, false)))
		return 0;
	if (m->type == BPF_MAP_TYPE_ARRAY_OF_MAPS)
		return fault(vm, "update of an array of maps from the program"), 0;
	return (__u64)(__s64)update(m, key, value, flags);
}

/* bpf_skb_load_bytes(skb, u32 offset, to, u32 len) */
static __u64 h_load_bytes(struct vm *vm)
{
	__u64 ctx = rd(vm, BPF_REG_1), off = (__u32)rd(vm, BPF_REG_2);
	__u64 len = rd(vm, BPF_REG_4);
	unsigned char *to;

	if (ctx != (uintptr_t)&vm->ctx)
		return fault(vm, "r1 is not the context"), 0;
	if (!len || len > VM_STACK_SIZE)
		return fault(vm, "bpf_skb_load_bytes of %llu bytes", (unsigned long long)len), 0;
	to = mem(vm, rd(vm, BPF_REG_3), 0, len, true);
	if (!to)
		return 0;
	if (off > 0xffff || off + len > vm->skb->len) {
		memset(to, 0, len);
		return (__u64)-EFAULT;
	}
	memcpy(to, vm->skb->data + off, len);
	return 0;
}

static __u64 h_random(struct vm *vm)
{
	vm->seed ^= vm->seed << 13;
	vm->seed ^= vm->seed >> 7;
	vm->seed ^= vm->seed << 17;
	return (__u32)vm->seed;
}

/* vm_count(): a helper call, by kind (a lookup or update by map type) */
static void count_call(struct vm *vm, int helper)
{
	struct vm_map *m = map_by_ptr(vm, vm->r[BPF_REG_1]);
	struct vm_cost *c = vm->cost;

	if ((helper == BPF_FUNC_map_lookup_elem || helper == BPF_FUNC_map_update_elem) && m &&
	    m->type < VM_COST_MAP_TYPES)
		(helper == BPF_FUNC_map_lookup_elem ? c->lookup : c->update)[m->type]++;
	else if (helper == BPF_FUNC_skb_load_bytes)
		c->load_bytes++;
	else
		c->other_calls++;
}

/* vm_count(): one instruction about to run */
static void count_insn(struct vm *vm, const struct bpf_insn *in)
{
	int cl = BPF_CLASS(in->code);

	vm->cost->insns++;
	if (cl == BPF_LD && (BPF_MODE(in->code) == BPF_ABS || BPF_MODE(in->code) == BPF_IND))
		vm->cost->ld_abs++;
	else if (cl == BPF_LDX && vm->r[in->src_reg] == (uintptr_t)&vm->ctx)
		vm->cost->ctx_loads++;
}

void vm_count(struct vm *vm, struct vm_cost *c)
{
	vm->cost = c;
}

static void call(struct vm *vm, const struct bpf_insn *in)
{
	__u64 r0;

	if (in->src_reg || in->dst_reg || in->off) {
		fault(vm, "only helper calls are supported");
		return;
	}
	if (vm->cost)
		count_call(vm, in->imm);
	switch (in->imm) {
	case BPF_FUNC_map_lookup_elem:		r0 = h_lookup(vm); break;
	case BPF_FUNC_map_update_elem:		r0 = h_update(vm); break;
	case BPF_FUNC_skb_load_bytes:		r0 = h_load_bytes(vm); break;
	case BPF_FUNC_get_smp_processor_id:	r0 = 0; break;
	case BPF_FUNC_get_prandom_u32:		r0 = h_random(vm); break;
	default:
		fault(vm, "helper %d is not supported", in->imm);
		return;
	}
	clobber(vm);
	wr(vm, BPF_REG_0, r0);
}

/*
 * LD_ABS/LD_IND: r0 = big-endian packet bytes; outside, return 0.  As in
 * the kernel, an offset from SKF_NET_OFF is one from the network header
 * (after the Ethernet header), one from SKF_LL_OFF from the frame's start:
 * LD_IND reaches them when X + k wraps below 0.
 */
static bool ld_pkt(struct vm *vm, const struct bpf_insn *in)
{
	int size = size_of(in->code), i;
	__u64 x = BPF_MODE(in->code) == BPF_IND ? rd(vm, in->src_reg) : 0, v = 0;
	__s64 off = (__s32)(__u32)(x + (__u64)(__s64)in->imm);

	if (rd(vm, BPF_REG_6) != (uintptr_t)&vm->ctx)
		return fault(vm, "LD_ABS/LD_IND without the context in r6"), false;
	if (off < 0 && off >= SKF_NET_OFF)
		off += ETH_HLEN - SKF_NET_OFF;
	else if (off < SKF_NET_OFF && off >= SKF_LL_OFF)
		off -= SKF_LL_OFF;
	clobber(vm);
	if (off < 0 || (__u64)off + size > vm->skb->len)
		return false;
	for (i = 0; i < size; i++)
		v = v << 8 | vm->skb->data[off + i];
	wr(vm, BPF_REG_0, v);
	return true;
}

static void atomic(struct vm *vm, const struct bpf_insn *in)
{
	int size = size_of(in->code), op = in->imm & ~BPF_FETCH;
	unsigned char *p;
	__u64 s = rd(vm, in->src_reg), old;

	if (op != BPF_ADD && op != BPF_AND && op != BPF_OR && op != BPF_XOR) {
		fault(vm, "atomic operation %#x", in->imm);
		return;
	}
	p = mem(vm, rd(vm, in->dst_reg), in->off, size, true);
	if (!p)
		return;
	old = load(p, size);
	store(p, size, alu(op, old, s, size == 8));
	if (in->imm & BPF_FETCH)
		wr(vm, in->src_reg, old);
}

/* ---- run ---- */

static void print_insn(FILE *f, int pc, const struct bpf_insn *in)
{
	fprintf(f, "vm %4d: code %#04x dst r%d src r%d off %d imm %d\n", pc, in->code,
		in->dst_reg, in->src_reg, in->off, in->imm);
}

static void ctx_init(struct __sk_buff *ctx, const struct packet *skb)
{
	ctx->len = skb->len;
	ctx->pkt_type = skb->pkt_type;
	ctx->protocol = skb->protocol;
	ctx->vlan_present = skb->vlan_present;
	ctx->vlan_tci = skb->vlan_tci;
	ctx->vlan_proto = skb->vlan_proto;
	ctx->mark = skb->mark;
	ctx->ifindex = skb->ifindex;
	ctx->queue_mapping = skb->queue_mapping;
	ctx->hash = skb->hash;
	ctx->gso_segs = skb->gso_segs;
	memcpy(ctx->cb, skb->cb, sizeof(ctx->cb));
}

/* One instruction other than an exit; false when the program ends. */
static bool step(struct vm *vm, const struct bpf_insn *in)
{
	int cl = BPF_CLASS(in->code), op = BPF_OP(in->code);
	bool x = BPF_SRC(in->code) == BPF_X;
	unsigned char *p;
	__u64 s;

	switch (cl) {
	case BPF_ALU:
	case BPF_ALU64:
		if (op == BPF_END) {
			wr(vm, in->dst_reg, endian(in, rd(vm, in->dst_reg)));
			break;
		}
		s = x ? rd(vm, in->src_reg) : (__u64)(__s64)in->imm;
		wr(vm, in->dst_reg, alu(op, op == BPF_MOV ? 0 : rd(vm, in->dst_reg), s,
					cl == BPF_ALU64));
		break;
	case BPF_JMP:
	case BPF_JMP32:
		if (op == BPF_CALL) {
			call(vm, in);
		} else if (op == BPF_JA) {
			vm->pc += in->off;
		} else {
			s = x ? rd(vm, in->src_reg) : (__u64)(__s64)in->imm;
			if (cond(op, rd(vm, in->dst_reg), s, cl == BPF_JMP32))
				vm->pc += in->off;
		}
		break;
	case BPF_LDX:
		if (size_of(in->code) == 4 && pkt_field(rd(vm, in->src_reg), in->off, vm)) {
			wr(vm, in->dst_reg, pkt_addr(vm, in->off));
			break;
		}
		p = mem(vm, rd(vm, in->src_reg), in->off, size_of(in->code), false);
		if (p)
			wr(vm, in->dst_reg, load(p, size_of(in->code)));
		break;
	case BPF_ST:
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_ATOMIC) {
			atomic(vm, in);
			break;
		}
		s = cl == BPF_STX ? rd(vm, in->src_reg) : (__u64)(__s64)in->imm;
		p = mem(vm, rd(vm, in->dst_reg), in->off, size_of(in->code), true);
		if (p)
			store(p, size_of(in->code), s);
		break;
	default:	/* BPF_LD */
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
			const struct bpf_insn *hi = in + 1;

			vm->pc++;
			if (in->src_reg == BPF_PSEUDO_MAP_FD)
				wr(vm, in->dst_reg, (uintptr_t)map_by_fd(vm, in->imm));
			else
				wr(vm, in->dst_reg, (__u32)in->imm | (__u64)(__u32)hi->imm << 32);
		} else if (!ld_pkt(vm, in) && !vm->fault) {
			wr(vm, BPF_REG_0, 0);
			return false;
		}
		break;
	}
	return true;
}

/* A stack access in the fast loop: the usual case inline, the rest in mem(). */
static inline unsigned char *fast_mem(struct vm *vm, int pc, __u64 base, __s16 off,
				      __u32 size, bool write)
{
	uintptr_t stack = (uintptr_t)vm->stack;
	__u64 addr = base + (__s64)off;

	if (base - stack <= VM_STACK_SIZE && addr - stack <= VM_STACK_SIZE - size)
		return vm->stack + (addr - stack);
	vm->pc = pc;	/* for the message of a fault */
	return mem(vm, base, off, size, write);
}

#define ALU_CASES(CL, T, OP, EXPR)						\
	case CL | OP | BPF_K: { T d = r[in->dst_reg], s = (T)(__s64)in->imm;	\
		r[in->dst_reg] = (T)(EXPR); break; }				\
	case CL | OP | BPF_X: { T d = r[in->dst_reg], s = r[in->src_reg];	\
		r[in->dst_reg] = (T)(EXPR); break; }
#define JMP_CASES(CL, T, OP, EXPR)						\
	case CL | OP | BPF_K: { T d = r[in->dst_reg], s = (T)(__s64)in->imm;	\
		pc += (EXPR) ? in->off : 0; break; }				\
	case CL | OP | BPF_X: { T d = r[in->dst_reg], s = r[in->src_reg];	\
		pc += (EXPR) ? in->off : 0; break; }
#define MEM_CASES(SZ, T)							\
	case BPF_LDX | BPF_MEM | SZ:						\
		p = fast_mem(vm, pc, r[in->src_reg], in->off, sizeof(T), false);	\
		if (!p) return -1;						\
		{ T v; memcpy(&v, p, sizeof(T)); r[in->dst_reg] = v; } break;	\
	STORE_CASES(SZ, T)
#define STORE_CASES(SZ, T)							\
	case BPF_STX | BPF_MEM | SZ:						\
		p = fast_mem(vm, pc, r[in->dst_reg], in->off, sizeof(T), true);	\
		if (!p) return -1;						\
		{ T v = r[in->src_reg]; memcpy(p, &v, sizeof(T)); } break;	\
	case BPF_ST | BPF_MEM | SZ:						\
		p = fast_mem(vm, pc, r[in->dst_reg], in->off, sizeof(T), true);	\
		if (!p) return -1;						\
		{ T v = in->imm; memcpy(p, &v, sizeof(T)); } break;

/*
 * The loop without strict checks or tracing: the instructions generated
 * programs run most are decoded by one switch on the opcode (operands were
 * checked by vm_load()); the others go through step().
 */
static int run_fast(struct vm *vm, __u32 *ret)
{
	const struct bpf_insn *prog = vm->prog, *in;
	__u64 *r = vm->r;
	long steps = VM_MAX_STEPS;
	unsigned char *p;
	int pc = 0;

	for (;; pc++) {
		if (--steps < 0 || (unsigned int)pc >= (unsigned int)vm->n) {
			vm->pc = pc;
			return steps < 0 ? fault(vm, "more than %d instructions run", VM_MAX_STEPS) :
			       fault(vm, "outside the program (%d instructions)", vm->n);
		}
		in = &prog[pc];
		switch (in->code) {
		ALU_CASES(BPF_ALU64, __u64, BPF_ADD, d + s)
		ALU_CASES(BPF_ALU64, __u64, BPF_SUB, d - s)
		ALU_CASES(BPF_ALU64, __u64, BPF_AND, d & s)
		ALU_CASES(BPF_ALU64, __u64, BPF_OR, d | s)
		ALU_CASES(BPF_ALU64, __u64, BPF_XOR, d ^ s)
		ALU_CASES(BPF_ALU64, __u64, BPF_MOV, ((void)d, s))
		ALU_CASES(BPF_ALU64, __u64, BPF_LSH, d << (s & 63))
		ALU_CASES(BPF_ALU64, __u64, BPF_RSH, d >> (s & 63))
		ALU_CASES(BPF_ALU, __u32, BPF_ADD, d + s)
		ALU_CASES(BPF_ALU, __u32, BPF_SUB, d - s)
		ALU_CASES(BPF_ALU, __u32, BPF_AND, d & s)
		ALU_CASES(BPF_ALU, __u32, BPF_OR, d | s)
		ALU_CASES(BPF_ALU, __u32, BPF_MOV, ((void)d, s))
		ALU_CASES(BPF_ALU, __u32, BPF_LSH, d << (s & 31))
		ALU_CASES(BPF_ALU, __u32, BPF_RSH, d >> (s & 31))
		JMP_CASES(BPF_JMP, __u64, BPF_JEQ, d == s)
		JMP_CASES(BPF_JMP, __u64, BPF_JNE, d != s)
		JMP_CASES(BPF_JMP, __u64, BPF_JGT, d > s)
		JMP_CASES(BPF_JMP, __u64, BPF_JGE, d >= s)
		JMP_CASES(BPF_JMP, __u64, BPF_JLT, d < s)
		JMP_CASES(BPF_JMP, __u64, BPF_JLE, d <= s)
		JMP_CASES(BPF_JMP, __u64, BPF_JSET, d & s)
		JMP_CASES(BPF_JMP, __s64, BPF_JSGT, d > s)
		JMP_CASES(BPF_JMP, __s64, BPF_JSGE, d >= s)
		JMP_CASES(BPF_JMP, __s64, BPF_JSLT, d < s)
		JMP_CASES(BPF_JMP, __s64, BPF_JSLE, d <= s)
		JMP_CASES(BPF_JMP32, __u32, BPF_JEQ, d == s)
		JMP_CASES(BPF_JMP32, __u32, BPF_JNE, d != s)
		JMP_CASES(BPF_JMP32, __u32, BPF_JGT, d > s)
		JMP_CASES(BPF_JMP32, __u32, BPF_JGE, d >= s)
		JMP_CASES(BPF_JMP32, __u32, BPF_JLT, d < s)
		JMP_CASES(BPF_JMP32, __u32, BPF_JLE, d <= s)
		case BPF_LDX | BPF_MEM | BPF_W:	/* data and data_end: addresses */
			if (pkt_field(r[in->src_reg], in->off, vm)) {
				r[in->dst_reg] = pkt_addr(vm, in->off);
				break;
			}
			p = fast_mem(vm, pc, r[in->src_reg], in->off, 4, false);
			if (!p)
				return -1;
			{ __u32 v; memcpy(&v, p, 4); r[in->dst_reg] = v; }
			break;
		STORE_CASES(BPF_W, __u32)
		MEM_CASES(BPF_B, __u8)
		MEM_CASES(BPF_H, __u16)
		MEM_CASES(BPF_DW, __u64)
		case BPF_JMP | BPF_JA:
			pc += in->off;
			break;
		case BPF_JMP | BPF_EXIT:
			*ret = (__u32)r[BPF_REG_0];
			return 0;
		default:
			vm->pc = pc;
			if (!step(vm, in)) {
				*ret = 0;
				return vm->fault ? -1 : 0;
			}
			if (vm->fault)
				return -1;
			pc = vm->pc;
			break;
		}
	}
}

int vm_run(struct vm *vm, const struct packet *skb, __u32 *ret)
{
	long steps;

	vm->skb = skb;
	vm->fault = false;
	vm->pc = 0;
	vm->msg[0] = '\0';
	ctx_init(&vm->ctx, skb);
	memset(vm->r, 0, sizeof(vm->r));	/* nothing carries over from a packet */
	vm->r[BPF_REG_1] = (uintptr_t)&vm->ctx;
	vm->r[BPF_REG_10] = (uintptr_t)(vm->stack + VM_STACK_SIZE);
	vm->set = 1u << BPF_REG_1 | 1u << BPF_REG_10;
	if (!vm->n)
		return fail(vm, 0, "no program loaded");
	if (!vm->strict && !vm->trace && !vm->cost)
		return run_fast(vm, ret);
	memset(vm->stack_set, 0, sizeof(vm->stack_set));
	for (steps = 0; steps < VM_MAX_STEPS; steps++) {
		const struct bpf_insn *in;

		if (vm->pc < 0 || vm->pc >= vm->n)
			return fault(vm, "outside the program (%d instructions)", vm->n);
		in = &vm->prog[vm->pc];
		if (vm->trace)
			print_insn(vm->trace, vm->pc, in);
		if (vm->cost)
			count_insn(vm, in);
		if (in->code == (BPF_JMP | BPF_EXIT)) {
			*ret = (__u32)rd(vm, BPF_REG_0);
			return vm->fault ? -1 : 0;
		}
		if (!step(vm, in)) {
			*ret = 0;
			return vm->fault ? -1 : 0;
		}
		if (vm->fault)
			return -1;
		vm->pc++;
	}
	return fault(vm, "more than %d instructions run", VM_MAX_STEPS);
}
