// SPDX-License-Identifier: GPL-2.0
/*
 * The engine (src/vm.c): instruction semantics, helpers and maps with the
 * kernel's errors, and the faults that stand in for the verifier.  A table
 * of programs, each with the value it must return (or VM_TRAP and a piece
 * of the message).  Maps: fd 3 a hash (4-byte keys, 8-byte values, 2
 * entries), fd 4 an array of 4, fd 5 a per-CPU hash of 2, fd 6 a per-CPU
 * array of 1.  Then the map API that the readout uses, and the engine
 * without strict checks, as ebpfcount -r runs it.
 */
#include <errno.h>

#include "ebpf_vm.c"
#include "insn.h"
#include "tap.h"

#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R6 BPF_REG_6
#define R7 BPF_REG_7
#define R10 BPF_REG_10

#define PROG(...) { __VA_ARGS__ }, \
	sizeof((struct bpf_insn[]){ __VA_ARGS__ }) / sizeof(struct bpf_insn)
#define EXIT		BPF_EXIT_INSN()
#define RET(v)		BPF_MOV64_IMM(R0, v), EXIT
#define CALL(f)		BPF_EMIT_CALL(BPF_FUNC_##f)
#define LD_ABS(sz, k)	INSN(BPF_LD | BPF_##sz | BPF_ABS, 0, 0, 0, k)
#define LD_IND(sz, r, k) INSN(BPF_LD | BPF_##sz | BPF_IND, 0, r, 0, k)
/* *(u32 *)(fp - 4) = k; r2 = fp - 4 */
#define KEY(k)		BPF_ST_MEM(BPF_W, R10, -4, k), BPF_MOV64_REG(R2, R10), \
			BPF_ALU64_IMM(BPF_ADD, R2, -4)
/* *(u64 *)(fp - 16) = v; r3 = fp - 16 */
#define VAL(v)		BPF_ST_MEM(BPF_DW, R10, -16, v), BPF_MOV64_REG(R3, R10), \
			BPF_ALU64_IMM(BPF_ADD, R3, -16)
#define UPDATE(fd, k, v, fl) \
	BPF_LD_MAP_FD(R1, fd), KEY(k), VAL(v), BPF_MOV64_IMM(R4, fl), CALL(map_update_elem)
#define LOOKUP(fd, k)	BPF_LD_MAP_FD(R1, fd), KEY(k), CALL(map_lookup_elem)
#define DATA(r)		BPF_LDX_MEM(BPF_W, r, R1, offsetof(struct __sk_buff, data))
#define DATA_END(r)	BPF_LDX_MEM(BPF_W, r, R1, offsetof(struct __sk_buff, data_end))

struct vcase {
	const char *name;
	struct bpf_insn p[64];
	int n;
	long want;
	const char *trap;	/* with want == VM_TRAP */
};


static const unsigned char frame[20] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
};

static void maps(void)
{
	vm_reset();
	vm_map_add(3, BPF_MAP_TYPE_HASH, 4, 8, 2);
	vm_map_add(4, BPF_MAP_TYPE_ARRAY, 4, 8, 4);
	vm_map_add(5, BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 2);
	vm_map_add(6, BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1);
}

static const char *engine_tag = "";

static void test_case(const struct vcase *c)
{
	struct packet skb = { .data = frame, .len = sizeof(frame), .protocol = 8,
			      .vlan_tci = 0x123 };
	long got;

	maps();
	got = vm_exec(c->p, c->n, &skb);
	if (!tap_okf(got == c->want && (!c->trap || strstr(vm_why(), c->trap)),
		      "%s%s", engine_tag, c->name)) {
		printf("#   got %ld (%s), want %ld (%s)\n", got, vm_why(), c->want,
		       c->trap ? c->trap : "");
		vm_dump(stdout, "#   ", c->p, c->n);
	}
}

/* data_end leaves out the bytes of a nonlinear skb past its linear part. */
static void test_nonlinear(void)
{
	const struct bpf_insn len[] = { DATA(R2), DATA_END(R0), BPF_ALU64_REG(BPF_SUB, R0, R2),
					EXIT };
	const struct bpf_insn past[] = { DATA(R2), BPF_LDX_MEM(BPF_B, R0, R2, 15), EXIT };
	struct packet skb = { .data = frame, .len = sizeof(frame), .nonlinear = 5 };

	maps();
	tap_okf(vm_exec(len, 4, &skb) == 15, "%snonlinear: data_end - data", engine_tag);
	skb.nonlinear = 30;
	tap_okf(vm_exec(len, 4, &skb) == 0, "%snothing linear: data_end == data", engine_tag);
	skb.nonlinear = 5;
	tap_okf(vm_exec(past, 3, &skb) == VM_TRAP && strstr(vm_why(), "data_end (15 bytes)"),
		 "%snonlinear: a read past data_end traps", engine_tag);
}

/* What the test sees of the maps after a run. */
static void test_map_api(void)
{
	const struct bpf_insn p[] = { UPDATE(3, 7, 70, BPF_ANY), RET(0) };
	struct packet skb = { .data = frame, .len = sizeof(frame) };
	__u32 k = 7;
	const void *key;
	void *value;
	__u64 *v;

	maps();
	vm_exec(p, sizeof(p) / sizeof(p[0]), &skb);
	v = vm_map_find(3, &k);
	tap_ok(v && *v == 70, "vm_map_lookup");
	tap_ok(vm_map_count(3) == 1 && vm_map_count(4) == 4 && vm_map_count(9) == -1,
		"vm_map_count");
	tap_ok(!vm_map_entry(3, 0, &key, &value) && *(__u32 *)key == 7 &&
		*(__u64 *)value == 70 && vm_map_entry(3, 1, &key, &value) == -1,
		"vm_map_entry");
	tap_ok(vm_map_add(3, BPF_MAP_TYPE_HASH, 4, 8, 1) == -1 &&
		vm_map_add(10, BPF_MAP_TYPE_ARRAY, 8, 8, 1) == -1 &&
		vm_map_add(11, BPF_MAP_TYPE_RINGBUF, 0, 0, 4096) == -1,
		"vm_map_add refuses a taken fd, bad sizes, unknown types");
	vm_reset();
}

/*
 * The map API of src/vm.h as maps.c uses it, on a hash of many keys:
 * inserts, lookups, deletes (linear probing moves entries back), batches
 * with and without draining, and a full table.
 */
static void test_engine_maps(void)
{
	enum { N = 5000 };
	struct vm *vm = vm_new(0);
	static __u32 keys[N];
	static __u64 vals[N];
	int h = vm_map_create(vm, BPF_MAP_TYPE_PERCPU_HASH, 4, 8, N);
	__u32 k, n, cur, got = 0;
	__u64 v, sum = 0;
	int ok = 1, err;

	for (k = 0; k < N; k++) {
		v = k * 3;
		ok &= !vm_map_update(vm, h, &k, &v, BPF_NOEXIST);
	}
	tap_okf(ok, "engine: %d keys inserted", N);
	k = N;
	tap_ok(vm_map_update(vm, h, &k, &v, BPF_ANY) == -E2BIG, "engine: a full hash says E2BIG");
	for (k = 0; k < N; k += 2)
		ok &= !vm_map_delete(vm, h, &k);
	for (k = 0; k < N; k++)
		ok &= k % 2 ? !vm_map_lookup(vm, h, &k, &v) && v == k * 3 :
			      vm_map_lookup(vm, h, &k, &v) == -ENOENT;
	tap_ok(ok, "engine: every other key deleted, the others still found");
	cur = 0;
	do {
		n = 700;
		err = vm_map_batch(vm, h, 0, got ? &cur : NULL, &cur, keys, vals, &n);
		for (k = 0; k < n; k++)
			sum += vals[k] == keys[k] * 3ull ? vals[k] : 1;
		got += n;
	} while (!err);
	tap_okf(err == -ENOENT && got == N / 2 && sum == 3ull * (N / 2) * (N / 2),
		"engine: batches read every entry once (%u)", got);
	got = 0;
	do {
		n = 1000;
		err = vm_map_batch(vm, h, 1, got ? &cur : NULL, &cur, keys, vals, &n);
		got += n;
	} while (!err);
	k = 1;
	tap_ok(got == N / 2 && vm_map_next_key(vm, h, NULL, &k) == -ENOENT,
		"engine: a drained map is empty");
	for (k = 0; k < N; k++)
		ok &= !vm_map_update(vm, h, &k, &v, BPF_NOEXIST);
	tap_okf(ok, "engine: and takes %d keys again", N);
	vm_free(vm);
}

/* The engine as ebpfcount -r runs it: faults still stop a bad program. */
static void test_engine_faults(void)
{
	const struct bpf_insn far[] = { BPF_MOV64_IMM(R0, 0), BPF_MOV64_IMM(R1, 0),
					BPF_LDX_MEM(BPF_DW, R0, R10, 8), EXIT };
	const struct bpf_insn bad[] = { BPF_MOV64_IMM(R0, 0), INSN(0x8d, 0, 0, 0, 0), EXIT };
	const struct bpf_insn loop[] = { BPF_MOV64_IMM(R0, 0), BPF_JMP_A(-1), EXIT };
	struct packet skb = { .data = frame, .len = sizeof(frame) };
	struct vm *vm = vm_new(0);
	char err[256];
	__u32 ret;

	tap_okf(!vm_load(vm, far, 4, err, sizeof(err)) && vm_run(vm, &skb, &ret) == -1 &&
		strstr(vm_error(vm), "insn 2: access at fp+8"), "engine: %s", vm_error(vm));
	tap_okf(vm_load(vm, bad, 3, err, sizeof(err)) == -1 &&
		strstr(err, "insn 1: unknown opcode 0x8d"), "engine: refuses to load: %s", err);
	tap_ok(vm_run(vm, &skb, &ret) == -1, "engine: nothing runs after a refused load");
	tap_okf(!vm_load(vm, loop, 3, err, sizeof(err)) && vm_run(vm, &skb, &ret) == -1 &&
		strstr(vm_error(vm), "insn 1: more than"), "engine: %s", vm_error(vm));
	vm_free(vm);
}

/*
 * vm_count(): what a run executed, for the cost table (tests/bench/cost):
 * instructions (an LD_IMM64 once), LD_ABS, context loads, helper calls by
 * map type, the deepest stack byte; nothing counted before or after.
 */
static void test_count(void)
{
	const struct bpf_insn p[] = {
		BPF_MOV64_REG(R6, R1),
		LD_ABS(H, 12),
		BPF_LDX_MEM(BPF_W, R0, R6, offsetof(struct __sk_buff, len)),
		BPF_JMP_IMM(BPF_JEQ, R0, 0, 6),		/* not taken */
		BPF_ST_MEM(BPF_W, R10, -40, 0),		/* the deepest */
		LOOKUP(0, 0),			/* LD_IMM64 of the map, KEY: 5, the call */
		RET(0),
	};
	struct packet skb = { .data = frame, .len = sizeof(frame) };
	struct vm_cost c = { 0 };
	struct vm *vm = vm_new(0);
	struct bpf_insn q[sizeof(p) / sizeof(p[0])];
	char err[256];
	__u32 ret;
	int fd = vm_map_create(vm, BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 2);

	memcpy(q, p, sizeof(p));
	q[5].imm = fd;
	tap_okf(!vm_load(vm, q, sizeof(q) / sizeof(q[0]), err, sizeof(err)) &&
		 !vm_run(vm, &skb, &ret), "count: runs uncounted first %s", err);
	vm_count(vm, &c);
	tap_okf(!vm_run(vm, &skb, &ret) && ret == 0, "count: the counted run %s", vm_error(vm));
	vm_count(vm, NULL);
	tap_okf(!vm_run(vm, &skb, &ret), "count: and after");
	tap_okf(c.insns == 12, "count: 12 instructions executed (got %llu)", c.insns);
	tap_okf(c.ld_abs == 1 && c.ctx_loads == 1, "count: 1 LD_ABS, 1 context load (%llu, %llu)",
		 c.ld_abs, c.ctx_loads);
	tap_okf(c.lookup[BPF_MAP_TYPE_PERCPU_HASH] == 1 && c.lookup[BPF_MAP_TYPE_HASH] == 0 &&
		 !c.load_bytes && !c.other_calls, "count: 1 lookup, in a per-CPU hash");
	tap_okf(c.stack == 40, "count: 40 bytes of stack (got %u)", c.stack);
	vm_free(vm);
}

int main(void)
{
	/* Automatic: insn.h builds instructions with compound literals. */
	const struct vcase cases[] = {
		{ "mov, exit", PROG(RET(7)), 7, NULL },
		{ "return value as u32", PROG(BPF_MOV64_IMM(R0, -1), EXIT), 0xffffffffL, NULL },
		{ "alu32 zero-extends", PROG(BPF_MOV64_IMM(R0, -1), BPF_ALU32_IMM(BPF_ADD, R0, 0),
		  BPF_ALU64_IMM(BPF_RSH, R0, 32), EXIT), 0, NULL },
		{ "alu64 sign-extends imm", PROG(BPF_MOV64_IMM(R0, -1),
		  BPF_ALU64_IMM(BPF_RSH, R0, 32), EXIT), 0xffffffffL, NULL },
		{ "div by zero register is 0", PROG(BPF_MOV64_IMM(R0, 9), BPF_MOV64_IMM(R1, 0),
		  BPF_ALU64_REG(BPF_DIV, R0, R1), EXIT), 0, NULL },
		{ "mod by zero register keeps dst", PROG(BPF_MOV64_IMM(R0, 9), BPF_MOV64_IMM(R1, 0),
		  BPF_ALU32_REG(BPF_MOD, R0, R1), EXIT), 9, NULL },
		{ "arsh32", PROG(BPF_MOV32_IMM(R0, 0x80000000), BPF_ALU32_IMM(BPF_ARSH, R0, 28), EXIT),
		  0xfffffff8L, NULL },
		{ "lsh by register masks", PROG(BPF_MOV32_IMM(R0, 1), BPF_MOV32_IMM(R1, 33),
		  BPF_ALU32_REG(BPF_LSH, R0, R1), EXIT), 2, NULL },
		{ "neg, xor, mul, sub", PROG(BPF_MOV64_IMM(R0, 3), BPF_ALU64_IMM(BPF_NEG, R0, 0),
		  BPF_ALU64_IMM(BPF_MUL, R0, 5), BPF_ALU64_IMM(BPF_XOR, R0, -1),
		  BPF_ALU64_IMM(BPF_SUB, R0, 4), EXIT), 10, NULL },
		{ "be16", PROG(BPF_MOV32_IMM(R0, 0x12345678), BPF_ENDIAN_BE(R0, 16), EXIT), 0x7856, NULL },
		{ "be32", PROG(BPF_MOV32_IMM(R0, 0x12345678), BPF_ENDIAN_BE(R0, 32), EXIT),
		  0x78563412L, NULL },
		{ "le16 truncates", PROG(BPF_MOV32_IMM(R0, 0x12345678),
		  INSN(BPF_ALU | BPF_END | BPF_TO_LE, R0, 0, 0, 16), EXIT), 0x5678, NULL },
		{ "ld_imm64", PROG(BPF_LD_IMM64_RAW(R0, 0, 0x123456789ULL),
		  BPF_ALU64_IMM(BPF_RSH, R0, 4), EXIT), 0x12345678, NULL },
		{ "jgt is unsigned", PROG(BPF_MOV64_IMM(R1, -1), BPF_JMP_IMM(BPF_JGT, R1, 5, 2),
		  RET(0), RET(1)), 1, NULL },
		{ "jsgt is signed", PROG(BPF_MOV64_IMM(R1, -1), BPF_JMP_IMM(BPF_JSGT, R1, 5, 2),
		  RET(0), RET(1)), 0, NULL },
		{ "jmp32 looks at 32 bits", PROG(BPF_LD_IMM64_RAW(R1, 0, 0x100000005ULL),
		  INSN(BPF_JMP32 | BPF_JEQ | BPF_K, R1, 0, 2, 5), RET(0), RET(1)), 1, NULL },
		{ "jmp32 signed", PROG(BPF_MOV32_IMM(R1, -2),
		  INSN(BPF_JMP32 | BPF_JSLT | BPF_K, R1, 0, 2, 0), RET(0), RET(1)), 1, NULL },
		{ "jset, jne, jle, ja", PROG(BPF_MOV64_IMM(R1, 6), BPF_JMP_IMM(BPF_JSET, R1, 1, 3),
		  BPF_JMP_IMM(BPF_JNE, R1, 6, 2), BPF_JMP_IMM(BPF_JLE, R1, 5, 1), BPF_JMP_A(2),
		  RET(0), RET(1)), 1, NULL },
		{ "stack store and load", PROG(BPF_MOV64_IMM(R1, 0x55), BPF_STX_MEM(BPF_H, R10, R1, -2),
		  BPF_LDX_MEM(BPF_H, R0, R10, -2), EXIT), 0x55, NULL },
		{ "atomic add with fetch", PROG(BPF_ST_MEM(BPF_DW, R10, -8, 40), BPF_MOV64_IMM(R1, 2),
		  INSN(BPF_STX | BPF_DW | BPF_ATOMIC, R10, R1, -8, BPF_ADD | BPF_FETCH),
		  BPF_LDX_MEM(BPF_DW, R0, R10, -8), BPF_ALU64_REG(BPF_ADD, R0, R1), EXIT), 82, NULL },
		{ "ctx len, protocol, vlan_tci", PROG(
		  BPF_LDX_MEM(BPF_W, R0, R1, offsetof(struct __sk_buff, len)),
		  BPF_LDX_MEM(BPF_W, R2, R1, offsetof(struct __sk_buff, protocol)),
		  BPF_ALU64_REG(BPF_ADD, R0, R2),
		  BPF_LDX_MEM(BPF_H, R2, R1, offsetof(struct __sk_buff, vlan_tci)),
		  BPF_ALU64_REG(BPF_ADD, R0, R2), EXIT), 20 + 8 + 0x123, NULL },
		{ "ld_abs is big-endian", PROG(BPF_MOV64_REG(R6, R1), LD_ABS(W, 0), EXIT),
		  0x00010203, NULL },
		{ "ld_ind", PROG(BPF_MOV64_REG(R6, R1), BPF_MOV64_IMM(R7, 16), LD_IND(H, R7, 2), EXIT),
		  0x1213, NULL },
		{ "ld_abs beyond the end returns 0", PROG(BPF_MOV64_REG(R6, R1), LD_ABS(H, 19), RET(5)),
		  0, NULL },
		{ "ld_ind at SKF_LL_OFF + 2 reads the frame", PROG(BPF_MOV64_REG(R6, R1),
		  BPF_MOV64_IMM(R7, SKF_LL_OFF), LD_IND(B, R7, 2), EXIT), 2, NULL },
		{ "ld_ind at SKF_NET_OFF + 1 reads after the Ethernet header", PROG(
		  BPF_MOV64_REG(R6, R1), BPF_MOV64_IMM(R7, SKF_NET_OFF), LD_IND(B, R7, 1), EXIT),
		  15, NULL },
		{ "ld_ind at -1 (the network header + 1M - 1) returns 0", PROG(BPF_MOV64_REG(R6, R1),
		  BPF_MOV64_IMM(R7, -1), LD_IND(B, R7, 0), RET(5)), 0, NULL },
		{ "ld_abs clobbers r1-r5", PROG(BPF_MOV64_REG(R6, R1), BPF_MOV64_IMM(R2, 1),
		  LD_ABS(B, 0), BPF_MOV64_REG(R0, R2), EXIT), VM_TRAP, "r2 read before" },
		{ "skb_load_bytes", PROG(BPF_MOV64_IMM(R2, 17), BPF_MOV64_REG(R3, R10),
		  BPF_ALU64_IMM(BPF_ADD, R3, -8), BPF_MOV64_IMM(R4, 3), CALL(skb_load_bytes),
		  BPF_LDX_MEM(BPF_B, R0, R10, -6), EXIT), 19, NULL },
		{ "skb_load_bytes beyond the end", PROG(BPF_MOV64_IMM(R2, 18), BPF_MOV64_REG(R3, R10),
		  BPF_ALU64_IMM(BPF_ADD, R3, -8), BPF_MOV64_IMM(R4, 3), CALL(skb_load_bytes),
		  BPF_LDX_MEM(BPF_B, R1, R10, -6), BPF_ALU64_REG(BPF_ADD, R0, R1), EXIT),
		  (__u32)-EFAULT, NULL },
		{ "one cpu", PROG(CALL(get_smp_processor_id), EXIT), 0, NULL },
		{ "prandom clobbers r1", PROG(CALL(get_prandom_u32), BPF_MOV64_REG(R0, R1), EXIT),
		  VM_TRAP, "r1 read before" },
		{ "hash: lookup of a missing key", PROG(LOOKUP(3, 1), EXIT), 0, NULL },
		{ "hash: update, lookup, add", PROG(UPDATE(3, 1, 40, BPF_ANY), LOOKUP(3, 1),
		  BPF_JMP_IMM(BPF_JEQ, R0, 0, 3), BPF_LDX_MEM(BPF_DW, R1, R0, 0),
		  BPF_ALU64_IMM(BPF_ADD, R1, 2), BPF_STX_MEM(BPF_DW, R0, R1, 0),
		  LOOKUP(3, 1), BPF_LDX_MEM(BPF_DW, R0, R0, 0), EXIT), 42, NULL },
		{ "hash: noexist on a present key", PROG(UPDATE(3, 1, 0, BPF_ANY),
		  UPDATE(3, 1, 0, BPF_NOEXIST), EXIT), (__u32)-EEXIST, NULL },
		{ "hash: exist on a missing key", PROG(UPDATE(3, 1, 0, BPF_EXIST), EXIT),
		  (__u32)-ENOENT, NULL },
		{ "hash: full", PROG(UPDATE(3, 1, 0, BPF_ANY), UPDATE(3, 2, 0, BPF_ANY),
		  UPDATE(3, 3, 0, BPF_ANY), EXIT), (__u32)-E2BIG, NULL },
		{ "hash: full, present key", PROG(UPDATE(3, 1, 0, BPF_ANY), UPDATE(3, 2, 0, BPF_ANY),
		  UPDATE(3, 2, 0, BPF_ANY), EXIT), 0, NULL },
		{ "hash: bad flags", PROG(UPDATE(3, 1, 0, 4), EXIT), (__u32)-EINVAL, NULL },
		{ "percpu hash: full", PROG(UPDATE(5, 1, 0, BPF_ANY), UPDATE(5, 2, 0, BPF_ANY),
		  UPDATE(5, 3, 0, BPF_ANY), EXIT), (__u32)-E2BIG, NULL },
		{ "array: update out of range", PROG(UPDATE(4, 4, 0, BPF_ANY), EXIT),
		  (__u32)-E2BIG, NULL },
		{ "array: noexist", PROG(UPDATE(4, 0, 0, BPF_NOEXIST), EXIT), (__u32)-EEXIST, NULL },
		{ "percpu array: value", PROG(UPDATE(6, 0, 33, BPF_ANY), LOOKUP(6, 0),
		  BPF_LDX_MEM(BPF_DW, R0, R0, 0), EXIT), 33, NULL },
		{ "trap: register read before written", PROG(BPF_MOV64_REG(R0, R7), EXIT),
		  VM_TRAP, "r7 read before" },
		{ "trap: exit without r0", PROG(EXIT), VM_TRAP, "r0 read before" },
		{ "trap: unset stack", PROG(BPF_LDX_MEM(BPF_W, R0, R10, -8), EXIT), VM_TRAP,
		  "unset stack at fp-8" },
		{ "trap: stack overflow", PROG(BPF_ST_MEM(BPF_W, R10, -516, 0), RET(0)), VM_TRAP,
		  "fp-516, size 4, outside the stack" },
		{ "trap: above the frame", PROG(BPF_ST_MEM(BPF_W, R10, 0, 0), RET(0)), VM_TRAP,
		  "outside the stack" },
		{ "trap: stack pointer far off", PROG(BPF_MOV64_REG(R1, R10),
		  BPF_ALU64_IMM(BPF_ADD, R1, -4096), BPF_ST_MEM(BPF_W, R1, 0, 0), RET(0)), VM_TRAP,
		  "outside the stack, context and map values" },
		{ "trap: write to r10", PROG(BPF_MOV64_IMM(R10, 0), RET(0)), VM_TRAP, "write to r10" },
		{ "trap: write to ctx", PROG(BPF_ST_MEM(BPF_W, R1, 0, 0), RET(0)), VM_TRAP,
		  "write to the context" },
		{ "ctx data and data_end: the packet", PROG(DATA(R2), DATA_END(R0),
		  BPF_ALU64_REG(BPF_SUB, R0, R2), EXIT), 20, NULL },
		{ "packet: the last byte", PROG(DATA(R2), BPF_LDX_MEM(BPF_B, R0, R2, 19), EXIT), 19,
		  NULL },
		{ "packet: 4 bytes, dst == src", PROG(DATA(R1), BPF_LDX_MEM(BPF_W, R1, R1, 16),
		  BPF_MOV64_REG(R0, R1), EXIT), 0x13121110, NULL },
		{ "trap: packet read past data_end", PROG(DATA(R2), BPF_LDX_MEM(BPF_H, R0, R2, 19),
		  EXIT), VM_TRAP, "read of the packet at 19, size 2, outside data..data_end (20 bytes)" },
		{ "trap: packet read below data", PROG(DATA(R2), BPF_LDX_MEM(BPF_B, R0, R2, -1),
		  EXIT), VM_TRAP, "read of the packet at -1, size 1, outside" },
		{ "trap: packet write", PROG(DATA(R2), BPF_ST_MEM(BPF_B, R2, 0, 0), RET(0)), VM_TRAP,
		  "write to the packet at 0" },
		{ "trap: ctx data, 2 bytes", PROG(BPF_LDX_MEM(BPF_H, R0, R1,
		  offsetof(struct __sk_buff, data)), EXIT), VM_TRAP, "read of the context at 76" },
		{ "trap: ctx data_end, 8 bytes", PROG(BPF_LDX_MEM(BPF_DW, R0, R1,
		  offsetof(struct __sk_buff, data_end)), EXIT), VM_TRAP, "read of the context at 80" },
		{ "trap: map value overrun", PROG(UPDATE(3, 1, 0, BPF_ANY), LOOKUP(3, 1),
		  BPF_LDX_MEM(BPF_DW, R0, R0, 4), EXIT), VM_TRAP, "outside the stack, context and map values" },
		{ "trap: unknown map fd", PROG(BPF_LD_MAP_FD(R1, 9), RET(0)), VM_TRAP, "no map" },
		{ "trap: r1 not a map", PROG(BPF_MOV64_IMM(R1, 0), KEY(0), CALL(map_lookup_elem), EXIT),
		  VM_TRAP, "not a map" },
		{ "trap: key on unset stack", PROG(BPF_LD_MAP_FD(R1, 3), BPF_MOV64_REG(R2, R10),
		  BPF_ALU64_IMM(BPF_ADD, R2, -32), CALL(map_lookup_elem), EXIT), VM_TRAP, "unset stack" },
		{ "trap: ld_abs without ctx in r6", PROG(BPF_MOV64_IMM(R6, 0), LD_ABS(B, 0), EXIT),
		  VM_TRAP, "context in r6" },
		{ "trap: unknown helper", PROG(CALL(ktime_get_ns), EXIT), VM_TRAP, "helper 5" },
		{ "trap: shift by 32", PROG(BPF_MOV32_IMM(R0, 1), BPF_ALU32_IMM(BPF_LSH, R0, 32), EXIT),
		  VM_TRAP, "shift by 32" },
		{ "trap: division by constant 0", PROG(BPF_MOV32_IMM(R0, 1),
		  BPF_ALU32_IMM(BPF_DIV, R0, 0), EXIT), VM_TRAP, "division by zero" },
		{ "trap: falls off the end", PROG(BPF_MOV64_IMM(R0, 0)), VM_TRAP, "outside the program" },
		{ "trap: jump out", PROG(BPF_JMP_A(5), RET(0)), VM_TRAP, "jump out of the program" },
		{ "trap: endless loop", PROG(BPF_JMP_A(-1)), VM_TRAP, "instructions run" },
		{ "trap: unknown opcode", PROG(INSN(0xff, 0, 0, 0, 0)), VM_TRAP, "insn 0: unknown opcode" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		test_case(&cases[i]);
	test_nonlinear();
	/* The same without strict checks, as ebpfcount -r runs programs (its
	 * fast loop), but for the faults only strictness finds. */
	vm_reset();
	vm_set_strict(0);
	engine_tag = "fast: ";
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!cases[i].trap || (!strstr(cases[i].trap, "read before") &&
				       !strstr(cases[i].trap, "unset stack")))
			test_case(&cases[i]);
	test_nonlinear();
	engine_tag = "";
	vm_reset();
	vm_set_strict(1);
	test_map_api();
	test_engine_maps();
	test_engine_faults();
	test_count();
	return tap_done();
}
