// SPDX-License-Identifier: GPL-2.0
/*
 * cbpf_translate(): every filter of a table, translated and run in
 * ebpf_vm on every packet of a table, must give the verdict of libpcap's
 * own interpreter (pcap_offline_filter) on the same packet.  Programs
 * compiled on a live handle (pcap_live.h) see the packet as a Linux socket
 * does, outer VLAN tag moved to skb->vlan_tci, and must match what
 * libpcap says of the same expression on the frame with the tag inline.
 * Then hand-written classic programs (edge cases, ancillary loads libpcap
 * cannot interpret), malformed programs, and a golden listing.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>

#include <errno.h>

#include "ebpf_vm.c"
#include "cbpf.h"
#include "filter.h"
#include "pcap_live.h"
#include "spec.h"
#include "tap.h"

#define FRAME_MAX	512

/* ---- packets ---- */

/*
 * craft specs (tests/spec.h); a frame goes from MAC_A to MAC_B unless its
 * spec says otherwise.  The first one is what the hand-written programs
 * read: 54 bytes, 10.0.0.1 at offset 26.
 */
#define MAC_A		"02:00:00:00:00:01"
#define MAC_B		"02:00:00:00:00:02"
#define BCAST		"dmac=ff:ff:ff:ff:ff:ff"
#define SYN443		"src=10.0.0.1,dst=198.18.0.1,sport=1,dport=443"

static const struct {
	const char *name, *spec;
} specs[] = {
	{ "v4 tcp syn >198.18.0.1:443", "tcp4,src=10.0.0.1,dst=198.18.0.1,sport=40000,dport=443" },
	{ "v4 tcp syn-ack 198.18.0.1:443>",
	  "tcp4,src=198.18.0.1,dst=10.0.0.1,sport=443,dport=40000,flags=SA" },
	{ "v4 tcp ack 198.18.7.7:22>",
	  "tcp4,src=198.18.7.7,dst=10.1.2.3,sport=22,dport=5555,flags=A,len=154" },
	{ "v4 tcp rst 80>", "tcp4,src=192.0.2.1,dst=198.19.0.1,sport=80,dport=1000,flags=RA" },
	{ "v4 tcp 1500>9999",
	  "tcp4,src=192.0.2.1,dst=192.0.2.2,sport=1500,dport=9999,flags=PA,len=74" },
	{ "v4 tcp 2000>2001", "tcp4,src=192.0.2.1,dst=192.0.2.2,sport=2000,dport=2001,flags=A" },
	{ "v4 tcp 999>2001", "tcp4,src=192.0.2.1,dst=192.0.2.2,sport=999,dport=2001,flags=A" },
	{ "v4 options tcp >443", "tcp4,src=10.0.0.2,dst=198.18.0.1,sport=1234,dport=443,ipopts=12" },
	{ "v4 15-word header tcp 443>",
	  "tcp4,src=198.18.0.1,dst=10.0.0.2,sport=443,dport=1234,flags=A,ipopts=40" },
	{ "v4 ihl 0 tcp", "tcp4,src=10.0.0.3,dst=10.0.0.4,sport=443,dport=22,flags=A,ihl=0" },
	{ "v4 udp >53", "udp4,src=10.0.0.1,dst=198.19.0.1,sport=5353,dport=53,len=54" },
	{ "v4 udp 53>", "udp4,src=198.19.0.1,dst=10.0.0.1,sport=53,dport=33000,len=82" },
	{ "v4 udp 2000 big", "udp4,src=10.9.9.9,dst=10.8.8.8,sport=2000,dport=2000,len=442" },
	{ "v4 udp 60 bytes", "udp4,src=10.0.0.5,dst=10.0.0.6,sport=7,dport=7,len=60" },
	{ "v4 udp 64 bytes", "udp4,src=10.0.0.5,dst=10.0.0.6,sport=7,dport=7,len=64" },
	{ "v4 udp 65 bytes", "udp4,src=10.0.0.5,dst=10.0.0.6,sport=7,dport=7,len=65" },
	{ "v4 icmp echo >198.18.0.1", "icmp4,src=10.0.0.1,dst=198.18.0.1,len=98" },
	{ "v4 icmp echo reply", "icmp4,src=198.18.0.1,dst=10.0.0.1,type=0,len=98" },
	{ "v4 icmp unreachable", "icmp4,src=192.0.2.9,dst=10.0.0.1,type=3,code=1,len=70" },
	{ "v4 first fragment tcp >443", "tcp4," SYN443 ",frag=first" },
	{ "v4 later fragment tcp", "tcp4,src=10.0.0.1,dst=198.18.0.1,frag=later,len=54" },
	{ "v4 df tcp >443", "tcp4,src=10.0.0.1,dst=198.18.0.2,sport=2,dport=443,frag=df" },
	{ "v4 gre", "tcp4,src=10.0.0.1,dst=10.0.0.2,proto=47,len=58" },
	{ "v4 udp to 255.255.255.255",
	  "udp4,src=10.0.0.7,dst=255.255.255.255,sport=68,dport=67,len=142," BCAST },
	{ "v4 udp multicast",
	  "udp4,src=10.0.0.7,dst=224.0.0.251,sport=5353,dport=5353,len=72,dmac=01:00:5e:00:00:fb" },
	{ "v4 udp from 52:54:00:12:34:01",
	  "udp4,src=198.18.0.1,dst=198.18.0.2,sport=9,dport=9,len=46,smac=52:54:00:12:34:01" },
	{ "v4 tcp to 52:54:00:12:34:01",
	  "tcp4,src=198.18.0.2,dst=198.18.0.1,sport=22,dport=40000,flags=A,dmac=52:54:00:12:34:01" },
	{ "v6 tcp syn >443", "tcp6,src=2001:db8::1,dst=2001:2::1,sport=50000,dport=443" },
	{ "v6 tcp ack 22>", "tcp6,src=2001:2::1,dst=2001:db8::2,sport=22,dport=50001,flags=A,len=134" },
	{ "v6 udp >53", "udp6,src=2001:db8::3,dst=2001:2::2,sport=1000,dport=53,len=82" },
	{ "v6 icmp6 echo", "icmp6,src=2001:db8::1,dst=2001:2::1,len=70" },
	{ "v6 fragment header", "udp6,src=2001:db8::1,dst=2001:2::1,proto=44,len=70" },
	{ "arp who-has 198.18.0.1", "arp,src=198.18.0.2,dst=198.18.0.1," BCAST },
	{ "802.3 llc", "raw,etype=38,len=52" },
	{ "10-byte frame", "tcp4," SYN443 ",trunc=10" },
	{ "1-byte frame", "tcp4," SYN443 ",trunc=1" },
	{ "v4 cut in ip header", "tcp4," SYN443 ",trunc=30" },
	{ "v4 cut before ports", "tcp4," SYN443 ",trunc=35" },
	{ "v4 cut before tcp flags", "tcp4," SYN443 ",trunc=47" },
	{ "vlan 42 v4 tcp >443", "tcp4,vlan=42," SYN443 },
	{ "vlan 42 prio 5 v4 udp >53",
	  "udp4,vlan=42,prio=5,src=10.0.0.1,dst=10.0.0.53,sport=4000,dport=53,len=56" },
	{ "vlan 4000 v4 udp >53",
	  "udp4,vlan=4000,src=10.0.0.1,dst=10.0.0.53,sport=4000,dport=53,len=56" },
	{ "vlan 298 v6 tcp >443", "tcp6,vlan=298,src=2001:db8::1,dst=2001:2::1,sport=50000,dport=443" },
	{ "vlan 7 arp", "arp,vlan=7,src=198.18.0.2,dst=198.18.0.1," BCAST },
	{ "qinq 88a8 100, 8100 42, v4 tcp >443", "tcp4,svlan=100,vlan=42," SYN443 },
	{ "qinq 8100 42, 8100 7, v4 udp",
	  "udp4,svlan=42,stpid=0x8100,vlan=7,src=10.0.0.1,dst=10.0.0.2,sport=1,dport=2,len=58" },
	{ "9100 tag 42 v4 tcp >443", "tcp4,vlan=42,tpid=0x9100," SYN443 },
	{ "vlan 42 cut in tag", "tcp4,vlan=42," SYN443 ",trunc=15" },
};

#define NPKTS ((int)(sizeof(specs) / sizeof(specs[0])))

struct pkt {
	const char *name;
	unsigned char frame[FRAME_MAX];	/* as on the wire, tags inline */
	unsigned int len;
	unsigned char live[FRAME_MAX];	/* as a Linux packet socket sees it */
	struct packet file_skb, live_skb;
};

static struct pkt pkts[NPKTS];

static unsigned int be16(const unsigned char *p)
{
	return p[0] << 8 | p[1];
}

/* The frame after the kernel moved an outer 802.1Q/802.1ad tag out of it. */
static void make_live(struct pkt *p)
{
	struct packet *skb = &p->live_skb;
	unsigned int tpid = p->len >= 18 ? be16(p->frame + 12) : 0, type;

	memcpy(p->live, p->frame, p->len);
	skb->data = p->live;
	skb->len = p->len;
	if (tpid == ETH_P_8021Q || tpid == ETH_P_8021AD) {
		memmove(p->live + 12, p->live + 16, p->len - 16);
		skb->len -= 4;
		skb->vlan_present = 1;
		skb->vlan_tci = be16(p->frame + 14);
		skb->vlan_proto = htons(tpid);
	}
	type = skb->len >= 14 ? be16(p->live + 12) : 0;
	skb->protocol = htons(type >= ETH_P_802_3_MIN ? type : ETH_P_802_3);
}

/* Packet i from its spec, with the MACs above unless the spec gives them. */
static int build(int i)
{
	struct packet meta = {
		.pkt_type = i % 5, .ifindex = 1 + i % 3, .mark = i,
		.hash = i * 2654435761u, .gso_segs = 1,
	};
	const char *spec = specs[i].spec;
	struct pkt *p = &pkts[i];
	char text[256], err[256];
	int kind = strcspn(spec, ","), len;

	snprintf(text, sizeof(text), "%.*s,smac=" MAC_A ",dmac=" MAC_B "%s", kind, spec,
		 spec + kind);
	len = spec_frame(text, p->frame, sizeof(p->frame), err, sizeof(err));
	if (len < 0) {
		tap_okf(0, "%s: %s", specs[i].name, err);
		return -1;
	}
	p->name = specs[i].name;
	p->len = len;
	p->file_skb = meta;
	p->file_skb.data = p->frame;
	p->file_skb.len = p->len;
	p->live_skb = meta;
	make_live(p);
	return 0;
}

/* ---- filters x packets ---- */

struct row {
	const char *expr;
	const struct sock_filter *live;	/* compiled on a live handle */
	unsigned int nlive;
	int (*oracle)(const struct packet *skb);	/* if libpcap can't tell */
};

static int inbound(const struct packet *skb)
{
	return skb->pkt_type != PACKET_OUTGOING;
}

static int outbound(const struct packet *skb)
{
	return skb->pkt_type == PACKET_OUTGOING;
}

static int ifindex2(const struct packet *skb)
{
	return skb->ifindex == 2;
}

#define F(e)		{ .expr = e }
#define O(e, fn)	{ .expr = e, .oracle = fn }
#define L(e, prog, fn)	{ .expr = e, .live = prog, \
			  .nlive = sizeof(prog) / sizeof(prog[0]), .oracle = fn }

static const struct row rows[] = {
	F("ip"), F("ip6"), F("arp"), F("tcp"), F("udp"), F("icmp"), F("icmp6"),
	F("tcp port 443"), F("udp dst port 53"), F("port 53"),
	F("src port 443 or dst port 22"), F("tcp and not (port 22 or port 80)"),
	F("host 198.18.0.1"), F("src host 10.0.0.1"),
	F("net 198.18.0.0/16"), F("not net 198.18.0.0/16"),
	F("ip6 host 2001:2::1"), F("ip6 net 2001:db8::/32"),
	F("tcp[tcpflags] & tcp-syn != 0"),
	F("tcp[tcpflags] & (tcp-syn|tcp-ack) == (tcp-syn|tcp-ack)"),
	F("ip[6:2] & 0x1fff != 0"), F("ip6 and tcp"), F("ip6 and udp port 53"),
	F("ip6 or arp"), F("ip and not tcp and not udp"),
	F("greater 100"), F("less 64"), F("len >= 60 and udp"), F("len == 64"),
	F("ether host 52:54:00:12:34:01"), F("ether src 52:54:00:12:34:01"),
	F("ether broadcast"), F("ether multicast"), F("ip multicast"),
	F("dst host 255.255.255.255"), F("ether proto 0x8100"), F("llc"),
	F("ip proto 47"), F("icmp[icmptype] == icmp-echo"),
	F("icmp[icmptype] != icmp-echo and icmp[icmptype] != icmp-echoreply"),
	F("tcp portrange 1000-2000"),
	F("ip[0] & 0xf > 5"), F("ip[2:2] - 20 > 40"), F("tcp[0:2] % 7 == 3"),
	F("(ip[2:2] * 3) / 4 > 30"),
	F("ether[16:2] / (ether[14] & 0xf) > 10"),
	F("ether[16:2] % (ether[14] & 0xf) == 0"),
	F("ip[8] ^ 0xff == 0xbf"), F("ip[0] >> 4 == 4 and ip[9] << 3 == 48"),
	F("-ip[8] == 0xffffffc0"), F("ip[16:4] > 0x80000000"),
	F("ip[12:4] & 0xffff0000 == 0xc6120000"), F("udp[8:4] == 0x2a2b2c2d"),
	F("vlan"), F("vlan 42"), F("vlan 42 and tcp port 443"), F("vlan and ip"),
	F("vlan or udp"),
	O("inbound", inbound), O("outbound", outbound),
	O("ifindex 2", ifindex2),
	L("vlan", live_vlan, NULL),
	L("vlan 42", live_vlan42, NULL),
	L("vlan 42 and tcp port 443", live_vlan42_tcp443, NULL),
	L("vlan and ip", live_vlan_ip, NULL),
	L("vlan 42 and vlan 7", live_vlan42_vlan7, NULL),
	L("vlan 4000 or not vlan", live_vlan4000_or_not_vlan, NULL),
	L("inbound", live_inbound, inbound),
	L("outbound", live_outbound, outbound),
	L("ifindex 2", live_ifindex2, ifindex2),
};

static int ncases, naccepted;

/* How the translations read the packet; the tables run in every mode. */
static enum frame_mode mode;
static const char *const mode_tag[] = {
	[FRAME_WINDOW] = "", [FRAME_LD_ABS] = " (LD_ABS)", [FRAME_DIRECT] = " (direct)",
};
/* FRAME_DIRECT: the skbs' linear part is all, half or none of the frame. */
static int split;
static const char *const split_tag[] = { "", ", half linear", ", nothing linear" };
/*
 * And whether a load past the end must reject rather than end the program
 * (a where clause with another expression after it): the rejects then
 * return 2, so that a program that ended early (0) is told from them.
 */
static int keep_going;

/*
 * The translation wrapped as a whole program: accept 1, reject 0 (2 with
 * keep_going); in FRAME_WINDOW mode after a copy of the window, with the
 * length in r9 (also with keep_going).
 */
static int translate(const struct sock_filter *f, unsigned int n,
		     struct emit *e, char *err, size_t errlen)
{
	int reject = NO_JUMP, ret;

	emit_init(e);
	emit(e, BPF_MOV64_REG(BPF_REG_6, BPF_REG_1));
	if (mode != FRAME_LD_ABS || keep_going)
		emit(e, BPF_LDX_MEM(BPF_W, BPF_REG_9, BPF_REG_6, offsetof(struct __sk_buff, len)));
	if (mode == FRAME_WINDOW)
		frame_copy(e, BPF_REG_9, FRAME_WIN_LEN);
	ret = cbpf_translate(e, f, n, mode, BPF_REG_9, keep_going, &reject, err, errlen);
	emit(e, BPF_MOV64_IMM(BPF_REG_0, 1));
	emit(e, BPF_EXIT_INSN());
	emit_patch_here(e, reject);
	emit(e, BPF_MOV64_IMM(BPF_REG_0, keep_going ? 2 : 0));
	emit(e, BPF_EXIT_INSN());
	return ret ? ret : e->err;
}

static int pcap_verdict(struct bpf_program *prog, const struct pkt *p)
{
	struct pcap_pkthdr h = { .caplen = p->len, .len = p->len };

	return pcap_offline_filter(prog, &h, p->frame) != 0;
}

static void dump_classic(const struct sock_filter *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		printf("#   %s\n", bpf_image((const struct pcap_bpf_insn *)&f[i], i));
}

/* Run row r on every packet; returns the number of wrong verdicts. */
static int run_row(const struct row *r, struct bpf_program *ref,
		   const struct emit *e, int *accepted)
{
	int i, bad = 0;

	for (i = 0; i < NPKTS; i++) {
		const struct pkt *p = &pkts[i];
		struct packet skb = r->live ? p->live_skb : p->file_skb;
		long got;

		skb.nonlinear = split == 0 ? 0 : split == 1 ? skb.len - skb.len / 2 : skb.len;
		got = vm_exec(e->insns, e->len, &skb);
		int want = r->oracle ? r->oracle(&skb) : pcap_verdict(ref, p);

		*accepted += want;
		if (got == (want ? 1 : keep_going ? 2 : 0))
			continue;
		bad++;
		printf("#   %s: ebpf %ld%s%s, want %d\n", p->name, got,
		       got == VM_TRAP ? " trap: " : "",
		       got == VM_TRAP ? vm_why() : "", want);
	}
	return bad;
}

static void test_row(const struct row *r)
{
	const struct sock_filter *f;
	struct bpf_program ref;
	int bad, accepted = 0;
	char err[256], name[256];
	struct emit e;
	unsigned int n;

	if (filter_compile(r->expr, NULL, &ref, err, sizeof(err))) {
		printf("# %s: %s\n", r->expr, err);
		tap_ok(0, r->expr);
		return;
	}
	f = r->live ? r->live : filter_insns(&ref);
	n = r->live ? r->nlive : ref.bf_len;
	if (translate(f, n, &e, err, sizeof(err))) {
		printf("# %s: %s\n", r->expr, err);
		tap_ok(0, r->expr);
	} else {
		bad = run_row(r, &ref, &e, &accepted);
		snprintf(name, sizeof(name), "%s%s%s%s%s: %u classic -> %d ebpf insns, %d of %d accepted",
			 r->live ? "live " : "", r->expr, mode_tag[mode], split_tag[split],
			 keep_going ? " (keep going)" : "", n, e.len - 5, accepted, NPKTS);
		/* A table where every packet gets one verdict tests little. */
		if (!tap_ok(!bad && accepted > 0 && accepted < NPKTS, name)) {
			dump_classic(f, n);
			vm_dump(stdout, "#   ", e.insns, e.len);
		}
		ncases += NPKTS;
		naccepted += accepted;
	}
	emit_free(&e);
	filter_free(&ref);
}

/* ---- hand-written classic programs ---- */

#define S(code, k)		BPF_STMT(code, k)
#define J(code, k, jt, jf)	BPF_JUMP(BPF_JMP | (code), k, jt, jf)
#define RET_OK			S(BPF_RET | BPF_K, 1)
#define RET_NO			S(BPF_RET | BPF_K, 0)
#define RET_A			S(BPF_RET | BPF_A, 0)
#define A_IS(k)			J(BPF_JEQ | BPF_K, k, 0, 1), RET_OK, RET_NO
#define LDI(k)			S(BPF_LD | BPF_IMM, k)
#define LDXI(k)			S(BPF_LDX | BPF_IMM, k)
#define ALU(op, k)		S(BPF_ALU | (op), k)
#define TXA			S(BPF_MISC | BPF_TXA, 0)
#define ANC(size, ad)		S(BPF_LD | (size) | BPF_ABS, SKF_AD_OFF + (ad))
#define PROG(...)		{ __VA_ARGS__ }, \
	sizeof((struct sock_filter[]){ __VA_ARGS__ }) / sizeof(struct sock_filter)

struct hand {
	const char *name;
	struct sock_filter f[16];
	unsigned int n;
	int want;
	int pcap;	/* libpcap's interpreter agrees (no ancillary, no unset M[]) */
};

static const struct hand hands[] = {
	{ "ret a with a = 0 rejects", PROG(LDI(0), RET_A), 0, 1 },
	{ "ret a with a = 5 accepts", PROG(LDI(5), RET_A), 1, 1 },
	{ "a starts at 0", PROG(RET_A), 0, 1 },
	{ "x starts at 0", PROG(TXA, A_IS(0)), 1, 1 },
	{ "unset M[3] reads 0", PROG(S(BPF_LD | BPF_MEM, 3), A_IS(0)), 1, 0 },
	{ "M[2] set on one path only", PROG(S(BPF_LD | BPF_B | BPF_ABS, 14),
	  J(BPF_JEQ | BPF_K, 0x99, 0, 1), S(BPF_ST, 2), S(BPF_LD | BPF_MEM, 2),
	  A_IS(0)), 1, 0 },
	{ "jeq #0xffffffff", PROG(LDI(0xffffffff), A_IS(0xffffffff)), 1, 1 },
	{ "jeq #0xffffffff, a = 0x7fffffff", PROG(LDI(0x7fffffff), A_IS(0xffffffff)), 0, 1 },
	{ "jgt #0x80000000, a = 0xffffffff", PROG(LDI(0xffffffff),
	  J(BPF_JGT | BPF_K, 0x80000000, 0, 1), RET_OK, RET_NO), 1, 1 },
	{ "jgt #0x80000000, a = 0x7fffffff", PROG(LDI(0x7fffffff),
	  J(BPF_JGT | BPF_K, 0x80000000, 0, 1), RET_OK, RET_NO), 0, 1 },
	{ "jge x, a = x = 0x90000000", PROG(LDXI(0x90000000), LDI(0x90000000),
	  J(BPF_JGE | BPF_X, 0, 0, 1), RET_OK, RET_NO), 1, 1 },
	{ "jgt x, a = 1, x = 0x90000000", PROG(LDXI(0x90000000), LDI(1),
	  J(BPF_JGT | BPF_X, 0, 0, 1), RET_OK, RET_NO), 0, 1 },
	{ "jset #0x80000000", PROG(LDI(0x80000001),
	  J(BPF_JSET | BPF_K, 0x80000000, 0, 1), RET_OK, RET_NO), 1, 1 },
	{ "jset, true branch next", PROG(LDI(2),
	  J(BPF_JSET | BPF_K, 1, 0, 1), RET_OK, RET_NO), 0, 1 },
	{ "jgt, true branch next", PROG(LDI(0),
	  J(BPF_JGT | BPF_K, 1, 0, 1), RET_OK, RET_NO), 0, 1 },
	{ "jge, true branch next", PROG(LDI(1),
	  J(BPF_JGE | BPF_K, 1, 0, 1), RET_OK, RET_NO), 1, 1 },
	{ "add wraps at 32 bits", PROG(LDI(0xffffffff), ALU(BPF_ADD | BPF_K, 2), A_IS(1)), 1, 1 },
	{ "mul wraps at 32 bits", PROG(LDI(0x10000), ALU(BPF_MUL | BPF_K, 0x10000), A_IS(0)), 1, 1 },
	{ "neg", PROG(LDI(1), ALU(BPF_NEG, 0), A_IS(0xffffffff)), 1, 1 },
	{ "rsh x", PROG(LDI(0x80000000), LDXI(31), ALU(BPF_RSH | BPF_X, 0), A_IS(1)), 1, 1 },
	{ "lsh k", PROG(LDI(3), ALU(BPF_LSH | BPF_K, 31), A_IS(0x80000000)), 1, 1 },
	{ "sub k", PROG(LDI(1), ALU(BPF_SUB | BPF_K, 2), A_IS(0xffffffff)), 1, 1 },
	{ "div x", PROG(LDI(10), LDXI(3), ALU(BPF_DIV | BPF_X, 0), A_IS(3)), 1, 1 },
	{ "div x = 0 rejects", PROG(LDI(10), LDXI(0), ALU(BPF_DIV | BPF_X, 0), RET_OK), 0, 1 },
	{ "mod x = 0 rejects", PROG(LDI(10), LDXI(0), ALU(BPF_MOD | BPF_X, 0), RET_OK), 0, 1 },
	{ "mod k", PROG(LDI(10), ALU(BPF_MOD | BPF_K, 4), A_IS(2)), 1, 1 },
	{ "div k unsigned", PROG(LDI(0xfffffffe), ALU(BPF_DIV | BPF_K, 2), A_IS(0x7fffffff)), 1, 1 },
	{ "xor x, or k, and x", PROG(LDI(0xf0), LDXI(0x3c), ALU(BPF_XOR | BPF_X, 0),
	  ALU(BPF_OR | BPF_K, 1), ALU(BPF_AND | BPF_X, 0), A_IS(0x0c)), 1, 1 },
	{ "ldxb msh keeps a", PROG(LDI(7), S(BPF_LDX | BPF_B | BPF_MSH, 14), A_IS(7)), 1, 1 },
	{ "ldxb msh loads x", PROG(S(BPF_LDX | BPF_B | BPF_MSH, 14), TXA, A_IS(20)), 1, 1 },
	{ "ldxb msh beyond the end rejects", PROG(S(BPF_LDX | BPF_B | BPF_MSH, 54), RET_OK), 0, 1 },
	{ "ld len", PROG(S(BPF_LD | BPF_W | BPF_LEN, 0), A_IS(54)), 1, 1 },
	{ "ldx len", PROG(S(BPF_LDX | BPF_W | BPF_LEN, 0), TXA, A_IS(54)), 1, 1 },
	{ "ld ind", PROG(LDXI(14), S(BPF_LD | BPF_B | BPF_IND, 0), A_IS(0x45)), 1, 1 },
	{ "ldh ind", PROG(LDXI(10), S(BPF_LD | BPF_H | BPF_IND, 2), A_IS(ETH_P_IP)), 1, 1 },
	{ "ld ind beyond the end rejects", PROG(LDXI(50), S(BPF_LD | BPF_W | BPF_IND, 2),
	  RET_OK), 0, 1 },
	/* The kernel wraps X + k at 32 bits; libpcap's interpreter rejects. */
	{ "ld ind wraps at 32 bits", PROG(LDXI(0xfffffff0), S(BPF_LD | BPF_W | BPF_IND, 0x2a),
	  A_IS(0x0a000001)), 1, 0 },
	{ "ldh abs beyond the end rejects", PROG(S(BPF_LD | BPF_H | BPF_ABS, 53), RET_OK), 0, 1 },
	{ "ldb abs of the last byte", PROG(S(BPF_LD | BPF_B | BPF_ABS, 53), RET_OK), 1, 1 },
	{ "ldb abs at 0x7fffffff rejects", PROG(S(BPF_LD | BPF_B | BPF_ABS, 0x7fffffff), RET_OK),
	  0, 1 },
	{ "ld abs", PROG(S(BPF_LD | BPF_W | BPF_ABS, 26), A_IS(0x0a000001)), 1, 1 },
	{ "st, ldx M[15]", PROG(LDI(5), S(BPF_ST, 15), S(BPF_LDX | BPF_MEM, 15), TXA, A_IS(5)), 1, 1 },
	{ "stx, ld M[0]", PROG(LDXI(9), S(BPF_STX, 0), S(BPF_LD | BPF_MEM, 0), A_IS(9)), 1, 1 },
	{ "tax", PROG(LDI(6), S(BPF_MISC | BPF_TAX, 0), LDI(0), TXA, A_IS(6)), 1, 1 },
	{ "ja", PROG(J(BPF_JA, 1, 0, 0), RET_NO, RET_OK), 1, 1 },
	{ "ja to ja", PROG(J(BPF_JA, 1, 0, 0), RET_NO, J(BPF_JA, 1, 0, 0), RET_NO, RET_OK), 1, 1 },
	{ "jt == jf", PROG(LDI(0), J(BPF_JEQ | BPF_K, 5, 1, 1), RET_NO, RET_OK), 1, 1 },
	{ "jump to ret a", PROG(LDI(3), J(BPF_JEQ | BPF_K, 3, 1, 0), RET_NO, RET_A), 1, 1 },
	{ "ret #0 falls through", PROG(LDI(3), J(BPF_JEQ | BPF_K, 3, 0, 1), RET_NO, RET_OK), 0, 1 },
	{ "ld [proto] in host order", PROG(ANC(BPF_H, SKF_AD_PROTOCOL), A_IS(ETH_P_IP)), 1, 0 },
	{ "ld [type]", PROG(ANC(BPF_H, SKF_AD_PKTTYPE), A_IS(PACKET_OTHERHOST)), 1, 0 },
	{ "ld [ifidx]", PROG(ANC(BPF_W, SKF_AD_IFINDEX), A_IS(7)), 1, 0 },
	{ "ld [mark]", PROG(ANC(BPF_W, SKF_AD_MARK), A_IS(0x1234)), 1, 0 },
	{ "ld [queue]", PROG(ANC(BPF_W, SKF_AD_QUEUE), A_IS(3)), 1, 0 },
	{ "ld [rxhash]", PROG(ANC(BPF_W, SKF_AD_RXHASH), A_IS(0xdeadbeef)), 1, 0 },
	{ "ldb [vlan_tci] loads 16 bits", PROG(ANC(BPF_B, SKF_AD_VLAN_TAG), A_IS(0x2abc)), 1, 0 },
	{ "ldb [vlanp]", PROG(ANC(BPF_B, SKF_AD_VLAN_TAG_PRESENT), A_IS(1)), 1, 0 },
	{ "ld [vlan_tpid] in host order", PROG(ANC(BPF_H, SKF_AD_VLAN_TPID), A_IS(ETH_P_8021AD)), 1, 0 },
	{ "ld [cpu] (the engine is one CPU)", PROG(ANC(BPF_W, SKF_AD_CPU), A_IS(0)), 1, 0 },
	{ "ld [cpu] keeps x", PROG(LDXI(9), ANC(BPF_W, SKF_AD_CPU), TXA, A_IS(9)), 1, 0 },
	{ "ld [rand]", PROG(ANC(BPF_W, SKF_AD_RANDOM), LDI(1), RET_A), 1, 0 },
	{ "ld [xor_x]", PROG(LDI(0xf0), LDXI(0x0f), ANC(BPF_W, SKF_AD_ALU_XOR_X), A_IS(0xff)), 1, 0 },
};

static void test_hand(const struct hand *h, const struct pkt *p)
{
	struct packet skb = {
		.data = p->frame, .len = p->len, .mark = 0x1234, .queue_mapping = 3,
		.hash = 0xdeadbeef, .protocol = htons(ETH_P_IP),
		.vlan_present = 1, .vlan_tci = 0x2abc, .vlan_proto = htons(ETH_P_8021AD),
		.pkt_type = PACKET_OTHERHOST, .ifindex = 7,
	};
	const struct pcap_bpf_insn *pf = (const struct pcap_bpf_insn *)h->f;
	char name[160];
	int pcap = h->pcap ? bpf_filter(pf, p->frame, p->len, p->len) != 0 : h->want;
	char err[256] = "";
	struct emit e;
	long got = -2;

	if (!translate(h->f, h->n, &e, err, sizeof(err)))
		got = vm_exec(e.insns, e.len, &skb);
	snprintf(name, sizeof(name), "%s%s", h->name, mode_tag[mode]);
	if (!tap_ok(got == h->want && pcap == h->want, name)) {
		printf("#   ebpf %ld (%s), libpcap %d, want %d\n", got,
		       got == VM_TRAP ? vm_why() : err, pcap, h->want);
		dump_classic(h->f, h->n);
		vm_dump(stdout, "#   ", e.insns, e.len);
	}
	emit_free(&e);
}

/* ---- malformed programs ---- */

struct bad {
	const char *name;
	struct sock_filter f[4];
	unsigned int n;
	const char *msg;
};

static const struct bad bads[] = {
	{ "bad opcode", PROG(S(0xff, 0), RET_OK), "bad opcode 0xff" },
	{ "ret x is no classic insn", PROG(S(BPF_RET | BPF_X, 0)), "bad opcode" },
	{ "ldx with size b", PROG(S(BPF_LDX | BPF_B | BPF_IMM, 0), RET_OK), "bad opcode" },
	{ "jump out of range", PROG(J(BPF_JEQ | BPF_K, 1, 0, 2), RET_OK), "insn 0: jump out of range" },
	{ "ja out of range", PROG(J(BPF_JA, 1, 0, 0), RET_OK), "jump out of range" },
	{ "ja backwards", PROG(LDI(0), J(BPF_JA, -2, 0, 0), RET_OK), "insn 1: backward jump" },
	{ "M[16]", PROG(S(BPF_ST, 16), RET_OK), "M[16] out of range" },
	{ "falls off the end", PROG(LDI(1)), "falls off the end" },
	{ "division by constant zero", PROG(ALU(BPF_DIV | BPF_K, 0), RET_OK), "division by zero" },
	{ "modulo by constant zero", PROG(ALU(BPF_MOD | BPF_K, 0), RET_OK), "division by zero" },
	{ "shift by 32", PROG(ALU(BPF_LSH | BPF_K, 32), RET_OK), "shift by 32" },
	{ "hatype", PROG(ANC(BPF_H, SKF_AD_HATYPE), RET_A), "SKF_AD_HATYPE is not supported" },
	{ "nlattr", PROG(ANC(BPF_W, SKF_AD_NLATTR), RET_A), "SKF_AD_NLATTR is not supported" },
	{ "pay_offset", PROG(ANC(BPF_W, SKF_AD_PAY_OFFSET), RET_A), "SKF_AD_PAY_OFFSET is not" },
	{ "unknown ancillary", PROG(ANC(BPF_W, SKF_AD_MAX), RET_A), "unknown ancillary load SKF_AD_OFF+64" },
	{ "SKF_NET_OFF", PROG(S(BPF_LD | BPF_B | BPF_ABS, SKF_NET_OFF), RET_A), "negative packet offset" },
	{ "ldxb msh of ancillary", PROG(S(BPF_LDX | BPF_B | BPF_MSH, SKF_AD_OFF), RET_OK),
	  "negative packet offset" },
};

static void test_bad(const char *name, const struct sock_filter *f, unsigned int n,
		     const char *msg)
{
	char err[256] = "", tname[300];
	int reject = NO_JUMP, ret;
	struct emit e;

	emit_init(&e);
	ret = cbpf_translate(&e, f, n, FRAME_LD_ABS, BPF_REG_9, 0, &reject, err, sizeof(err));
	snprintf(tname, sizeof(tname), "refused: %s", name);
	if (!tap_ok(ret == -EINVAL && e.len == 0 && reject == NO_JUMP &&
		     strstr(err, msg), tname))
		printf("#   ret %d, %d insns, err '%s', want '%s'\n", ret, e.len, err, msg);
	emit_free(&e);
}

/* libpcap compiles protochain to a loop, which eBPF filters cannot have. */
static void test_protochain(void)
{
	struct bpf_program prog;
	char err[256];

	if (filter_compile("ip6 protochain 6", NULL, &prog, err, sizeof(err))) {
		tap_ok(0, err);
		return;
	}
	test_bad("ip6 protochain 6", filter_insns(&prog), prog.bf_len, "backward jump");
	filter_free(&prog);
}

/* Room for one instruction of the two that `ip` needs. */
static void test_too_large(void)
{
	const struct sock_filter f[] = {
		S(BPF_LD | BPF_H | BPF_ABS, 12), A_IS(ETH_P_IP),
	};
	int reject = NO_JUMP, ret;
	char err[256] = "";
	struct emit e;

	emit_init(&e);
	while (e.len < EMIT_MAX_INSNS - 1)
		emit(&e, BPF_MOV64_IMM(BPF_REG_0, 0));
	ret = cbpf_translate(&e, f, 4, FRAME_LD_ABS, BPF_REG_9, 0, &reject, err, sizeof(err));
	if (!tap_ok(ret == -E2BIG && strstr(err, "program too large") &&
		     reject == NO_JUMP, "refused: program too large"))
		printf("#   ret %d, err '%s'\n", ret, err);
	emit_free(&e);
}

/* ---- random programs ---- */

static __u32 fuzz_seed = 2463534242u;

static __u32 rnd(void)
{
	fuzz_seed ^= fuzz_seed << 13;
	fuzz_seed ^= fuzz_seed >> 17;
	fuzz_seed ^= fuzz_seed << 5;
	return fuzz_seed;
}

/*
 * Left out where libpcap and the kernel differ: shifts by X >= 32, and
 * X + k past 4 GiB in LD_IND (X never gets large without TAX and ST).
 */
static const __u16 fuzz_codes[] = {
	BPF_LD | BPF_W | BPF_ABS, BPF_LD | BPF_H | BPF_ABS, BPF_LD | BPF_B | BPF_ABS,
	BPF_LD | BPF_W | BPF_IND, BPF_LD | BPF_H | BPF_IND, BPF_LD | BPF_B | BPF_IND,
	BPF_LD | BPF_W | BPF_LEN, BPF_LD | BPF_IMM, BPF_LD | BPF_MEM,
	BPF_LDX | BPF_W | BPF_IMM, BPF_LDX | BPF_W | BPF_MEM, BPF_LDX | BPF_W | BPF_LEN,
	BPF_LDX | BPF_B | BPF_MSH, BPF_STX, BPF_ALU | BPF_ADD | BPF_K, BPF_ALU | BPF_SUB | BPF_K, BPF_ALU | BPF_MUL | BPF_K,
	BPF_ALU | BPF_DIV | BPF_K, BPF_ALU | BPF_MOD | BPF_K, BPF_ALU | BPF_AND | BPF_K,
	BPF_ALU | BPF_OR | BPF_K, BPF_ALU | BPF_XOR | BPF_K, BPF_ALU | BPF_LSH | BPF_K,
	BPF_ALU | BPF_RSH | BPF_K, BPF_ALU | BPF_NEG,
	BPF_ALU | BPF_ADD | BPF_X, BPF_ALU | BPF_SUB | BPF_X, BPF_ALU | BPF_MUL | BPF_X,
	BPF_ALU | BPF_DIV | BPF_X, BPF_ALU | BPF_MOD | BPF_X, BPF_ALU | BPF_AND | BPF_X,
	BPF_ALU | BPF_OR | BPF_X, BPF_ALU | BPF_XOR | BPF_X,
	BPF_JMP | BPF_JA, BPF_JMP | BPF_JEQ | BPF_K, BPF_JMP | BPF_JGT | BPF_K,
	BPF_JMP | BPF_JGE | BPF_K, BPF_JMP | BPF_JSET | BPF_K, BPF_JMP | BPF_JEQ | BPF_X,
	BPF_JMP | BPF_JGT | BPF_X, BPF_JMP | BPF_JGE | BPF_X, BPF_JMP | BPF_JSET | BPF_X,
	BPF_RET | BPF_K, BPF_RET | BPF_A, BPF_MISC | BPF_TXA,
};

static __u32 fuzz_k(__u16 code)
{
	static const __u32 special[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 14, 54 };

	if (BPF_CLASS(code) == BPF_LD || BPF_CLASS(code) == BPF_LDX)
		return rnd() % 60;
	if (BPF_CLASS(code) == BPF_ST || BPF_CLASS(code) == BPF_STX)
		return rnd() % 17;	/* now and then out of range */
	if (BPF_OP(code) == BPF_LSH || BPF_OP(code) == BPF_RSH)
		return rnd() % 33;
	return rnd() % 2 ? special[rnd() % 7] : rnd();
}

/* M[] starts unset in libpcap: set M[0..15], then n random insns, RET. */
static unsigned int fuzz_prog(struct sock_filter *f, unsigned int n)
{
	unsigned int i, len = n + 17;

	f[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, 0);
	for (i = 1; i <= 16; i++)
		f[i] = (struct sock_filter)BPF_STMT(BPF_ST, i - 1);
	for (; i < len - 1; i++) {
		__u16 code = rnd() % 64 ? fuzz_codes[rnd() % (sizeof(fuzz_codes) / 2)] : rnd();
		unsigned int span = len - i + 1;	/* now and then too far */

		f[i] = (struct sock_filter)BPF_JUMP(code, fuzz_k(code), rnd() % span, rnd() % span);
		if (code == (BPF_JMP | BPF_JA))
			f[i].k = rnd() % span;
	}
	f[i] = (struct sock_filter)BPF_STMT(BPF_RET | (rnd() % 2 ? BPF_A : BPF_K), rnd() % 2);
	return len;
}

/* Programs the translator takes must run as libpcap runs them. */
static void test_fuzz(void)
{
	int i, taken = 0, bad = 0;
	struct sock_filter f[40];
	char err[256], name[80];
	struct emit e;

	for (i = 0; i < 20000; i++) {
		unsigned int n = fuzz_prog(f, 1 + rnd() % 20);
		const struct pkt *p = &pkts[i % NPKTS];
		long got, want;

		if (!translate(f, n, &e, err, sizeof(err))) {
			taken++;
			got = vm_exec(e.insns, e.len, &p->file_skb);
			want = bpf_filter((const struct pcap_bpf_insn *)f, p->frame, p->len,
					  p->len) != 0;
			if (got != want && bad++ < 3) {
				printf("#   %s: ebpf %ld %s, libpcap %ld\n", p->name, got,
				       got == VM_TRAP ? vm_why() : "", want);
				dump_classic(f, n);
			}
		}
		emit_free(&e);
	}
	printf("# %d random programs translated of 20000\n", taken);
	snprintf(name, sizeof(name), "random programs%s: ebpf agrees with libpcap", mode_tag[mode]);
	tap_ok(!bad && taken > 1000, name);
}

/* ---- golden, filter_compile ---- */

static void test_golden_ip(void)
{
	const struct bpf_insn want[] = {
		INSN(BPF_LD | BPF_H | BPF_ABS, 0, 0, 0, 12),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, ETH_P_IP, NO_JUMP),
	};
	struct bpf_program prog;
	int reject = NO_JUMP, ret = -1;
	char err[256];
	struct emit e;

	emit_init(&e);
	if (!filter_compile("ip", NULL, &prog, err, sizeof(err))) {
		ret = cbpf_translate(&e, filter_insns(&prog), prog.bf_len, FRAME_LD_ABS,
				     BPF_REG_9, 0, &reject, err, sizeof(err));
		filter_free(&prog);
	}
	if (!tap_ok(!ret && e.len == 2 && reject == 1 &&
		     !memcmp(e.insns, want, sizeof(want)),
		     "golden: `ip` is ldabsh 12; jne r0, 0x800 -> reject"))
		vm_dump(stdout, "#   ", e.insns, e.len);
	emit_free(&e);
}

static void test_filter_compile(void)
{
	struct bpf_program prog;
	char err[256] = "";

	tap_ok(filter_compile("tcp port", NULL, &prog, err, sizeof(err)) == -1 &&
		strstr(err, "syntax error") && !strchr(err, '\n'),
		"filter_compile: libpcap's syntax error, one line");
	printf("#   %s\n", err);
	tap_ok(filter_compile("ip broadcast", NULL, &prog, err, sizeof(err)) == -1 &&
		strstr(err, "netmask not known"), "filter_compile: netmask unknown");
	/* Offline, libpcap looks for VLAN tags inline, not in skb->vlan_tci. */
	if (!tap_ok(!filter_compile("vlan 42", NULL, &prog, err, sizeof(err)), "vlan 42"))
		return;
	tap_ok(prog.bf_insns[0].k == 12, "filter_compile: offline `vlan 42` reads the tag inline");
	filter_free(&prog);
}

/* ---- facts: what every accept of a filter has tested ---- */

static const struct {
	const char *filter;
	int size;
	__u32 off, mask, value;
	int known;
} fact_rows[] = {
	{ "ip", BPF_H, 12, 0xffff, ETH_P_IP, 1 },
	{ "ip and tcp port 443", BPF_H, 12, 0xffff, ETH_P_IP, 1 },
	{ "ip and tcp port 443", BPF_B, 23, 0xff, IPPROTO_TCP, 1 },
	{ "ip and tcp port 443", BPF_H, 20, 0x1fff, 0, 1 },
	{ "ip and tcp port 443", BPF_H, 20, 0xffff, 0, 0 },	/* only the offset */
	{ "ip and tcp port 443", BPF_B, 23, 0xff, IPPROTO_UDP, 0 },
	{ "tcp port 443", BPF_H, 12, 0xffff, ETH_P_IP, 0 },	/* IPv6 too */
	{ "ip or arp", BPF_H, 12, 0xffff, ETH_P_IP, 0 },
	{ "not ip", BPF_H, 12, 0xffff, ETH_P_IP, 0 },
	{ "ip and udp", BPF_B, 23, 0xff, IPPROTO_UDP, 1 },
	{ "ip and udp", BPF_H, 20, 0x1fff, 0, 0 },		/* libpcap tests no offset */
	{ "ether[12:2] & 0xff00 = 0x0800", BPF_H, 12, 0xff00, 0x0800, 1 },
	{ "ether[12:2] & 0xff00 = 0x0800", BPF_H, 12, 0xffff, 0x0800, 0 },
};

static void test_facts(void)
{
	struct cbpf_facts facts;
	struct bpf_program prog;
	char err[256], name[200];
	size_t i;

	for (i = 0; i < sizeof(fact_rows) / sizeof(fact_rows[0]); i++) {
		if (filter_compile(fact_rows[i].filter, NULL, &prog, err, sizeof(err))) {
			tap_ok(0, fact_rows[i].filter);
			continue;
		}
		cbpf_facts(filter_insns(&prog), prog.bf_len, &facts);
		filter_free(&prog);
		snprintf(name, sizeof(name), "facts of '%s': %s[%u:%d] & %#x == %#x%s",
			 fact_rows[i].filter, fact_rows[i].known ? "" : "not ",
			 fact_rows[i].off, fact_rows[i].size == BPF_B ? 1 :
			 fact_rows[i].size == BPF_H ? 2 : 4, fact_rows[i].mask,
			 fact_rows[i].value, fact_rows[i].known ? "" : " on every accept");
		tap_ok(cbpf_known(&facts, fact_rows[i].size, fact_rows[i].off, fact_rows[i].mask,
				   fact_rows[i].value) == fact_rows[i].known, name);
	}
}

/*
 * The split translation: the accepts of `tcp port 443` that tested IPv4
 * (its EtherType, protocol and fragment offset) jump to their own list,
 * the IPv6 ones fall through; those of `ip and tcp port 443` all jump.
 */
static void test_split(void)
{
	static const char *const filters[] = { "tcp port 443", "ip and tcp port 443" };
	struct cbpf_facts want = { 3, {
		{ BPF_H, 12, 0xffff, ETH_P_IP }, { BPF_H, 20, 0x1fff, 0 },
		{ BPF_B, 23, 0xff, IPPROTO_TCP } } };
	int i, reject, known, other, ret;
	struct bpf_program prog;
	char err[256];
	struct emit e;

	for (i = 0; i < 2; i++) {
		emit_init(&e);
		reject = known = NO_JUMP;
		other = -1;
		ret = filter_compile(filters[i], NULL, &prog, err, sizeof(err));
		if (!ret) {
			ret = cbpf_translate_split(&e, filter_insns(&prog), prog.bf_len,
						   FRAME_LD_ABS, BPF_REG_9, 0, &reject, &want,
						   &known, &other, err, sizeof(err));
			filter_free(&prog);
		}
		tap_okf(!ret && known != NO_JUMP && other == !i,
			 "split '%s': the IPv4 accepts jump apart, %s", filters[i],
			 i ? "no other" : "the IPv6 ones fall through");
		emit_free(&e);
	}
}

int main(void)
{
	size_t i;

	for (i = 0; i < NPKTS; i++)
		if (build(i))
			return tap_done();
	for (mode = FRAME_WINDOW; mode <= FRAME_LD_ABS; mode++) {
		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			test_row(&rows[i]);
		for (i = 0; i < sizeof(hands) / sizeof(hands[0]); i++)
			test_hand(&hands[i], &pkts[0]);
		test_fuzz();
	}
	/* direct reads, from skbs linear in full, in half and not at all */
	mode = FRAME_DIRECT;
	for (split = 0; split < 3; split++)
		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			test_row(&rows[i]);
	split = 0;
	/* the table again, as where clauses of all but the last expression */
	keep_going = 1;
	for (mode = FRAME_WINDOW; mode <= FRAME_DIRECT; mode++)
		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			test_row(&rows[i]);
	keep_going = 0;
	printf("# %d filter x packet cases (%zu filters x %d packets, every mode), %d accepted\n",
	       ncases, sizeof(rows) / sizeof(rows[0]), NPKTS, naccepted);
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++)
		test_bad(bads[i].name, bads[i].f, bads[i].n, bads[i].msg);
	test_bad("empty program", bads[0].f, 0, "classic program of 0 instructions");
	test_protochain();
	test_facts();
	test_split();
	test_too_large();
	test_golden_ip();
	test_filter_compile();
	return tap_done();
}
