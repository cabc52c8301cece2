// SPDX-License-Identifier: GPL-2.0
/* Reading the frame: the window on the stack, LD_ABS, or the packet; see frame.h. */
#include <limits.h>
#include <stddef.h>
#include <linux/bpf.h>

#include "frame.h"

#define FP BPF_REG_10
#define CTX BPF_REG_6

static const int bytes_of[] = { [BPF_W] = 4, [BPF_H] = 2, [BPF_B] = 1 };

int frame_size(int n)
{
	return n == 4 ? BPF_W : n == 2 ? BPF_H : BPF_B;
}

/* Offsets held in registers are those of the network header or after. */
#define REG_BASE_ALIGN 14

/*
 * FRAME_DIRECT: the largest packet offset read through a register; the
 * verifier wants the offset bounded, and a packet's linear part is below
 * 64 KiB.
 */
#define DIRECT_MAX_OFF 0xff00

void frame_length(struct emit *e, int reg)
{
	emit(e, BPF_LDX_MEM(BPF_W, reg, CTX, offsetof(struct __sk_buff, len)));
	if (e->cooked)
		emit(e, BPF_ALU64_IMM(BPF_ADD, reg, FRAME_COOKED_HLEN));
}

/* r0 = the EtherType of a cooked frame's header, in host order */
static void cooked_etype(struct emit *e)
{
	emit(e, BPF_LDX_MEM(BPF_W, BPF_REG_0, CTX, offsetof(struct __sk_buff, protocol)));
	emit(e, BPF_ENDIAN_BE(BPF_REG_0, 16));
}

void frame_copy(struct emit *e, int len_reg, int win_len)
{
	int hlen = e->cooked ? FRAME_COOKED_HLEN : 0;

	/* a cooked frame's header: zeros, then the EtherType */
	if (e->cooked) {
		emit(e, BPF_ST_MEM(BPF_H, FP, FRAME_WIN_OFF, 0));
		emit(e, BPF_ST_MEM(BPF_DW, FP, FRAME_WIN_OFF + 2, 0));
		emit(e, BPF_ST_MEM(BPF_H, FP, FRAME_WIN_OFF + 10, 0));
		emit(e, BPF_LDX_MEM(BPF_W, BPF_REG_0, CTX, offsetof(struct __sk_buff, protocol)));
		emit(e, BPF_STX_MEM(BPF_H, FP, BPF_REG_0, FRAME_WIN_OFF + 12));
	}
	/*
	 * r4 = min(length, win_len), at least 1: an empty frame makes the
	 * helper fail and zero one byte, but every path writes the window,
	 * which verifiers before "bpf: Allow reads from uninit stack" need.
	 */
	emit(e, BPF_MOV64_REG(BPF_REG_4, len_reg));
	if (hlen)
		emit(e, BPF_ALU64_IMM(BPF_SUB, BPF_REG_4, hlen));
	/* (a cooked length less its header can be below 1: signed) */
	emit(e, BPF_JMP_IMM(hlen ? BPF_JSLE : BPF_JLE, BPF_REG_4, win_len - hlen, 1));
	emit(e, BPF_MOV64_IMM(BPF_REG_4, win_len - hlen));
	emit(e, BPF_JMP_IMM(hlen ? BPF_JSGE : BPF_JGE, BPF_REG_4, 1, 1));
	emit(e, BPF_MOV64_IMM(BPF_REG_4, 1));
	emit(e, BPF_MOV64_REG(BPF_REG_1, CTX));
	emit(e, BPF_MOV64_IMM(BPF_REG_2, 0));
	emit(e, BPF_MOV64_REG(BPF_REG_3, FP));
	emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, FRAME_WIN_OFF + hlen));
	emit(e, BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes));
}

static void ld_abs(struct emit *e, int size, int base, int off)
{
	if (base < 0 && frame_skb_off(e, off) < 0) {
		/* a cooked frame's EtherType: H at 12, or a byte of it */
		cooked_etype(e);
		if (size == BPF_B && off == 12)
			emit(e, BPF_ALU32_IMM(BPF_RSH, BPF_REG_0, 8));
		else if (size == BPF_B)
			emit(e, BPF_ALU32_IMM(BPF_AND, BPF_REG_0, 0xff));
		return;
	}
	if (base < 0)
		emit(e, INSN(BPF_LD | size | BPF_ABS, 0, 0, 0, frame_skb_off(e, off)));
	else
		emit(e, INSN(BPF_LD | size | BPF_IND, 0, base, 0, frame_skb_off(e, off)));
}

/*
 * FRAME_DIRECT: r2 = the packet's address of frame offset base + *at
 * (base < 0: the packet's start, *at left for the load's offset while it
 * fits one), when its linear part holds reach bytes from r2 + *at; else to
 * *fail.  *at becomes the offset to read at from r2.  Clobbers r1, r3.
 */
static void direct_ptr(struct emit *e, int base, int *at, int reach, int *fail)
{
	emit(e, BPF_LDX_MEM(BPF_W, BPF_REG_2, CTX, offsetof(struct __sk_buff, data)));
	if (base >= 0) {
		/* r2 += base + *at, which the verifier must see bounded */
		emit(e, BPF_MOV64_REG(BPF_REG_1, base));
		if (*at)
			emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, *at));
		emit_jump(e, BPF_JMP_IMM(BPF_JGT, BPF_REG_1, DIRECT_MAX_OFF, 0), fail);
		emit(e, BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_1));
		*at = 0;
	} else if (*at > SHRT_MAX - reach) {
		/* past the 16-bit offset of a load: the pointer moves there */
		emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, *at));
		*at = 0;
	}
	emit(e, BPF_LDX_MEM(BPF_W, BPF_REG_3, CTX, offsetof(struct __sk_buff, data_end)));
	emit(e, BPF_MOV64_REG(BPF_REG_1, BPF_REG_2));
	emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, *at + reach));
	emit_jump(e, BPF_JMP_REG(BPF_JGT, BPF_REG_1, BPF_REG_3, 0), fail);
}

/*
 * FRAME_DIRECT: r0 = the size bytes at frame offset base + off (base < 0:
 * at off), in host order, straight from the packet; to *slow when they do
 * not lie in its linear part.  Clobbers r1-r3.
 */
static void direct_load(struct emit *e, int size, int base, int off, int *slow)
{
	int n = bytes_of[size], at = frame_skb_off(e, off);

	direct_ptr(e, base, &at, n, slow);
	emit(e, BPF_LDX_MEM(size, BPF_REG_0, BPF_REG_2, at));
	if (n > 1)
		emit(e, BPF_ENDIAN_BE(BPF_REG_0, 8 * n));
}

/* FRAME_DIRECT: where frame_direct_base() stores its addresses. */
#define DIRECT_SLOT(i) (FRAME_WIN_OFF + 2 + 8 * (i))
_Static_assert(DIRECT_SLOT(0) % 8 == 0 && DIRECT_SLOT(3) <= FRAME_WIN_OFF + FRAME_WIN_LEN,
	       "the stored addresses lie in the window, 8-byte aligned");

/* The slot of base's address, or a free one; -1 if none is left. */
static int direct_index(const struct emit *e, int base)
{
	int i;

	for (i = 0; i < 3 && e->direct[i].extent && e->direct[i].base != base; i++)
		;
	return i < 3 ? i : -1;
}

void frame_direct_base(struct emit *e, int base, int extent)
{
	int at = frame_skb_off(e, 0), none = NO_JUMP, done = NO_JUMP, i = direct_index(e, base);

	if (i < 0)
		return;
	/* the frame's start does not move: an address stored for as much serves */
	if (base < 0 && e->direct[i].extent >= extent && e->direct[i].base == base)
		return;
	e->direct[i].extent = 0;
	if (extent <= 0 || extent > 0xff || (base < 0 && at < 0))
		return;
	direct_ptr(e, base, &at, extent, &none);
	emit(e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_2, DIRECT_SLOT(i)));
	emit_jump(e, BPF_JMP_A(0), &done);
	emit_patch_here(e, none);
	emit(e, BPF_ST_MEM(BPF_DW, FP, DIRECT_SLOT(i), 0));
	emit_patch_here(e, done);
	e->direct[i].base = base;
	e->direct[i].extent = extent;
}

/* The slot of an address stored for base that reaches off + n, or 0. */
static int direct_slot(const struct emit *e, int base, int off, int n)
{
	int i;

	for (i = 0; i < 3; i++)
		if (e->direct[i].extent && e->direct[i].base == base && off >= 0 &&
		    off + n <= e->direct[i].extent)
			return DIRECT_SLOT(i);
	return 0;
}

void frame_direct_start(struct emit *e, int reg, int extent, int *fail)
{
	int slot = direct_slot(e, -1, 0, extent), at = 0, done = NO_JUMP;
	int i = direct_index(e, -1);

	if (slot) {
		emit(e, BPF_LDX_MEM(BPF_DW, reg, FP, slot));
		if (e->direct[i].extent == extent) {
			emit_jump(e, BPF_JMP_IMM(BPF_JEQ, reg, 0, 0), fail);
			return;
		}
		/* stored for more bytes: a shorter linear part may hold these */
		emit_jump(e, BPF_JMP_IMM(BPF_JNE, reg, 0, 0), &done);
	}
	direct_ptr(e, -1, &at, extent, fail);
	emit(e, BPF_MOV64_REG(reg, BPF_REG_2));
	emit_patch_here(e, done);
}

void frame_direct_fast(struct emit *e, int reg, int extent, int *fail, int *unfit)
{
	int i = direct_index(e, -1), at = 0;

	if (direct_slot(e, -1, 0, extent) || i < 0 || extent > 0xff) {
		frame_direct_start(e, reg, extent, fail);
		return;
	}
	direct_ptr(e, -1, &at, extent, unfit);
	emit(e, BPF_STX_MEM(BPF_DW, FP, BPF_REG_2, DIRECT_SLOT(i)));
	emit(e, BPF_MOV64_REG(reg, BPF_REG_2));
	e->direct[i].base = -1;
	e->direct[i].extent = extent;
}

void frame_direct_unfit(struct emit *e, int unfit)
{
	int i = direct_index(e, -1);

	if (unfit == NO_JUMP || i < 0)
		return;
	emit_patch_here(e, unfit);
	emit(e, BPF_ST_MEM(BPF_DW, FP, DIRECT_SLOT(i), 0));
}

/* FRAME_DIRECT: a direct read, or LD_ABS/LD_IND past the linear part. */
static void direct_or_abs(struct emit *e, int size, int base, int off)
{
	int slow = NO_JUMP, done = NO_JUMP, n = bytes_of[size];
	int slot = direct_slot(e, base, off, n);

	if (base < 0 && frame_skb_off(e, off) < 0) {	/* a cooked frame's header */
		ld_abs(e, size, base, off);
		return;
	}
	if (slot) {	/* else, or when it holds 0, the read's own check */
		int own = NO_JUMP;

		emit(e, BPF_LDX_MEM(BPF_DW, BPF_REG_2, FP, slot));
		emit_jump(e, BPF_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 0), &own);
		emit(e, BPF_LDX_MEM(size, BPF_REG_0, BPF_REG_2, off));
		if (n > 1)
			emit(e, BPF_ENDIAN_BE(BPF_REG_0, 8 * n));
		emit_jump(e, BPF_JMP_A(0), &done);
		emit_patch_here(e, own);
	}
	direct_load(e, size, base, off, &slow);
	emit_jump(e, BPF_JMP_A(0), &done);
	emit_patch_here(e, slow);
	ld_abs(e, size, base, off);
	emit_patch_here(e, done);
}

/* The register that holds the window address of frame offset base + 0,
 * and the offset of off from it. */
static int window_ptr(int base, int off, int *at)
{
	*at = base < 0 ? FRAME_WIN_OFF + off : off;
	return base < 0 ? FP : base;
}

void frame_window_base(struct emit *e, int reg)
{
	emit(e, BPF_MOV64_REG(BPF_REG_1, FP));
	emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, FRAME_WIN_OFF));
	emit(e, BPF_ALU64_REG(BPF_ADD, reg, BPF_REG_1));
}

/* r0 = the bytes at ptr + off one by one, most significant first */
static void load_bytes(struct emit *e, int ptr, int off, int n)
{
	int i;

	emit(e, BPF_LDX_MEM(BPF_B, BPF_REG_0, ptr, off));
	for (i = 1; i < n; i++) {
		emit(e, BPF_LDX_MEM(BPF_B, BPF_REG_2, ptr, off + i));
		emit(e, BPF_ALU32_IMM(BPF_LSH, BPF_REG_0, 8));
		emit(e, BPF_ALU32_REG(BPF_OR, BPF_REG_0, BPF_REG_2));
	}
}

/* r0 = n bytes of the window at ptr + off, aligned to n or not; net:
 * left in network order */
static void load_window(struct emit *e, int size, int ptr, int off, int is_aligned, int net)
{
	int n = bytes_of[size];

	if (!is_aligned) {
		load_bytes(e, ptr, off, n);
		if (net && n > 1)
			emit(e, BPF_ENDIAN_BE(BPF_REG_0, 8 * n));
		return;
	}
	emit(e, BPF_LDX_MEM(size, BPF_REG_0, ptr, off));
	if (!net && n > 1)
		emit(e, BPF_ENDIAN_BE(BPF_REG_0, 8 * n));
}

/* Is the window address of frame offset base + off aligned to size? */
static int aligned(int size, int base, int off)
{
	return (FRAME_WIN_OFF + off + (base < 0 ? 0 : REG_BASE_ALIGN)) % bytes_of[size] == 0;
}

/* Is the window address of frame offset X + off aligned to n (e->base_align)? */
static int x_aligned(const struct emit *e, int n, int off)
{
	return e->base_align && e->base_align % n == 0 && (FRAME_WIN_OFF + off) % n == 0;
}

void frame_load(struct emit *e, enum frame_mode mode, int size, int base, int off)
{
	int at, ptr;

	if (mode == FRAME_LD_ABS) {
		ld_abs(e, size, base, off);
		return;
	}
	if (mode == FRAME_DIRECT) {
		direct_or_abs(e, size, base, off);
		return;
	}
	ptr = window_ptr(base, off, &at);
	load_window(e, size, ptr, at, aligned(size, base, off), 0);
}

void frame_load_net(struct emit *e, int size, int base, int off)
{
	int at, ptr = window_ptr(base, off, &at);

	load_window(e, size, ptr, at, aligned(size, base, off), 1);
}

/* The register with the frame length: len_reg, or (< 0) r3, read from the skb */
static int length_in(struct emit *e, int len_reg)
{
	if (len_reg >= 0)
		return len_reg;
	frame_length(e, BPF_REG_3);
	return BPF_REG_3;
}

/* Past the frame's end (length in len_reg), n bytes at base + off: *reject. */
static void check_end(struct emit *e, int base, int off, int n, int len_reg, int *reject)
{
	/* the length facts (e->held) cover it; a base below e->base_lim too */
	if (off < 0 || (base < 0 && (unsigned int)off + n <= e->held) ||
	    (base >= 0 && e->base_lim && e->base_lim - 1 + off + n <= e->held))
		return;
	len_reg = length_in(e, len_reg);
	if (off > INT_MAX - n) {	/* past any frame, and past an imm32 */
		emit_jump(e, BPF_JMP_A(0), reject);
		return;
	}
	if (base < 0) {
		emit_jump(e, BPF_JMP_IMM(BPF_JLT, len_reg, off + n, 0), reject);
		return;
	}
	/* base: classic BPF's X, 32 bits: no 64-bit sum overflows */
	emit(e, BPF_MOV64_REG(BPF_REG_1, base));
	emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, off + n));
	emit_jump(e, BPF_JMP_REG(BPF_JGT, BPF_REG_1, len_reg, 0), reject);
}

/*
 * FRAME_DIRECT with the frame's start in e->start.reg: r0 = a read it
 * covers, in host order, and 1; an indexed one goes to *other when the
 * linear part does not hold it; 0 when the read lies past the extent.
 */
static int start_load(struct emit *e, int size, int base, int off, int *other)
{
	int n = bytes_of[size], reach = e->start.extent - off - n;

	if (reach < 0)
		return 0;
	if (base < 0) {
		emit(e, BPF_LDX_MEM(size, BPF_REG_0, e->start.reg, off));
	} else {
		/*
		 * r2 = start + X: a variable offset leaves the verifier no
		 * range for r2, so it is checked against data_end itself;
		 * X bounded first, unless known small (e->base_lim)
		 */
		if (!e->base_lim || e->base_lim - 1 > DIRECT_MAX_OFF) {
			emit(e, BPF_MOV64_REG(BPF_REG_1, base));
			emit_jump(e, BPF_JMP_IMM(BPF_JGT, BPF_REG_1, DIRECT_MAX_OFF, 0), other);
		}
		emit(e, BPF_MOV64_REG(BPF_REG_2, e->start.reg));
		emit(e, BPF_ALU64_REG(BPF_ADD, BPF_REG_2, base));
		emit(e, BPF_LDX_MEM(BPF_W, BPF_REG_3, CTX, offsetof(struct __sk_buff, data_end)));
		emit(e, BPF_MOV64_REG(BPF_REG_1, BPF_REG_2));
		emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, off + n));
		emit_jump(e, BPF_JMP_REG(BPF_JGT, BPF_REG_1, BPF_REG_3, 0), other);
		emit(e, BPF_LDX_MEM(size, BPF_REG_0, BPF_REG_2, off));
	}
	if (n > 1)
		emit(e, BPF_ENDIAN_BE(BPF_REG_0, 8 * n));
	return 1;
}

void frame_load_checked(struct emit *e, enum frame_mode mode, int size, int base, int off,
			int len_reg, int keep_going, int *reject)
{
	int n = bytes_of[size], slow = NO_JUMP, done = NO_JUMP;

	if (mode == FRAME_DIRECT && off >= 0 && off <= DIRECT_MAX_OFF) {
		if (e->start.extent && start_load(e, size, base, off, &slow)) {
			if (slow == NO_JUMP)
				return;
			emit_jump(e, BPF_JMP_A(0), &done);
			emit_patch_here(e, slow);
		}
		check_end(e, base, off, n, len_reg, reject);
		direct_or_abs(e, size, base, off);
		emit_patch_here(e, done);
		return;
	}
	if (mode != FRAME_WINDOW || off < 0 || (base < 0 && off > FRAME_WIN_LEN - n)) {
		if (keep_going)
			check_end(e, base, off, n, len_reg, reject);
		ld_abs(e, size, base, off);
		return;
	}
	if (base < 0) {
		if ((unsigned int)off + n > e->held)
			emit_jump(e, BPF_JMP_IMM(BPF_JLT, len_reg, off + n, 0), reject);
		load_window(e, size, FP, FRAME_WIN_OFF + off, aligned(size, base, off), 0);
		return;
	}
	/*
	 * A base known small enough (e->base_lim, as the verifier knows it
	 * too) reads in the window wherever it is: past the end, reject.
	 */
	if (e->base_lim && off <= FRAME_WIN_LEN - n &&
	    e->base_lim - 1 <= (unsigned int)(FRAME_WIN_LEN - n - off)) {
		check_end(e, base, off, n, len_reg, reject);
		/* the address stays in the window (the engine types it by it) */
		emit(e, BPF_MOV64_REG(BPF_REG_3, FP));
		emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, FRAME_WIN_OFF));
		emit(e, BPF_ALU64_REG(BPF_ADD, BPF_REG_3, base));
		load_window(e, size, BPF_REG_3, off, x_aligned(e, n, off), 0);
		return;
	}
	/* r1 = base + off; past the window: LD_IND; past the end: reject */
	emit(e, BPF_MOV64_REG(BPF_REG_1, base));
	emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, off));
	emit_jump(e, BPF_JMP_IMM(BPF_JGT, BPF_REG_1, FRAME_WIN_LEN - n, 0), &slow);
	emit(e, BPF_MOV64_REG(BPF_REG_2, BPF_REG_1));
	emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, n));
	emit_jump(e, BPF_JMP_REG(BPF_JGT, BPF_REG_2, len_reg, 0), reject);
	emit(e, BPF_MOV64_REG(BPF_REG_3, FP));
	emit(e, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, FRAME_WIN_OFF));
	emit(e, BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_1));
	/* one load when the verifier can tell the address is aligned to it */
	load_window(e, size, BPF_REG_3, 0, x_aligned(e, n, off), 0);
	emit_jump(e, BPF_JMP_A(0), &done);
	emit_patch_here(e, slow);
	if (keep_going)
		check_end(e, base, off, n, len_reg, reject);
	ld_abs(e, size, base, off);
	emit_patch_here(e, done);
}

void frame_copy_out(struct emit *e, int base, int off, int dst, int n)
{
	int align = FRAME_WIN_OFF + off + (base < 0 ? 0 : REG_BASE_ALIGN), src;
	int ptr = window_ptr(base, off, &src);

	while (n > 0) {
		int size = BPF_W;

		if (n < 4 || align % 4 || dst % 4)
			size = n >= 2 && align % 2 == 0 && dst % 2 == 0 ? BPF_H : BPF_B;
		emit(e, BPF_LDX_MEM(size, BPF_REG_0, ptr, src));
		emit(e, BPF_STX_MEM(size, FP, BPF_REG_0, dst));
		src += bytes_of[size];
		align += bytes_of[size];
		dst += bytes_of[size];
		n -= bytes_of[size];
	}
}

void frame_add_unseen(struct emit *e, int reg, int tmp)
{
	if (e->live)
		return;
	emit(e, BPF_LDX_MEM(BPF_W, tmp, CTX, offsetof(struct __sk_buff, cb[0])));
	emit(e, BPF_ALU32_REG(BPF_ADD, reg, tmp));
}
