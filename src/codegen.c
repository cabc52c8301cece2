// SPDX-License-Identifier: GPL-2.0
/*
 * Code generator; see codegen.h.  The program, in order:
 *
 *   r6 = ctx; copy the frame's first bytes to the stack (frame.h)
 *   the where filter (rejects jump to "out"); read directly, first a copy
 *   for a frame whose linear part holds its first 60 bytes
 *   the fast path of the common frame (below): its guard, the keys at
 *   fixed offsets, its own count and return; what the guard turns away
 *   goes on to the slow path:
 *   r7 = frame length; zero the key
 *   L3: the EtherType (past an inline VLAN tag), r8 = network offset;
 *   L4: the protocol, r9 = transport offset
 *   one block per key field: its value into the key, or its status
 *   look the key up, add gso_segs (at least 1) and the length; a hash key
 *   seen for the first time is inserted, one that does not fit is counted
 *   in the overflow map
 *   out: return 0
 *
 * A program of several expressions analyses the headers once, for all of
 * their keys, before the first where clause, and keeps what it found below
 * the window (r8 and r9 too); then each expression in turn runs its where
 * clause, its keys and its count, a rejected packet going on to the next
 * expression.
 *
 * Every read of the frame is preceded by a check of the frame length
 * against its end, and a field past the end is counted as truncated.  The
 * reads themselves go to the copy on the stack, or are LD_ABS/LD_IND (and
 * bpf_skb_load_bytes() for addresses) when the verifier would refuse
 * variable-offset stack reads: a short LD_ABS would end the program and
 * lose the packet from the count, which the checks rule out.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/in6.h>

#include "cbpf.h"
#include "codegen.h"
#include "frame.h"

/*
 * The stack frame, offsets from r10.  [CBPF_MEM8_OFF, 0) is the where
 * clause's memory, then an expression's: SLOT_IDX, SLOT_VAL and the key,
 * down to the window (frame.h).  Below the window, what the analysis of
 * the headers found, as the keys' guards want it, kept across the where
 * clauses of several expressions: SLOT_ETYPE holds the EtherType after
 * the VLAN tags, or ETYPE_TRUNCATED; SLOT_IP4 and SLOT_IP6 hold the bytes
 * of the frame from the network header on if it is IPv4 (IPv6), else
 * NOT_THERE; SLOT_PROTO holds the transport protocol, NOT_THERE, or
 * TRUNCATED when the network header is too short to tell; SLOT_L4 the
 * bytes from the transport header on.  A field is present when the bytes
 * reach its end, truncated when not.
 */
enum {
	SLOT_IDX = -88,		/* array index, overflow key */
	SLOT_VAL = -120,	/* struct counter of a new hash entry */
	KEY_END = -120,		/* the key ends here */
	SLOT_ETYPE = -368,
	SLOT_IP4 = -376,
	SLOT_IP6 = -384,
	SLOT_PROTO = -392,
	SLOT_L4 = -400,
	SLOT_L3_OFF = -408,	/* IPv6 walk: the network header's frame offset */
	SLOT_EXT_LEN = -416,	/* IPv6 walk: the extension header's length */
	SLOT_SAVE_L3 = -424,	/* several expressions: r8 and r9 after the analysis */
	SLOT_SAVE_L4 = -432,
	SLOT_L4_COPY = -448,	/* IPv6 walk: 16 bytes of the transport header */
};
_Static_assert(SLOT_ETYPE + 8 <= FRAME_WIN_OFF && SLOT_L4_COPY >= -512,
	       "the analysis of the headers lies between the window and the frame's end");
enum { NOT_THERE = -1, TRUNCATED = 0x100, ETYPE_TRUNCATED = 0x10000 };

/* The longest key stays clear of the window below it. */
_Static_assert(KEY_END - ((LAYOUT_MAX_ROW + 7) & ~7) >= FRAME_WIN_OFF + FRAME_WIN_LEN,
	       "the key buffer overlaps the frame window");

/* Registers that live across helper calls and LD_ABS. */
#define R_CTX BPF_REG_6		/* LD_ABS wants the skb here */
#define R_LEN BPF_REG_7		/* frame length; bytes to add */
#define R_L3 BPF_REG_8		/* network header offset; segments to add */
#define R_L4 BPF_REG_9		/* transport header offset */
#define R_TABLE BPF_REG_9	/* then: the live table of a bounded hash */
#define FP BPF_REG_10
#define FRAME (-1)		/* base "register" of a field at a fixed offset */

#define SKB_FIELD(f) ((int)offsetof(struct __sk_buff, f))
#define CNT_PACKETS ((int)offsetof(struct counter, packets))
#define CNT_BYTES ((int)offsetof(struct counter, bytes))

/* What the analysis of the headers finds, for the keys of every expression. */
struct needs {
	int l3;			/* the tags walked: network keys or the EtherType */
	int etype;		/* the EtherType after the tags */
	int ip4, ip6;		/* the network layer of that family */
	int l4;			/* the transport layer */
};

struct gen {
	struct emit *e;
	struct needs need;
	enum frame_mode mode;
	int shared;		/* several expressions (the headers analysed once) */
	int win_len;		/* bytes of the frame copied to the window */
	int len_ready;		/* r7 holds the frame length already (gen_length()) */
	int ext_l3, ext_l4;	/* FRAME_DIRECT: the bytes the keys read from r8, r9 */
	int out;		/* jumps to "return 0" */
	/* the expression being generated */
	const struct query *q;
	const struct layout *lay;
	int slot;		/* its first map slot (layout.h) */
	int key;		/* offset of its key buffer from r10 */
	int next;		/* jumps past it: rejected, or counted */
};

static int round8(int n)
{
	return (n + 7) & ~7;
}




static void emit_jmp(struct gen *g, int op, int reg, int imm, int *list)
{
	emit_jump(g->e, BPF_JMP_IMM(op, reg, imm, 0), list);
}

static void emit_goto(struct gen *g, int *list)
{
	emit_jump(g->e, BPF_JMP_A(0), list);
}

static void and_byte(struct gen *g, int off, int mask)
{
	emit(g->e, BPF_LDX_MEM(BPF_B, BPF_REG_0, FP, off));
	emit(g->e, BPF_ALU32_IMM(BPF_AND, BPF_REG_0, mask));
	emit(g->e, BPF_STX_MEM(BPF_B, FP, BPF_REG_0, off));
}

/* VLAN tags read through (802.1Q or 802.1ad, inline in the frame) */
#define MAX_TAGS 2
/* IPv6 extension headers walked to find the transport header */
#define MAX_EXT 8
#define L4_COPY 16

_Static_assert(SLOT_L4_COPY % 8 == 0 &&
	       (FRAME_WIN_OFF + ETH_HLEN) % 4 == 0,
	       "the transport header's copy must be aligned as the window's network header");
/* The largest offsets registers hold: the tags, 60 bytes of IPv4. */
#define MAX_L3 (ETH_HLEN + 4 * MAX_TAGS)
#define MAX_L4 (MAX_L3 + 60)

/* The largest value of a base register (FRAME: 0) */
static int max_base(int base)
{
	return base == FRAME ? 0 : base == R_L3 ? MAX_L3 : MAX_L4;
}

/* The register a field's offset counts from */
static int field_base(const struct field *f)
{
	return f->layer == LAYER_ETH || f->layer == LAYER_META ? FRAME :
	       f->layer <= LAYER_IP6 ? R_L3 : R_L4;
}

/*
 * Keys read the window in FRAME_WINDOW mode: it holds every byte they can
 * read (key_extent()), and base registers hold window addresses.
 */
static int in_window(const struct gen *g)
{
	return g->mode == FRAME_WINDOW;
}

/* The furthest a key reads: tcp.flags behind the longest IPv4 header. */
_Static_assert(MAX_L4 + 14 <= FRAME_WIN_LEN, "the window is too small for the keys");

/*
 * r0 = the size bytes of the frame at base + off (base FRAME: at off), in
 * host order.  The caller has checked that the frame holds them.
 */
static void load(struct gen *g, int n, int base, int off)
{
	frame_load(g->e, g->mode, frame_size(n), base, off);
}

static int needs_q(const struct query *q, enum layer min)
{
	int i;

	for (i = 0; i < q->nkeys; i++)
		if (q->keys[i].field->layer >= min)
			return 1;
	return 0;
}

/* Does a key of q need the network layer of family (LAYER_IP4, LAYER_IP6)?
 * Transport keys need both. */
static int needs_family(const struct query *q, enum layer family)
{
	int i;

	for (i = 0; i < q->nkeys; i++)
		if (q->keys[i].field->layer == family || q->keys[i].field->layer >= LAYER_TCP)
			return 1;
	return 0;
}

/* r0 = the frame length less the offset in base */
static void bytes_from(struct gen *g, int base)
{
	emit(g->e, BPF_MOV64_REG(BPF_REG_0, R_LEN));
	emit(g->e, BPF_ALU64_REG(BPF_SUB, BPF_REG_0, base));
}

/* Does the program walk IPv6 extension headers (for transport keys)? */
static int walks_ext(const struct gen *g)
{
	return g->need.l4 && g->need.ip6;
}

/* Does a key read the EtherType after the tags? */
static int needs_etype(const struct query *q)
{
	int i;

	for (i = 0; i < q->nkeys; i++)
		if (q->keys[i].field->read == READ_ETYPE)
			return 1;
	return 0;
}

/* Do the keys need the tags walked: the network layer or the EtherType? */
static int needs_l3(const struct query *q)
{
	return needs_q(q, LAYER_IP4) || needs_etype(q);
}

/* Add what q's keys need of the analysis to n. */
static void add_needs(struct needs *n, const struct query *q)
{
	n->l3 |= needs_l3(q);
	n->etype |= needs_etype(q);
	n->ip4 |= needs_family(q, LAYER_IP4);
	n->ip6 |= needs_family(q, LAYER_IP6);
	n->l4 |= needs_q(q, LAYER_TCP);
}

/*
 * Network layer: r8 = its offset past up to MAX_TAGS inline 802.1Q/802.1ad
 * tags, SLOT_ETYPE, SLOT_IP4 and SLOT_IP6 (those the keys need); IPv4
 * first, the usual case.
 */
static void gen_l3(struct gen *g)
{
	int v4 = g->need.ip4, v6 = g->need.ip6, etype = g->need.etype;
	int trunc = NO_JUMP, done = NO_JUMP, ip4 = NO_JUMP, ip6 = NO_JUMP, tagged;
	int i;

	emit_note(g->e, in_window(g) ?
		  "network layer: r8 = its address in the window, bytes from it if IPv4 or IPv6" :
		  "network layer: r8 = its offset, bytes from it if IPv4 or IPv6");
	if (v4)
		emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_IP4, NOT_THERE));
	if (v6)
		emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_IP6, NOT_THERE));
	emit_jmp(g, BPF_JLT, R_LEN, ETH_HLEN, &trunc);
	for (i = 0; i <= MAX_TAGS; i++) {
		load(g, 2, FRAME, 12 + 4 * i);
		if (etype)
			emit(g->e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_0, SLOT_ETYPE));
		if (v4)
			emit_jmp(g, BPF_JEQ, BPF_REG_0, ETH_P_IP, &ip4);
		if (v6)
			emit_jmp(g, BPF_JEQ, BPF_REG_0, ETH_P_IPV6, &ip6);
		if (i == MAX_TAGS)
			break;
		tagged = NO_JUMP;
		emit_jmp(g, BPF_JEQ, BPF_REG_0, ETH_P_8021Q, &tagged);
		emit_jmp(g, BPF_JNE, BPF_REG_0, ETH_P_8021AD, &done);
		emit_patch_here(g->e, tagged);
		emit_jmp(g, BPF_JLT, R_LEN, ETH_HLEN + 4 * (i + 1), &trunc);
		emit(g->e, BPF_MOV64_IMM(R_L3, ETH_HLEN + 4 * (i + 1)));
	}
	emit_goto(g, &done);
	emit_patch_here(g->e, trunc);
	if (etype)
		emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_ETYPE, ETYPE_TRUNCATED));
	if (v4)
		emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_IP4, 0));
	if (v6)
		emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_IP6, 0));
	emit_goto(g, &done);
	if (v6) {
		emit_patch_here(g->e, ip6);
		bytes_from(g, R_L3);
		emit(g->e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_0, SLOT_IP6));
		if (v4)
			emit_goto(g, &done);
	}
	if (v4) {
		emit_patch_here(g->e, ip4);
		bytes_from(g, R_L3);
		emit(g->e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_0, SLOT_IP4));
	}
	emit_patch_here(g->e, done);
	if (walks_ext(g))
		emit(g->e, BPF_STX_MEM(BPF_DW, FP, R_L3, SLOT_L3_OFF));
	if (in_window(g))
		frame_window_base(g->e, R_L3);
}

/*
 * IPv4: r9 = transport offset (or address), SLOT_L4, r0 = protocol; a
 * later fragment (or a header length below 20) has none.  The protocol is known from 10 bytes
 * on; a transport header cut short is caught field by field.
 */
static void ip4_transport(struct gen *g, int *absent)
{
	load(g, 1, R_L3, 0);
	emit(g->e, BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0x0f));
	emit(g->e, BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 2));
	emit_jmp(g, BPF_JLT, BPF_REG_0, 20, absent);
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_1, FP, SLOT_IP4));
	emit(g->e, BPF_ALU64_REG(BPF_SUB, BPF_REG_1, BPF_REG_0));
	emit(g->e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_1, SLOT_L4));
	emit(g->e, BPF_MOV64_REG(R_L4, R_L3));
	emit(g->e, BPF_ALU64_REG(BPF_ADD, R_L4, BPF_REG_0));
	load(g, 2, R_L3, 6);
	emit(g->e, BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0x1fff));
	emit_jmp(g, BPF_JNE, BPF_REG_0, 0, absent);
	load(g, 1, R_L3, 9);
}

/* r0 = the size bytes at frame offset r9 + off, after checking r1 >= need. */
static void ext_load(struct gen *g, int size, int off)
{
	emit(g->e, INSN(BPF_LD | size | BPF_IND, 0, R_L4, 0, frame_skb_off(g->e, off)));
}

/*
 * One IPv6 extension header at frame offset r9 (r0: its type): r0 = the
 * next header, r9 and SLOT_L4 past it; a header cut short jumps to
 * *trunc, a fragment other than the first to *absent.  LD_IND reads only
 * after the length is checked, so it never ends the program.
 */
static void ext_header(struct gen *g, int *trunc, int *absent, int *next)
{
	int frag = NO_JUMP, opts = NO_JUMP, skip = NO_JUMP;

	emit_jmp(g, BPF_JEQ, BPF_REG_0, IPPROTO_FRAGMENT, &frag);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, IPPROTO_HOPOPTS, &opts);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, IPPROTO_ROUTING, &opts);
	emit_jmp(g, BPF_JNE, BPF_REG_0, IPPROTO_DSTOPTS, next);
	emit_patch_here(g->e, opts);
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_1, FP, SLOT_L4));
	emit_jmp(g, BPF_JSLT, BPF_REG_1, 2, trunc);
	ext_load(g, BPF_B, 1);
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1));
	emit(g->e, BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 3));
	emit(g->e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_0, SLOT_EXT_LEN));
	emit_goto(g, &skip);
	emit_patch_here(g->e, frag);
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_1, FP, SLOT_L4));
	emit_jmp(g, BPF_JSLT, BPF_REG_1, 8, trunc);
	ext_load(g, BPF_H, 2);
	emit(g->e, BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xfff8));
	emit_jmp(g, BPF_JNE, BPF_REG_0, 0, absent);
	emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_EXT_LEN, 8));
	emit_patch_here(g->e, skip);
	ext_load(g, BPF_B, 0);
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_1, FP, SLOT_EXT_LEN));
	emit(g->e, BPF_ALU64_REG(BPF_ADD, R_L4, BPF_REG_1));
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_2, FP, SLOT_L4));
	emit(g->e, BPF_ALU64_REG(BPF_SUB, BPF_REG_2, BPF_REG_1));
	emit(g->e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_2, SLOT_L4));
}

/*
 * After extension headers, in FRAME_WINDOW mode: the transport header's
 * first bytes (those there are, up to L4_COPY) to SLOT_L4_COPY, and r9 =
 * their address, as keys read a window address.  The copy is aligned as
 * the window's network header is.
 */
static void copy_l4(struct gen *g)
{
	int none = NO_JUMP;

	emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_L4_COPY, 0));
	emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_L4_COPY + 8, 0));
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_4, FP, SLOT_L4));
	emit_jmp(g, BPF_JSLT, BPF_REG_4, 1, &none);
	emit(g->e, BPF_JMP_IMM(BPF_JSLE, BPF_REG_4, L4_COPY, 1));
	emit(g->e, BPF_MOV64_IMM(BPF_REG_4, L4_COPY));
	emit(g->e, BPF_MOV64_REG(BPF_REG_1, R_CTX));
	emit(g->e, BPF_MOV64_REG(BPF_REG_2, R_L4));
	if (frame_skb_off(g->e, 0))
		emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, frame_skb_off(g->e, 0)));
	emit(g->e, BPF_MOV64_REG(BPF_REG_3, FP));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, SLOT_L4_COPY));
	emit(g->e, BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes));
	emit_patch_here(g->e, none);
	emit(g->e, BPF_MOV64_REG(R_L4, FP));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, R_L4, SLOT_L4_COPY));
}

/*
 * IPv6 (r0 = its bytes): r0 = the next header after up to MAX_EXT
 * extension headers (hop-by-hop, routing, fragment, destination options),
 * r9 and SLOT_L4 at the header after them.  A non-first fragment has no
 * transport header (*absent); headers cut short leave it *trunc.
 */
static void ip6_transport(struct gen *g, int *trunc, int *absent)
{
	int next = NO_JUMP, walked = NO_JUMP, done = NO_JUMP, i;

	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, -40));
	emit(g->e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_0, SLOT_L4));
	emit(g->e, BPF_MOV64_REG(R_L4, R_L3));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, R_L4, 40));
	load(g, 1, R_L3, 6);
	emit_note(g->e, "IPv6 extension headers: r9 = the frame offset past them");
	emit_jmp(g, BPF_JEQ, BPF_REG_0, IPPROTO_HOPOPTS, &walked);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, IPPROTO_ROUTING, &walked);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, IPPROTO_FRAGMENT, &walked);
	emit_jmp(g, BPF_JNE, BPF_REG_0, IPPROTO_DSTOPTS, &done);
	emit_patch_here(g->e, walked);
	emit(g->e, BPF_LDX_MEM(BPF_DW, R_L4, FP, SLOT_L3_OFF));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, R_L4, 40));
	for (i = 0; i < MAX_EXT; i++)
		ext_header(g, trunc, absent, &next);
	/* more than MAX_EXT: no transport header found */
	emit_goto(g, absent);
	emit_patch_here(g->e, next);
	if (in_window(g)) {
		emit(g->e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_0, SLOT_EXT_LEN));
		copy_l4(g);
		emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, SLOT_EXT_LEN));
	}
	emit_patch_here(g->e, done);
}

/* Transport layer: r9 = its offset, SLOT_PROTO and SLOT_L4. */
static void gen_l4(struct gen *g)
{
	int trunc = NO_JUMP, done = NO_JUMP, v4 = NO_JUMP, v6 = NO_JUMP, have = NO_JUMP;

	emit_note(g->e, in_window(g) ?
		  "transport layer: r9 = its address in the window, the protocol, bytes from it" :
		  "transport layer: r9 = its offset, the protocol, bytes from it");
	emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_PROTO, NOT_THERE));
	/*
	 * Read only when SLOT_PROTO names a transport protocol, but without
	 * CAP_PERFMON (LD_ABS) the verifier also walks the branches a known
	 * value rules out (speculative execution) and refuses stack read
	 * before it is written.
	 */
	if (g->mode == FRAME_LD_ABS)
		emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_L4, 0));
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, SLOT_IP4));
	emit_jmp(g, BPF_JSGE, BPF_REG_0, 10, &v4);
	emit_jmp(g, BPF_JSGE, BPF_REG_0, 0, &trunc);
	emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, SLOT_IP6));
	emit_jmp(g, BPF_JSGE, BPF_REG_0, 7, &v6);
	emit_jmp(g, BPF_JSGE, BPF_REG_0, 0, &trunc);
	emit_goto(g, &done);
	emit_patch_here(g->e, v6);
	ip6_transport(g, &trunc, &done);
	emit_goto(g, &have);
	emit_patch_here(g->e, v4);
	ip4_transport(g, &done);
	emit_patch_here(g->e, have);
	emit(g->e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_0, SLOT_PROTO));
	emit_goto(g, &done);
	emit_patch_here(g->e, trunc);
	emit(g->e, BPF_ST_MEM(BPF_DW, FP, SLOT_PROTO, TRUNCATED));
	emit_patch_here(g->e, done);
}

/* The mask of a field of up to four bytes, as an integer in host order. */
static __u32 value_mask(const struct key *k)
{
	const struct field *f = k->field;
	int bits = 8 * f->width, i;
	__u32 mask = bits == 32 ? ~0u : (1u << bits) - 1;

	for (i = 0; i < 2; i++)
		if (field_masked(f, i))
			mask &= ~((__u32)(~f->mask[i] & 0xff) << (bits - 8 * (i + 1)));
	if (k->prefix)
		mask &= ~0u << (bits - k->prefix);
	return mask;
}

/* The bytes of a width-byte integer in host order, reversed */
static __u32 swab(__u32 v, int width)
{
	__u32 r = 0;
	int i;

	for (i = 0; i < width; i++, v >>= 8)
		r = r << 8 | (v & 0xff);
	return r;
}

/*
 * r0 (a value from the frame, in host order, or as its bytes are when
 * net) into the key, or as the index.
 */
static void store_value(struct gen *g, const struct key *k, int dst, int net)
{
	int width = k->field->width;
	__u32 mask = value_mask(k);

	if (mask != (width == 4 ? ~0u : (1u << 8 * width) - 1))
		emit(g->e, BPF_ALU32_IMM(BPF_AND, BPF_REG_0, (int)(net ? swab(mask, width) : mask)));
	if (g->lay->array) {
		emit(g->e, BPF_STX_MEM(BPF_W, FP, BPF_REG_0, SLOT_IDX));
		return;
	}
	if (width > 1 && !net)
		emit(g->e, BPF_ENDIAN_BE(BPF_REG_0, 8 * width));
	emit(g->e, BPF_STX_MEM(frame_size(width), FP, BPF_REG_0, dst));
}

/* Copy a field's bytes at base + off of the frame into the key at dst. */
static void take(struct gen *g, const struct key *k, int base, int off, int dst)
{
	int n = k->prefix ? (k->prefix + 7) / 8 : k->field->width;

	if (k->field->width <= 4) {
		if (in_window(g))
			frame_load_net(g->e, frame_size(k->field->width), base, off);
		else
			load(g, k->field->width, base, off);
		store_value(g, k, dst, in_window(g));
		return;
	}
	if (in_window(g)) {
		frame_copy_out(g->e, base, off, dst, n);
	} else {
		emit(g->e, BPF_MOV64_REG(BPF_REG_1, R_CTX));
		if (base == FRAME)
			emit(g->e, BPF_MOV64_IMM(BPF_REG_2, frame_skb_off(g->e, off)));
		else
			emit(g->e, BPF_MOV64_REG(BPF_REG_2, base));
		if (base != FRAME && frame_skb_off(g->e, off))
			emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, frame_skb_off(g->e, off)));
		emit(g->e, BPF_MOV64_REG(BPF_REG_3, FP));
		emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, dst));
		emit(g->e, BPF_MOV64_IMM(BPF_REG_4, n));
		emit(g->e, BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes));
	}
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
	store_value(g, k, dst, 0);
	emit_goto(g, &done);
	emit_patch_here(g->e, inl);
	emit_jmp(g, BPF_JLT, R_LEN, ETH_HLEN, trunc);
	load(g, 2, FRAME, 12);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, ETH_P_8021Q, &tag);
	emit_jmp(g, BPF_JNE, BPF_REG_0, ETH_P_8021AD, absent);
	emit_patch_here(g->e, tag);
	emit_jmp(g, BPF_JLT, R_LEN, 16, trunc);
	take(g, k, FRAME, 14, dst);
	emit_patch_here(g->e, done);
}

/*
 * Check that the field's layer is there and the frame holds the field;
 * return the register its offset counts from.  Jumps of *trunc say it is
 * truncated; those of *other leave r0 = what the guard read, for
 * key_status() to tell; those of *absent say it is absent.
 */
static int key_guard(struct gen *g, const struct field *f, int *trunc, int *absent,
		     int *other)
{
	int base = field_base(f), end = f->off + f->width;

	/* ICMP of the other IP version: absent, even if its header is cut */
	if (f->layer == LAYER_ICMP || f->layer == LAYER_ICMP6) {
		emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP,
				       f->layer == LAYER_ICMP ? SLOT_IP4 : SLOT_IP6));
		emit_jmp(g, BPF_JEQ, BPF_REG_0, NOT_THERE, absent);
	}
	if (base == FRAME) {
		emit_jmp(g, BPF_JLT, R_LEN, end, trunc);
	} else if (base == R_L3) {
		emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP,
				       f->layer == LAYER_IP4 ? SLOT_IP4 : SLOT_IP6));
		emit_jmp(g, BPF_JSLT, BPF_REG_0, end, other);
	} else {
		emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, SLOT_PROTO));
		emit_jmp(g, BPF_JNE, BPF_REG_0, l4_proto(f->layer), other);
		emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, SLOT_L4));
		emit_jmp(g, BPF_JSLT, BPF_REG_0, end, trunc);
	}
	return base;
}

/* Store status for key i: in its status byte, or as the array index. */
static void store_status(struct gen *g, int i, enum key_status status)
{
	if (g->lay->array)
		emit(g->e, BPF_ST_MEM(BPF_W, FP, SLOT_IDX, ARRAY_ABSENT - KEY_ABSENT + status));
	else
		emit(g->e, BPF_ST_MEM(BPF_B, FP, g->key + i, status));
}

/*
 * After key i's value: where the jumps of trunc, absent and other (r0 as
 * the guard read it: a network layer's bytes, NOT_THERE: absent, else too
 * few; or a transport protocol, TRUNCATED, else another one: absent) store
 * its status.
 */
static void key_status(struct gen *g, int i, const struct field *f, int trunc, int absent,
		       int other)
{
	int next = NO_JUMP;

	if (trunc == NO_JUMP && absent == NO_JUMP && other == NO_JUMP)
		return;
	emit_goto(g, &next);
	if (other != NO_JUMP) {
		emit_patch_here(g->e, other);
		if (field_base(f) == R_L3)
			emit_jmp(g, BPF_JEQ, BPF_REG_0, NOT_THERE, &absent);
		else
			emit_jmp(g, BPF_JNE, BPF_REG_0, TRUNCATED, &absent);
	}
	if (trunc != NO_JUMP || other != NO_JUMP) {
		emit_patch_here(g->e, trunc);
		store_status(g, i, KEY_TRUNCATED);
	}
	if (absent != NO_JUMP) {
		emit_goto(g, &next);
		emit_patch_here(g->e, absent);
		store_status(g, i, KEY_ABSENT);
	}
	emit_patch_here(g->e, next);
}

/* One key field: its value into the key, or its status byte. */
static void gen_key(struct gen *g, int i)
{
	const struct key *k = &g->q->keys[i];
	const struct field *f = k->field;
	int dst = g->key + g->lay->val_off[i];
	int trunc = NO_JUMP, absent = NO_JUMP, other = NO_JUMP;

	emit_note(g->e, f->name);
	switch (f->read) {
	case READ_LENGTH:
		emit(g->e, BPF_MOV64_REG(BPF_REG_0, R_LEN));
		frame_add_unseen(g->e, BPF_REG_0, BPF_REG_1);
		emit(g->e, BPF_ENDIAN_BE(BPF_REG_0, 32));
		emit(g->e, BPF_STX_MEM(BPF_W, FP, BPF_REG_0, dst));
		return;
	case READ_VLAN:
		key_vlan(g, k, dst, &trunc, &absent);
		break;
	case READ_SKB:
		emit(g->e, BPF_LDX_MEM(BPF_W, BPF_REG_0, R_CTX, f->off));
		store_value(g, k, dst, 0);
		return;
	case READ_ETYPE:
		emit(g->e, BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, SLOT_ETYPE));
		emit_jmp(g, BPF_JEQ, BPF_REG_0, ETYPE_TRUNCATED, &trunc);
		/* 802.3: up to 1500 a length, then undefined up to 0x600, not a
		 * type (tshark has no eth.type there either) */
		emit_jmp(g, BPF_JLT, BPF_REG_0, ETH_P_802_3_MIN, &absent);
		store_value(g, k, dst, 0);
		break;
	case READ_HEADER:
		take(g, k, key_guard(g, f, &trunc, &absent, &other), f->off, dst);
		break;
	}
	key_status(g, i, f, trunc, absent, other);
}

/*
 * The fast path.  The common frame (untagged Ethernet, IPv4 and, for
 * transport keys, a 20-byte header, the first fragment and the keys'
 * protocol) has its keys read at fixed frame offsets under one guard: its
 * EtherType, its header's first byte, fragment offset and protocol, and
 * that the frame (FRAME_DIRECT: the linear part) holds every byte the keys
 * read.  The frames the guard turns away take the generic code above (the
 * slow path): tagged ones, IPv6, IP options, fragments, other protocols,
 * short and nonlinear frames.  A frame the guard passes has every key
 * present, and both paths read the same bytes, so the counts do not
 * depend on the path a frame takes.
 */
struct fast {
	int extent;		/* bytes from the frame's start read; 0: no fast path */
	int proto;		/* the keys' transport protocol, or 0 */
};

#define FAST_L4 (ETH_HLEN + 20)	/* the transport header behind 20 bytes of IPv4 */
#define R_PKT BPF_REG_9		/* FRAME_DIRECT: the frame's start in the packet */

/* The frame offset of field f on the fast path, or -1 if it has none there. */
static int fast_off(const struct field *f)
{
	switch (f->layer) {
	case LAYER_ETH:
		return f->off;
	case LAYER_IP4:
		return ETH_HLEN + f->off;
	case LAYER_TCP:
	case LAYER_UDP:
	case LAYER_ICMP:
		return FAST_L4 + f->off;
	default:
		return -1;
	}
}

/*
 * Does q have a fast path (*fp), and one worth its guard: a key reads the
 * network layer?  Not for a cooked frame, nor for vlan.id, IPv6 or keys of
 * two transport protocols.
 */
static int fast_plan(const struct query *q, int cooked, struct fast *fp)
{
	int i, ip = 0;

	memset(fp, 0, sizeof(*fp));
	for (i = 0; i < q->nkeys && !cooked; i++) {
		const struct field *f = q->keys[i].field;
		int end = ETH_HLEN;

		if (f->read == READ_LENGTH || f->read == READ_SKB)
			continue;
		if (f->read == READ_VLAN || (f->read == READ_HEADER && fast_off(f) < 0))
			return 0;
		if (f->read == READ_HEADER)
			end = fast_off(f) + f->width;
		if (f->read == READ_HEADER && f->layer >= LAYER_TCP) {
			if (fp->proto && fp->proto != l4_proto(f->layer))
				return 0;
			fp->proto = l4_proto(f->layer);
			end = end > FAST_L4 ? end : FAST_L4;
		}
		ip |= f->read == READ_ETYPE || f->layer != LAYER_ETH;
		fp->extent = end > fp->extent ? end : fp->extent;
	}
	return ip && !cooked;
}

/* Does a fast read leave the bytes in network order (not LD_ABS)? */
static int fast_net(const struct gen *g)
{
	return g->mode != FRAME_LD_ABS;
}

/* A width-byte constant v as a fast read gives it */
static int fast_imm(const struct gen *g, __u32 v, int width)
{
	return (int)(fast_net(g) ? swab(v, width) : v);
}

/* r0 = the n (1, 2, 4, 8: not LD_ABS) bytes at frame offset off */
static void fast_load(struct gen *g, int n, int off)
{
	int size = n == 8 ? BPF_DW : frame_size(n);

	if (g->mode == FRAME_DIRECT)
		emit(g->e, BPF_LDX_MEM(size, BPF_REG_0, R_PKT, off));
	else if (g->mode == FRAME_WINDOW && n == 8)
		emit(g->e, BPF_LDX_MEM(size, BPF_REG_0, FP, FRAME_WIN_OFF + off));
	else if (g->mode == FRAME_WINDOW)
		frame_load_net(g->e, size, FRAME, off);
	else
		load(g, n, FRAME, off);
}

/*
 * Can n bytes at frame offset off be read in one load?  The window must
 * hold them aligned (a stack read must be), the packet need not.
 */
static int fast_wide(const struct gen *g, int n, int off)
{
	if (g->mode == FRAME_LD_ABS)
		return n <= 4;
	return g->mode == FRAME_DIRECT || (FRAME_WIN_OFF + off) % n == 0;
}

/* Unless the n bytes at off, under mask, are v: to *slow */
static void fast_expect(struct gen *g, int n, int off, __u32 mask, __u32 v, int *slow)
{
	fast_load(g, n, off);
	if (!v && mask != (n == 4 ? ~0u : (1u << 8 * n) - 1)) {
		emit_jmp(g, BPF_JSET, BPF_REG_0, fast_imm(g, mask, n), slow);
		return;
	}
	if (mask != (n == 4 ? ~0u : (1u << 8 * n) - 1))
		emit(g->e, BPF_ALU32_IMM(BPF_AND, BPF_REG_0, fast_imm(g, mask, n)));
	if (fast_imm(g, v, n) >= 0) {
		emit_jmp(g, BPF_JNE, BPF_REG_0, fast_imm(g, v, n), slow);
		return;
	}
	/* a 64-bit compare sign-extends its immediate: a register, zero-extended */
	emit(g->e, BPF_MOV32_IMM(BPF_REG_1, fast_imm(g, v, n)));
	emit_jump(g->e, BPF_JMP_REG(BPF_JNE, BPF_REG_0, BPF_REG_1, 0), slow);
}

/* The guard's tests: (the n bytes at off) & mask == v */
enum { TEST_ETYPE = 1, TEST_IHL = 2, TEST_FRAG = 4, TEST_PROTO = 8 };

struct fast_test {
	int n, off;
	__u32 mask, v;
};

static void fast_tests_of(const struct fast *fp, struct fast_test t[4])
{
	t[0] = (struct fast_test){ 2, 12, 0xffff, ETH_P_IP };
	t[1] = (struct fast_test){ 1, ETH_HLEN, 0xff, 0x45 };
	t[2] = (struct fast_test){ 2, ETH_HLEN + 6, 0x1fff, 0 };
	t[3] = (struct fast_test){ 1, ETH_HLEN + 9, 0xff, fp->proto };
}

/* The tests fp's guard makes: the EtherType; for transport keys all four */
static int fast_all(const struct fast *fp)
{
	return fp->proto ? TEST_ETYPE | TEST_IHL | TEST_FRAG | TEST_PROTO : TEST_ETYPE;
}

/*
 * The tests a where clause can have made: all but the IPv4 header's first
 * byte (libpcap reads its length from it, never tests it), as facts.
 */
static void fast_want(const struct fast *fp, struct cbpf_facts *want)
{
	struct fast_test t[4];
	int i;

	fast_tests_of(fp, t);
	want->n = 0;
	for (i = 0; i < 4; i++)
		if ((fast_all(fp) & ~TEST_IHL) & 1 << i)
			want->f[want->n++] = (struct cbpf_fact){ frame_size(t[i].n), t[i].off,
								 t[i].mask, t[i].v };
}

/*
 * The frame (FRAME_DIRECT: the linear part, whose address the slow path
 * may read too) holds what the keys read, else to *slow (*unfit)
 */
static void fast_reach(struct gen *g, const struct fast *fp, int *slow, int *unfit)
{
	if (g->mode == FRAME_DIRECT)
		frame_direct_fast(g->e, R_PKT, fp->extent, slow, unfit);
	else
		emit_jmp(g, BPF_JLT, R_LEN, fp->extent, slow);
}

/* The tests of mask, else to *slow; two adjacent ones in one load where it can */
static void fast_tests(struct gen *g, const struct fast *fp, int mask, int *slow)
{
	struct fast_test t[4];
	int i;

	fast_tests_of(fp, t);
	for (i = 0; i < 4; i += 2) {
		int both = (mask >> i & 3) == 3;

		if (both && fast_wide(g, 4, t[i].off)) {
			/* the 4 bytes from t[i].off hold both: each at its place */
			int sh0 = 8 * (4 - t[i].n), sh1 = 8 * (t[i].off + 4 - t[i + 1].off -
							       t[i + 1].n);

			fast_expect(g, 4, t[i].off, t[i].mask << sh0 | t[i + 1].mask << sh1,
				    t[i].v << sh0 | t[i + 1].v << sh1, slow);
			continue;
		}
		if (mask & 1 << i)
			fast_expect(g, t[i].n, t[i].off, t[i].mask, t[i].v, slow);
		if (mask & 2 << i)
			fast_expect(g, t[i + 1].n, t[i + 1].off, t[i + 1].mask, t[i + 1].v, slow);
	}
}

/*
 * A key the guard has read: the EtherType, and the protocol of transport
 * keys.  Its value, or -1.
 */
static long fast_known(const struct field *f, const struct fast *fp)
{
	if (f->read == READ_ETYPE)
		return ETH_P_IP;
	if (fp->proto && f->layer == LAYER_IP4 && f->off == 9 && f->width == 1)
		return fp->proto;
	return -1;
}

/* Does key i hold, unmasked, the bytes at its fixed offset (not LD_ABS)? */
static int fast_plain(const struct gen *g, const struct fast *fp, int i)
{
	const struct key *k = &g->q->keys[i];
	const struct field *f = k->field;

	return g->mode != FRAME_LD_ABS && !g->lay->array && f->read == READ_HEADER &&
	       f->width <= 4 && fast_known(f, fp) < 0 &&
	       value_mask(k) == (f->width == 4 ? ~0u : (1u << 8 * f->width) - 1);
}

/*
 * Keys i.. that are adjacent both in the frame and in the key, read and
 * stored together: how many, and their bytes in *n (2, 4 or 8).
 */
static int fast_run(const struct gen *g, const struct fast *fp, int i, int *n)
{
	int j, len = 0, best = 1, off = fast_off(g->q->keys[i].field);
	int dst = g->key + g->lay->val_off[i];

	*n = g->q->keys[i].field->width;
	for (j = i; j < g->q->nkeys && fast_plain(g, fp, j); j++) {
		const struct field *f = g->q->keys[j].field;

		if (fast_off(f) != off + len || g->key + g->lay->val_off[j] != dst + len)
			break;
		len += f->width;
		if ((len == 2 || len == 4 || len == 8) && dst % len == 0 &&
		    fast_wide(g, len, off) && j > i) {
			best = j - i + 1;
			*n = len;
		}
	}
	return best;
}

/* Key i on the fast path: present, at its fixed offset, or known */
static void fast_key(struct gen *g, const struct fast *fp, int i)
{
	const struct key *k = &g->q->keys[i];
	const struct field *f = k->field;
	int dst = g->key + g->lay->val_off[i];

	if (f->read != READ_HEADER && f->read != READ_ETYPE) {
		gen_key(g, i);	/* frame.len and the skb's words: no guard */
		return;
	}
	emit_note(g->e, f->name);
	if (fast_known(f, fp) >= 0 && g->mode != FRAME_LD_ABS) {
		__u32 v = fast_known(f, fp) & value_mask(k);

		if (g->lay->array)
			emit(g->e, BPF_ST_MEM(BPF_W, FP, SLOT_IDX, v));
		else
			emit(g->e, BPF_ST_MEM(frame_size(f->width), FP, dst, swab(v, f->width)));
	} else if (fast_known(f, fp) >= 0) {	/* LD_ABS: no constant into a key's slot */
		emit(g->e, BPF_MOV64_IMM(BPF_REG_0, fast_known(f, fp)));
		store_value(g, k, dst, 0);
	} else if (f->width > 4) {
		take(g, k, FRAME, fast_off(f), dst);
	} else {
		fast_load(g, f->width, fast_off(f));
		store_value(g, k, dst, fast_net(g));
	}
}

static void gen_key_init(struct gen *g);
static void gen_length(struct gen *g);
static void gen_key_clear(struct gen *g, unsigned int skip);

static void gen_count(struct gen *g);

/*
 * Does the fast path clear the key after its guard, only the words its
 * keys do not fill, and the slow path the whole key?  For a hash, and not
 * with LD_ABS, whose key stores keep the order gen_keys() needs.
 */
static int fast_sinks_clear(const struct gen *g)
{
	return !g->lay->array && g->mode != FRAME_LD_ABS;
}

/*
 * The key's 8-byte words that the fast path's stores fill whole (a mask):
 * a header field's value bytes (those of its prefix for an address wider
 * than 4 bytes, the rest left zero), none of the status bytes; bytes past
 * the key do not matter.
 */
static unsigned int fast_cover(const struct gen *g)
{
	unsigned char cov[LAYOUT_MAX_ROW + 8] = { 0 };
	unsigned int words = 0;
	int i, b, w;

	for (i = 0; i < g->q->nkeys; i++) {
		const struct key *k = &g->q->keys[i];
		const struct field *f = k->field;

		if (f->read == READ_HEADER || f->read == READ_ETYPE)
			memset(cov + g->lay->val_off[i], 1,
			       f->width > 4 && k->prefix ? (k->prefix + 7) / 8 : f->width);
	}
	for (w = 0; w * 8 < round8(g->lay->row_size); w++) {
		for (b = w * 8; b < w * 8 + 8 && (b >= g->lay->key_size || cov[b]); b++)
			;
		if (b == w * 8 + 8)
			words |= 1u << w;
	}
	return words;
}

/* Where the frames a fast path's guard turns away go (gen_fast_end()) */
struct fast_exits {
	int slow;		/* to the slow path */
	int unfit;		/* FRAME_DIRECT: the frame's address not stored (frame.h) */
};

/*
 * A fast path: the key init, the guard (its reach, the tests of mask),
 * the keys, and a count and exit of its own, so that it runs straight
 * through (one expression).
 */
static void gen_fast(struct gen *g, const struct fast *fp, int mask, const char *note,
		     struct fast_exits *x)
{
	int rejected = g->next, i, n, run;

	if (fast_sinks_clear(g)) {
		if (!g->len_ready)
			emit_note(g->e, "r7 = frame length");
		gen_length(g);
	} else {
		gen_key_init(g);
	}
	emit_note(g->e, note);
	fast_reach(g, fp, &x->slow, &x->unfit);
	fast_tests(g, fp, mask, &x->slow);
	if (fast_sinks_clear(g)) {
		emit_note(g->e, "clear the key's words that the keys do not fill");
		gen_key_clear(g, fast_cover(g));
	}
	/*
	 * LD_ABS (no CAP_PERFMON): in gen_keys()'s order, last key first, and
	 * no status byte, so that no store lands after a store of a constant
	 * or bounded value in an 8-byte slot, which the verifier takes for a
	 * spill and then refuses narrower stores into (see gen_keys()).
	 */
	if (g->mode == FRAME_LD_ABS) {
		for (i = g->q->nkeys - 1; i >= 0; i--)
			fast_key(g, fp, i);
	}
	for (i = 0; g->mode != FRAME_LD_ABS && i < g->q->nkeys; i += run) {
		run = fast_plain(g, fp, i) ? fast_run(g, fp, i, &n) : 1;
		if (run == 1) {
			fast_key(g, fp, i);
			continue;
		}
		emit_notef(g->e, "%s to %s, read together", g->q->keys[i].field->name,
			   g->q->keys[i + run - 1].field->name);
		fast_load(g, n, fast_off(g->q->keys[i].field));
		emit(g->e, BPF_STX_MEM(n == 8 ? BPF_DW : frame_size(n), FP, BPF_REG_0,
				       g->key + g->lay->val_off[i]));
	}
	g->next = NO_JUMP;
	gen_count(g);
	emit_patch_here(g->e, g->next);
	emit(g->e, BPF_MOV64_IMM(BPF_REG_0, 0));
	emit(g->e, BPF_EXIT_INSN());
	g->next = rejected;
}

/*
 * The fast path from the where clause's accepts that tested what
 * fast_want() lists (known): only the IPv4 header's first byte is left.
 */
static void gen_fast_known(struct gen *g, const struct fast *fp, int known,
			   struct fast_exits *x)
{
	if (known == NO_JUMP)
		return;
	emit_patch_here(g->e, known);
	gen_fast(g, fp, fast_all(fp) & TEST_IHL, "fast path, from an accept of the where "
		 "clause that tested the rest: the keys' bytes are there", x);
}

/* Where the slow path starts: the frames the fast paths turned away */
static void gen_fast_end(struct gen *g, struct fast_exits *x)
{
	frame_direct_unfit(g->e, x->unfit);
	emit_patch_here(g->e, x->slow);
	emit_note(g->e, fast_sinks_clear(g) ? "slow path: every other frame; clear the key" :
		  "slow path: every other frame");
	if (fast_sinks_clear(g))
		gen_key_clear(g, 0);
}

/* r1 = the counts map: a map, or the live table in r9 */
static void counts_map(struct gen *g)
{
	if (g->lay->tables)
		emit(g->e, BPF_MOV64_REG(BPF_REG_1, R_TABLE));
	else
		emit_ld_imm64(g->e, BPF_REG_1, BPF_PSEUDO_MAP_FD, g->slot + MAP_COUNTS);
}

/* SLOT_IDX = 0, all 8 bytes with LD_ABS: a status stored there spilled it */
static void zero_idx(struct gen *g)
{
	emit(g->e, BPF_ST_MEM(g->mode == FRAME_LD_ABS ? BPF_DW : BPF_W, FP, SLOT_IDX, 0));
}

/* r0 = lookup(r1, r10 + key) */
static void lookup(struct gen *g, int key)
{
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
	counts_map(g);
	emit(g->e, BPF_MOV64_REG(BPF_REG_2, FP));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, g->key));
	emit(g->e, BPF_MOV64_REG(BPF_REG_3, FP));
	emit(g->e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, SLOT_VAL));
	emit(g->e, BPF_MOV64_IMM(BPF_REG_4, BPF_NOEXIST));
	emit(g->e, BPF_EMIT_CALL(BPF_FUNC_map_update_elem));
	emit_jmp(g, BPF_JEQ, BPF_REG_0, 0, &g->next);
	counts_map(g);
	lookup(g, g->key);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, 0, ovf);
	add_counter(g);
	emit_goto(g, &g->next);
}

static void gen_count(struct gen *g)
{
	int miss = NO_JUMP, ovf = NO_JUMP;

	emit_note(g->e, "count: r8 = wire packets (gso_segs, at least 1), r7 = bytes");
	frame_add_unseen(g->e, R_LEN, BPF_REG_1);
	emit(g->e, BPF_LDX_MEM(BPF_W, R_L3, R_CTX, SKB_FIELD(gso_segs)));
	emit(g->e, BPF_JMP_IMM(BPF_JNE, R_L3, 0, 1));
	emit(g->e, BPF_MOV64_IMM(R_L3, 1));
	if (g->lay->tables) {
		emit_note(g->e, "r9 = the live table");
		zero_idx(g);
		emit_ld_imm64(g->e, BPF_REG_1, BPF_PSEUDO_MAP_FD, g->slot + MAP_COUNTS);
		lookup(g, SLOT_IDX);
		emit_jmp(g, BPF_JEQ, BPF_REG_0, 0, &ovf);
		emit(g->e, BPF_MOV64_REG(R_TABLE, BPF_REG_0));
	}
	counts_map(g);
	lookup(g, g->lay->array ? SLOT_IDX : g->key);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, 0, &miss);
	add_counter(g);
	emit_goto(g, &g->next);
	emit_patch_here(g->e, miss);
	if (!g->lay->array)
		insert(g, &ovf);
	emit_patch_here(g->e, ovf);
	emit_note(g->e, "overflow: the key did not fit in the map");
	zero_idx(g);
	emit_ld_imm64(g->e, BPF_REG_1, BPF_PSEUDO_MAP_FD, g->slot + MAP_OVERFLOW);
	lookup(g, SLOT_IDX);
	emit_jmp(g, BPF_JEQ, BPF_REG_0, 0, &g->next);
	add_counter(g);
}

/* r7 = the frame length, unless it holds it already. */
static void gen_length(struct gen *g)
{
	if (!g->len_ready)
		frame_length(g->e, R_LEN);
	g->len_ready = 0;
}

/* Zero the expression's key (a hash's), but the 8-byte words in skip (a mask). */
static void gen_key_clear(struct gen *g, unsigned int skip)
{
	int i;

	for (i = 0; i < round8(g->lay->row_size); i += 8)
		if (!(skip & 1u << i / 8))
			emit(g->e, BPF_ST_MEM(BPF_DW, FP, g->key + i, 0));
}

/* r7 = the frame length; zero the expression's key. */
static void gen_key_init(struct gen *g)
{
	if (!g->lay->array)
		emit_note(g->e, g->len_ready ? "clear the key" : "r7 = frame length; clear the key");
	else if (!g->len_ready)
		emit_note(g->e, "r7 = frame length");
	gen_length(g);
	if (!g->lay->array)
		gen_key_clear(g, 0);
	else if (!g->q->nkeys || g->mode == FRAME_LD_ABS)
		zero_idx(g);	/* LD_ABS: the filter's M[] may have spilled there */
}

/* The analysis of the headers the keys need (r7 the frame length). */
static void gen_headers(struct gen *g)
{
	if (g->need.l3)
		emit(g->e, BPF_MOV64_IMM(R_L3, ETH_HLEN));
	if (g->need.l4)
		emit(g->e, BPF_MOV64_IMM(R_L4, 0));
	if (g->need.l3)
		gen_l3(g);
	if (g->need.l3 && g->mode == FRAME_DIRECT)
		frame_direct_base(g->e, R_L3, g->ext_l3);
	if (g->need.l4)
		gen_l4(g);
	if (g->need.l4 && g->mode == FRAME_DIRECT)
		frame_direct_base(g->e, R_L4, g->ext_l4);
}

static void gen_keys(struct gen *g)
{
	int i;

	/*
	 * Without CAP_PERFMON (LD_ABS), the verifier refuses a store of less
	 * than 8 bytes into a stack slot holding a spilled register, and a
	 * store of a constant or a bounded value at an 8-byte aligned offset
	 * is one ("attempt to corrupt spilled pointer on stack"): key 0's
	 * status byte, at the key's start, must come after keys 1.. have
	 * stored theirs next to it.  Keys lie in order, so from the last key
	 * to the first, no store lands after such a one in its slot.
	 */
	if (g->mode == FRAME_LD_ABS)
		for (i = g->q->nkeys - 1; i >= 0; i--)
			gen_key(g, i);
	else
		for (i = 0; i < g->q->nkeys; i++)
			gen_key(g, i);
}

/* vlan.id reads the frame only for a tag the kernel has left inline. */
static int reads_frame(const struct field *f)
{
	return f->layer != LAYER_META;
}

/*
 * Reads of the frame on the usual path: EtherType and IPv4 header once,
 * then the keys.
 */
static int frame_reads(const struct codegen_expr *x, int nx)
{
	struct needs need = { 0 };
	int i, j, n = 0;

	for (j = 0; j < nx; j++) {
		add_needs(&need, x[j].q);
		for (i = 0; i < x[j].q->nkeys; i++)
			n += reads_frame(x[j].q->keys[i].field);
	}
	return n + 1 * need.l3 + 3 * need.l4;
}

/* The bytes at the start of a frame that the keys' code can read. */
static int key_extent(const struct query *q)
{
	int i, end = needs_l3(q) ? MAX_L3 + 10 : 0;

	for (i = 0; i < q->nkeys; i++) {
		const struct field *f = q->keys[i].field;
		/* vlan.id: an inline tag's TCI at 14; the other META fields: none */
		int e = f->read == READ_VLAN ? 16 : f->layer == LAYER_META ? 0 :
			max_base(field_base(f)) + f->off + f->width;

		if (e > end)
			end = e;
	}
	return end < FRAME_WIN_LEN ? end : FRAME_WIN_LEN;
}

static int filtered(const struct codegen_expr *x, int nx)
{
	int i;

	for (i = 0; i < nx; i++)
		if (x[i].filter)
			return 1;
	return 0;
}

enum frame_mode codegen_frame_mode(const struct codegen_expr *x, int nx, enum frame_mode allowed)
{
	if (allowed == FRAME_WINDOW && !filtered(x, nx) && frame_reads(x, nx) < 3)
		return FRAME_LD_ABS;
	return allowed;
}

/*
 * How much of the frame goes to the window: all that a where clause may
 * read, else what the keys can.
 */
static int window_len(const struct codegen_expr *x, int nx)
{
	int i, len = 0;

	if (filtered(x, nx))
		return FRAME_WIN_LEN;
	for (i = 0; i < nx; i++)
		if (key_extent(x[i].q) > len)
			len = key_extent(x[i].q);
	return len;
}

/*
 * FRAME_DIRECT: how many bytes from base (FRAME, R_L3, R_L4) the analysis
 * and the keys read at fixed offsets; from the frame's start with a where
 * clause, the shortest Ethernet frame's 60 (its fixed reads are those of
 * the headers), so that one check serves nearly every frame.  Reads
 * further on check for themselves.
 */
static int direct_extent(const struct gen *g, const struct codegen_expr *x, int nx, int base)
{
	int end = base == FRAME && g->need.l3 ? MAX_L3 : base == R_L3 && g->need.l4 ? 10 : 0;
	int i, j;

	if (base == FRAME && filtered(x, nx))
		return 60;
	for (i = 0; i < nx; i++)
		for (j = 0; j < x[i].q->nkeys; j++) {
			const struct field *f = x[i].q->keys[j].field;
			int e = f->read == READ_VLAN ? 16 : f->off + f->width;

			if ((f->read == READ_VLAN && base == FRAME) ||
			    (f->read == READ_HEADER && f->width <= 4 && field_base(f) == base))
				end = e > end ? e : end;
		}
	return end;
}

/* The expression generated next: expression i of x. */
static void gen_expr(struct gen *g, const struct codegen_expr *x, int i)
{
	g->q = x[i].q;
	g->lay = x[i].lay;
	g->slot = MAP_SLOT(i, 0);
	g->key = KEY_END - round8(x[i].lay->row_size);
	g->next = NO_JUMP;
}

/* The where clause's fast path (FRAME_DIRECT): the bytes, the classic insns */
#define WHERE_FAST_EXTENT 60
#define WHERE_FAST_MAX 256

/*
 * Its where clause, its rejects to g->next (r9 = the frame length); a
 * read past the frame's end must not end the program when more is counted
 * after it (keep_going).
 */
static int gen_where(struct gen *g, const struct codegen_expr *x, int keep_going,
		     const struct fast *fp, struct fast_exits *fx, int *known, int *other,
		     char *err, size_t errlen)
{
	int slow = NO_JUMP, accepted = NO_JUMP, known_fast = NO_JUMP, ret, other_fast = 0;
	struct cbpf_facts want;

	*known = NO_JUMP;
	*other = 1;
	if (!x->filter)
		return 0;
	/*
	 * FRAME_DIRECT: twice, first for a frame whose linear part holds its
	 * first WHERE_FAST_EXTENT bytes, read from r9 = their address with no
	 * other check, then the general translation for any frame (a filter
	 * of one instruction reads nothing).  The first one's accepts that
	 * tested IPv4 go on to the keys' fast path right after it, so that
	 * the common frame's path lies in one piece; the others' accepts all
	 * take the full guard.
	 */
	if (fp)
		fast_want(fp, &want);
	if (g->mode == FRAME_DIRECT && !g->e->cooked && !g->e->slow_only && x->n > 1 &&
	    x->n <= WHERE_FAST_MAX) {
		emit_note(g->e, "where, fast path: the linear part holds the frame's first 60 "
			  "bytes, r9 = their address");
		frame_direct_start(g->e, R_L4, WHERE_FAST_EXTENT, &slow);
		g->e->start.reg = R_L4;
		g->e->start.extent = WHERE_FAST_EXTENT;
		ret = cbpf_translate_split(g->e, x->filter, x->n, g->mode, -1, keep_going,
					   &g->next, fp ? &want : NULL, &known_fast, &other_fast,
					   err, errlen);
		g->e->start.extent = 0;
		if (ret)
			return ret;
		if (other_fast)
			emit_goto(g, &accepted);
		gen_fast_known(g, fp, known_fast, fx);
		fp = NULL;
		emit_patch_here(g->e, slow);
		emit_note(g->e, "where, slow path: r9 = the frame length");
	} else {
		emit_note(g->e, "where: the pcap filter, translated");
	}
	if (g->mode == FRAME_DIRECT || g->shared)
		frame_length(g->e, R_L4);
	ret = cbpf_translate_split(g->e, x->filter, x->n, g->mode, R_L4, keep_going, &g->next,
				   fp ? &want : NULL, known, other, err, errlen);
	emit_patch_here(g->e, accepted);
	*other |= other_fast;
	return ret;
}

int codegen(const struct codegen_expr *x, int nx, enum frame_mode mode, unsigned int loopback,
	    struct emit *e, char *err, size_t errlen)
{
	struct gen g = { .e = e, .mode = mode, .out = NO_JUMP };
	int shared = g.shared = nx > 1;
	int i, has_fast, known, other;
	struct fast_exits fx;
	struct fast fp;

	for (i = 0; i < nx; i++)
		add_needs(&g.need, x[i].q);
	g.win_len = window_len(x, nx);
	g.ext_l3 = direct_extent(&g, x, nx, R_L3);
	g.ext_l4 = direct_extent(&g, x, nx, R_L4);
	memset(e->direct, 0, sizeof(e->direct));
	emit(e, BPF_MOV64_REG(R_CTX, BPF_REG_1));
	if (loopback) {
		emit_note(e, "a loopback packet's outgoing copy: not counted");
		emit(e, BPF_LDX_MEM(BPF_W, BPF_REG_0, R_CTX, SKB_FIELD(pkt_type)));
		emit(e, BPF_JMP_IMM(BPF_JNE, BPF_REG_0, PACKET_OUTGOING, 2));
		emit(e, BPF_LDX_MEM(BPF_W, BPF_REG_0, R_CTX, SKB_FIELD(ifindex)));
		emit_jmp(&g, BPF_JEQ, BPF_REG_0, (int)loopback, &g.out);
	}
	if (g.mode == FRAME_WINDOW && g.win_len) {
		/* its length in r9 for the where clause, else in r7 for the keys */
		g.len_ready = !shared && !x[0].filter;
		emit_note(e, "copy the frame's first bytes to the stack");
		frame_length(e, g.len_ready ? R_LEN : R_L4);
		frame_copy(e, g.len_ready ? R_LEN : R_L4, g.win_len);
	}
	/* without a where clause the fast path checks for itself: the slow one then */
	has_fast = !shared && !e->slow_only && fast_plan(x[0].q, e->cooked, &fp);
	if (g.mode == FRAME_DIRECT && !(has_fast && !x[0].filter)) {
		emit_note(e, "the frame's first bytes, if the linear part holds them");
		frame_direct_base(e, FRAME, direct_extent(&g, x, nx, FRAME));
	}
	/* one expression: its where clause first, what it rejects needs no analysis */
	if (shared && g.need.l3) {
		emit_note(e, "the headers, analysed once for every expression");
		frame_length(e, R_LEN);
		gen_headers(&g);
		emit(e, BPF_STX_MEM(BPF_DW, FP, R_L3, SLOT_SAVE_L3));
		if (g.need.l4)
			emit(e, BPF_STX_MEM(BPF_DW, FP, R_L4, SLOT_SAVE_L4));
	}
	for (i = 0; i < nx; i++) {
		gen_expr(&g, x, i);
		if (shared)
			emit_note(e, i ? "the next expression" : "the first expression");
		fx = (struct fast_exits){ NO_JUMP, NO_JUMP };
		if (gen_where(&g, &x[i], i < nx - 1, has_fast ? &fp : NULL, &fx, &known, &other,
			      err, errlen))
			return -1;
		if (has_fast) {
			/* the accepts that tested IPv4 first: the common frame's */
			int full = NO_JUMP;

			if (other && known != NO_JUMP)
				emit_goto(&g, &full);
			gen_fast_known(&g, &fp, known, &fx);
			emit_patch_here(e, full);
			if (other)
				gen_fast(&g, &fp, fast_all(&fp), fp.proto ? "fast path: untagged "
					 "IPv4, 20-byte header, first fragment, the keys' protocol" :
					 "fast path: untagged IPv4", &fx);
			gen_fast_end(&g, &fx);
		} else {
			gen_key_init(&g);
		}
		if (has_fast && !x[i].filter && g.mode == FRAME_DIRECT)
			frame_direct_base(e, FRAME, direct_extent(&g, x, nx, FRAME));
		if (!shared)
			gen_headers(&g);
		if (shared && needs_l3(x[i].q))
			emit(e, BPF_LDX_MEM(BPF_DW, R_L3, FP, SLOT_SAVE_L3));
		if (shared && needs_q(x[i].q, LAYER_TCP))
			emit(e, BPF_LDX_MEM(BPF_DW, R_L4, FP, SLOT_SAVE_L4));
		gen_keys(&g);
		gen_count(&g);
		emit_patch_here(e, g.next);
	}
	emit_patch_here(e, g.out);
	emit_note(e, "out: no packet is queued to the socket");
	emit(e, BPF_MOV64_IMM(BPF_REG_0, 0));
	emit(e, BPF_EXIT_INSN());
	if (e->err == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (e->err)
		snprintf(err, errlen, "program too large (%d instructions)", e->len);
	return e->err ? -1 : 0;
}
