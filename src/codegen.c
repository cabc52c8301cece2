// SPDX-License-Identifier: GPL-2.0
/*
 * Code generator; see codegen.h.  The program, in order:
 *
 *   r6 = ctx; the where filter (rejects jump to "out")
 *   r7 = frame length; zero the key
 *   L2: copy frame bytes [0, 18) to the stack; L3: find the EtherType
 *       (past an inline VLAN tag), r8 = network offset, copy 40 bytes of
 *       the network header; L4: r9 = transport offset, copy 16 bytes
 *   one block per key field: status byte + value bytes in the key
 *   look the key up, add gso_segs (at least 1) and the length; a hash key
 *   seen for the first time is inserted, one that does not fit is counted
 *   in the overflow map
 *   out: return 0
 *
 * Packets are read with bpf_skb_load_bytes() into stack windows, never
 * with LD_ABS, whose short read would end the program and lose the packet
 * from the count; a field that lies past the end of the frame is counted
 * as truncated instead.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_ether.h>

#include "cbpf.h"
#include "codegen.h"

/* The stack frame, offsets from r10; [CBPF_MEM_OFF, 0) is the filter's. */
enum {
	SLOT_S3 = -72,		/* network layer: L3_IP4, L3_IP6, ST_ABSENT, ST_TRUNC */
	SLOT_S4 = -80,		/* transport protocol number, ST_ABSENT, ST_TRUNC */
	SLOT_IDX = -88,		/* array index, overflow key */
	WIN2 = -112,		/* frame bytes [0, 18) */
	WIN3 = -152,		/* network header, 40 bytes */
	WIN4 = -168,		/* transport header, 16 bytes */
	SLOT_VAL = -184,	/* struct counter of a new hash entry */
	KEY_END = -184,		/* the key ends here */
};
enum { WIN2_LEN = 18, WIN3_LEN = 40, WIN4_LEN = 16 };
enum { L3_IP4 = 4, L3_IP6 = 6, ST_ABSENT = 0x100, ST_TRUNC = 0x101 };

/* Registers that live across helper calls. */
#define R_CTX BPF_REG_6
#define R_LEN BPF_REG_7		/* frame length; bytes to add */
#define R_L3 BPF_REG_8		/* network header offset; segments to add */
#define R_L4 BPF_REG_9		/* transport header offset */
#define FP BPF_REG_10

#define SKB_FIELD(f) ((int)offsetof(struct __sk_buff, f))
#define CNT_PACKETS ((int)offsetof(struct counter, packets))
#define CNT_BYTES ((int)offsetof(struct counter, bytes))

struct gen {
	struct emit *e;
	const struct query *q;
	const struct layout *lay;
	int key;		/* offset of the key buffer from r10 */
	int out;		/* jumps to "return 0" */
};

static int round8(int n)
{
	return (n + 7) & ~7;
}

static int array_key(const struct query *q)
{
	return q->nkeys == 0 ||
	       (q->nkeys == 1 && q->keys[0].field->width == 1 && !q->keys[0].prefix);
}

void layout_query(const struct query *q, struct layout *lay)
{
	int i, off = 8;

	memset(lay, 0, sizeof(*lay));
	lay->nkeys = q->nkeys;
	for (i = 0; i < q->nkeys; i++) {
		lay->val_off[i] = off;
		off += round8(q->keys[i].field->width);
	}
	lay->array = array_key(q);
	lay->row_size = off;
	lay->key_size = lay->array ? 4 : off;
	if (lay->array)
		lay->max_entries = q->nkeys ? ARRAY_ABSENT + 2 : 1;
}

void layout_key_from_index(const struct layout *lay, unsigned int idx, unsigned char *key)
{
	memset(key, 0, 16);
	if (!lay->nkeys)
		return;
	if (idx >= ARRAY_ABSENT)
		key[0] = KEY_ABSENT + idx - ARRAY_ABSENT;
	else
		key[lay->val_off[0]] = idx;
}


static void emit_jmp(struct gen *g, int op, int reg, int imm, int *list)
{
	emit_jump(g->e, BPF_JMP_IMM(op, reg, imm, 0), list);
}

static void emit_goto(struct gen *g, int *list)
{
	emit_jump(g->e, BPF_JMP_A(0), list);
}

static void be16(struct gen *g, int reg)
{
	emit(g->e, BPF_ENDIAN_BE(reg, 16));
}

/* Copy n bytes between stack offsets in the widest aligned moves. */
static void copy_stack(struct gen *g, int src, int dst, int n)
{
	static const int sizes[] = { BPF_DW, BPF_W, BPF_H, BPF_B };
	static const int bytes[] = { 8, 4, 2, 1 };
	int i;

	while (n > 0) {
		for (i = 0; bytes[i] > n || src % bytes[i] || dst % bytes[i]; i++)
			;
		emit(g->e, BPF_LDX_MEM(sizes[i], BPF_REG_0, FP, src));
		emit(g->e, BPF_STX_MEM(sizes[i], FP, BPF_REG_0, dst));
		src += bytes[i];
		dst += bytes[i];
		n -= bytes[i];
	}
}

static void and_byte(struct gen *g, int off, int mask)
{
	emit(g->e, BPF_LDX_MEM(BPF_B, BPF_REG_0, FP, off));
	emit(g->e, BPF_ALU32_IMM(BPF_AND, BPF_REG_0, mask));
	emit(g->e, BPF_STX_MEM(BPF_B, FP, BPF_REG_0, off));
}

/*
 * Copy up to max bytes of the frame from offset base (a register, or 0
 * when base < 0) to the stack at win; nothing when base is past the end.
 */
static void load_window(struct gen *g, int base, int win, int max)
{
	int skip = NO_JUMP;

	emit(g->e, BPF_MOV64_REG(BPF_REG_4, R_LEN));
	if (base >= 0)
		emit(g->e, BPF_ALU64_REG(BPF_SUB, BPF_REG_4, base));
	emit_jmp(g, BPF_JSLT, BPF_REG_4, 1, &skip);
	emit(g->e, BPF_JMP_IMM(BPF_JSLE, BPF_REG_4, max, 1));
	emit(g->e, BPF_MOV64_IMM(BPF_REG_4, max));
	emit(g->e, BPF_MOV64_REG(BPF_REG_1, R_CTX));
	if (base >= 0)
		emit(g->e, BPF_MOV64_REG(BPF_REG_2, base));
	else
		emit(g->e, BPF_MOV64_IMM(BPF_REG_2, 0));
	emit(g->e, BPF_MOV64_REG(BPF_REG_3, FP));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, win));
	emit(g->e, BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes));
	emit_patch_here(g->e, skip);
}

static int needs(const struct gen *g, enum layer min)
{
	int i;

	for (i = 0; i < g->q->nkeys; i++)
		if (g->q->keys[i].field->layer >= min)
			return 1;
	return 0;
}

static int needs_l2(const struct gen *g)
{
	int i;

	for (i = 0; i < g->q->nkeys; i++)
		if (!strcmp(g->q->keys[i].field->name, "vlan.id"))
			return 1;
	return needs(g, LAYER_ETH);
}

/*
 * The end of a layer's analysis: store its state (in reg) to slot and
 * copy its header (at register base) to the stack; jumps of trunc mark
 * the layer truncated; everything ends at done.
 */
static void layer_found(struct gen *g, int reg, int slot, int base, int win, int len,
			int trunc, int done)
{
	emit(g->e, BPF_STX_MEM(BPF_DW, FP, reg, slot));
	load_window(g, base, win, len);
	emit_goto(g, &done);
	emit_patch_here(g->e, trunc);
	emit(g->e, BPF_ST_MEM(BPF_DW, FP, slot, ST_TRUNC));
	emit_patch_here(g->e, done);
}

/* r8 = network offset, r0 = EtherType past an inline 802.1Q/802.1ad tag */
static void ethertype(struct gen *g, int *trunc)
{
	int tagged = NO_JUMP, have = NO_JUMP;

	emit(g->e, BPF_LDX_MEM(BPF_H, BPF_REG_0, FP, WIN2 + 12));
	be16(g, BPF_REG_0);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, ETH_P_8021Q, &tagged);
	emit_jmp(g, BPF_JNE, BPF_REG_0, ETH_P_8021AD, &have);
	emit_patch_here(g->e, tagged);
	emit_jmp(g, BPF_JLT, R_LEN, 18, trunc);
	emit(g->e, BPF_LDX_MEM(BPF_H, BPF_REG_0, FP, WIN2 + 16));
	be16(g, BPF_REG_0);
	emit(g->e, BPF_MOV64_IMM(R_L3, 18));
	emit_patch_here(g->e, have);
}

/* Network layer: SLOT_S3 and the network header window. */
static void gen_l3(struct gen *g)
{
	int trunc = NO_JUMP, done = NO_JUMP, ip6 = NO_JUMP, set = NO_JUMP;

	emit_note(g->e, "network layer: EtherType, header offset r8");
	emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_S3, ST_ABSENT));
	emit_jmp(g, BPF_JLT, R_LEN, ETH_HLEN, &trunc);
	ethertype(g, &trunc);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, ETH_P_IPV6, &ip6);
	emit_jmp(g, BPF_JNE, BPF_REG_0, ETH_P_IP, &done);
	emit(g->e, BPF_MOV64_IMM(BPF_REG_1, L3_IP4));
	emit_goto(g, &set);
	emit_patch_here(g->e, ip6);
	emit(g->e, BPF_MOV64_IMM(BPF_REG_1, L3_IP6));
	emit_patch_here(g->e, set);
	emit_jump(g->e, BPF_JMP_REG(BPF_JLE, R_LEN, R_L3, 0), &trunc);
	layer_found(g, BPF_REG_1, SLOT_S3, R_L3, WIN3, WIN3_LEN, trunc, done);
}

/* if r8 + n > frame length goto trunc */
static void need_bytes(struct gen *g, int base, int n, int *trunc)
{
	emit(g->e, BPF_MOV64_REG(BPF_REG_0, base));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, n));
	emit_jump(g->e, BPF_JMP_REG(BPF_JGT, BPF_REG_0, R_LEN, 0), trunc);
}

/*
 * IPv4: r9 = transport offset, r0 = protocol; a later fragment has none.
 * The protocol is known from 10 bytes on; a transport header cut short is
 * caught field by field.
 */
static void ip4_transport(struct gen *g, int *trunc, int *absent)
{
	need_bytes(g, R_L3, 10, trunc);
	emit(g->e, BPF_LDX_MEM(BPF_B, BPF_REG_1, FP, WIN3 + 0));
	emit(g->e, BPF_ALU64_IMM(BPF_AND, BPF_REG_1, 0x0f));
	emit(g->e, BPF_ALU64_IMM(BPF_LSH, BPF_REG_1, 2));
	emit_jmp(g, BPF_JLT, BPF_REG_1, 20, absent);
	emit(g->e, BPF_LDX_MEM(BPF_H, BPF_REG_2, FP, WIN3 + 6));
	be16(g, BPF_REG_2);
	emit(g->e, BPF_ALU64_IMM(BPF_AND, BPF_REG_2, 0x1fff));
	emit_jmp(g, BPF_JNE, BPF_REG_2, 0, absent);
	emit(g->e, BPF_MOV64_REG(R_L4, R_L3));
	emit(g->e, BPF_ALU64_REG(BPF_ADD, R_L4, BPF_REG_1));
	emit(g->e, BPF_LDX_MEM(BPF_B, BPF_REG_0, FP, WIN3 + 9));
}

/* IPv6: the next header follows the fixed header (extension headers
 * count as the protocol they are, so TCP/UDP keys are absent). */
static void ip6_transport(struct gen *g, int *trunc)
{
	need_bytes(g, R_L3, 7, trunc);
	emit(g->e, BPF_MOV64_REG(R_L4, R_L3));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, R_L4, 40));
	emit(g->e, BPF_LDX_MEM(BPF_B, BPF_REG_0, FP, WIN3 + 6));
}

/* Transport layer: SLOT_S4 and the transport header window. */
static void gen_l4(struct gen *g)
{
	int trunc = NO_JUMP, done = NO_JUMP, v6 = NO_JUMP, have = NO_JUMP;

	emit_note(g->e, "transport layer: protocol, header offset r9");
	emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_S4, ST_ABSENT));
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, SLOT_S3));
	emit_jmp(g, BPF_JEQ, BPF_REG_0, ST_TRUNC, &trunc);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, L3_IP6, &v6);
	emit_jmp(g, BPF_JNE, BPF_REG_0, L3_IP4, &done);
	ip4_transport(g, &trunc, &done);
	emit_goto(g, &have);
	emit_patch_here(g->e, v6);
	ip6_transport(g, &trunc);
	emit_patch_here(g->e, have);
	layer_found(g, BPF_REG_0, SLOT_S4, R_L4, WIN4, WIN4_LEN, trunc, done);
}

/* Copy a field's bytes into its key slot, then mask them. */
static void take(struct gen *g, const struct key *k, int src, int dst)
{
	const struct field *f = k->field;
	int n = k->prefix ? (k->prefix + 7) / 8 : f->width;
	int i;

	copy_stack(g, src, dst, n);
	for (i = 0; i < 2; i++)
		if (field_masked(f, i))
			and_byte(g, dst + i, f->mask[i]);
	if (k->prefix % 8)
		and_byte(g, dst + n - 1, (0xff << (8 - k->prefix % 8)) & 0xff);
}

static int l4_proto(enum layer l)
{
	switch (l) {
	case LAYER_TCP: return 6;
	case LAYER_UDP: return 17;
	case LAYER_ICMP: return 1;
	default: return 58;
	}
}

/* vlan.id: the stripped tag in the skb, else an inline tag in the frame */
static void key_vlan(struct gen *g, const struct key *k, int dst, int *trunc, int *absent)
{
	int inl = NO_JUMP, tag = NO_JUMP, done = NO_JUMP;

	emit(g->e, BPF_LDX_MEM(BPF_W, BPF_REG_0, R_CTX, SKB_FIELD(vlan_present)));
	emit_jmp(g, BPF_JEQ, BPF_REG_0, 0, &inl);
	emit(g->e, BPF_LDX_MEM(BPF_W, BPF_REG_0, R_CTX, SKB_FIELD(vlan_tci)));
	emit(g->e, BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0x0fff));
	be16(g, BPF_REG_0);
	emit(g->e, BPF_STX_MEM(BPF_H, FP, BPF_REG_0, dst));
	emit_goto(g, &done);
	emit_patch_here(g->e, inl);
	emit_jmp(g, BPF_JLT, R_LEN, ETH_HLEN, trunc);
	emit(g->e, BPF_LDX_MEM(BPF_H, BPF_REG_0, FP, WIN2 + 12));
	be16(g, BPF_REG_0);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, ETH_P_8021Q, &tag);
	emit_jmp(g, BPF_JNE, BPF_REG_0, ETH_P_8021AD, absent);
	emit_patch_here(g->e, tag);
	emit_jmp(g, BPF_JLT, R_LEN, 16, trunc);
	take(g, k, WIN2 + 14, dst);
	emit_patch_here(g->e, done);
}

/* Check that the field's layer is there and the frame holds the field. */
static void key_guard(struct gen *g, const struct field *f, int *trunc, int *absent)
{
	int l3 = f->layer == LAYER_IP4 || f->layer == LAYER_IP6;

	if (f->layer == LAYER_ETH) {
		emit_jmp(g, BPF_JLT, R_LEN, f->off + f->width, trunc);
		return;
	}
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, l3 ? SLOT_S3 : SLOT_S4));
	emit_jmp(g, BPF_JEQ, BPF_REG_0, ST_TRUNC, trunc);
	emit_jmp(g, BPF_JNE, BPF_REG_0, f->layer == LAYER_IP4 ? L3_IP4 :
		 f->layer == LAYER_IP6 ? L3_IP6 : l4_proto(f->layer), absent);
	need_bytes(g, l3 ? R_L3 : R_L4, f->off + f->width, trunc);
}

static int window(enum layer l)
{
	return l == LAYER_ETH ? WIN2 : l <= LAYER_IP6 ? WIN3 : WIN4;
}

/* Jumps of list land on a store of status for key i, then go to *next. */
static void set_status(struct gen *g, int i, int list, enum key_status status, int *next)
{
	if (list == NO_JUMP)
		return;
	emit_goto(g, next);
	emit_patch_here(g->e, list);
	emit(g->e, BPF_ST_MEM(BPF_B, FP, g->key + i, status));
}

/* One key field: its value into the key, or its status byte. */
static void gen_key(struct gen *g, int i)
{
	const struct key *k = &g->q->keys[i];
	const struct field *f = k->field;
	int dst = g->key + g->lay->val_off[i];
	int trunc = NO_JUMP, absent = NO_JUMP, next = NO_JUMP;

	emit_note(g->e, f->name);
	if (!strcmp(f->name, "frame.len")) {
		emit(g->e, BPF_MOV64_REG(BPF_REG_0, R_LEN));
		emit(g->e, BPF_ENDIAN_BE(BPF_REG_0, 32));
		emit(g->e, BPF_STX_MEM(BPF_W, FP, BPF_REG_0, dst));
		return;
	}
	if (!strcmp(f->name, "vlan.id")) {
		key_vlan(g, k, dst, &trunc, &absent);
	} else {
		key_guard(g, f, &trunc, &absent);
		take(g, k, window(f->layer) + f->off, dst);
	}
	set_status(g, i, absent, KEY_ABSENT, &next);
	set_status(g, i, trunc, KEY_TRUNCATED, &next);
	emit_patch_here(g->e, next);
}

/* Array index: the byte, or ARRAY_ABSENT - 1 + status. */
static void gen_index(struct gen *g)
{
	int present = NO_JUMP, store = NO_JUMP;

	emit_note(g->e, "array index");
	if (!g->q->nkeys) {
		emit(g->e, BPF_ST_MEM(BPF_W, FP, SLOT_IDX, 0));
		return;
	}
	emit(g->e, BPF_LDX_MEM(BPF_B, BPF_REG_0, FP, g->key));
	emit_jmp(g, BPF_JEQ, BPF_REG_0, KEY_PRESENT, &present);
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, ARRAY_ABSENT - 1));
	emit_goto(g, &store);
	emit_patch_here(g->e, present);
	emit(g->e, BPF_LDX_MEM(BPF_B, BPF_REG_0, FP, g->key + g->lay->val_off[0]));
	emit_patch_here(g->e, store);
	emit(g->e, BPF_STX_MEM(BPF_W, FP, BPF_REG_0, SLOT_IDX));
}

/* r0 = lookup(map, r10 + key) */
static void lookup(struct gen *g, int map, int key)
{
	emit_ld_imm64(g->e, BPF_REG_1, BPF_PSEUDO_MAP_FD, map);
	emit(g->e, BPF_MOV64_REG(BPF_REG_2, FP));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, key));
	emit(g->e, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
}

/* counter at r0 += { r8 segments, r7 bytes } */
static void add_counter(struct gen *g)
{
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, CNT_PACKETS));
	emit(g->e, BPF_ALU64_REG(BPF_ADD, BPF_REG_1, R_L3));
	emit(g->e, BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, CNT_PACKETS));
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, CNT_BYTES));
	emit(g->e, BPF_ALU64_REG(BPF_ADD, BPF_REG_1, R_LEN));
	emit(g->e, BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, CNT_BYTES));
}

/* A new hash key: insert it; if another CPU just did, add to that. */
static void insert(struct gen *g, int *ovf)
{
	emit(g->e, BPF_STX_MEM(BPF_DW, FP, R_L3, SLOT_VAL + CNT_PACKETS));
	emit(g->e, BPF_STX_MEM(BPF_DW, FP, R_LEN, SLOT_VAL + CNT_BYTES));
	emit_ld_imm64(g->e, BPF_REG_1, BPF_PSEUDO_MAP_FD, MAP_COUNTS);
	emit(g->e, BPF_MOV64_REG(BPF_REG_2, FP));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, g->key));
	emit(g->e, BPF_MOV64_REG(BPF_REG_3, FP));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, SLOT_VAL));
	emit(g->e, BPF_MOV64_IMM(BPF_REG_4, BPF_NOEXIST));
	emit(g->e, BPF_EMIT_CALL(BPF_FUNC_map_update_elem));
	emit_jmp(g, BPF_JEQ, BPF_REG_0, 0, &g->out);
	lookup(g, MAP_COUNTS, g->key);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, 0, ovf);
	add_counter(g);
	emit_goto(g, &g->out);
}

static void gen_count(struct gen *g)
{
	int miss = NO_JUMP, ovf = NO_JUMP;

	emit_note(g->e, "count: r8 = wire packets (gso_segs, at least 1), r7 = bytes");
	emit(g->e, BPF_LDX_MEM(BPF_W, R_L3, R_CTX, SKB_FIELD(gso_segs)));
	emit(g->e, BPF_JMP_IMM(BPF_JNE, R_L3, 0, 1));
	emit(g->e, BPF_MOV64_IMM(R_L3, 1));
	lookup(g, MAP_COUNTS, g->lay->array ? SLOT_IDX : g->key);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, 0, &miss);
	add_counter(g);
	emit_goto(g, &g->out);
	emit_patch_here(g->e, miss);
	if (!g->lay->array)
		insert(g, &ovf);
	emit_patch_here(g->e, ovf);
	emit_note(g->e, "overflow: the key did not fit in the map");
	emit(g->e, BPF_ST_MEM(BPF_W, FP, SLOT_IDX, 0));
	lookup(g, MAP_OVERFLOW, SLOT_IDX);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, 0, &g->out);
	add_counter(g);
}

static void gen_keys(struct gen *g)
{
	int i;

	emit_note(g->e, "r7 = frame length; clear the key");
	emit(g->e, BPF_LDX_MEM(BPF_W, R_LEN, R_CTX, SKB_FIELD(len)));
	for (i = 0; i < g->lay->row_size; i += 8)
		emit(g->e, BPF_ST_MEM(BPF_DW, FP, g->key + i, 0));
	emit(g->e, BPF_MOV64_IMM(R_L3, ETH_HLEN));
	emit(g->e, BPF_MOV64_IMM(R_L4, 0));
	if (needs_l2(g)) {
		emit_note(g->e, "copy the link-layer header");
		load_window(g, -1, WIN2, WIN2_LEN);
	}
	if (needs(g, LAYER_IP4))
		gen_l3(g);
	if (needs(g, LAYER_TCP))
		gen_l4(g);
	for (i = 0; i < g->q->nkeys; i++)
		gen_key(g, i);
	if (g->lay->array)
		gen_index(g);
}

int codegen(const struct query *q, const struct layout *lay,
	    const struct sock_filter *filter, unsigned int n,
	    struct emit *e, char *err, size_t errlen)
{
	struct gen g = { .e = e, .q = q, .lay = lay, .out = NO_JUMP };

	g.key = KEY_END - lay->row_size;
	emit(e, BPF_MOV64_REG(R_CTX, BPF_REG_1));
	if (filter) {
		emit_note(e, "where: the pcap filter, translated");
		if (cbpf_translate(e, filter, n, &g.out, err, errlen))
			return -1;
	}
	gen_keys(&g);
	gen_count(&g);
	emit_patch_here(e, g.out);
	emit_note(e, "out: no packet is queued to the socket");
	emit(e, BPF_MOV64_IMM(BPF_REG_0, 0));
	emit(e, BPF_EXIT_INSN());
	if (e->err) {
		snprintf(err, errlen, "program too large (%d instructions)", e->len);
		return -1;
	}
	return 0;
}

void codegen_relocate(struct bpf_insn *insns, int n, const int fds[NR_MAPS])
{
	int i;

	for (i = 0; i < n; i++)
		if (insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    insns[i].src_reg == BPF_PSEUDO_MAP_FD)
			insns[i].imm = fds[insns[i].imm];
}
