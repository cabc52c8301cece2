// SPDX-License-Identifier: GPL-2.0
/* eBPF interpreter for host unit tests; see ebpf_vm.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>

#include "ebpf_vm.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ebpf_vm models a little-endian host"
#endif

struct vm_map {
	int fd;
	__u32 type, key_size, value_size, max_entries;
	unsigned char *keys;	/* max_entries slots (an array's: indexes) */
	unsigned char *values;
	__u64 *used;		/* per slot: 0 free, else time of last use */
	__u64 clock;
};

static struct vm_map vm_maps[VM_MAX_MAPS];
static int vm_nmaps;
static char vm_msg[256];
static __u64 vm_seed = 0x2545f4914f6cdd1dULL;

struct vm {
	const struct bpf_insn *insns;
	int n;
	int pc;			/* the instruction being run */
	__u64 r[11];
	unsigned int set;	/* bit i: r[i] has been written */
	bool done;
	bool trace;
	__u64 ret;
	const struct vm_skb *skb;
	struct __sk_buff ctx;
	unsigned char stack[VM_STACK_SIZE];
	bool stack_set[VM_STACK_SIZE];
};

static bool trap(struct vm *vm, const char *fmt, ...)
{
	int len = snprintf(vm_msg, sizeof(vm_msg), "insn %d: ", vm->pc);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(vm_msg + len, sizeof(vm_msg) - len, fmt, ap);
	va_end(ap);
	return false;
}

const char *vm_error(void)
{
	return vm_msg;
}

/* ---- maps ---- */

static bool is_array(__u32 type)
{
	return type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       type == BPF_MAP_TYPE_ARRAY_OF_MAPS;
}

static bool is_lru(__u32 type)
{
	return type == BPF_MAP_TYPE_LRU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static bool is_hash(__u32 type)
{
	return type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_PERCPU_HASH ||
	       is_lru(type);
}

static struct vm_map *map_by_fd(int fd)
{
	int i;

	for (i = 0; i < vm_nmaps; i++)
		if (vm_maps[i].fd == fd)
			return &vm_maps[i];
	return NULL;
}

static void map_free(struct vm_map *m)
{
	free(m->keys);
	free(m->values);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* An array's slots all exist: their keys are their indexes. */
static void array_init(struct vm_map *m)
{
	__u32 i;

	for (i = 0; i < m->max_entries; i++) {
		memcpy(m->keys + 4 * i, &i, 4);
		m->used[i] = 1;
	}
}

int vm_map_add(int fd, __u32 type, __u32 key_size, __u32 value_size,
	       __u32 max_entries)
{
	struct vm_map *m = &vm_maps[vm_nmaps];

	if (vm_nmaps == VM_MAX_MAPS || map_by_fd(fd) || !value_size ||
	    value_size > 65536 || !max_entries || max_entries > (1 << 20) ||
	    key_size > VM_STACK_SIZE)
		return -1;
	if (is_array(type) ? key_size != 4 : !is_hash(type) || !key_size)
		return -1;
	if (type == BPF_MAP_TYPE_ARRAY_OF_MAPS && value_size != 4)
		return -1;
	*m = (struct vm_map){ .fd = fd, .type = type, .key_size = key_size,
			      .value_size = value_size, .max_entries = max_entries };
	m->keys = calloc(max_entries, key_size);
	m->values = calloc(max_entries, value_size);
	m->used = calloc(max_entries, sizeof(*m->used));
	if (!m->keys || !m->values || !m->used) {
		map_free(m);
		return -1;
	}
	if (is_array(type))
		array_init(m);
	vm_nmaps++;
	return 0;
}

void vm_reset(void)
{
	while (vm_nmaps > 0)
		map_free(&vm_maps[--vm_nmaps]);
}

static void *map_value(const struct vm_map *m, __u32 i)
{
	return m->values + (size_t)i * m->value_size;
}

static int map_find(const struct vm_map *m, const void *key)
{
	__u32 i;

	if (is_array(m->type)) {
		memcpy(&i, key, 4);
		return i < m->max_entries ? (int)i : -1;
	}
	for (i = 0; i < m->max_entries; i++)
		if (m->used[i] && !memcmp(m->keys + (size_t)i * m->key_size,
					   key, m->key_size))
			return i;
	return -1;
}

/* A free hash slot; when full, an LRU map gives its least recently used. */
static int map_free_slot(const struct vm_map *m)
{
	__u32 i, old = 0;

	for (i = 0; i < m->max_entries; i++) {
		if (!m->used[i])
			return i;
		if (m->used[i] < m->used[old])
			old = i;
	}
	return is_lru(m->type) ? (int)old : -1;
}

/* bpf_map_update_elem() from a program, with the kernel's errors. */
static long map_update(struct vm_map *m, const void *key, const void *value,
		       __u64 flags)
{
	int i = map_find(m, key);

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (is_array(m->type) && i < 0)
		return -E2BIG;
	if (i >= 0 && flags == BPF_NOEXIST)
		return -EEXIST;
	if (i < 0 && flags == BPF_EXIST)
		return -ENOENT;
	if (i < 0 && (i = map_free_slot(m)) < 0)
		return -E2BIG;
	memmove(m->keys + (size_t)i * m->key_size, key, m->key_size);
	memmove(map_value(m, i), value, m->value_size);
	m->used[i] = ++m->clock;
	return 0;
}

void *vm_map_lookup(int fd, const void *key)
{
	struct vm_map *m = map_by_fd(fd);
	int i = m ? map_find(m, key) : -1;

	return i < 0 ? NULL : map_value(m, i);
}

int vm_map_count(int fd)
{
	struct vm_map *m = map_by_fd(fd);
	int n = 0;
	__u32 i;

	if (!m)
		return -1;
	for (i = 0; i < m->max_entries; i++)
		n += m->used[i] != 0;
	return n;
}

int vm_map_entry(int fd, int i, const void **key, void **value)
{
	struct vm_map *m = map_by_fd(fd);
	__u32 j;

	for (j = 0; m && j < m->max_entries; j++) {
		if (!m->used[j] || i--)
			continue;
		*key = m->keys + (size_t)j * m->key_size;
		*value = map_value(m, j);
		return 0;
	}
	return -1;
}

/* ---- registers and memory ---- */

static bool get(struct vm *vm, int r, __u64 *v)
{
	*v = 0;
	if (r > BPF_REG_10)
		return trap(vm, "no register r%d", r);
	if (!(vm->set & 1u << r))
		return trap(vm, "r%d read before it was written", r);
	*v = vm->r[r];
	return true;
}

static bool put(struct vm *vm, int r, __u64 v)
{
	if (r >= BPF_REG_10)
		return trap(vm, "write to r%d", r);
	vm->r[r] = v;
	vm->set |= 1u << r;
	return true;
}

/* Calls and LD_ABS/LD_IND leave R1-R5 unset. */
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

static __u64 load(const unsigned char *p, int size)
{
	__u64 v = 0;

	memcpy(&v, p, size);
	return v;
}

static void store(unsigned char *p, int size, __u64 v)
{
	memcpy(p, &v, size);
}

static bool in_range(const void *base, size_t len, __u64 addr, __u32 size)
{
	uintptr_t b = (uintptr_t)base;

	return addr >= b && size <= len && addr - b <= len - size;
}

static unsigned char *stack_access(struct vm *vm, __u64 addr, __u32 size,
				   bool write)
{
	size_t off = addr - (uintptr_t)vm->stack;
	__u32 i;

	for (i = 0; i < size; i++) {
		if (write)
			vm->stack_set[off + i] = true;
		else if (!vm->stack_set[off + i])
			return trap(vm, "read of unset stack at fp%d",
				    (int)(off + i) - VM_STACK_SIZE), NULL;
	}
	return vm->stack + off;
}

#define SKB_FIELD(f) offsetof(struct __sk_buff, f)

static const size_t ctx_fields[] = {
	SKB_FIELD(len), SKB_FIELD(pkt_type), SKB_FIELD(mark),
	SKB_FIELD(queue_mapping), SKB_FIELD(protocol), SKB_FIELD(vlan_present),
	SKB_FIELD(vlan_tci), SKB_FIELD(vlan_proto), SKB_FIELD(ifindex),
	SKB_FIELD(hash), SKB_FIELD(gso_segs),
};

/* Reads within one of the 32-bit fields above only. */
static unsigned char *ctx_access(struct vm *vm, __u64 addr, __u32 size,
				 bool write)
{
	size_t off = addr - (uintptr_t)&vm->ctx, i;

	if (write)
		return trap(vm, "write to the context at %zu", off), NULL;
	for (i = 0; i < sizeof(ctx_fields) / sizeof(ctx_fields[0]); i++)
		if (off >= ctx_fields[i] && off + size <= ctx_fields[i] + 4)
			return (unsigned char *)&vm->ctx + off;
	return trap(vm, "context access at %zu, size %u", off, size), NULL;
}

static struct vm_map *map_holding(__u64 addr)
{
	int i;

	for (i = 0; i < vm_nmaps; i++)
		if (in_range(vm_maps[i].values, (size_t)vm_maps[i].max_entries *
			     vm_maps[i].value_size, addr, 1))
			return &vm_maps[i];
	return NULL;
}

/* Within one value of an entry present. */
static unsigned char *map_access(struct vm *vm, struct vm_map *m, __u64 addr,
				 __u32 size)
{
	size_t off = addr - (uintptr_t)m->values;

	if (off % m->value_size + size > m->value_size ||
	    !m->used[off / m->value_size])
		return trap(vm, "access to map fd %d at %zu, size %u", m->fd,
			    off, size), NULL;
	return m->values + off;
}

/*
 * The host address of size bytes at base + off, if the program may use
 * them: base and the bytes must lie in the same region (the frame pointer
 * counts as in the stack), so an overflow off R10 cannot land elsewhere.
 */
static unsigned char *access_mem(struct vm *vm, __u64 base, __s16 off,
				 __u32 size, bool write)
{
	uintptr_t stack = (uintptr_t)vm->stack;
	__u64 addr = base + (__s64)off;
	struct vm_map *m;

	if (base >= stack && base <= stack + VM_STACK_SIZE) {
		if (in_range(vm->stack, VM_STACK_SIZE, addr, size))
			return stack_access(vm, addr, size, write);
		return trap(vm, "access at fp%+lld, size %u, outside the stack",
			    (long long)(addr - stack - VM_STACK_SIZE), size), NULL;
	}
	if (in_range(&vm->ctx, sizeof(vm->ctx), base, 1) &&
	    in_range(&vm->ctx, sizeof(vm->ctx), addr, size))
		return ctx_access(vm, addr, size, write);
	m = map_holding(base);
	if (m && m == map_holding(addr))
		return map_access(vm, m, addr, size);
	return trap(vm, "access to %#llx%+d, size %u, outside stack, context "
		    "and map values", (unsigned long long)base, off, size), NULL;
}

/* ---- ALU ---- */

static bool alu_calc(struct vm *vm, int op, __u64 d, __u64 s, bool is64,
		     __u64 *r)
{
	unsigned int mask = is64 ? 63 : 31;

	if (!is64) {
		d = (__u32)d;
		s = (__u32)s;
	}
	switch (op) {
	case BPF_ADD:	*r = d + s; break;
	case BPF_SUB:	*r = d - s; break;
	case BPF_MUL:	*r = d * s; break;
	case BPF_DIV:	*r = s ? d / s : 0; break;
	case BPF_MOD:	*r = s ? d % s : d; break;
	case BPF_OR:	*r = d | s; break;
	case BPF_AND:	*r = d & s; break;
	case BPF_XOR:	*r = d ^ s; break;
	case BPF_LSH:	*r = d << (s & mask); break;
	case BPF_RSH:	*r = d >> (s & mask); break;
	case BPF_NEG:	*r = -d; break;
	case BPF_MOV:	*r = s; break;
	case BPF_ARSH:
		*r = is64 ? (__u64)((__s64)d >> (s & 63)) :
			    (__u32)((__s32)d >> (s & 31));
		break;
	default:
		return trap(vm, "unknown ALU op %#x", op);
	}
	if (!is64)
		*r = (__u32)*r;
	return true;
}

/* What the verifier refuses in a constant operand. */
static bool alu_imm_ok(struct vm *vm, int op, __s32 imm, bool is64)
{
	if ((op == BPF_DIV || op == BPF_MOD) && imm == 0)
		return trap(vm, "division by zero constant");
	if ((op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) &&
	    (imm < 0 || imm >= (is64 ? 64 : 32)))
		return trap(vm, "shift by %d", imm);
	return true;
}

static bool alu_end(struct vm *vm, const struct bpf_insn *in, bool is64)
{
	int bits = in->imm;
	__u64 d;

	if (is64 || (bits != 16 && bits != 32 && bits != 64))
		return trap(vm, "bad BPF_END");
	if (!get(vm, in->dst_reg, &d))
		return false;
	if (BPF_SRC(in->code) == BPF_TO_BE)
		d = bits == 16 ? __builtin_bswap16(d) :
		    bits == 32 ? __builtin_bswap32(d) : __builtin_bswap64(d);
	else
		d = bits == 16 ? (__u16)d : bits == 32 ? (__u32)d : d;
	return put(vm, in->dst_reg, d);
}

static bool alu(struct vm *vm, const struct bpf_insn *in)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	int op = BPF_OP(in->code);
	__u64 d = 0, s, r;

	if (op == BPF_END)
		return alu_end(vm, in, is64);
	if (in->off)
		return trap(vm, "ALU with an offset (signed div, movsx)");
	if (BPF_SRC(in->code) == BPF_X) {
		if (in->imm || op == BPF_NEG)
			return trap(vm, "bad ALU register form");
		if (!get(vm, in->src_reg, &s))
			return false;
	} else {
		if (in->src_reg || !alu_imm_ok(vm, op, in->imm, is64))
			return in->src_reg ? trap(vm, "bad ALU immediate form") : false;
		s = (__u64)(__s64)in->imm;
	}
	if (op != BPF_MOV && !get(vm, in->dst_reg, &d))
		return false;
	return alu_calc(vm, op, d, s, is64, &r) && put(vm, in->dst_reg, r);
}

/* ---- jumps and calls ---- */

static bool jmp_cond(struct vm *vm, int op, __u64 d, __u64 s, bool is32,
		     bool *taken)
{
	__s64 sd = is32 ? (__s32)d : (__s64)d, ss = is32 ? (__s32)s : (__s64)s;

	*taken = false;
	if (is32) {
		d = (__u32)d;
		s = (__u32)s;
	}
	switch (op) {
	case BPF_JEQ:	*taken = d == s; break;
	case BPF_JNE:	*taken = d != s; break;
	case BPF_JGT:	*taken = d > s; break;
	case BPF_JGE:	*taken = d >= s; break;
	case BPF_JLT:	*taken = d < s; break;
	case BPF_JLE:	*taken = d <= s; break;
	case BPF_JSET:	*taken = (d & s) != 0; break;
	case BPF_JSGT:	*taken = sd > ss; break;
	case BPF_JSGE:	*taken = sd >= ss; break;
	case BPF_JSLT:	*taken = sd < ss; break;
	case BPF_JSLE:	*taken = sd <= ss; break;
	default:
		return trap(vm, "unknown jump op %#x", op);
	}
	return true;
}

static bool args(struct vm *vm, int n, __u64 *a)
{
	int i;

	for (i = 1; i <= n; i++)
		if (!get(vm, i, &a[i]))
			return false;
	return true;
}

static struct vm_map *map_arg(struct vm *vm, __u64 v)
{
	int i;

	for (i = 0; i < vm_nmaps; i++)
		if ((uintptr_t)&vm_maps[i] == v)
			return &vm_maps[i];
	return trap(vm, "r1 is not a map"), NULL;
}

static bool h_lookup(struct vm *vm, __u64 *r0)
{
	const unsigned char *key;
	struct vm_map *m;
	__u64 a[3] = { 0 };
	int i;

	if (!args(vm, 2, a) || !(m = map_arg(vm, a[1])) ||
	    !(key = access_mem(vm, a[2], 0, m->key_size, false)))
		return false;
	i = map_find(m, key);
	if (i >= 0)
		m->used[i] = ++m->clock;
	*r0 = i < 0 ? 0 : (uintptr_t)map_value(m, i);
	if (i >= 0 && m->type == BPF_MAP_TYPE_ARRAY_OF_MAPS) {
		/* the value is an inner map's fd; the program gets the map */
		struct vm_map *inner = map_by_fd(*(const __u32 *)map_value(m, i));

		*r0 = inner ? (uintptr_t)inner : 0;
	}
	return true;
}

static bool h_update(struct vm *vm, __u64 *r0)
{
	const unsigned char *key, *value;
	struct vm_map *m;
	__u64 a[5] = { 0 };

	if (!args(vm, 4, a) || !(m = map_arg(vm, a[1])) ||
	    !(key = access_mem(vm, a[2], 0, m->key_size, false)) ||
	    !(value = access_mem(vm, a[3], 0, m->value_size, false)))
		return false;
	*r0 = (__u64)map_update(m, key, value, a[4]);
	return true;
}

/* bpf_skb_load_bytes(skb, u32 offset, to, u32 len) */
static bool h_load_bytes(struct vm *vm, __u64 *r0)
{
	__u32 off, len;
	unsigned char *to;
	__u64 a[5] = { 0 };

	if (!args(vm, 4, a))
		return false;
	if (a[1] != (uintptr_t)&vm->ctx)
		return trap(vm, "r1 is not the context");
	off = a[2];
	len = a[4];
	if (!len || a[4] > VM_STACK_SIZE)
		return trap(vm, "bpf_skb_load_bytes of %llu bytes",
			    (unsigned long long)a[4]);
	if (!(to = access_mem(vm, a[3], 0, len, true)))
		return false;
	if (off > 0xffff || (__u64)off + len > vm->skb->len) {
		memset(to, 0, len);
		*r0 = (__u64)-EFAULT;
		return true;
	}
	memcpy(to, vm->skb->data + off, len);
	*r0 = 0;
	return true;
}

static __u64 vm_random(void)
{
	vm_seed ^= vm_seed << 13;
	vm_seed ^= vm_seed >> 7;
	vm_seed ^= vm_seed << 17;
	return (__u32)vm_seed;
}

static bool call(struct vm *vm, const struct bpf_insn *in)
{
	bool ok = true;
	__u64 r0 = 0;

	if (in->src_reg || in->dst_reg || in->off)
		return trap(vm, "only helper calls are supported");
	switch (in->imm) {
	case BPF_FUNC_map_lookup_elem:
		ok = h_lookup(vm, &r0);
		break;
	case BPF_FUNC_map_update_elem:
		ok = h_update(vm, &r0);
		break;
	case BPF_FUNC_skb_load_bytes:
		ok = h_load_bytes(vm, &r0);
		break;
	case BPF_FUNC_get_smp_processor_id:
		r0 = vm->skb->cpu;
		break;
	case BPF_FUNC_get_prandom_u32:
		r0 = vm_random();
		break;
	default:
		return trap(vm, "helper %d is not supported", in->imm);
	}
	if (!ok)
		return false;
	clobber(vm);
	return put(vm, BPF_REG_0, r0);
}

static bool jmp(struct vm *vm, const struct bpf_insn *in)
{
	bool is32 = BPF_CLASS(in->code) == BPF_JMP32, taken;
	int op = BPF_OP(in->code);
	__u64 d, s;

	if (op == BPF_CALL && !is32)
		return call(vm, in);
	if (op == BPF_EXIT && !is32) {
		vm->done = true;
		return get(vm, BPF_REG_0, &vm->ret);
	}
	if (op == BPF_JA && !is32) {
		vm->pc += in->off;
		return true;
	}
	if (!get(vm, in->dst_reg, &d))
		return false;
	if (BPF_SRC(in->code) == BPF_X) {
		if (!get(vm, in->src_reg, &s))
			return false;
	} else {
		s = (__u64)(__s64)in->imm;
	}
	if (!jmp_cond(vm, op, d, s, is32, &taken))
		return false;
	if (taken)
		vm->pc += in->off;
	return true;
}

/* ---- loads and stores ---- */

static bool ld_imm64(struct vm *vm, const struct bpf_insn *in)
{
	const struct bpf_insn *hi = in + 1;
	struct vm_map *m;
	__u64 v;

	if (vm->pc + 1 >= vm->n || hi->code || hi->dst_reg || hi->src_reg ||
	    hi->off)
		return trap(vm, "bad second half of LD_IMM64");
	vm->pc++;
	if (in->src_reg == 0) {
		v = (__u32)in->imm | (__u64)(__u32)hi->imm << 32;
	} else if (in->src_reg == BPF_PSEUDO_MAP_FD) {
		m = map_by_fd(in->imm);
		if (!m || hi->imm)
			return trap(vm, "no map with fd %d", in->imm);
		v = (uintptr_t)m;
	} else {
		return trap(vm, "LD_IMM64 with src_reg %d", in->src_reg);
	}
	return put(vm, in->dst_reg, v);
}

/* LD_ABS/LD_IND: R0 = big-endian packet bytes; outside, return 0. */
static bool ld_pkt(struct vm *vm, const struct bpf_insn *in)
{
	int size = size_of(in->code), i;
	__u64 ctx, x = 0, v = 0;
	__s32 off;

	if (size == 8 || in->dst_reg || in->off)
		return trap(vm, "bad LD_ABS/LD_IND");
	if (!get(vm, BPF_REG_6, &ctx) ||
	    (BPF_MODE(in->code) == BPF_IND && !get(vm, in->src_reg, &x)))
		return false;
	if (ctx != (uintptr_t)&vm->ctx)
		return trap(vm, "LD_ABS/LD_IND without the context in r6");
	off = (__s32)(__u32)(x + (__u64)(__s64)in->imm);
	if (off < 0 && off >= SKF_LL_OFF)
		return trap(vm, "SKF_NET_OFF/SKF_LL_OFF loads are not modelled");
	clobber(vm);
	if (off < 0 || (__u64)off + size > vm->skb->len) {
		vm->done = true;
		vm->ret = 0;
		return true;
	}
	for (i = 0; i < size; i++)
		v = v << 8 | vm->skb->data[off + i];
	return put(vm, BPF_REG_0, v);
}

static bool ld(struct vm *vm, const struct bpf_insn *in)
{
	int mode = BPF_MODE(in->code);

	if (in->code == (BPF_LD | BPF_DW | BPF_IMM))
		return ld_imm64(vm, in);
	if (mode == BPF_ABS || mode == BPF_IND)
		return ld_pkt(vm, in);
	return trap(vm, "unknown opcode %#x", in->code);
}

static bool ldx(struct vm *vm, const struct bpf_insn *in)
{
	int size = size_of(in->code);
	unsigned char *p;
	__u64 base;

	if (BPF_MODE(in->code) != BPF_MEM)
		return trap(vm, "unknown opcode %#x", in->code);
	if (!get(vm, in->src_reg, &base) ||
	    !(p = access_mem(vm, base, in->off, size, false)))
		return false;
	return put(vm, in->dst_reg, load(p, size));
}

static bool atomic(struct vm *vm, const struct bpf_insn *in)
{
	int size = size_of(in->code), op = in->imm & ~BPF_FETCH;
	unsigned char *p;
	__u64 base, s, old, r;

	if (size < 4 || (op != BPF_ADD && op != BPF_AND && op != BPF_OR &&
			 op != BPF_XOR))
		return trap(vm, "atomic op %#x, size %d", in->imm, size);
	if (!get(vm, in->dst_reg, &base) || !get(vm, in->src_reg, &s) ||
	    !(p = access_mem(vm, base, in->off, size, false)))
		return false;
	old = load(p, size);
	if (!alu_calc(vm, op, old, s, size == 8, &r))
		return false;
	store(p, size, r);
	return !(in->imm & BPF_FETCH) || put(vm, in->src_reg, old);
}

static bool st(struct vm *vm, const struct bpf_insn *in)
{
	bool x = BPF_CLASS(in->code) == BPF_STX;
	int size = size_of(in->code);
	unsigned char *p;
	__u64 base, v = (__u64)(__s64)in->imm;

	if (x && BPF_MODE(in->code) == BPF_ATOMIC)
		return atomic(vm, in);
	if (BPF_MODE(in->code) != BPF_MEM)
		return trap(vm, "unknown opcode %#x", in->code);
	if (!get(vm, in->dst_reg, &base) || (x && !get(vm, in->src_reg, &v)))
		return false;
	p = access_mem(vm, base, in->off, size, true);
	if (p)
		store(p, size, v);
	return p != NULL;
}

/* ---- listing and run ---- */

static const char *const alu_names[16] = {
	"add", "sub", "mul", "div", "or", "and", "lsh", "rsh",
	"neg", "mod", "xor", "mov", "arsh", "end",
};
static const char *const jmp_names[16] = {
	"ja", "jeq", "jgt", "jge", "jset", "jne", "jsgt", "jsge",
	"call", "exit", "jlt", "jle", "jslt", "jsle",
};
static const char *const size_names[4] = { "w", "h", "b", "dw" };

static void dump_one(FILE *f, const struct bpf_insn *in)
{
	int cl = BPF_CLASS(in->code), x = BPF_SRC(in->code) == BPF_X;
	const char *sz = size_names[BPF_SIZE(in->code) >> 3];
	const char *op = (cl == BPF_JMP || cl == BPF_JMP32 ? jmp_names :
			  alu_names)[BPF_OP(in->code) >> 4];

	switch (cl) {
	case BPF_ALU:
	case BPF_ALU64:
	case BPF_JMP:
	case BPF_JMP32:
		fprintf(f, "%s%s r%d, ", op ? op : "?",
			cl == BPF_ALU || cl == BPF_JMP32 ? "32" : "", in->dst_reg);
		fprintf(f, x ? "r%d" : "%#x", x ? in->src_reg : in->imm);
		fprintf(f, cl == BPF_JMP || cl == BPF_JMP32 ? ", %+d\n" : "\n",
			in->off);
		break;
	case BPF_LDX:
		fprintf(f, "ldx%s r%d, [r%d%+d]\n", sz, in->dst_reg,
			in->src_reg, in->off);
		break;
	case BPF_ST:
	case BPF_STX:
		fprintf(f, "%s%s [r%d%+d], ", cl == BPF_ST ? "st" : "stx", sz,
			in->dst_reg, in->off);
		fprintf(f, cl == BPF_ST ? "%#x\n" : "r%d\n",
			cl == BPF_ST ? in->imm : in->src_reg);
		break;
	default:
		fprintf(f, "ld%s%s r%d, src r%d, %#x\n",
			BPF_MODE(in->code) == BPF_ABS ? "abs" :
			BPF_MODE(in->code) == BPF_IND ? "ind" : "",
			sz, in->dst_reg, in->src_reg, in->imm);
		break;
	}
}

void vm_dump(FILE *f, const char *prefix, const struct bpf_insn *insns, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		fprintf(f, "%s%3d: ", prefix, i);
		dump_one(f, &insns[i]);
	}
}

static bool step(struct vm *vm)
{
	const struct bpf_insn *in;
	bool ok;

	if (vm->pc < 0 || vm->pc >= vm->n)
		return trap(vm, "outside the program (%d instructions)", vm->n);
	in = &vm->insns[vm->pc];
	if (vm->trace) {
		fprintf(stderr, "vm %3d: ", vm->pc);
		dump_one(stderr, in);
	}
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		ok = alu(vm, in);
		break;
	case BPF_JMP:
	case BPF_JMP32:
		ok = jmp(vm, in);
		break;
	case BPF_LDX:
		ok = ldx(vm, in);
		break;
	case BPF_ST:
	case BPF_STX:
		ok = st(vm, in);
		break;
	default:
		ok = ld(vm, in);
		break;
	}
	vm->pc++;
	return ok;
}

static void ctx_init(struct __sk_buff *ctx, const struct vm_skb *skb)
{
	memset(ctx, 0, sizeof(*ctx));
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
}

long vm_run(const struct bpf_insn *insns, int n, const struct vm_skb *skb)
{
	static struct vm vm;	/* large; vm_run is not reentrant anyway */
	long steps;

	memset(&vm, 0, sizeof(vm));
	vm.insns = insns;
	vm.n = n;
	vm.skb = skb;
	vm.trace = getenv("EBPF_VM_TRACE") != NULL;
	ctx_init(&vm.ctx, skb);
	vm.r[BPF_REG_1] = (uintptr_t)&vm.ctx;
	vm.r[BPF_REG_10] = (uintptr_t)(vm.stack + VM_STACK_SIZE);
	vm.set = 1u << BPF_REG_1 | 1u << BPF_REG_10;
	vm_msg[0] = '\0';
	for (steps = 0; !vm.done; steps++) {
		if (steps == VM_MAX_STEPS) {
			trap(&vm, "more than %d steps", VM_MAX_STEPS);
			return VM_TRAP;
		}
		if (!step(&vm))
			return VM_TRAP;
	}
	return (long)(__u32)vm.ret;
}
