// SPDX-License-Identifier: GPL-2.0
/*
 * Generated programs run in the user engine, through the session as
 * ebpfcount -r runs them (src/session.c: the tables, the strict engine, the
 * reports): what they count, without a kernel.
 *
 * Without arguments, a TAP test on frames built from craft specs
 * (tests/spec.h), of what no decoder can tell: every run returns 0
 * (nothing is queued to the socket) and never traps, the where clause drops packets, gso_segs counts wire
 * packets, keys that do not fit in a bounded hash go to the overflow
 * counter, array entries for absent and truncated keys, vlan.id from the
 * skb metadata and from an inline tag; and every field's program counts
 * frames of every length, cut anywhere, once each.
 *
 * With arguments, the helper of tests/host/50-vm-count.t:
 *
 *	test_fields [-l] [-m MAX_KEYS] FILE.pcap EXPRESSION
 *
 * runs the program of EXPRESSION over every frame of FILE.pcap as a
 * Linux packet socket sees it (an outer 802.1Q/802.1ad tag moved into
 * skb->vlan_tci, as the kernel does on receive) and prints the counts
 * as `ebpfcount -F csv` prints its final figures; -l: reading the frame
 * with LD_ABS (as without CAP_PERFMON) instead of the window.
 *
 * Both run every program reading the frame from the window, with LD_ABS,
 * and directly (FRAME_DIRECT) from skbs whose linear part is all, 14
 * bytes, half or none of the frame.  Exit status 1 and a
 * message on stderr if anything fails.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen.h"
#include "compile.h"
#include "filter.h"
#include "output.h"
#include "session.h"
#include "spec.h"
#include "tap.h"
#include "vm.h"

#define DEFAULT_KEYS	4096	/* the bound of -m */
#define FRAME_MAX	2048

#define prog program

/* A program counting in the engine, and what it counted. */
struct counts {
	struct session s;
	struct interval iv;	/* the totals, after collect() */
	int traps;		/* runs that faulted or returned non-zero */
	char why[256];		/* the first of them */
};

/* How the programs compiled next read the frame (root: the window). */
static enum frame_mode frame_mode;
static const char *const mode_tag[] = {
	[FRAME_WINDOW] = "", [FRAME_LD_ABS] = " (LD_ABS)", [FRAME_DIRECT] = " (direct)",
};

/*
 * FRAME_DIRECT: the skbs' linear parts, from all of the frame to none of
 * it; the counts must not depend on them.
 */
enum { LIN_ALL, LIN_ETH, LIN_HALF, LIN_NONE, NR_LIN };
static const char *const lin_tag[NR_LIN] = {
	"", ", linear: 14 bytes", ", linear: half", ", linear: none",
};
static int lin;

/* The bytes of an skb of len that lie outside its linear part. */
static unsigned int nonlinear(unsigned int len)
{
	unsigned int linear = lin == LIN_ALL ? len : lin == LIN_ETH ? 14 :
			      lin == LIN_HALF ? len / 2 : 0;

	return linear < len ? len - linear : 0;
}

/*
 * Compile expr as ebpfcount does (no interface, max_keys as --max-keys);
 * slow_only: without its fast paths.
 */
static int slow_only;

static int build(const char *expr, unsigned int max_keys, struct prog *p, char *err,
		 size_t errlen)
{
	struct build_opts bo = { .allowed = frame_mode, .max_keys = max_keys,
				 .slow_only = slow_only };
	struct build_error berr;

	/* the sll.* keys: as for a capture file that has them */
	if (strstr(expr, "sll."))
		bo.src.linktype = "LINUX_SLL2";

	if (program_build(p, &expr, 1, &bo, &berr)) {
		emit_init(&p->e);
		snprintf(err, errlen, "%.200s at %d", berr.msg, berr.pos);
		return -1;
	}
	return 0;
}

/*
 * p's tables and program in a strict engine (EBPF_VM_TRACE=1: every
 * instruction on stderr), nothing counted yet.
 */
static int start(const struct prog *p, struct counts *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (session_open(&c->s, p, &(struct session_opts){ .strict = 1 }, err, errlen))
		return -1;
	if (getenv("EBPF_VM_TRACE"))
		vm_trace(c->s.vm, stderr);
	return 0;
}

/*
 * The frame as a packet socket sees it: an outer VLAN tag moved to the
 * skb, the frame 4 bytes shorter.  buf holds the frame when it changes.
 */
static void to_skb(const unsigned char *frame, unsigned int len, unsigned char *buf,
		   struct packet *skb)
{
	unsigned int type = len >= 14 ? frame[12] << 8 | frame[13] : 0;

	memset(skb, 0, sizeof(*skb));
	skb->data = frame;
	skb->len = len;
	if ((type == ETH_P_8021Q || type == ETH_P_8021AD) && len >= 18 && len <= FRAME_MAX) {
		memmove(buf, frame, 12);
		memmove(buf + 12, frame + 16, len - 16);
		skb->data = buf;
		skb->len = len - 4;
		skb->vlan_present = 1;
		skb->vlan_tci = frame[14] << 8 | frame[15];
		skb->vlan_proto = htons(type);
	}
	if (skb->len >= 14)
		skb->protocol = htons(skb->data[12] << 8 | skb->data[13]);
}

static void run(struct counts *c, const struct packet *skb)
{
	char err[256];

	if (session_run(&c->s, skb, err, sizeof(err)) && !c->traps++)
		snprintf(c->why, sizeof(c->why), "%s", err);
}

/* The totals, as ebpfcount's final figures give them. */
static void collect(struct counts *c)
{
	struct interval iv[1];
	char err[256] = "out of memory for the totals";

	if (session_collect(&c->s, iv, err, sizeof(err)) || session_totals(&c->s, &c->iv)) {
		if (!c->traps++)
			snprintf(c->why, sizeof(c->why), "the readout failed: %s", err);
		memset(&c->iv, 0, sizeof(c->iv));
	}
}

/* The CSV of the final figures, without the time columns. */
static char *csv(const struct prog *p, const struct counts *c)
{
	struct output o = { .x = p->x, .nx = 1 };
	char *text = NULL, *out, *s, *d;
	size_t size;

	output_init(&o, "csv");
	o.f = open_memstream(&text, &size);
	output_begin(&o);
	output_interval(&o, &c->iv);
	fclose(o.f);
	/* "0.000,0.000,1,row,..." -> "row,..." and the header alike */
	out = malloc(size + 1);
	for (s = text, d = out; *s; ) {
		int skip = strncmp(s, "time,interval,final,", 20) ? 14 : 20;

		s += skip;
		while (*s && *s != '\n')
			*d++ = *s++;
		if (*s)
			*d++ = *s++;
	}
	*d = '\0';
	free(text);
	return out;
}

/* ---- helper mode ---- */

static int helper(const char *file, const char *expr, unsigned int max_keys)
{
	static unsigned char buf[FRAME_MAX];
	static struct counts c;
	char err[PCAP_ERRBUF_SIZE + 256], *text;
	const unsigned char *frame;
	struct pcap_pkthdr *h;
	struct packet skb;
	struct prog p;
	pcap_t *pc;
	int ret;

	if (build(expr, max_keys, &p, err, sizeof(err)) || start(&p, &c, err, sizeof(err))) {
		fprintf(stderr, "test_fields: '%s': %s\n", expr, err);
		return 1;
	}
	pc = pcap_open_offline(file, err);
	if (!pc) {
		fprintf(stderr, "test_fields: %s\n", err);
		return 1;
	}
	while ((ret = pcap_next_ex(pc, &h, &frame)) == 1) {
		to_skb(frame, h->caplen, buf, &skb);
		run(&c, &skb);
	}
	pcap_close(pc);
	collect(&c);
	if (c.traps) {
		fprintf(stderr, "test_fields: %d runs failed (%s)\n", c.traps, c.why);
		return 1;
	}
	text = csv(&p, &c);
	fputs(text, stdout);
	free(text);
	session_close(&c.s);
	program_free(&p);
	return ret == PCAP_ERROR_BREAK ? 0 : 1;
}

/* ---- frames for the TAP test ---- */

struct fspec {
	const char *spec;	/* craft's spec (tests/spec.h) */
	unsigned int skb_vlan;	/* 0, or TCI of a tag moved to the skb */
	unsigned int gso_segs;
};

/* From 198.18.7.9:40000; the rest as craft's defaults (to 198.18.0.1). */
#define UDP(port)	"udp4,src=198.18.7.9,sport=40000,dport=" #port
#define TCP(port)	"tcp4,src=198.18.7.9,sport=40000,dport=" #port
#define FRAG		"udp4,src=198.18.7.9,frag=later,len=42"	/* a later fragment */
#define IP6_HOP		"udp6,src=::2,dst=::1,ext=hop,dport=53"	/* hop-by-hop, then UDP */
#define ARP		"arp"

/* The frame of f into b (of 128 bytes); its length. */
static unsigned int make_frame(const struct fspec *f, unsigned char *b)
{
	char err[256];
	int len = spec_frame(f->spec, b, 128, err, sizeof(err));

	if (len < 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	return len;
}

struct tcase {
	const char *expr;
	unsigned int max_keys;	/* --max-keys; 0: none (DEFAULT_KEYS entries) */
	struct fspec frames[8];
	const char *want;	/* CSV as csv() gives it */
};

#define F(...) { .spec = __VA_ARGS__ }

static const struct tcase tcases[] = {
	{ "count", 0, { F(UDP(53), .gso_segs = 5), F(ARP) },
	  "kind,missing,packets,bytes\n"
	  "row,,6,84\n"
	  "overflow,,0,0\n"
	  "total,,6,84\n" },
	{ "count by udp.dstport", 2,
	  { F(UDP(1)), F(UDP(2)), F(UDP(2)), F(UDP(3)), F(UDP(3)), F(UDP(4)) },
	  "kind,udp.dstport,missing,packets,bytes\n"
	  "row,2,,2,84\n"
	  "row,1,,1,42\n"
	  "overflow,,,3,126\n"
	  "total,,,6,252\n" },
	{ "count by ip.proto", 0,
	  { F(TCP(443)), F(TCP(80)), F(UDP(53)), F(ARP), F(TCP(443) ",trunc=20"),
	    F(TCP(443) ",trunc=14") },
	  "kind,ip.proto,missing,packets,bytes\n"
	  "row,6,,2,108\n"
	  "row,,truncated,2,34\n"
	  "row,17,,1,42\n"
	  "row,,absent,1,42\n"
	  "overflow,,,0,0\n"
	  "total,,,6,226\n" },
	{ "count by ip.proto where udp or arp", 0,
	  { F(TCP(443)), F(UDP(53)), F(ARP), F(TCP(443) ",trunc=20") },
	  "kind,ip.proto,missing,packets,bytes\n"
	  "row,17,,1,42\n"
	  "row,,absent,1,42\n"
	  "overflow,,,0,0\n"
	  "total,,,2,84\n" },
	{ "count by vlan.id, udp.dstport", 0,
	  { F(UDP(53), .skb_vlan = 0xa02a), F(UDP(53) ",vlan=42"), F(UDP(53)),
	    F(UDP(53) ",vlan=7,trunc=15") },
	  "kind,vlan.id,udp.dstport,missing,packets,bytes\n"
	  "row,42,53,,2,88\n"
	  "row,,53,absent,1,42\n"
	  "row,,,truncated,1,15\n"
	  "overflow,,,,0,0\n"
	  "total,,,,4,145\n" },
	{ "count by ip.src/24, ip.proto, tcp.dstport", 0,
	  { F(TCP(443)), F(FRAG), F(TCP(443) ",trunc=35") },
	  "kind,ip.src,ip.proto,tcp.dstport,missing,packets,bytes\n"
	  "row,198.18.7.0/24,6,443,,1,54\n"
	  "row,198.18.7.0/24,17,,absent,1,42\n"
	  "row,198.18.7.0/24,6,,truncated,1,35\n"
	  "overflow,,,,,0,0\n"
	  "total,,,,,3,131\n" },
	{ "count by ipv6.nxt, udp.dstport", 0, { F(IP6_HOP) },
	  "kind,ipv6.nxt,udp.dstport,missing,packets,bytes\n"
	  "row,0,53,,1,70\n"
	  "overflow,,,,0,0\n"
	  "total,,,,1,70\n" },
};

static void check_case(const struct tcase *t)
{
	static struct counts c;
	unsigned char frame[128];
	struct packet skb;
	struct prog p;
	char err[256], name[160], *text;
	int i;

	memset(&c, 0, sizeof(c));
	if (build(t->expr, t->max_keys, &p, err, sizeof(err)) || start(&p, &c, err, sizeof(err))) {
		tap_ok(0, t->expr);
		printf("#   %s\n", err);
		return;
	}
	for (i = 0; i < 8 && t->frames[i].spec; i++) {
		const struct fspec *f = &t->frames[i];
		unsigned int len = make_frame(f, frame);

		/* tags stay inline here; skb_vlan puts one in the skb */
		memset(&skb, 0, sizeof(skb));
		skb.data = frame;
		skb.len = len;
		skb.nonlinear = nonlinear(skb.len);
		skb.protocol = htons(frame[12] << 8 | frame[13]);
		skb.gso_segs = f->gso_segs;
		if (f->skb_vlan) {
			skb.vlan_present = 1;
			skb.vlan_tci = f->skb_vlan;
			skb.vlan_proto = htons(ETH_P_8021Q);
		}
		run(&c, &skb);
	}
	snprintf(name, sizeof(name), "'%s'%s%s: %d runs return 0, none traps", t->expr,
		 mode_tag[frame_mode], lin_tag[lin], i);
	if (!tap_ok(!c.traps, name))
		printf("#   %d runs failed (%s)\n", c.traps, c.why);
	collect(&c);
	text = csv(&p, &c);
	snprintf(name, sizeof(name), "'%s'%s%s: counts", t->expr, mode_tag[frame_mode],
		 lin_tag[lin]);
	tap_streq(text, t->want, name);
	free(text);
	session_close(&c.s);
	program_free(&p);
}

/*
 * Every packet is counted, whatever its length: the program of each field
 * (and of a few tuples) runs on frames of several kinds cut at every
 * length, and the total must be one packet per run.  A frame read past its
 * end (a short LD_ABS ends the program) would go missing here.
 */
static void check_every_length(const char *expr, unsigned int max_keys)
{
	static const struct fspec kinds[] = {
		F(TCP(443)), F(UDP(53)), F(IP6_HOP), F(ARP), F(FRAG),
		F(TCP(443) ",vlan=42"), F(UDP(53) ",vlan=7"),
	};
	static struct counts c;
	unsigned char frame[128];
	struct packet skb;
	struct prog p;
	char err[256], name[160];
	unsigned int k, len, cut, runs = 0;

	memset(&c, 0, sizeof(c));
	if (build(expr, max_keys, &p, err, sizeof(err)) || start(&p, &c, err, sizeof(err))) {
		tap_ok(0, expr);
		printf("#   %s\n", err);
		return;
	}
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		len = make_frame(&kinds[k], frame);
		for (cut = 0; cut <= len; cut++, runs++) {
			memset(&skb, 0, sizeof(skb));
			skb.data = frame;
			skb.len = cut;
			skb.nonlinear = nonlinear(cut);
			run(&c, &skb);
		}
	}
	collect(&c);
	snprintf(name, sizeof(name), "'%s'%s%s%s: each of %u cut frames counted once", expr,
		 max_keys ? " in 2 keys" : "", mode_tag[frame_mode], lin_tag[lin], runs);
	if (!tap_ok(!c.traps && c.iv.total.packets == runs, name))
		printf("#   %llu counted, %d runs failed (%s)\n",
		       (unsigned long long)c.iv.total.packets, c.traps, c.why);
	session_close(&c.s);
	program_free(&p);
}

static void check_lengths(void)
{
	static const char *const tuples[] = {
		"count", "count by ip.src/24, tcp.dstport", "count by ipv6.dst/64, udp.srcport",
		"count by eth.src, vlan.id, ip.proto, tcp.flags, frame.len",
	};
	const struct field *f = NULL;
	char expr[64];
	int i, n;

	f = field_table(&n);
	for (i = 0; i < n; i++) {
		snprintf(expr, sizeof(expr), "count by %s", f[i].name);
		check_every_length(expr, 0);
	}
	for (i = 0; i < (int)(sizeof(tuples) / sizeof(tuples[0])); i++)
		check_every_length(tuples[i], 0);
	check_every_length(tuples[1], 2);
}

/*
 * Fast path against slow path: the programs of expr with and without their
 * fast paths (codegen.c) count the same on random frames, most of them
 * near the fast path's guard: the common IPv4 frame with one of its
 * header's bytes changed (EtherType, version and length, fragment offset,
 * protocol, the addresses and ports), with IP options, tagged, cut
 * anywhere, and in FRAME_DIRECT mode with any linear part.
 */
static void check_fast_slow(const char *expr, unsigned int seed)
{
	static const struct fspec kinds[] = {
		F(TCP(443)), F(UDP(53)), F(IP6_HOP), F(ARP), F(FRAG),
		F(TCP(443) ",vlan=42"), F(TCP(443) ",ipopts=4"),
	};
	/* (offset, value) changes of an untagged frame's header */
	static const unsigned char pokes[][2] = {
		{ 12, 0x86 }, { 12, 0x81 }, { 13, 0x01 }, { 14, 0x46 }, { 14, 0x44 },
		{ 14, 0x55 }, { 14, 0x4f }, { 20, 0x20 }, { 20, 0x40 }, { 21, 0x01 },
		{ 23, 6 }, { 23, 17 }, { 23, 1 }, { 23, 58 }, { 26, 10 }, { 29, 7 },
		{ 33, 1 }, { 34, 0 }, { 35, 53 }, { 36, 1 }, { 37, 187 }, { 47, 0x12 },
	};
	enum { RUNS = 3000 };
	static struct counts c[2];
	char err[256], name[200], *text[2];
	unsigned char frame[128];
	unsigned int r = seed, i, k;
	struct packet skb;
	struct prog p[2];

	for (k = 0; k < 2; k++) {
		slow_only = k;
		if (build(expr, 0, &p[k], err, sizeof(err))) {
			slow_only = 0;
			tap_ok(0, expr);
			printf("#   %s\n", err);
			return;
		}
	}
	slow_only = 0;
	for (k = 0; k < 2; k++) {
		if (start(&p[k], &c[k], err, sizeof(err))) {
			tap_ok(0, expr);
			printf("#   %s\n", err);
			return;
		}
		for (i = 0, r = seed; i < RUNS; i++) {
			unsigned int len, n;

			r = r * 1103515245 + 12345;
			len = make_frame(&kinds[(r >> 16) % 7], frame);
			for (n = (r >> 8) % 3; n > 0; n--) {
				r = r * 1103515245 + 12345;
				frame[pokes[(r >> 16) % 22][0]] = pokes[(r >> 16) % 22][1];
			}
			r = r * 1103515245 + 12345;
			memset(&skb, 0, sizeof(skb));
			skb.data = frame;
			skb.len = (r >> 16) % 4 ? len : (r >> 8) % (len + 1);
			r = r * 1103515245 + 12345;
			skb.nonlinear = frame_mode == FRAME_DIRECT ? (r >> 16) % (skb.len + 1) : 0;
			run(&c[k], &skb);
		}
		collect(&c[k]);
		text[k] = csv(&p[k], &c[k]);
	}
	snprintf(name, sizeof(name), "'%s'%s: fast path counts as the slow path, %d frames "
		 "(seed %u)", expr, mode_tag[frame_mode], RUNS, seed);
	if (!tap_ok(!c[0].traps && !c[1].traps && !strcmp(text[0], text[1]) &&
		     p[0].e.len != p[1].e.len, name))
		printf("#   %d, %d runs failed (%s%s); %d and %d insns; with it:\n%s#   without:\n%s",
		       c[0].traps, c[1].traps, c[0].why, c[1].why, p[0].e.len, p[1].e.len,
		       text[0], text[1]);
	for (k = 0; k < 2; k++) {
		free(text[k]);
		session_close(&c[k].s);
		program_free(&p[k]);
	}
}

static void check_fast_paths(void)
{
	static const char *const exprs[] = {
		"count by ip.proto", "count by ip.src", "count by ip.src/24, tcp.dstport",
		"count by ip.src, ip.dst, ip.proto, udp.srcport, udp.dstport",
		"count by eth.src, eth.type, ip.ttl, tcp.flags, frame.len",
		"count by icmp.type, icmp.code, ip.dst/16",
		"count by ip.src/24, tcp.dstport where tcp port 443",
		"count by ip.proto where ip[6:2] & 0x1fff = 0 and (udp or tcp[13] & 2 != 0)",
		"count by udp.dstport where udp and len > 50",
		"count by ip.src, tcp.flags where ip and tcp port 443",
		"count by ip.dst, udp.srcport where udp port 53 or arp",
	};
	size_t i;

	for (i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++)
		check_fast_slow(exprs[i], 1 + i);
}

int main(int argc, char **argv)
{
	unsigned int max_keys = 0;
	size_t i;
	int opt;

	while ((opt = getopt(argc, argv, "lm:")) != -1) {
		if (opt == 'l') {
			frame_mode = FRAME_LD_ABS;
			continue;
		}
		if (opt != 'm' || atoi(optarg) < 1 || atoi(optarg) > DEFAULT_KEYS) {
			fprintf(stderr, "usage: test_fields [-l] [-m MAX_KEYS] FILE.pcap EXPRESSION\n");
			return 2;
		}
		max_keys = atoi(optarg);
	}
	if (optind + 2 == argc)
		return helper(argv[optind], argv[optind + 1], max_keys);
	if (optind != argc) {
		fprintf(stderr, "usage: test_fields [-l] [-m MAX_KEYS] FILE.pcap EXPRESSION\n");
		return 2;
	}
	for (frame_mode = FRAME_WINDOW; frame_mode <= FRAME_DIRECT; frame_mode++) {
		for (lin = 0; lin < (frame_mode == FRAME_DIRECT ? NR_LIN : 1); lin++) {
			for (i = 0; i < sizeof(tcases) / sizeof(tcases[0]); i++)
				check_case(&tcases[i]);
			check_lengths();
		}
		check_fast_paths();
	}
	return tap_done();
}
