// SPDX-License-Identifier: GPL-2.0
/*
 * Classic BPF to eBPF; see cbpf.h.
 *
 * Three passes: check every classic instruction; follow the reachable
 * ones (classic jumps go forward only, so one pass in order) to learn
 * which of A, X and M[] can be read before anything wrote them and how
 * many bytes the frame holds on every path (a load past its end rejects,
 * so the loads after need no check up to there) and what X is a multiple
 * of (an indexed read from the window aligned to its size is one load),
 * and back (one pass in
 * reverse order) to learn where A is dead; emit.
 * Jumps to a RET or a JA are threaded: a jump to "ret #0" joins the reject
 * list, one to "ret #k" the accept list, and a RET that nothing falls into
 * emits nothing, so `ip` becomes two eBPF instructions.  Every classic
 * instruction owns a patch list of the eBPF jumps to it, patched when the
 * instruction is emitted.
 *
 * Comparisons: classic compares 32-bit unsigned, A and X are kept
 * zero-extended, and 64-bit eBPF jumps sign-extend their immediate.  So a
 * constant with bit 31 set is first moved into R8 with MOV32 and compared
 * as a register, as the kernel's own classic converter does; BPF_JMP32
 * would need Linux 5.1.  Inverted jumps (JNE, JLT, JLE) need Linux 4.14.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf.h"
#include "frame.h"

#define REG_A	BPF_REG_0
#define REG_X	BPF_REG_7
#define REG_TMP	BPF_REG_8
#define REG_CTX	BPF_REG_6
#define REG_FP	BPF_REG_10

#define MEMWORDS	16
#define DEST_ACCEPT	(-1)	/* where a jump leads, unless an insn index */
#define DEST_REJECT	(-2)

/* State sets: which of A, X, M[0..15] an instruction reads or writes. */
#define S_A	(1u << 0)
#define S_X	(1u << 1)
#define S_M(k)	(1u << (2 + (k)))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct fstate;

struct slot {
	int list;		/* eBPF jumps waiting for this instruction */
	unsigned int in;	/* state written on every path to here */
	unsigned int held;	/* bytes the frame holds on every path to here */
	unsigned int x_align;	/* X is a multiple of it on every path to here (1: any) */
	unsigned int x_lim;	/* X is less than it on every path to here (0: unknown) */
	bool reach;
	bool a_live;		/* A may be read from here before it is written */
	bool msh_keeps_a;	/* an "ldxb 4*([k]&0xf)" after which A is live */
};

struct cbpf {
	struct emit *e;
	const struct sock_filter *f;
	unsigned int n;
	struct slot *s;
	unsigned int need;	/* state read before written: zero it first */
	int accept;
	int reject;
	bool accepts;		/* some path accepts the packet */
	enum frame_mode mode;
	int len_reg;
	int keep_going;
	char *err;
	size_t errlen;
	/* accepts whose path has tested what want holds go to accept_known */
	const struct cbpf_facts *want;
	struct fstate *fs;	/* then: the facts before each instruction */
	int accept_known;
	bool other;		/* some accept does not: the code after is reached */
};

static int fail(struct cbpf *c, int pc, const char *fmt, ...)
{
	size_t len = 0;
	va_list ap;

	if (!c->errlen)
		return -EINVAL;
	if (pc >= 0)
		len = snprintf(c->err, c->errlen, "classic insn %d: ", pc);
	if (len < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + len, c->errlen - len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Ancillary loads (k = SKF_AD_OFF + SKF_AD_*), indexed by SKF_AD_* / 4. */
enum anc_kind { ANC_NONE, ANC_FIELD, ANC_BE16, ANC_CALL, ANC_XOR_X };

struct anc {
	const char *name;
	enum anc_kind kind;
	int arg;		/* __sk_buff offset or helper id */
};

#define SKB(f) offsetof(struct __sk_buff, f)
#define ANC(ad, kind, arg) [SKF_AD_##ad / 4] = { "SKF_AD_" #ad, kind, arg }

static const struct anc ancs[] = {
	ANC(PROTOCOL, ANC_BE16, SKB(protocol)),
	ANC(PKTTYPE, ANC_FIELD, SKB(pkt_type)),
	ANC(IFINDEX, ANC_FIELD, SKB(ifindex)),
	ANC(NLATTR, ANC_NONE, 0),
	ANC(NLATTR_NEST, ANC_NONE, 0),
	ANC(MARK, ANC_FIELD, SKB(mark)),
	ANC(QUEUE, ANC_FIELD, SKB(queue_mapping)),
	ANC(HATYPE, ANC_NONE, 0),
	ANC(RXHASH, ANC_FIELD, SKB(hash)),
	ANC(CPU, ANC_CALL, BPF_FUNC_get_smp_processor_id),
	ANC(ALU_XOR_X, ANC_XOR_X, 0),
	ANC(VLAN_TAG, ANC_FIELD, SKB(vlan_tci)),
	ANC(VLAN_TAG_PRESENT, ANC_FIELD, SKB(vlan_present)),
	ANC(PAY_OFFSET, ANC_NONE, 0),
	ANC(RANDOM, ANC_CALL, BPF_FUNC_get_prandom_u32),
	ANC(VLAN_TPID, ANC_BE16, SKB(vlan_proto)),
};

static bool is_anc(__u32 k)
{
	return k >= (__u32)SKF_AD_OFF;
}

/* The table entry of ancillary offset k, or NULL if there is none. */
static const struct anc *anc_of(__u32 k)
{
	__u32 ad = k - (__u32)SKF_AD_OFF;

	if (ad % 4 || ad / 4 >= ARRAY_SIZE(ancs) || !ancs[ad / 4].name)
		return NULL;
	return &ancs[ad / 4];
}

/*
 * M[k]: a 32-bit word, or with LD_ABS a 64-bit slot.  LD_ABS is how a
 * program reads without CAP_PERFMON, and then the verifier (allow_ptr_leaks
 * off) refuses a store of less than 8 bytes into an 8-byte stack slot that
 * holds a spilled register, and a store of a known-bounded scalar at an
 * 8-byte aligned offset spills it: "st M[0]; st M[1]" or "st M[0]" twice
 * failed with "attempt to corrupt spilled pointer on stack".
 */
static int mem_off(const struct cbpf *c, __u32 k)
{
	return c->mode == FRAME_LD_ABS ? CBPF_MEM8_OFF + 8 * (int)k : CBPF_MEM_OFF + 4 * (int)k;
}

static int mem_size(const struct cbpf *c)
{
	return c->mode == FRAME_LD_ABS ? BPF_DW : BPF_W;
}

/* ---- pass 1: check ---- */

#define KX(code) (code) | BPF_K, (code) | BPF_X

static const __u16 codes[] = {
	BPF_LD | BPF_W | BPF_ABS, BPF_LD | BPF_H | BPF_ABS, BPF_LD | BPF_B | BPF_ABS,
	BPF_LD | BPF_W | BPF_IND, BPF_LD | BPF_H | BPF_IND, BPF_LD | BPF_B | BPF_IND,
	BPF_LD | BPF_W | BPF_LEN, BPF_LD | BPF_IMM, BPF_LD | BPF_MEM,
	BPF_LDX | BPF_W | BPF_IMM, BPF_LDX | BPF_W | BPF_MEM,
	BPF_LDX | BPF_W | BPF_LEN, BPF_LDX | BPF_B | BPF_MSH,
	BPF_ST, BPF_STX,
	KX(BPF_ALU | BPF_ADD), KX(BPF_ALU | BPF_SUB), KX(BPF_ALU | BPF_MUL),
	KX(BPF_ALU | BPF_DIV), KX(BPF_ALU | BPF_MOD), KX(BPF_ALU | BPF_AND),
	KX(BPF_ALU | BPF_OR), KX(BPF_ALU | BPF_XOR), KX(BPF_ALU | BPF_LSH),
	KX(BPF_ALU | BPF_RSH), BPF_ALU | BPF_NEG,
	BPF_JMP | BPF_JA, KX(BPF_JMP | BPF_JEQ), KX(BPF_JMP | BPF_JGT),
	KX(BPF_JMP | BPF_JGE), KX(BPF_JMP | BPF_JSET),
	BPF_RET | BPF_K, BPF_RET | BPF_A,
	BPF_MISC | BPF_TAX, BPF_MISC | BPF_TXA,
};

static bool valid_code(__u16 code)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(codes); i++)
		if (codes[i] == code)
			return true;
	return false;
}

static bool uses_mem(const struct sock_filter *s)
{
	int class = BPF_CLASS(s->code);

	if (class == BPF_ST || class == BPF_STX)
		return true;
	return (class == BPF_LD || class == BPF_LDX) && BPF_MODE(s->code) == BPF_MEM;
}

static bool is_abs(const struct sock_filter *s)
{
	return s->code == (BPF_LD | BPF_W | BPF_ABS) ||
	       s->code == (BPF_LD | BPF_H | BPF_ABS) ||
	       s->code == (BPF_LD | BPF_B | BPF_ABS) ||
	       s->code == (BPF_LDX | BPF_B | BPF_MSH);
}

static int check_abs(struct cbpf *c, unsigned int i)
{
	const struct sock_filter *s = &c->f[i];
	const struct anc *a = anc_of(s->k);

	if (is_anc(s->k) && BPF_CLASS(s->code) == BPF_LD) {
		if (!a)
			return fail(c, i, "unknown ancillary load SKF_AD_OFF+%u",
				    s->k - (__u32)SKF_AD_OFF);
		if (a->kind == ANC_NONE)
			return fail(c, i, "ancillary load %s is not supported", a->name);
		return 0;
	}
	if ((__s32)s->k < 0)
		return fail(c, i, "negative packet offset %d is not supported",
			    (__s32)s->k);
	return 0;
}

static int check_alu(struct cbpf *c, unsigned int i)
{
	const struct sock_filter *s = &c->f[i];
	int op = BPF_OP(s->code);

	if (BPF_SRC(s->code) != BPF_K || op == BPF_NEG)
		return 0;
	if ((op == BPF_DIV || op == BPF_MOD) && s->k == 0)
		return fail(c, i, "division by zero");
	if ((op == BPF_LSH || op == BPF_RSH) && s->k >= 32)
		return fail(c, i, "shift by %u", s->k);
	return 0;
}

static int check_jump(struct cbpf *c, unsigned int i)
{
	const struct sock_filter *s = &c->f[i];
	__u32 after = c->n - i - 1;	/* instructions after this one */

	if (BPF_OP(s->code) == BPF_JA && (__s32)s->k < 0)
		return fail(c, i, "backward jump (a loop)");
	if (BPF_OP(s->code) == BPF_JA ? s->k >= after :
	    s->jt >= after || s->jf >= after)
		return fail(c, i, "jump out of range");
	return 0;
}

static int check_insn(struct cbpf *c, unsigned int i)
{
	const struct sock_filter *s = &c->f[i];
	int class = BPF_CLASS(s->code);

	if (!valid_code(s->code))
		return fail(c, i, "bad opcode 0x%02x", s->code);
	if (uses_mem(s) && s->k >= MEMWORDS)
		return fail(c, i, "scratch memory M[%u] out of range", s->k);
	if (class == BPF_JMP)
		return check_jump(c, i);
	if (class != BPF_RET && i + 1 == c->n)
		return fail(c, i, "falls off the end of the program");
	if (class == BPF_ALU)
		return check_alu(c, i);
	return is_abs(s) ? check_abs(c, i) : 0;
}

static int check(struct cbpf *c)
{
	unsigned int i;
	int ret = 0;

	if (c->n == 0 || c->n > BPF_MAXINSNS)
		return fail(c, -1, "classic program of %u instructions", c->n);
	for (i = 0; i < c->n && !ret; i++)
		ret = check_insn(c, i);
	return ret;
}

/* ---- pass 2: reachability and state read before written ---- */

static unsigned int reads(const struct sock_filter *s)
{
	unsigned int x = BPF_SRC(s->code) == BPF_X ? S_X : 0;

	switch (BPF_CLASS(s->code)) {
	case BPF_LD:
		if (BPF_MODE(s->code) == BPF_MEM)
			return S_M(s->k);
		if (BPF_MODE(s->code) == BPF_IND)
			return S_X;
		if (is_abs(s) && is_anc(s->k) && anc_of(s->k)->kind == ANC_XOR_X)
			return S_A | S_X;
		return 0;
	case BPF_LDX:
		if (BPF_MODE(s->code) == BPF_MEM)
			return S_M(s->k);
		return BPF_MODE(s->code) == BPF_MSH ? S_A : 0;	/* kept */
	case BPF_ST:
		return S_A;
	case BPF_STX:
		return S_X;
	case BPF_ALU:
		return S_A | (BPF_OP(s->code) == BPF_NEG ? 0 : x);
	case BPF_JMP:
		return BPF_OP(s->code) == BPF_JA ? 0 : S_A | x;
	case BPF_RET:
		return BPF_RVAL(s->code) == BPF_A ? S_A : 0;
	default:
		return BPF_MISCOP(s->code) == BPF_TAX ? S_A : S_X;
	}
}

static unsigned int writes(const struct sock_filter *s)
{
	switch (BPF_CLASS(s->code)) {
	case BPF_LD:
	case BPF_ALU:
		return S_A;
	case BPF_LDX:
		return S_X;
	case BPF_ST:
	case BPF_STX:
		return S_M(s->k);
	case BPF_MISC:
		return BPF_MISCOP(s->code) == BPF_TAX ? S_X : S_A;
	default:
		return 0;
	}
}

/* Where control that goes to instruction t really ends up. */
static int dest(const struct cbpf *c, unsigned int t)
{
	const struct sock_filter *s = &c->f[t];

	while (s->code == (BPF_JMP | BPF_JA)) {
		t += 1 + s->k;
		s = &c->f[t];
	}
	if (s->code == (BPF_RET | BPF_K))
		return s->k ? DEST_ACCEPT : DEST_REJECT;
	return t;
}

/* Successors of instruction i, after threading; returns their number. */
static int succ(const struct cbpf *c, unsigned int i, int d[2])
{
	const struct sock_filter *s = &c->f[i];

	switch (BPF_CLASS(s->code)) {
	case BPF_RET:
		return 0;
	case BPF_JMP:
		if (BPF_OP(s->code) == BPF_JA) {
			d[0] = dest(c, i + 1 + s->k);
			return 1;
		}
		d[0] = dest(c, i + 1 + s->jt);
		d[1] = dest(c, i + 1 + s->jf);
		return 2;
	default:
		d[0] = i + 1;
		return 1;
	}
}

/*
 * What X is a multiple of after s, from x before: 4 after "ldxb
 * 4*([k]&0xf)" (the IPv4 header length), a constant's largest power of
 * two up to 4; unknown (1) after anything else that writes it.
 */
static unsigned int x_align_after(const struct sock_filter *s, unsigned int x)
{
	if (s->code == (BPF_LDX | BPF_MSH | BPF_B))
		return 4;
	if (s->code == (BPF_LDX | BPF_W | BPF_IMM))
		return s->k % 4 == 0 ? 4 : s->k % 2 == 0 ? 2 : 1;
	return writes(s) & S_X ? 1 : x;
}

/*
 * What X is less than after s, from x before (0: unknown): 61 after "ldxb
 * 4*([k]&0xf)", k + 1 after "ldx #k" (unknown for k = UINT_MAX); unknown
 * after anything else that writes it.  Both leave in the eBPF register
 * bounds the verifier tracks (emit_msh(), a 32-bit constant).
 */
static unsigned int x_lim_after(const struct sock_filter *s, unsigned int x)
{
	if (s->code == (BPF_LDX | BPF_MSH | BPF_B))
		return 61;
	if (s->code == (BPF_LDX | BPF_W | BPF_IMM))
		return s->k < UINT_MAX ? s->k + 1 : 0;
	return writes(s) & S_X ? 0 : x;
}

/* The end of the frame bytes s reads (its offset and size, 0: none). */
static unsigned int load_end(const struct sock_filter *s)
{
	static const unsigned int bytes[] = { [BPF_W] = 4, [BPF_H] = 2, [BPF_B] = 1 };
	unsigned int n;

	/*
	 * Not an indexed load: its offset X + k is a 32-bit sum, which wraps
	 * ("ldb [x + 54]" with X = -53 reads byte 1).
	 */
	if (s->code == (BPF_LDX | BPF_MSH | BPF_B))
		n = 1;
	else if (is_abs(s) && !is_anc(s->k))
		n = bytes[BPF_SIZE(s->code)];
	else
		return 0;
	return s->k <= INT_MAX - n ? s->k + n : 0;
}

static void flow(struct cbpf *c)
{
	unsigned int i, out, held, x_align, x_lim;
	int d[2], k, j;

	for (i = 0; i < c->n; i++)
		c->s[i] = (struct slot){ .list = NO_JUMP, .in = ~0u, .held = ~0u, .x_align = 4,
					 .x_lim = 1 };
	c->s[0].reach = true;
	c->s[0].in = 0;
	c->s[0].held = 0;
	c->s[0].x_align = 4;	/* classic starts with X = 0 */
	c->s[0].x_lim = 1;
	for (i = 0; i < c->n; i++) {
		if (!c->s[i].reach)
			continue;
		c->need |= reads(&c->f[i]) & ~c->s[i].in;
		out = c->s[i].in | writes(&c->f[i]);
		held = c->s[i].held > load_end(&c->f[i]) ? c->s[i].held : load_end(&c->f[i]);
		x_align = x_align_after(&c->f[i], c->s[i].x_align);
		x_lim = x_lim_after(&c->f[i], c->s[i].x_lim);
		if (c->f[i].code == (BPF_RET | BPF_A) ||
		    (c->f[i].code == (BPF_RET | BPF_K) && c->f[i].k))
			c->accepts = true;
		k = succ(c, i, d);
		for (j = 0; j < k; j++) {
			c->accepts |= d[j] == DEST_ACCEPT;
			if (d[j] < 0)
				continue;
			c->s[d[j]].reach = true;
			c->s[d[j]].in &= out;
			if (c->s[d[j]].held > held)
				c->s[d[j]].held = held;
			if (c->s[d[j]].x_align > x_align)
				c->s[d[j]].x_align = x_align;
			/* the larger bound of the two; unknown wins */
			if (c->s[d[j]].x_lim && (!x_lim || c->s[d[j]].x_lim < x_lim))
				c->s[d[j]].x_lim = x_lim;
		}
	}
	/* A's liveness, backwards: an accept or a reject reads nothing */
	for (i = c->n; i-- > 0;) {
		const struct sock_filter *s = &c->f[i];
		bool live = false;

		if (!c->s[i].reach)
			continue;
		k = succ(c, i, d);
		for (j = 0; j < k; j++)
			live |= d[j] >= 0 && c->s[d[j]].a_live;
		/* X = 4 * (P[k] & 0xf) keeps A only where A is live after it */
		if (s->code == (BPF_LDX | BPF_MSH | BPF_B))
			c->s[i].msh_keeps_a = live;
		c->s[i].a_live = (s->code != (BPF_LDX | BPF_MSH | BPF_B) && (reads(s) & S_A)) ||
				 (live && !(writes(s) & S_A));
	}
}

/* ---- facts: what the tests on every path to an accept establish ---- */

/* What A holds, if a masked packet load: (size bytes at off) & mask */
struct aval {
	bool known;
	int size;
	__u32 off, mask;
};

struct fstate {
	bool reach;
	struct aval a;
	struct cbpf_facts facts;
};

static __u32 full_mask(int size)
{
	return size == BPF_W ? ~0u : size == BPF_H ? 0xffff : 0xff;
}

static void add_fact(struct cbpf_facts *fs, int size, __u32 off, __u32 mask, __u32 value)
{
	if (fs->n < CBPF_MAX_FACTS && !cbpf_known(fs, size, off, mask, value))
		fs->f[fs->n++] = (struct cbpf_fact){ size, off, mask, value & mask };
}

/* *to = what holds on both: the facts of *to that from has too */
static void meet(struct fstate *to, const struct fstate *from)
{
	struct cbpf_facts both = { 0 };
	int i;

	if (!to->reach) {
		*to = *from;
		return;
	}
	for (i = 0; i < to->facts.n; i++) {
		const struct cbpf_fact *f = &to->facts.f[i];

		if (cbpf_known(&from->facts, f->size, f->off, f->mask, f->value))
			both.f[both.n++] = *f;
	}
	to->facts = both;
	if (memcmp(&to->a, &from->a, sizeof(to->a)))
		to->a.known = false;
}

/* The state after instruction s (not a jump) from *st */
static void step(const struct sock_filter *s, struct fstate *st)
{
	int class = BPF_CLASS(s->code);

	if (class == BPF_LD && BPF_MODE(s->code) == BPF_ABS && !is_anc(s->k)) {
		st->a = (struct aval){ true, BPF_SIZE(s->code), s->k, full_mask(BPF_SIZE(s->code)) };
		return;
	}
	if (s->code == (BPF_ALU | BPF_AND | BPF_K)) {
		st->a.mask &= s->k;
		return;
	}
	if (writes(s) & S_A)
		st->a.known = false;
}

/* The facts of the edge of jump s to t (taken: its jt edge) from *st */
static void edge(const struct sock_filter *s, int taken, struct fstate *st)
{
	int op = BPF_OP(s->code);

	if (!st->a.known || BPF_SRC(s->code) != BPF_K)
		return;
	if (op == BPF_JEQ && taken)
		add_fact(&st->facts, st->a.size, st->a.off, st->a.mask, s->k);
	else if (op == BPF_JSET && !taken)
		add_fact(&st->facts, st->a.size, st->a.off, st->a.mask & s->k, 0);
}

int cbpf_known(const struct cbpf_facts *facts, int size, __u32 off, __u32 mask, __u32 value)
{
	int i;

	for (i = 0; i < facts->n; i++) {
		const struct cbpf_fact *f = &facts->f[i];

		if (f->size == size && f->off == off && (f->mask & mask) == mask &&
		    (f->value & mask) == (value & mask))
			return 1;
	}
	return 0;
}

/*
 * The facts before each instruction of c's program (NULL on no memory),
 * and in *acc those on every path to an accept.
 */
static struct fstate *facts_flow(const struct cbpf *c, struct fstate *acc)
{
	struct fstate *st = calloc(c->n, sizeof(*st)), out;
	unsigned int i;
	int d[2], k, j;

	if (!st)
		return NULL;
	st[0].reach = true;
	for (i = 0; i < c->n; i++) {
		const struct sock_filter *s = &c->f[i];

		if (!st[i].reach)
			continue;
		if (BPF_CLASS(s->code) == BPF_RET) {
			if (BPF_RVAL(s->code) == BPF_A || s->k)
				meet(acc, &st[i]);
			continue;
		}
		k = succ(c, i, d);
		for (j = 0; j < k; j++) {
			out = st[i];
			if (BPF_CLASS(s->code) == BPF_JMP && BPF_OP(s->code) != BPF_JA)
				edge(s, j == 0, &out);
			else if (BPF_CLASS(s->code) != BPF_JMP)
				step(s, &out);
			if (d[j] == DEST_ACCEPT)
				meet(acc, &out);
			else if (d[j] >= 0)
				meet(&st[d[j]], &out);
		}
	}
	return st;
}

void cbpf_facts(const struct sock_filter *f, unsigned int n, struct cbpf_facts *facts)
{
	struct cbpf c = { .f = f, .n = n };
	struct fstate acc = { 0 };

	facts->n = 0;
	if (check(&c))
		return;
	free(facts_flow(&c, &acc));
	if (acc.reach)
		*facts = acc.facts;
}

/* Does the edge j (0: taken, or the only one) of instruction i know c->want? */
static bool edge_knows(const struct cbpf *c, unsigned int i, int j)
{
	const struct sock_filter *s = &c->f[i];
	struct fstate out;
	int k;

	if (!c->fs)
		return false;
	out = c->fs[i];
	if (BPF_CLASS(s->code) == BPF_JMP && BPF_OP(s->code) != BPF_JA)
		edge(s, j == 0, &out);
	for (k = 0; k < c->want->n; k++) {
		const struct cbpf_fact *f = &c->want->f[k];

		if (!cbpf_known(&out.facts, f->size, f->off, f->mask, f->value))
			return false;
	}
	return true;
}

/* ---- pass 3: emit ---- */

/* The patch list of destination d; an accept's by what its edge knows. */
static int *list_of(struct cbpf *c, int d, bool known)
{
	c->other |= d == DEST_ACCEPT && !known;
	if (d == DEST_ACCEPT)
		return known ? &c->accept_known : &c->accept;
	return d == DEST_REJECT ? &c->reject : &c->s[d].list;
}

/* Does the code emitted after instruction i start at destination d? */
static bool falls(const struct cbpf *c, unsigned int i, int d)
{
	unsigned int j = i + 1;

	while (j < c->n && !c->s[j].reach)
		j++;
	if (d == DEST_ACCEPT)
		return j == c->n;
	return d >= 0 && (unsigned int)d == j;
}

static void goto_dest(struct cbpf *c, unsigned int i, int d, bool known)
{
	if (!falls(c, i, d) || (d == DEST_ACCEPT && known))
		emit_jump(c->e, BPF_JMP_A(0), list_of(c, d, known));
	else
		c->other |= d == DEST_ACCEPT;
}

static void emit_anc(struct cbpf *c, const struct anc *a)
{
	switch (a->kind) {
	case ANC_BE16:
		emit(c->e, BPF_LDX_MEM(BPF_W, REG_A, REG_CTX, a->arg));
		emit(c->e, BPF_ENDIAN_BE(REG_A, 16));	/* be16 to host */
		break;
	case ANC_FIELD:
		emit(c->e, BPF_LDX_MEM(BPF_W, REG_A, REG_CTX, a->arg));
		break;
	case ANC_CALL:
		/* The result replaces A; X is in callee-saved R7. */
		emit(c->e, BPF_EMIT_CALL(a->arg));
		break;
	default:
		emit(c->e, BPF_ALU32_REG(BPF_XOR, REG_A, REG_X));
		break;
	}
}

/*
 * Classic LD ABS/IND have the encoding of eBPF's, which load into R0 (A)
 * from the skb in R6.  The size of an ancillary load does not matter (the
 * kernel ignores it; libpcap emits "ldb [vlan_tci]").
 */
static void emit_ld(struct cbpf *c, const struct sock_filter *s)
{
	switch (BPF_MODE(s->code)) {
	case BPF_IMM:
		emit(c->e, BPF_MOV32_IMM(REG_A, s->k));
		break;
	case BPF_LEN:	/* libpcap's is the packet's length, not the part seen */
		frame_length(c->e, REG_A);
		frame_add_unseen(c->e, REG_A, REG_TMP);
		break;
	case BPF_MEM:
		emit(c->e, BPF_LDX_MEM(mem_size(c), REG_A, REG_FP, mem_off(c, s->k)));
		break;
	case BPF_ABS:
		if (is_anc(s->k))
			emit_anc(c, anc_of(s->k));
		else
			frame_load_checked(c->e, c->mode, BPF_SIZE(s->code), -1, s->k,
					   c->len_reg, c->keep_going, &c->reject);
		break;
	default:
		frame_load_checked(c->e, c->mode, BPF_SIZE(s->code), REG_X, s->k,
				   c->len_reg, c->keep_going, &c->reject);
		break;
	}
}

/*
 * X = 4 * (P[k] & 0xf): the load writes R0 = A, so A waits in R8 if it is
 * live.  The verifier bounds X to [0, 60] from these three instructions,
 * which the reads that rely on x_lim (frame.c) need: keep X in a register.
 */
static void emit_msh(struct cbpf *c, const struct sock_filter *s, bool keep_a)
{
	if (keep_a)
		emit(c->e, BPF_MOV64_REG(REG_TMP, REG_A));
	frame_load_checked(c->e, c->mode, BPF_B, -1, s->k, c->len_reg, c->keep_going,
			   &c->reject);
	emit(c->e, BPF_ALU32_IMM(BPF_AND, REG_A, 0xf));
	emit(c->e, BPF_ALU32_IMM(BPF_LSH, REG_A, 2));
	emit(c->e, BPF_MOV32_REG(REG_X, REG_A));
	if (keep_a)
		emit(c->e, BPF_MOV64_REG(REG_A, REG_TMP));
}

static void emit_ldx(struct cbpf *c, const struct sock_filter *s, bool keep_a)
{
	switch (BPF_MODE(s->code)) {
	case BPF_IMM:
		emit(c->e, BPF_MOV32_IMM(REG_X, s->k));
		break;
	case BPF_LEN:
		frame_length(c->e, REG_X);
		frame_add_unseen(c->e, REG_X, REG_TMP);
		break;
	case BPF_MEM:
		emit(c->e, BPF_LDX_MEM(mem_size(c), REG_X, REG_FP, mem_off(c, s->k)));
		break;
	default:
		emit_msh(c, s, keep_a);
		break;
	}
}

static void emit_alu(struct cbpf *c, const struct sock_filter *s)
{
	int op = BPF_OP(s->code);

	if (op == BPF_NEG) {
		emit(c->e, BPF_ALU32_IMM(BPF_NEG, REG_A, 0));
		return;
	}
	if (BPF_SRC(s->code) == BPF_K) {
		emit(c->e, BPF_ALU32_IMM(op, REG_A, s->k));
		return;
	}
	if (op == BPF_DIV || op == BPF_MOD)	/* classic returns 0 */
		emit_jump(c->e, BPF_JMP_IMM(BPF_JEQ, REG_X, 0, 0), &c->reject);
	emit(c->e, BPF_ALU32_REG(op, REG_A, REG_X));
}

/* Compare A with the operand of s by eBPF jump op, to destination d. */
static void cond_jump(struct cbpf *c, const struct sock_filter *s, int op, int d, bool known)
{
	struct bpf_insn j;

	if (BPF_SRC(s->code) == BPF_X) {
		j = BPF_JMP_REG(op, REG_A, REG_X, 0);
	} else if ((__s32)s->k >= 0) {
		j = BPF_JMP_IMM(op, REG_A, s->k, 0);
	} else {
		emit(c->e, BPF_MOV32_IMM(REG_TMP, s->k));	/* zero-extends */
		j = BPF_JMP_REG(op, REG_A, REG_TMP, 0);
	}
	emit_jump(c->e, j, list_of(c, d, known));
}

static int inverse(int op)
{
	switch (op) {
	case BPF_JEQ:
		return BPF_JNE;
	case BPF_JGT:
		return BPF_JLE;
	case BPF_JGE:
		return BPF_JLT;
	default:
		return -1;	/* BPF_JSET */
	}
}

static void emit_jmp(struct cbpf *c, unsigned int i)
{
	const struct sock_filter *s = &c->f[i];
	int dt, df, op = BPF_OP(s->code);
	bool kt, kf;

	if (op == BPF_JA) {
		goto_dest(c, i, dest(c, i + 1 + s->k), edge_knows(c, i, 0));
		return;
	}
	dt = dest(c, i + 1 + s->jt);
	df = dest(c, i + 1 + s->jf);
	kt = dt == DEST_ACCEPT && edge_knows(c, i, 0);
	kf = df == DEST_ACCEPT && edge_knows(c, i, 1);
	if (dt == df && kt == kf) {
		goto_dest(c, i, dt, kt);
	} else if (falls(c, i, dt) && inverse(op) >= 0 && !kt) {
		c->other |= dt == DEST_ACCEPT;
		cond_jump(c, s, inverse(op), df, kf);
	} else {
		cond_jump(c, s, op, dt, kt);
		goto_dest(c, i, df, kf);
	}
}

static void emit_ret(struct cbpf *c, unsigned int i)
{
	const struct sock_filter *s = &c->f[i];

	if (BPF_RVAL(s->code) == BPF_A) {
		emit_jump(c->e, BPF_JMP_IMM(BPF_JEQ, REG_A, 0, 0), &c->reject);
		goto_dest(c, i, DEST_ACCEPT, edge_knows(c, i, 0));
		return;
	}
	goto_dest(c, i, s->k ? DEST_ACCEPT : DEST_REJECT, s->k && edge_knows(c, i, 0));
}

static void emit_insn(struct cbpf *c, unsigned int i)
{
	const struct sock_filter *s = &c->f[i];

	switch (BPF_CLASS(s->code)) {
	case BPF_LD:
		emit_ld(c, s);
		break;
	case BPF_LDX:
		emit_ldx(c, s, c->s[i].msh_keeps_a);
		break;
	case BPF_ST:
		emit(c->e, BPF_STX_MEM(mem_size(c), REG_FP, REG_A, mem_off(c, s->k)));
		break;
	case BPF_STX:
		emit(c->e, BPF_STX_MEM(mem_size(c), REG_FP, REG_X, mem_off(c, s->k)));
		break;
	case BPF_ALU:
		emit_alu(c, s);
		break;
	case BPF_JMP:
		emit_jmp(c, i);
		break;
	case BPF_RET:
		emit_ret(c, i);
		break;
	default:
		if (BPF_MISCOP(s->code) == BPF_TAX)
			emit(c->e, BPF_MOV32_REG(REG_X, REG_A));
		else
			emit(c->e, BPF_MOV32_REG(REG_A, REG_X));
		break;
	}
}

/* Classic starts with A = X = 0; the verifier wants stack written first. */
static void emit_prologue(struct cbpf *c)
{
	unsigned int k;

	if (c->need & S_A)
		emit(c->e, BPF_MOV32_IMM(REG_A, 0));
	if (c->need & S_X)
		emit(c->e, BPF_MOV32_IMM(REG_X, 0));
	for (k = 0; k < MEMWORDS; k++)
		if (c->need & S_M(k))
			emit(c->e, BPF_ST_MEM(mem_size(c), REG_FP, mem_off(c, k), 0));
}

static int emit_all(struct cbpf *c, int *reject)
{
	unsigned int i;

	flow(c);
	/*
	 * libpcap's optimizer does not always see it: "udp and (-(11585) <=
	 * 2666625364)" ends in "jgt #0x9ef17954 jt 12 jf 12", both branches
	 * to "ret #0".  The code after the filter would be unreachable, which
	 * the verifier refuses.  Say what libpcap says when it sees it.
	 */
	if (!c->accepts)
		return fail(c, -1, "expression rejects all packets");
	emit_prologue(c);
	for (i = 0; i < c->n; i++) {
		if (!c->s[i].reach)
			continue;
		emit_patch_here(c->e, c->s[i].list);
		c->e->held = c->s[i].held;
		c->e->base_align = c->s[i].x_align;
		c->e->base_lim = c->s[i].x_lim;
		emit_insn(c, i);
	}
	c->e->held = 0;
	c->e->base_align = 0;
	c->e->base_lim = 0;
	emit_patch_here(c->e, c->accept);
	if (c->e->err == -E2BIG)
		fail(c, -1, "program too large (over %d eBPF instructions)",
		     EMIT_MAX_INSNS);
	else if (c->e->err)
		fail(c, -1, "%s", strerror(-c->e->err));
	if (c->e->err)
		return c->e->err;
	emit_concat(c->e, reject, c->reject);
	return 0;
}

int cbpf_translate_split(struct emit *e, const struct sock_filter *f, unsigned int n,
			 enum frame_mode mode, int len_reg, int keep_going, int *reject,
			 const struct cbpf_facts *want, int *known, int *other, char *err,
			 size_t errlen)
{
	struct cbpf c = {
		.e = e, .f = f, .n = n, .accept = NO_JUMP, .reject = NO_JUMP,
		.mode = mode, .len_reg = len_reg, .keep_going = keep_going,
		.err = err, .errlen = errlen, .want = want, .accept_known = NO_JUMP,
	};
	struct fstate acc = { 0 };
	int ret = check(&c);

	if (ret)
		return ret;
	c.s = calloc(n, sizeof(*c.s));
	if (want && want->n)
		c.fs = facts_flow(&c, &acc);
	if (!c.s || (want && want->n && !c.fs)) {
		free(c.s);
		fail(&c, -1, "out of memory");
		return -ENOMEM;
	}
	ret = emit_all(&c, reject);
	free(c.fs);
	free(c.s);
	if (!ret && known)
		emit_concat(e, known, c.accept_known);
	if (other)
		*other = c.other;
	return ret;
}

int cbpf_translate(struct emit *e, const struct sock_filter *f, unsigned int n,
		   enum frame_mode mode, int len_reg, int keep_going, int *reject, char *err,
		   size_t errlen)
{
	return cbpf_translate_split(e, f, n, mode, len_reg, keep_going, reject, NULL, NULL,
				    NULL, err, errlen);
}
