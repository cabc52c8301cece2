// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_cbpf_raw: the classic to eBPF translator against libpcap's own
 * interpreter, on classic programs made of the input's bytes, as any
 * program (SO_ATTACH_FILTER's, tcpdump -ddd's) may come.
 *
 * Input: u8 instructions (1 to 64), then each instruction: u8 opcode (a
 * classic opcode from a table, or from 0xf0 on a u16 of the input's), u8
 * jt and u8 jf (modulo the instructions after it, or as they are with the
 * opcode from the input), u8 k (small, an edge value, or from 0xe0 on a
 * u32 of the input's); then u8 the final RET (bit 0: A, else #bit 1),
 * u8 the bytes of the packet not seen (LD LEN is the packet's length),
 * then frames (frame_from()).  The program starts with M[0..15] = 0:
 * libpcap leaves them unset, cbpf.c clears those read before written.
 *
 * Oracles: what cbpf_translate() takes, libpcap's bpf_validate() takes
 * too; its translation, in both frame modes, runs in a strict engine on
 * the frames of fuzz.h and those of the input without a fault; and when
 * libpcap validates the program, the verdicts are bpf_filter()'s, save
 * where Linux and libpcap differ (classic_diverges()) and for programs
 * with ancillary loads (libpcap cannot run them).
 */
#include "fuzz.h"

#define MAX_INPUT_FRAMES 8
#define MAX_BODY	64
#define PROLOGUE	17

static const __u16 codes[] = {
	BPF_LD | BPF_W | BPF_ABS, BPF_LD | BPF_H | BPF_ABS, BPF_LD | BPF_B | BPF_ABS,
	BPF_LD | BPF_W | BPF_IND, BPF_LD | BPF_H | BPF_IND, BPF_LD | BPF_B | BPF_IND,
	BPF_LD | BPF_W | BPF_LEN, BPF_LD | BPF_IMM, BPF_LD | BPF_MEM,
	BPF_LDX | BPF_W | BPF_IMM, BPF_LDX | BPF_W | BPF_MEM, BPF_LDX | BPF_W | BPF_LEN,
	BPF_LDX | BPF_B | BPF_MSH, BPF_ST, BPF_STX,
	BPF_ALU | BPF_ADD | BPF_K, BPF_ALU | BPF_SUB | BPF_K, BPF_ALU | BPF_MUL | BPF_K,
	BPF_ALU | BPF_DIV | BPF_K, BPF_ALU | BPF_MOD | BPF_K, BPF_ALU | BPF_AND | BPF_K,
	BPF_ALU | BPF_OR | BPF_K, BPF_ALU | BPF_XOR | BPF_K, BPF_ALU | BPF_LSH | BPF_K,
	BPF_ALU | BPF_RSH | BPF_K, BPF_ALU | BPF_NEG,
	BPF_ALU | BPF_ADD | BPF_X, BPF_ALU | BPF_SUB | BPF_X, BPF_ALU | BPF_MUL | BPF_X,
	BPF_ALU | BPF_DIV | BPF_X, BPF_ALU | BPF_MOD | BPF_X, BPF_ALU | BPF_AND | BPF_X,
	BPF_ALU | BPF_OR | BPF_X, BPF_ALU | BPF_XOR | BPF_X, BPF_ALU | BPF_LSH | BPF_X,
	BPF_ALU | BPF_RSH | BPF_X,
	BPF_JMP | BPF_JA, BPF_JMP | BPF_JEQ | BPF_K, BPF_JMP | BPF_JGT | BPF_K,
	BPF_JMP | BPF_JGE | BPF_K, BPF_JMP | BPF_JSET | BPF_K, BPF_JMP | BPF_JEQ | BPF_X,
	BPF_JMP | BPF_JGT | BPF_X, BPF_JMP | BPF_JGE | BPF_X, BPF_JMP | BPF_JSET | BPF_X,
	BPF_RET | BPF_K, BPF_RET | BPF_A, BPF_MISC | BPF_TAX, BPF_MISC | BPF_TXA,
};

#define NCODES (sizeof(codes) / sizeof(codes[0]))

static uint32_t constant(struct in *in)
{
	static const uint32_t edges[] = {
		0, 1, 14, 31, 32, 54, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff0,
		SKF_AD_OFF + SKF_AD_PROTOCOL, SKF_AD_OFF + SKF_AD_PKTTYPE,
		SKF_AD_OFF + SKF_AD_VLAN_TAG, SKF_AD_OFF + SKF_AD_ALU_XOR_X,
		(uint32_t)SKF_NET_OFF, (uint32_t)SKF_LL_OFF,
	};
	unsigned int c = in_u8(in);

	if (c < 0xa0)
		return c % 80;
	if (c < 0xe0)
		return edges[c % 16];
	return in_u32(in);
}

/* The program of the input, after the prologue; returns its length. */
static unsigned int program(struct in *in, struct sock_filter *f)
{
	unsigned int n = 1 + in_u8(in) % MAX_BODY, i, ret;

	f[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, 0);
	for (i = 1; i < PROLOGUE; i++)
		f[i] = (struct sock_filter)BPF_STMT(BPF_ST, i - 1);
	for (i = 0; i < n; i++) {
		struct sock_filter *s = &f[PROLOGUE + i];
		unsigned int op = in_u8(in), after = n - i;	/* the final RET too */

		if (op < 0xf0) {
			s->code = codes[op % NCODES];
			s->jt = in_u8(in) % after;
			s->jf = in_u8(in) % after;
		} else {
			s->code = in_u16(in);
			s->jt = in_u8(in);
			s->jf = in_u8(in);
		}
		s->k = constant(in);
		if (s->code == (BPF_JMP | BPF_JA) && op < 0xf0)
			s->k %= after;
	}
	ret = in_u8(in);
	f[PROLOGUE + n] = (struct sock_filter)BPF_STMT(BPF_RET | (ret & 1 ? BPF_A : BPF_K), ret & 2);
	return PROLOGUE + n + 1;
}

static struct vm *vm;

static void check(const struct sock_filter *f, unsigned int n, int valid,
		  enum frame_mode mode, const struct frame *fr, int nf, __u32 unseen)
{
	int i, anc = has_ancillary(f, n);
	char err[256];
	struct emit e;

	if (translate(f, n, mode, &e, err, sizeof(err)))
		goto out;
	if (!valid) {
		dump_classic(f, n);
		fuzz_fail("cbpf_translate() takes a program bpf_validate() refuses");
	}
	if (vm_load(vm, e.insns, e.len, err, sizeof(err)))
		fuzz_fail("the engine refused the translation: %s", err);
	for (i = 0; i < nf; i++) {
		struct packet skb = {
			.data = fr[i].data, .len = fr[i].len, .cb[0] = unseen,
			.nonlinear = fuzz_nonlinear(i, fr[i].len),
			.protocol = htons(ETH_P_IP), .pkt_type = 4, .ifindex = 2,
			.vlan_present = 1, .vlan_tci = 42, .vlan_proto = htons(ETH_P_8021Q),
		};
		unsigned int want;
		__u32 got;

		if (vm_run(vm, &skb, &got)) {
			dump_classic(f, n);
			fuzz_fail("frame %d%s: %s", i, fuzz_mode_tag[mode], vm_error(vm));
		}
		want = bpf_filter((const struct pcap_bpf_insn *)f, skb.data, skb.len + unseen,
				  skb.len) != 0;
		if (got != want && !anc && !classic_diverges(f, n, skb.data, skb.len,
							      skb.len + unseen)) {
			fprintf(stderr, "frame %d%s: ebpf %u, libpcap %u\n", i,
				fuzz_mode_tag[mode], got, want);
			dump_classic(f, n);
			dump_frame(skb.data, skb.len);
			fuzz_fail("the verdicts differ");
		}
	}
out:
	emit_free(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sock_filter f[PROLOGUE + MAX_BODY + 1];
	struct frame fr[NFRAMES + MAX_INPUT_FRAMES];
	struct in in = { data, size };
	unsigned int n;
	__u32 unseen;
	int nf, valid;

	if (!vm) {
		vm = vm_new(1);
		if (!vm)
			fuzz_fail("out of memory");
		frames_init();
	}
	n = program(&in, f);
	unseen = in_u8(&in);
	memcpy(fr, frames, sizeof(frames));
	for (nf = NFRAMES; nf < NFRAMES + MAX_INPUT_FRAMES && frame_from(&in, &fr[nf]); nf++)
		;
	valid = bpf_validate((const struct pcap_bpf_insn *)f, n);
	check(f, n, valid, FRAME_WINDOW, fr, nf, unseen);
	check(f, n, valid, FRAME_LD_ABS, fr, nf, unseen);
	check(f, n, valid, FRAME_DIRECT, fr, nf, unseen);
	return 0;
}
