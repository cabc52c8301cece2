/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Classic BPF (as pcap_compile() emits it for DLT_EN10MB) to eBPF.
 *
 * Register use of the emitted code: A is R0, X is R7, R8 is scratch (and
 * keeps A across the load of BPF_LDX|BPF_MSH); R6 holds the context
 * (struct __sk_buff *) on entry and is preserved, as LD_ABS/LD_IND need.
 * R0-R5, R7 and R8 are clobbered.  Classic scratch memory M[k] lives in
 * the stack at CBPF_MEM_OFF + 4 * k.  Packet loads go through frame.h.
 */
#ifndef EBPFCOUNT_CBPF_H
#define EBPFCOUNT_CBPF_H

#include <stddef.h>
#include <linux/filter.h>

#include "emit.h"
#include "frame.h"

/*
 * The caller keeps [CBPF_MEM_OFF, 0) of the stack free for M[0..15], 32
 * bits each; in FRAME_LD_ABS mode [CBPF_MEM8_OFF, 0), a 64-bit slot each
 * (see mem_off() in cbpf.c).
 */
#define CBPF_MEM_OFF (-64)
#define CBPF_MEM8_OFF (-128)

/*
 * Append the translation of classic program f[0..n) to e.  Accepted
 * packets (RET #k with k != 0, RET A with A != 0) fall through to the
 * code emitted next; rejected ones jump to the patch list *reject, which
 * the caller patches (jumps are appended to whatever *reject holds).
 * A load beyond the packet end rejects the packet, as in classic BPF:
 * in FRAME_WINDOW mode the caller has copied the window (frame_copy());
 * the frame length is in len_reg, which is preserved; an LD_ABS past the
 * end ends the program with return 0, unless keep_going (a where clause
 * with more to count after it): then it jumps to *reject, and len_reg
 * must hold the length in FRAME_LD_ABS mode too.
 *
 * Returns 0, or a negative errno with a one-line message in err: -EINVAL
 * for a program that is malformed or uses what eBPF cannot express here
 * (then nothing has been emitted), e->err when the buffer failed.
 */
int cbpf_translate(struct emit *e, const struct sock_filter *f, unsigned int n,
		   enum frame_mode mode, int len_reg, int keep_going, int *reject, char *err,
		   size_t errlen);

/*
 * What every accepted packet is known to hold: (the size bytes at frame
 * offset off, in host order) & mask == value, for the tests the filter
 * made on every path to an accept (a JEQ taken, a JSET not taken, on a
 * value loaded with LD ABS and masked with AND).  The code after the
 * where clause need not test them again.
 */
struct cbpf_fact {
	int size;		/* BPF_B, BPF_H, BPF_W */
	__u32 off, mask, value;
};

#define CBPF_MAX_FACTS 8

struct cbpf_facts {
	int n;
	struct cbpf_fact f[CBPF_MAX_FACTS];
};

/*
 * The facts of classic program f[0..n), which cbpf_translate() takes;
 * none (n = 0) for one it does not, or on no memory.
 */
void cbpf_facts(const struct sock_filter *f, unsigned int n, struct cbpf_facts *facts);

/*
 * cbpf_translate(), but the accepts whose path has tested all of want
 * (not NULL) jump to the patch list *known; the others fall through, and
 * *other says whether there are any (else the code after is unreachable).
 */
int cbpf_translate_split(struct emit *e, const struct sock_filter *f, unsigned int n,
			 enum frame_mode mode, int len_reg, int keep_going, int *reject,
			 const struct cbpf_facts *want, int *known, int *other, char *err,
			 size_t errlen);

/* Does facts hold that (the size bytes at off) & mask == value? */
int cbpf_known(const struct cbpf_facts *facts, int size, __u32 off, __u32 mask, __u32 value);

#endif
