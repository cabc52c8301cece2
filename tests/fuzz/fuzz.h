/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzz targets share: reading the fuzz input, frames (a few built
 * from craft specs, and ones derived from the input), classic programs
 * translated and run in the engine, and the places where libpcap and Linux
 * differ.
 * Each target is one file that includes this one (static functions only).
 */
#ifndef EBPFCOUNT_FUZZ_H
#define EBPFCOUNT_FUZZ_H

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netdb.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>

#include "cbpf.h"
#include "emit.h"
#include "filter.h"
#include "spec.h"
#include "vm.h"

#define FRAME_MAX	512

/* A finding: say what, and abort() so that libFuzzer keeps the input. */
static __attribute__((format(printf, 1, 2), noreturn)) void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FINDING: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/*
 * A smaller quarantine than ASan's 256 MB: freed memory is reused while
 * still in the cache, for a third more inputs a second.
 */
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=16";
}

/*
 * libpcap resolves names in filters (`host foo`, a bare `foo`) with
 * getaddrinfo(): keep the targets off the network, numeric addresses only.
 */
int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		struct addrinfo **res)
{
	static int (*real)(const char *, const char *, const struct addrinfo *,
			   struct addrinfo **);
	struct addrinfo h = { 0 };

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "getaddrinfo");
	if (!real)
		return EAI_FAIL;
	if (hints)
		h = *hints;
	h.ai_flags |= AI_NUMERICHOST | AI_NUMERICSERV;
	return real(node, service, &h, res);
}

/* ---- the input ---- */

struct in {
	const uint8_t *p;
	size_t n;
};

static inline unsigned int in_u8(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline unsigned int in_u16(struct in *in)
{
	unsigned int v = in_u8(in) << 8;

	return v | in_u8(in);
}

static inline uint32_t in_u32(struct in *in)
{
	uint32_t v = (uint32_t)in_u16(in) << 16;

	return v | in_u16(in);
}

/* ---- frames ---- */

/* Frames as a capture file shows them (VLAN tags inline), craft specs. */
static const char *const frame_specs[] = {
	"tcp4,src=10.0.0.1,dst=198.18.0.1,sport=40000,dport=443",
	"udp4,src=198.19.0.1,dst=10.0.0.1,sport=53,dport=33000,len=54",
	"icmp4,src=10.0.0.1,dst=198.18.0.1,len=50,dmac=ff:ff:ff:ff:ff:ff",
	("tcp4,src=198.18.7.7,dst=10.1.2.3,sport=22,dport=5555,flags=A,ipopts=12,frag=df,"
	 "smac=52:54:00:12:34:01"),
	"tcp4,src=10.0.0.1,dst=198.18.0.1,frag=later,len=42",
	"tcp6,src=2001:db8::1,dst=2001:2::1,sport=50000,dport=443,dmac=33:33:00:00:00:01",
	"udp6,src=2001:db8::3,dst=2001:2::2,sport=1000,dport=53,ext=hop",
	"icmp6,src=2001:db8::1,dst=2001:2::1,len=66",
	"tcp4,vlan=42,src=10.0.0.1,dst=198.18.0.1,sport=40000,dport=443",
	"udp4,svlan=100,vlan=7,src=10.0.0.1,dst=10.0.0.2,sport=1,dport=2,len=54",
	"arp,src=198.18.0.2,dst=198.18.0.1,dmac=ff:ff:ff:ff:ff:ff",
	/* 802.3 LLC: a spanning tree BPDU */
	"raw,etype=38,len=26,dmac=01:80:c2:00:00:00,payload=424203000000000080000200",
};

#define NFRAMES ((int)(sizeof(frame_specs) / sizeof(frame_specs[0])))

struct frame {
	unsigned char data[FRAME_MAX];
	unsigned int len;
};

static struct frame frames[NFRAMES];

static inline void frames_init(void)
{
	char err[256];
	int i, len;

	if (frames[0].len)
		return;
	for (i = 0; i < NFRAMES; i++) {
		len = spec_frame(frame_specs[i], frames[i].data, FRAME_MAX, err, sizeof(err));
		if (len <= 0)
			fuzz_fail("%s", err);
		frames[i].len = len;
	}
}

/*
 * A frame made from the input: a real one with some bytes changed and cut
 * short, or bytes of the input as they are.
 *	u8 which (NFRAMES or more: raw), u8 length (255: the whole frame),
 *	raw: that many bytes; else u8 changes, then u8 offset, u8 value each
 * Returns 0 at the end of the input.
 */
static inline int frame_from(struct in *in, struct frame *f)
{
	unsigned int which, len, n, i;

	if (!in->n)
		return 0;
	which = in_u8(in) % (NFRAMES + 1);
	len = in_u8(in);
	if (which == NFRAMES) {
		f->len = len < in->n ? len : in->n;
		memcpy(f->data, in->p, f->len);
		in->p += f->len;
		in->n -= f->len;
		return 1;
	}
	*f = frames[which];
	for (n = in_u8(in) % 8, i = 0; i < n; i++) {
		unsigned int off = in_u8(in);

		f->data[off % f->len] = in_u8(in);
	}
	if (len < f->len)
		f->len = len;
	return 1;
}

/* ---- classic programs ---- */

static const char *const fuzz_mode_tag[] = {
	[FRAME_WINDOW] = "", [FRAME_LD_ABS] = " (LD_ABS)", [FRAME_DIRECT] = " (direct)",
};

/* FRAME_DIRECT: the bytes of frame i of len outside the skb's linear part
 * (all, half or none of them). */
static inline unsigned int fuzz_nonlinear(int i, unsigned int len)
{
	return i % 3 == 0 ? 0 : i % 3 == 1 ? len - len / 2 : len;
}

/*
 * The classic program f wrapped as a whole program, as tests/unit/test_cbpf.c
 * does: accept 1, reject 0; in FRAME_WINDOW mode after a copy of the
 * window, with the frame length in r9 (FRAME_DIRECT too).  Returns 0, or cbpf_translate()'s error.
 */
static inline int translate(const struct sock_filter *f, unsigned int n, enum frame_mode mode,
		     struct emit *e, char *err, size_t errlen)
{
	int reject = NO_JUMP, ret;

	emit_init(e);
	emit(e, BPF_MOV64_REG(BPF_REG_6, BPF_REG_1));
	if (mode != FRAME_LD_ABS)
		emit(e, BPF_LDX_MEM(BPF_W, BPF_REG_9, BPF_REG_6, offsetof(struct __sk_buff, len)));
	if (mode == FRAME_WINDOW)
		frame_copy(e, BPF_REG_9, FRAME_WIN_LEN);
	ret = cbpf_translate(e, f, n, mode, BPF_REG_9, 0, &reject, err, errlen);
	emit(e, BPF_MOV64_IMM(BPF_REG_0, 1));
	emit(e, BPF_EXIT_INSN());
	emit_patch_here(e, reject);
	emit(e, BPF_MOV64_IMM(BPF_REG_0, 0));
	emit(e, BPF_EXIT_INSN());
	return ret ? ret : e->err;
}

static inline void dump_classic(const struct sock_filter *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		fprintf(stderr, "  %s\n", bpf_image((const struct pcap_bpf_insn *)&f[i], i));
}

static inline void dump_frame(const unsigned char *p, unsigned int len)
{
	unsigned int i;

	fprintf(stderr, "  frame of %u bytes:", len);
	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 16 ? " " : "\n    ", p[i]);
	fputc('\n', stderr);
}

/* Does f load ancillary data, which libpcap's interpreter cannot give? */
static inline int has_ancillary(const struct sock_filter *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (BPF_CLASS(f[i].code) == BPF_LD && BPF_MODE(f[i].code) == BPF_ABS &&
		    f[i].k >= (__u32)SKF_AD_OFF)
			return 1;
	return 0;
}

static inline uint32_t be(const unsigned char *p, unsigned int size)
{
	uint32_t v = 0;

	while (size--)
		v = v << 8 | *p++;
	return v;
}

/*
 * Where Linux, whose classic semantics cbpf.c gives the translation, and
 * libpcap's interpreter part ways (tests/unit/test_cbpf.c leaves the same
 * out of its random programs): a shift by X >= 32 (Linux shifts by X & 31,
 * libpcap gives 0) and an indirect load at X + k >= 2^31 (Linux wraps at
 * 2^32, and reads from SKF_NET_OFF and SKF_LL_OFF below 0; libpcap
 * rejects).  And a read of M[k] that nothing wrote: libpcap's interpreter
 * reads whatever its stack held, cbpf.c 0 (libpcap's optimizer emits such
 * reads: it compiles "50 >= -len or len == -0 and ip" to a load of M[1]
 * that nothing stores).  Does f, run on the packet as libpcap runs it,
 * reach one of them?  Only asked when the two verdicts differ.
 */
static inline int classic_diverges(const struct sock_filter *f, unsigned int n,
			    const unsigned char *p, unsigned int buflen, unsigned int wirelen)
{
	uint32_t a = 0, x = 0, mem[16] = { 0 }, k;
	unsigned int pc, size, set = 0;	/* the M[k] written */

	for (pc = 0; pc < n; pc++) {
		const struct sock_filter *s = &f[pc];

		size = BPF_SIZE(s->code) == BPF_W ? 4 : BPF_SIZE(s->code) == BPF_H ? 2 : 1;
		switch (BPF_CLASS(s->code)) {
		case BPF_LD:
			switch (BPF_MODE(s->code)) {
			case BPF_ABS:
			case BPF_IND:
				k = s->k;
				if (BPF_MODE(s->code) == BPF_IND) {
					if ((uint64_t)x + k > UINT32_MAX)
						return 1;
					k += x;
					if ((int32_t)k < 0 && (int32_t)k >= SKF_LL_OFF)
						return 1;
				}
				if (k > buflen || size > buflen - k)
					return 0;
				a = be(p + k, size);
				break;
			case BPF_LEN: a = wirelen; break;
			case BPF_MEM:
				if (!(set & 1u << s->k % 16))
					return 1;
				a = mem[s->k % 16];
				break;
			default: a = s->k; break;
			}
			break;
		case BPF_LDX:
			switch (BPF_MODE(s->code)) {
			case BPF_MSH:
				if (s->k >= buflen)
					return 0;
				x = (p[s->k] & 0xf) << 2;
				break;
			case BPF_LEN: x = wirelen; break;
			case BPF_MEM:
				if (!(set & 1u << s->k % 16))
					return 1;
				x = mem[s->k % 16];
				break;
			default: x = s->k; break;
			}
			break;
		case BPF_ST:
		case BPF_STX:
			mem[s->k % 16] = BPF_CLASS(s->code) == BPF_ST ? a : x;
			set |= 1u << s->k % 16;
			break;
		case BPF_ALU:
			k = BPF_SRC(s->code) == BPF_X ? x : s->k;
			switch (BPF_OP(s->code)) {
			case BPF_ADD: a += k; break;
			case BPF_SUB: a -= k; break;
			case BPF_MUL: a *= k; break;
			case BPF_DIV: if (!k) return 0; a /= k; break;
			case BPF_MOD: if (!k) return 0; a %= k; break;
			case BPF_AND: a &= k; break;
			case BPF_OR: a |= k; break;
			case BPF_XOR: a ^= k; break;
			case BPF_LSH: if (k >= 32) return 1; a <<= k; break;
			case BPF_RSH: if (k >= 32) return 1; a >>= k; break;
			default: a = 0u - a; break;	/* BPF_NEG */
			}
			break;
		case BPF_JMP:
			k = BPF_SRC(s->code) == BPF_X ? x : s->k;
			switch (BPF_OP(s->code)) {
			case BPF_JA: pc += s->k; break;
			case BPF_JEQ: pc += a == k ? s->jt : s->jf; break;
			case BPF_JGT: pc += a > k ? s->jt : s->jf; break;
			case BPF_JGE: pc += a >= k ? s->jt : s->jf; break;
			default: pc += a & k ? s->jt : s->jf; break;	/* BPF_JSET */
			}
			break;
		case BPF_RET:
			return 0;
		default:
			if (BPF_MISCOP(s->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		}
	}
	return 0;
}

#endif
