/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a program reads the frame: the code generator's key fields and the
 * translated where clause both read it through here.
 *
 * Stock kernels do not let socket filters read packet data directly.  Each
 * LD_ABS/LD_IND calls a helper, so the program instead copies the frame's
 * first FRAME_WIN_LEN bytes to the stack once, with bpf_skb_load_bytes(),
 * and reads the copy, the "window" (FRAME_WINDOW).  A read at an offset
 * held in a register is a variable-offset stack access, which the verifier
 * allows only with CAP_PERFMON (or CAP_SYS_ADMIN); without it,
 * FRAME_LD_ABS programs read with LD_ABS/LD_IND instead.
 *
 * Where the kernel lets a privileged socket filter read __sk_buff->data
 * and data_end (kernel-patches/), FRAME_DIRECT programs read each value
 * straight from the packet after a bounds check against data_end, and with
 * LD_ABS/LD_IND when the bytes lie past the linear part of the skb: the
 * same bytes either way, so the counts do not depend on how the skb is
 * laid out.  Registers then hold frame offsets, as with LD_ABS.  An
 * offset in a register takes CAP_PERFMON here too.
 *
 * The window starts 2 bytes past a 4-byte boundary, so that the network
 * header of an untagged or single-tagged frame, and the transport header
 * after it, are 4-byte aligned: the verifier wants aligned stack reads.
 */
#ifndef EBPFCOUNT_FRAME_H
#define EBPFCOUNT_FRAME_H

#include "emit.h"

enum frame_mode { FRAME_WINDOW, FRAME_LD_ABS, FRAME_DIRECT };

/*
 * A cooked frame (e->cooked, for -i any): the socket shows each packet
 * from its network header on.  The program reads it as though an Ethernet
 * header came first, all zeros but for the EtherType (skb->protocol): a
 * frame offset is the packet's offset plus FRAME_COOKED_HLEN, and the
 * frame length the packet's plus as much.  Only the EtherType of that
 * header is read (the builder refuses the addresses).
 */
#define FRAME_COOKED_HLEN 14

/* The packet offset of frame offset off. */
static inline int frame_skb_off(const struct emit *e, int off)
{
	return e->cooked ? off - FRAME_COOKED_HLEN : off;
}

/* reg = the frame's length (r6 the skb). */
void frame_length(struct emit *e, int reg);

enum {
	FRAME_WIN_OFF = -354,	/* the window, from r10 */
	FRAME_WIN_LEN = 96,	/* bytes of the window */
};

/*
 * Copy the frame's first min(length, win_len) bytes to the window, where
 * win_len <= FRAME_WIN_LEN, and FRAME_WIN_LEN if frame_load_checked()
 * reads it; the frame length is in len_reg, the skb in r6.  The bytes
 * past the frame's end are left as they were (zero for an empty frame).
 * Clobbers r0-r5.
 */
void frame_copy(struct emit *e, int len_reg, int win_len);

/*
 * r0 = the size (BPF_B, BPF_H, BPF_W) bytes at frame offset base + off
 * (base < 0: at off), in host order.  The caller has checked that the
 * frame holds them and, in FRAME_WINDOW mode, that they lie in the window.
 * A register base holds the frame offset in FRAME_LD_ABS and FRAME_DIRECT
 * modes and its window address in FRAME_WINDOW mode (frame_window_base());
 * the offset is that of the network header or of one after it, 2 more
 * than a multiple of 4 (14, 18, 14 + 4k), as the verifier must be able to
 * tell.  Clobbers r1-r5.
 */
void frame_load(struct emit *e, enum frame_mode mode, int size, int base, int off);

/* The same in FRAME_WINDOW mode, the bytes left in network order. */
void frame_load_net(struct emit *e, int size, int base, int off);

/* reg, a frame offset, becomes its window address.  Clobbers r1. */
void frame_window_base(struct emit *e, int reg);

/*
 * FRAME_DIRECT: one bounds check for the reads of a layer.  Store on the
 * stack (in the window's place, which this mode does not use) the
 * packet's address of frame offset base (base < 0: the frame's start)
 * when the linear part holds extent bytes from there, else 0; until the
 * next call for base, frame_load() and frame_load_checked() read base +
 * off, off + size <= extent, through it: a load of the address, a test
 * and the read, or LD_ABS/LD_IND when it is 0.  The caller must not change
 * base's register while the keys read through it.  Up to three bases;
 * none for a cooked frame's start.  Clobbers r1-r3.
 */
void frame_direct_base(struct emit *e, int base, int extent);

/*
 * FRAME_DIRECT, for a fast path: reg = the packet's address of the
 * frame's start when the linear part holds extent bytes from there, else
 * to *fail; through the address frame_direct_base() stored when it
 * reaches that far.  Not for a cooked frame.  Clobbers r1-r3.
 */
void frame_direct_start(struct emit *e, int reg, int extent, int *fail);

/*
 * The same, and when it checks afresh, it stores the address for the
 * code after as frame_direct_base(e, -1, extent) would; a frame whose
 * linear part is too short then goes to *unfit, where
 * frame_direct_unfit(), called where that code starts, stores 0 instead.
 */
void frame_direct_fast(struct emit *e, int reg, int extent, int *fail, int *unfit);
void frame_direct_unfit(struct emit *e, int unfit);

/*
 * The same for the translated where clause, with no alignment known and
 * no check made: a read past the frame's end (length in len_reg) jumps to
 * *reject; one past the window or the linear part, or any in FRAME_LD_ABS
 * mode, is an LD_ABS/LD_IND, which ends the program with return 0 past the
 * end, unless keep_going: then it is checked first and jumps to *reject
 * too (a negative offset, an ancillary one, is not checked).
 * len_reg < 0: the length is read from the skb where a check needs it.
 * FRAME_DIRECT with e->start set: the reads it covers (base + off within
 * its extent) are loads from it, with no other check.  Clobbers r1-r5.
 */
void frame_load_checked(struct emit *e, enum frame_mode mode, int size, int base, int off,
			int len_reg, int keep_going, int *reject);

/*
 * Copy n bytes at frame offset base + off (base < 0: at off) to the stack
 * at r10 + dst, which is 4-byte aligned; FRAME_WINDOW mode only, with the
 * same conditions as frame_load().  Clobbers r0.
 */
void frame_copy_out(struct emit *e, int base, int off, int dst, int n);

/*
 * reg += the bytes of the packet that the program does not see, a 32-bit
 * sum: __sk_buff.cb[0] holds them.  On a live socket the kernel clears
 * cb[] before a filter runs, so the frame length is the packet's; the
 * engines set it for a record cut short by a capture's snapshot length
 * (and for a link-layer header other than Ethernet's), so that bytes and
 * frame.len count the packet's original length, as tshark's frame.len.
 * Nothing for a live socket's program (e->live), which then does not read
 * cb[] at all, nor makes the kernel save and clear it per packet.
 * Clobbers tmp.
 */
void frame_add_unseen(struct emit *e, int reg, int tmp);

/* The BPF_B, BPF_H or BPF_W of an n-byte load (n = 1, 2 or 4). */
int frame_size(int n);

#endif
