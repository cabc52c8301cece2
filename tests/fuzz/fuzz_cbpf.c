// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_cbpf: the classic to eBPF translator against libpcap's own
 * interpreter, on where clauses: pcap filter strings built from the input
 * out of the filter language's primitives (protocols, hosts, nets, ports,
 * lengths, VLAN tags, tcpflags and icmptype, and arithmetic on packet
 * bytes), compiled by pcap_compile() on pcap_open_dead(DLT_EN10MB, 262144),
 * optimized or not.
 *
 * Each program libpcap compiles and cbpf_translate() takes, in both frame
 * modes (a copy on the stack, LD_ABS), runs in a strict engine on the
 * frames of fuzz.h and those made from the rest of the input; its verdict
 * must be bpf_filter()'s on the same frame, every time, save where Linux
 * and libpcap differ (classic_diverges()) and for ancillary loads
 * (inbound, outbound, ifindex), which libpcap cannot run.  A vm_run() error
 * is a finding.
 */
#include "fuzz.h"

#define MAX_INPUT_FRAMES 8

struct gen {
	struct in *in;
	char s[1024];
	size_t len;
	int prims;		/* primitives left */
};

static __attribute__((format(printf, 2, 3))) void put(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(g->s + g->len, sizeof(g->s) - g->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		g->len = g->len + n < sizeof(g->s) ? g->len + n : sizeof(g->s) - 1;
}

static const char *pick(struct gen *g, const char *const *v, unsigned int n)
{
	return v[in_u8(g->in) % n];
}

#define PICK(g, v) pick(g, v, sizeof(v) / sizeof(v[0]))

/* A number: small ones mostly, and the edges of 8, 16 and 32 bits. */
static uint32_t number(struct gen *g)
{
	static const uint32_t edges[] = {
		0, 1, 14, 31, 32, 33, 255, 256, 65535, 65536, 0x7fffffff, 0x80000000,
		0xfffffff0, 0xffffffff, 0x1fff, 0x8100,
	};
	unsigned int c = in_u8(g->in);

	if (c < 0xa0)
		return c;
	if (c < 0xe0)
		return edges[c % 16];
	return in_u32(g->in);
}

/* One of the frames' addresses, or any. */
static void ip4(struct gen *g)
{
	static const uint32_t known[] = {
		0x0a000001, 0x0a000002, 0xc6120001, 0xc6130001, 0xc6120707, 0xc6120000,
	};
	unsigned int c = in_u8(g->in);
	uint32_t a = c < 0xc0 ? known[c % 6] : in_u32(g->in);

	put(g, "%u.%u.%u.%u", a >> 24, a >> 16 & 0xff, a >> 8 & 0xff, a & 0xff);
}

static void arith(struct gen *g, int depth);

/* proto [ arith : size ] */
static void packet_access(struct gen *g, int depth)
{
	static const char *const protos[] = {
		"ether", "ip", "ip6", "tcp", "udp", "icmp", "icmp6", "arp", "link", "igmp",
		"sctp", "rarp",
	};
	static const char *const sizes[] = { "", ":1", ":2", ":4", ":3" };

	put(g, "%s[", PICK(g, protos));
	arith(g, depth + 1);
	put(g, "%s]", PICK(g, sizes));
}

static void arith(struct gen *g, int depth)
{
	static const char *const ops[] = {
		"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>",
	};
	unsigned int c = in_u8(g->in) % (depth > 3 ? 2 : 6);

	switch (c) {
	case 0:
		put(g, "%u", number(g));
		break;
	case 1:
		if (in_u8(g->in) & 1)
			put(g, "len");
		else
			put(g, "0x%x", number(g));
		break;
	case 2:
	case 3:
		packet_access(g, depth);
		break;
	case 4:
		arith(g, depth + 1);
		put(g, " %s ", PICK(g, ops));
		arith(g, depth + 1);
		break;
	default:
		put(g, in_u8(g->in) & 1 ? "-(" : "(");
		arith(g, depth + 1);
		put(g, ")");
		break;
	}
}

static void primitive(struct gen *g)
{
	static const char *const bare[] = {
		"ip", "ip6", "arp", "rarp", "tcp", "udp", "icmp", "icmp6", "sctp", "igmp",
		"vlan", "mpls", "llc", "stp", "ether broadcast", "ether multicast",
		"ip multicast", "ip6 multicast", "pppoed", "pppoes", "atalk", "decnet",
		"ip broadcast", "inbound", "outbound", "ifindex 2", "ipx", "netbeui", "iso", "clnp", "esis", "isis",
		"tcp[tcpflags] & (tcp-syn|tcp-ack) != 0", "tcp[tcpflags] & tcp-rst != 0",
		"icmp[icmptype] == icmp-echo", "icmp[icmptype] != icmp-echoreply",
		"icmp6[icmp6type] == icmp6-echo", "ip[6:2] & 0x1fff != 0",
	};
	static const char *const dirs[] = { "", "src ", "dst ", "src or dst ", "src and dst " };
	static const char *const l3[] = { "", "ip ", "ip6 ", "arp " };
	static const char *const l4[] = { "", "tcp ", "udp ", "sctp " };
	static const char *const rels[] = { "=", "==", "!=", "<", "<=", ">", ">=" };
	static const char *const lens[] = { "greater", "less", "len >=", "len <=", "len =" };
	static const char *const protos[] = { "ip proto", "ip6 proto", "ether proto", "proto",
					      "ip6 protochain", "llc", "mpls" };

	switch (in_u8(g->in) % 12) {
	case 0:
		put(g, "%s", PICK(g, bare));
		break;
	case 1:
		put(g, "vlan %u", number(g) % 4096);
		break;
	case 2:
		put(g, "%s%shost ", PICK(g, l3), PICK(g, dirs));
		if (in_u8(g->in) & 1)
			ip4(g);
		else
			put(g, "2001:db8::%x", in_u16(g->in));
		break;
	case 3:
		put(g, "%snet ", PICK(g, dirs));
		if (in_u8(g->in) & 1) {
			ip4(g);
			put(g, "/%u", in_u8(g->in) % 33);
		} else {
			put(g, "2001:db8:%x::/%u", in_u16(g->in), in_u8(g->in) % 129);
		}
		break;
	case 4:
		put(g, "%s%sport %u", PICK(g, l4), PICK(g, dirs), number(g) % 65536);
		break;
	case 5:
		put(g, "%s%sportrange %u-%u", PICK(g, l4), PICK(g, dirs), in_u16(g->in),
		    in_u16(g->in));
		break;
	case 6:
		put(g, "%s %u", PICK(g, lens), number(g));
		break;
	case 7:
		put(g, "%s %u", PICK(g, protos), number(g) % 256);
		break;
	case 8:
		put(g, "ether %shost 02:00:00:00:00:%02x", PICK(g, dirs), in_u8(g->in) % 4);
		break;
	default:
		arith(g, 0);
		put(g, " %s ", PICK(g, rels));
		arith(g, 0);
		break;
	}
}

static void expr(struct gen *g, int depth)
{
	unsigned int c = depth > 4 || g->prims <= 0 ? 0 : in_u8(g->in) % 5;

	switch (c) {
	case 0:
		g->prims--;
		primitive(g);
		break;
	case 1:
		put(g, "not ");
		expr(g, depth + 1);
		break;
	case 2:
		put(g, "(");
		expr(g, depth + 1);
		put(g, ")");
		break;
	default:
		expr(g, depth + 1);
		put(g, c == 3 ? " and " : " or ");
		expr(g, depth + 1);
		break;
	}
}

static struct vm *vm;

static void check(const char *s, const struct sock_filter *f, unsigned int n,
		  enum frame_mode mode, const struct frame *fr, int nf, __u32 unseen)
{
	int i, anc = has_ancillary(f, n);
	char err[256];
	struct emit e;

	if (translate(f, n, mode, &e, err, sizeof(err)))
		goto out;	/* a loop (protochain), or too large */
	if (vm_load(vm, e.insns, e.len, err, sizeof(err)))
		fuzz_fail("'%s': the engine refused the translation: %s", s, err);
	for (i = 0; i < nf; i++) {
		struct packet skb = { .data = fr[i].data, .len = fr[i].len, .cb[0] = unseen,
				      .nonlinear = fuzz_nonlinear(i, fr[i].len) };
		unsigned int want;
		__u32 got;

		if (vm_run(vm, &skb, &got))
			fuzz_fail("'%s'%s, frame %d: %s", s, fuzz_mode_tag[mode], i,
				  vm_error(vm));
		want = bpf_filter((const struct pcap_bpf_insn *)f, skb.data, skb.len + unseen,
				  skb.len) != 0;
		if (got != want && !anc && !classic_diverges(f, n, skb.data, skb.len, skb.len + unseen)) {
			fprintf(stderr, "'%s'%s: ebpf %u, libpcap %u\n", s,
				fuzz_mode_tag[mode], got, want);
			dump_classic(f, n);
			dump_frame(skb.data, skb.len);
			fuzz_fail("the verdicts differ");
		}
	}
out:
	emit_free(&e);
}

/* FUZZ_SHOW=1 in the environment: print each filter string. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int show;
	static pcap_t *p;
	struct in in = { data, size };
	struct gen g = { .in = &in };
	struct frame fr[NFRAMES + MAX_INPUT_FRAMES];
	struct bpf_program prog;
	unsigned int opt;
	__u32 unseen;
	int nf;

	if (!p) {
		p = pcap_open_dead(DLT_EN10MB, 262144);
		vm = vm_new(1);
		if (!p || !vm)
			fuzz_fail("out of memory");
		frames_init();
		show = getenv("FUZZ_SHOW") != NULL;
	}
	opt = in_u8(&in);
	unseen = opt & 0x80 ? in_u8(&in) : 0;
	g.prims = 1 + (opt >> 1) % 6;
	expr(&g, 0);
	if (show)
		fprintf(stderr, "%s\n", g.s);
	memcpy(fr, frames, sizeof(frames));
	for (nf = NFRAMES; nf < NFRAMES + MAX_INPUT_FRAMES && frame_from(&in, &fr[nf]); nf++)
		;
	if (pcap_compile(p, &prog, g.s, opt & 1, PCAP_NETMASK_UNKNOWN))
		return 0;
	check(g.s, filter_insns(&prog), prog.bf_len, FRAME_WINDOW, fr, nf, unseen);
	check(g.s, filter_insns(&prog), prog.bf_len, FRAME_LD_ABS, fr, nf, unseen);
	check(g.s, filter_insns(&prog), prog.bf_len, FRAME_DIRECT, fr, nf, unseen);
	pcap_freecode(&prog);
	return 0;
}
